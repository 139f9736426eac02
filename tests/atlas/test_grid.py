"""Grid files: expansion, normalisation, keys, and one clear error per bad key."""

import csv
from pathlib import Path

import pytest

from eqattn.atlas.grid import MAX_PROBLEMS, load_grid, parse_grid, problem_key
from eqattn.errors import InputError, LimitError

ROOT = Path(__file__).resolve().parents[2]


def grid(**kw):
    data = {"group": [{"name": "C4", "reps": ["E1"]}], "heads": [1, 2], "head_dims": [1, 2]}
    data.update(kw)
    return parse_grid(data)


def test_expansion_order_and_normalisation():
    g = parse_grid({"group": [{"name": "C3", "reps": ["regular"]}, {"name": "D4", "reps": ["irreps>=2"], "heads": [3]}],
                    "heads": [1, 2], "head_dims": [4, 1]})
    got = [(p.group, p.rep_input, p.rep, p.dim_v, p.heads, p.head_dim) for p in g.problems]
    assert got == [
        ("C3", "regular", "A + E1", 3, 1, 4), ("C3", "regular", "A + E1", 3, 1, 1),
        ("C3", "regular", "A + E1", 3, 2, 4), ("C3", "regular", "A + E1", 3, 2, 1),
        ("D4", "E1", "E1", 2, 3, 4), ("D4", "E1", "E1", 2, 3, 1),
    ]
    assert [p.position for p in g.problems] == list(range(6))
    assert all(p.time_limit == 30.0 and p.solver == "highs" for p in g.problems)


def test_duplicates_kept_once_and_keys_depend_on_every_input():
    g = parse_grid({"group": [{"name": "C3", "reps": ["regular", "A + E1", "E1 + A"]}], "heads": [2], "head_dims": [1]})
    assert len(g.problems) == 1
    base = grid().problems[0]
    keys = {base.key}
    for kw in ({"time_limit": 5}, {"head_dims": [3]}, {"heads": [4]},
               {"group": [{"name": "C4", "reps": ["2xE1"]}]}, {"group": [{"name": "C8", "reps": ["E1"]}]}):
        keys.add(grid(**kw).problems[0].key)
    assert len(keys) == 6
    assert problem_key(base.normalised(), base.engine) == base.key
    assert problem_key({**base.normalised(), "solver": "other"}, base.engine) != base.key
    assert problem_key(base.normalised(), base.engine + "x") != base.key
    assert grid().problems[0].key == base.key  # stable


def test_dim_v_over_h():
    g = parse_grid({"group": [{"name": "Q8", "reps": ["regular"]}], "heads": [1, 2, 3, 8, 16], "head_dims": "dim V / H"})
    assert [(p.heads, p.head_dim) for p in g.problems] == [(1, 8), (2, 4), (8, 1)]
    assert g.left_out == 2


@pytest.mark.parametrize(
    "data, field",
    [
        ({"group": [{"name": "C4", "reps": ["E1"]}], "bogus": 1}, "bogus"),
        ({"group": [{"name": "C4", "reps": ["E1"]}], "solver": "gurobi"}, "solver"),
        ({"group": [{"name": "C4", "reps": ["E1"]}], "time_limit": -1}, "time_limit"),
        ({"group": [{"name": "C4", "reps": ["E1"]}], "heads": [0]}, "heads"),
        ({"group": [{"name": "C4", "reps": ["E1"]}], "head_dims": "dim V"}, "head_dims"),
        ({"group": [{"name": "C4", "reps": ["E7"]}]}, "group[0].reps[0]"),
        ({"group": [{"name": "C4", "reps": ["0"]}]}, "group[0].reps[0]"),
        ({"group": [{"name": "Nope", "reps": ["E1"]}]}, "group[0].name"),
        ({"group": [{"name": "C4", "reps": []}]}, "group[0].reps"),
        ({"group": [{"name": "C4", "reps": ["E1"], "colour": 1}]}, "group[0].colour"),
        ({}, "group"),
    ],
)
def test_bad_grid_names_the_key(data, field):
    with pytest.raises(InputError) as e:
        parse_grid(data)
    assert e.value.field == field and e.value.message


def test_size_limit():
    with pytest.raises(LimitError) as e:
        parse_grid({"group": [{"name": "C2", "reps": ["regular", "A + B"] * 4}], "heads": list(range(1, 65)), "head_dims": list(range(1, 257))})
    assert str(MAX_PROBLEMS) in e.value.message


def test_bad_files(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        load_grid(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("heads = [1,\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_grid(tmp_path / "bad.toml")


def test_default_grid_is_the_grid_of_docs_atlas():
    """examples/atlas-default.toml expands to exactly the 1905 problems of the former
    benchmarks/atlas.py (data/default_grid.csv: the group, rep, V, H, d columns of its
    docs/atlas.csv): the same problems in the same order, duplicates (C2's and C3's regular
    representation also listed as A + B, A + E1) solved once."""
    g = load_grid(ROOT / "examples" / "atlas-default.toml")
    old = list(csv.DictReader(open(ROOT / "tests" / "atlas" / "data" / "default_grid.csv")))
    assert len(old) == 1905
    want = []
    for r in old:
        k = (r["group"], r["V"], int(r["H"]), int(r["d"]))
        if k not in want:
            want.append(k)
    assert [(p.group, p.rep, p.heads, p.head_dim) for p in g.problems] == want
    assert len(g.problems) == 1875
    first = {}
    for r in old:
        first.setdefault((r["group"], r["V"], int(r["H"]), int(r["d"])), r["rep"])
    assert [p.rep_input for p in g.problems] == [first[k] for k in want]
