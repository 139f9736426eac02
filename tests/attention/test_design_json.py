"""Design.to_json / Design.from_json: one JSON per design, read back by every layer."""

from __future__ import annotations

import pytest

from eqattn.attention import Design, Problem, check_report
from eqattn.errors import InputError


@pytest.mark.parametrize(
    "group, rep, heads, d, orbits",
    [("C4", "E1", 2, 1, [("C2", "B")]), ("D3", "A1 + E1", 3, 2, [(0, "2xA"), ("C3", "E1")]), ("C2xC2", "regular", 2, 1, [])],
)
def test_round_trip(group, rep, heads, d, orbits):
    p = Problem.create(group, rep, heads, d)
    design = Design.create(p, orbits)
    data = design.to_json()
    back = Design.from_json(p, data)
    assert back.orbits == design.orbits
    assert back.to_json() == data
    assert data["params"] == design.params == sum(o["params"] for o in data["orbits"])
    assert data["heads"] == design.heads


def test_shape():
    p = Problem.create("C4", "E1", 2, 1)
    assert Design.create(p, [("C2", "B")]).to_json() == {
        "params": 8,
        "heads": 2,
        "orbits": [{"subgroup": 1, "name": "C2", "rep": "B", "heads": 2, "head_dim": 1, "params": 8}],
    }
    # the coverage report carries the same JSON
    assert check_report(p, Design.create(p, [("C2", "B")]))["design"] == Design.create(p, [("C2", "B")]).to_json()


@pytest.mark.parametrize(
    "data, field",
    [(None, "orbits"), ({"orbits": "C2:B"}, "orbits"), ({"orbits": [{"rep": "B"}]}, "orbits[0]"),
     ({"orbits": [{"subgroup": "C9", "rep": "B"}]}, "orbits[0].subgroup"), ({"orbits": [{"subgroup": 1, "rep": "Q"}]}, "orbits[0].rep")],
)
def test_bad_json(data, field):
    p = Problem.create("C4", "E1", 2, 1)
    with pytest.raises(InputError) as e:
        Design.from_json(p, data)
    assert e.value.field == field
