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


def test_one_orbit_limit_for_core_api_and_optimiser_answers():
    """MAX_DESIGN_ORBITS is the core's limit and the API's (one definition); a design at the
    limit, with many orbit types, round-trips, and so does an optimiser answer (the optimiser
    builds its designs directly, so its JSON must read back through the same door)."""
    from eqattn.api.models import DesignIn
    from eqattn.attention.design import MAX_DESIGN_ORBITS
    from eqattn.optimize import optimize

    assert DesignIn.model_fields["orbits"].metadata[0].max_length == MAX_DESIGN_ORBITS
    p = Problem.create("Oh", "T1u + A1g", 2, 2)
    subs = p.group.subgroup_classes
    orbits = [(subs[i % len(subs)].id, "trivial" if i % 2 else "regular") for i in range(MAX_DESIGN_ORBITS)]
    big = Design.create(p, orbits)
    assert Design.from_json(p, big.to_json()).orbits == big.orbits
    with pytest.raises(InputError, match=f"at most {MAX_DESIGN_ORBITS}"):
        Design.create(p, orbits + orbits[:1])
    answer = optimize(Problem.create("D4", "regular", 2, 2), time_limit=30).design
    assert Design.from_json(answer.problem, answer.to_json()).orbits == answer.orbits
