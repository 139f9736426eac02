"""`eqattn front`, `eqattn widening`, `eqattn optimize --partial` (JSON and text, bad input)."""

from __future__ import annotations

import json

from eqattn.cli.main import main


def test_front_json(capsys):
    assert main(["front", "-G", "C2", "-V", "2xA + B", "-H", "2", "-d", "2", "--time-limit", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # the exhaustive reference (brute_force.py) gives one point: cost 7, 44 parameters
    assert [(p["attention_cost"], p["design_params"]) for p in data["points"]] == [(7, 44)]
    assert data["vanilla_params"] == 48 and data["vanilla_attention_cost"] == 4 and data["status"] == "optimal"


def test_front_text_says_single_point(capsys):
    assert main(["front", "-G", "C4", "-V", "regular", "-H", "2", "-d", "1"]) == 0
    out = capsys.readouterr().out
    assert "single point" in out and "4 x attention cost" in out


def test_widening_text(capsys):
    assert main(["widening", "-G", "S3", "-V", "regular", "-H", "2", "-d", "1", "-t", "20"]) == 0
    out = capsys.readouterr().out
    assert "attention cost >= 6" in out and "none covers" in out


def test_optimize_partial_json(capsys):
    argv = ["optimize", "-G", "D4", "-V", "E1", "-H", "2", "-d", "2", "--max-heads", "2", "--max-head-dim", "2", "--partial", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    part = data["partial"]
    # brute_force.py: at (H, d) = (2, 2) the best design covers 2 of the 5 clusterings, with 8 parameters
    assert (part["covered"], part["of"], part["status"], part["upper_bound"]) == (2, 5, "optimal", 2)
    assert len(part["uncovered"]) == 3 and data["design_params"] == 8 and data["heads_total"] <= 2


def test_bad_budget_is_one_line(capsys):
    assert main(["optimize", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--partial", "--max-cost", "zero"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: max_cost:") and err.count("\n") == 1
    assert main(["optimize", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--partial"]) == 2
    assert capsys.readouterr().err.startswith("error: partial:")
    assert main(["front", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "-t", "-3"]) == 2
    assert capsys.readouterr().err.startswith("error: time_limit:")


def test_optimize_partial_past_the_budget_program(capsys):
    """D4, 4 x regular (dim V 32), H 2, d 16 within attention cost 32: the subset searches
    under a work limit; the count and parameters proven (one orbit, the whole V|D4)."""
    argv = ["optimize", "-G", "D4", "-V", "4xregular", "-H", "2", "-d", "16", "--max-cost", "32", "--partial",
            "--work-limit", "200", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    part = data["partial"]
    assert (part["covered"], part["of"], part["status"], part["upper_bound"], part["engine"]) == (1, 5, "optimal", 1, "search")
    assert part["params_proven"] and data["design_params"] == 512 and data["attention_cost"] <= 32


def test_optimize_partial_takes_the_engine(capsys):
    """`--engine program|search` with `--partial` is partial_coverage's `engine` (the JSON
    field of the same name says which ran); the checker's engines are refused there, and the
    partial engines without --partial, in one line each naming the field."""
    base = ["optimize", "-G", "D4", "-V", "E1", "-H", "2", "-d", "2", "--max-heads", "2", "--max-head-dim", "2", "--partial", "--json"]
    for engine in ("program", "search"):
        assert main(base + ["--engine", engine]) == 0
        part = json.loads(capsys.readouterr().out)["partial"]
        assert (part["engine"], part["covered"], part["of"], part["status"]) == (engine, 2, 5, "optimal")
    assert main(base + ["--engine", "search", "--work-limit", "1"]) == 0
    part = json.loads(capsys.readouterr().out)["partial"]
    assert (part["stopped_by"], part["status"]) == ("work_limit", "feasible")
    assert main(base + ["--engine", "symbolic"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: engine:") and "with --partial: one of auto, program, search (got symbolic" in err and len(err.strip().splitlines()) == 1
    assert main(["optimize", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--engine", "search"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: engine:") and "without it: one of auto, enumerate, symbolic" in err and len(err.strip().splitlines()) == 1
