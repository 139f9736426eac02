"""Re-running some models into a task's CSV (the default, without --replace) keeps the other
rows and the earlier run's command and budget, and the page says which rows were re-run."""

from __future__ import annotations

import csv
import json

from benchmarks.tasks import digits, report


def test_rerun_keeps_rows_and_first_command(tmp_path):
    out = tmp_path / "digits.csv"
    common = ["--quick", "--epochs", "1", "--groups", "C4", "--out", str(out)]
    digits.main([*common, "--models", "vanilla,eqattn-regular"])
    first = json.loads(out.with_suffix(".json").read_text())
    assert "reruns" not in first
    digits.main([*common, "--models", "eqattn-regular"])
    info = json.loads(out.with_suffix(".json").read_text())
    assert info["command"] == first["command"] and "--models vanilla,eqattn-regular" in info["command"]
    (rerun,) = info["reruns"]
    assert rerun["same_budget"] is True and rerun["command"].endswith("--models eqattn-regular")
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert sorted(r["model"] for r in rows) == ["eqattn-regular", "vanilla"]
    page = tmp_path / "tasks.md"
    report.main(["--dir", str(tmp_path), "--page", str(page)])
    text = page.read_text()
    assert "Rows re-run into this table: `PYTHONPATH=. .venv/bin/python benchmarks/tasks/digits.py" in text
    assert "the same budget" in text
    # --replace writes only its own rows: a new first run, no reruns
    digits.main([*common, "--models", "vanilla", "--replace"])
    assert "reruns" not in json.loads(out.with_suffix(".json").read_text())
