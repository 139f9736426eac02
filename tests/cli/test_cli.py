"""The command line: output, --json shapes, and one clear line with exit 2 on bad input."""

import json

import pytest

from eqattn.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_group_json(capsys):
    code, out, _ = run(capsys, "group", "S4", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["name"] == "S4" and data["order"] == 24
    assert len(data["subgroups"]) == 11
    assert {"id", "name", "order", "index"} <= set(data["subgroups"][0])
    assert {i["type"] for i in data["irreps"]} <= {"real", "complex", "quaternionic"}
    assert sorted(i["dim"] for i in data["irreps"]) == [1, 1, 2, 3, 3]


def test_group_text(capsys):
    code, out, _ = run(capsys, "group", "Q8")
    assert code == 0 and "quaternionic" in out and "C4.3" in out


def test_groups_lists_catalog(capsys):
    code, out, _ = run(capsys, "groups", "--json")
    names = [e["name"] for e in json.loads(out)]
    assert code == 0 and "S4" in names and "Oh" in names


def test_clusterings(capsys):
    code, out, _ = run(capsys, "clusterings", "--group", "C4", "--rep", "E1", "--heads", "2", "--head-dim", "1", "--json")
    data = json.loads(out)
    assert code == 0 and data["vanilla_params"] == 16 and data["count"] == 3


def test_check_example_2(capsys):
    code, out, _ = run(capsys, "check", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--orbit", "C2:B", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["vanilla_params"], data["design_params"], data["covered"], data["total"]) == (16, 8, 3, 3)
    for c in data["clusterings"]:
        assert c["covered"] and c["witness"] is not None and c["counterexample"] is None
        assert {"subgroup", "order", "index", "cluster_size"} <= set(c["orbits"][0])


def test_check_counterexample_text(capsys):
    code, out, _ = run(capsys, "check", "-G", "C2", "-V", "A+B", "-H", "1", "-d", "1", "-o", "C2:A", "-o", "C2:B")
    assert code == 1 and "NOT covered" in out and "lacks B" in out  # 1: "not covered" (README exit statuses)


def test_verify(capsys):
    code, out, _ = run(capsys, "verify", "-G", "D3", "-V", "regular", "-H", "2", "-d", "1", "-o", "C1:A", "-o", "C1:A", "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] and data["worst_rel_error"] < 1e-8


@pytest.mark.parametrize(
    "argv, field",
    [
        (["group", "Z9"], "group"),
        (["group", "perm:(1,2"], "group"),
        (["clusterings", "-G", "C4", "-V", "E7", "-H", "2", "-d", "1"], "rep"),
        (["clusterings", "-G", "C4", "--rep=-1xA", "-H", "2", "-d", "1"], "rep"),
        (["clusterings", "-G", "C4", "-V", "E1", "-H", "0", "-d", "1"], "heads"),
        (["clusterings", "-G", "C4", "-V", "E1", "-H", "2", "-d", "-3"], "head_dim"),
        (["clusterings", "-G", "C4", "-V", "E1", "-H", "two", "-d", "1"], "heads"),
        (["check", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "-o", "C7:A"], "orbits[0].subgroup"),
        (["check", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "-o", "C2:E1"], "orbits[0].rep"),
        (["check", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "-o", "C2B"], "orbits[0]"),
        (["clusterings", "-G", "S4", "-V", "regular", "-H", "64", "-d", "1"], "heads"),
        (["clusterings", "-G", "perm:(1,2,3,4,5,6,7),(1,2)", "-V", "trivial", "-H", "1", "-d", "1"], "group"),
    ],
)
def test_bad_input_exit_2(capsys, argv, field):
    code, out, err = run(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}:")
    assert "Traceback" not in err


def test_optimize_text_prints_the_notes(capsys):
    """The symbolic engine with H = 8 is seeded by H = 4 (theory-scale O16): the text output
    says so, as the JSON's `notes` do."""
    code, out, _ = run(capsys, "optimize", "-G", "C4", "-V", "regular", "-H", "8", "-d", "1", "--engine", "symbolic")
    assert code == 0 and "optimal design: 96 parameters (proven optimal" in out
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert any("seeded by the search of H = 4 heads" in n for n in notes)
    code, out, _ = run(capsys, "optimize", "-G", "C4", "-V", "regular", "-H", "8", "-d", "1", "--engine", "symbolic", "--json")
    assert [f"note: {n}" for n in json.loads(out)["notes"]] == notes


def test_optimize_text_says_when_representatives_were_checked(capsys, monkeypatch):
    """Past the list of clusterings the re-check runs over representatives (theory-scale C7):
    the text says how many stood for how many, the JSON carries both counts."""
    from eqattn.optimize import finish as finish_module
    from eqattn.optimize import oracle as oracle_module
    from eqattn.attention import symbolic as symbolic_module

    argv = ("optimize", "-G", "C4", "-V", "2xregular", "-H", "4", "-d", "2", "--engine", "symbolic")
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "re-checked: coverage of all 10 clusterings" in out
    for mod in (oracle_module, finish_module, symbolic_module):
        monkeypatch.setattr(mod, "MAX_CLUSTERINGS", 3)
    code, out, _ = run(capsys, *argv, "--json")
    v = json.loads(out)["verified"]
    assert v["of_clusterings"] == 10 and 0 < v["clusterings"] < 10
    code, out, _ = run(capsys, *argv)
    assert f"re-checked: coverage of {v['clusterings']} representative clusterings, for all 10" in out
