"""The store (rows, exports) and the report (markdown + deterministic SVG plots)."""

import csv
import json
import xml.dom.minidom
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from eqattn.atlas import Store, parse_grid, run_grid, write_report
from eqattn.atlas.store import EXPORT_COLUMNS, open_readonly
from eqattn.errors import InputError

GRID = {"time_limit": 10, "heads": [1, 2], "head_dims": [1, 2],
        "group": [{"name": "C2", "reps": ["A + B"]}, {"name": "D3", "reps": ["E1"]}]}


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("atlas")
    run_grid(parse_grid(GRID), out, workers=0, quiet=True)
    return out


def test_rows_hold_input_result_and_design(store_dir):
    with Store(store_dir / "atlas.sqlite") as s:
        rows = s.rows()
        runs = s.runs()
    assert len(rows) == 8 and len(runs) == 1 and runs[0]["computed"] == 8
    # SPEC §6-style hand check: C2, V = A + B, H = 1, d = 2 -> one head of G/C2 with W = A + B, 8 parameters
    r = next(r for r in rows if r["group_name"] == "C2" and r["heads"] == 1 and r["head_dim"] == 2)
    assert (r["status"], r["p_vanilla"], r["p_opt"], r["bound"], r["gap"]) == ("optimal", 16, 8, 8, 0.0)
    design = json.loads(r["design"])
    assert design["orbits"] == [{"subgroup": design["orbits"][0]["subgroup"], "name": "C2", "rep": "A + B", "heads": 1, "head_dim": 2}]
    assert json.loads(r["input"])["key"] == r["key"] and json.loads(r["result"])["design_params"] == 8
    assert r["engine"].startswith("eqattn ")


def test_exports(store_dir, tmp_path):
    with Store(store_dir / "atlas.sqlite") as s:
        c = s.export("csv", tmp_path / "a.csv")
        p = s.export("parquet", tmp_path / "a.parquet")
        with pytest.raises(InputError):
            s.export("xlsx", tmp_path / "a.xlsx")
        rows = s.rows(EXPORT_COLUMNS)
    got = list(csv.DictReader(open(c)))
    assert [r["key"] for r in got] == [r["key"] for r in rows] and list(got[0]) == list(EXPORT_COLUMNS)
    table = pq.read_table(p).to_pylist()
    assert table == rows


def test_open_readonly(store_dir, tmp_path):
    db = open_readonly(store_dir / "atlas.sqlite")
    assert db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 8
    with pytest.raises(Exception):
        db.execute("DELETE FROM results")
    db.close()
    with pytest.raises(InputError, match="no atlas store"):
        open_readonly(tmp_path / "none.sqlite")
    (tmp_path / "x.sqlite").write_bytes(b"")
    with pytest.raises(InputError, match="not an atlas store"):
        open_readonly(tmp_path / "x.sqlite")


def test_report(store_dir, tmp_path):
    md = write_report(store_dir / "atlas.sqlite", tmp_path / "atlas.md", title="T")
    text = md.read_text()
    assert text.startswith("# T\n")
    assert "* problems: 8; optimal: 8; feasible (time limit): 0; refused: 0; errors: 0" in text
    assert "### C2" in text and "### D3" in text
    assert "| A + B | 1 | 2 | 16 | 8 | 0.500 | optimal | 1 | 1x2 | C2:A + B |" in text
    svgs = sorted((tmp_path / "atlas-plots").glob("*.svg"))
    assert [p.name for p in svgs] == ["constrained.svg", "ratio.svg", "time.svg"]
    first = {p.name: p.read_bytes() for p in svgs}
    for p in svgs:
        xml.dom.minidom.parseString(first[p.name])  # well-formed
        assert f"(atlas-plots/{p.name})" in text
    write_report(store_dir / "atlas.sqlite", tmp_path / "atlas.md", title="T")
    assert {p.name: p.read_bytes() for p in svgs} == first  # deterministic
