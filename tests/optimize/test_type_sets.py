"""The capped types of a program (eqattn/optimize/type_sets.py, docs/theory-scale.md O2):
`design_types` lists every capped type within the cost cap and the compute limits that hosts
some demand, and a problem past the type limits is refused after counting, before any type
is made (the partial coverage's searches ask this once per pass of each search)."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Problem
from eqattn.attention.hosting import hosting
from eqattn.errors import LimitError
from eqattn.optimize import type_sets
from eqattn.optimize.head_types import TypeTable
from eqattn.optimize.hosts import box
from eqattn.optimize.separation import ScenarioSpace
from eqattn.optimize.type_sets import capped_subgroups, design_types


@pytest.mark.parametrize(
    "spec, max_cost, max_heads, max_head_dim",
    [
        (("D4", "regular", 2, 2), None, None, None),
        (("D4", "regular", 2, 2), 24, 4, 2),
        (("C4", "2xregular", 4, 2), None, 8, 3),
        (("S3", "[3] + 2x[2,1]", 3, 1), 20, None, 1),
    ],
)
def test_design_types_are_the_capped_types_within_the_limits_that_host_a_demand(spec, max_cost, max_heads, max_head_dim):
    p = Problem.create(*spec)
    space = ScenarioSpace(p)
    h = hosting(p)
    cap_cost = p.vanilla_params if max_cost is None else max_cost
    table = design_types(p, space, h, cap_cost, max_heads=max_heads, max_head_dim=max_head_dim)
    # every capped type within the limits, one by one
    every = []
    for K, cap, units, dims in capped_subgroups(p, space, h, max_heads):
        for W in box(np.zeros(len(cap), dtype=np.int64), cap):
            cost, dim = 4 * int(W @ units), int(W @ dims)
            if 0 < cost <= cap_cost and (max_head_dim is None or dim <= max_head_dim):
                every.append((K.id, tuple(int(x) for x in W), cost, K.index, dim))
    assert every, "the case has capped types"
    full = TypeTable(p, space, h, [type_sets.HeadType(*t) for t in every])
    hosts = full.hostable().any(axis=0)
    expected = [t for t, ok in zip(every, hosts) if ok]
    got = [(t.sub, t.W, t.cost, t.heads, t.dim) for t in table.types]
    assert got == expected
    assert len(expected) < len(every) or max_cost is not None  # (the host filter is exercised somewhere)
    assert all(t.cost <= cap_cost for t in table.types)
    if max_head_dim is not None:
        assert all(t.dim <= max_head_dim for t in table.types)
    if max_heads is not None:
        assert all(t.heads <= max_heads for t in table.types)


def test_a_problem_past_the_type_limit_is_refused_before_any_type_is_made(monkeypatch):
    p = Problem.create("C4", "2xregular", 4, 2)
    space = ScenarioSpace(p)
    h = hosting(p)
    n = len(design_types(p, space, h, p.vanilla_params).types)
    made = []

    class Counted(type_sets.HeadType):
        def __init__(self, *a, **k) -> None:
            made.append(1)
            super().__init__(*a, **k)

    monkeypatch.setattr(type_sets, "HeadType", Counted)
    monkeypatch.setattr(type_sets, "MAX_TYPES", 2)  # 3 * 2 = 6 types at most before the host filter
    with pytest.raises(LimitError) as e:
        design_types(p, space, h, p.vanilla_params)
    assert e.value.field == "rep" and "over 6 head representations" in e.value.message
    assert made == []  # counted, not made
    monkeypatch.setattr(type_sets, "MAX_TYPES", 10_000)
    with pytest.raises(LimitError) as e:  # the caller's own limit (the capped round's FULL_TYPES), on the useful types
        design_types(p, space, h, p.vanilla_params, max_types=n - 1)
    assert e.value.field == "rep" and f"{n} capped types" in e.value.message and made == []
    assert len(design_types(p, space, h, p.vanilla_params, max_types=n).types) == n
    assert len(design_types(p, space, h, p.vanilla_params).types) == n and len(made) == 2 * n


def test_a_setup_past_its_deadline_is_refused_with_the_heads_line():
    """`design_types` past `setup_deadline` (the enumerated engine's set-up share): the
    user-facing "heads" refusal naming the types and demand values, before any type is made."""
    import time

    p = Problem.create("C4", "2xregular", 4, 2)
    space = ScenarioSpace(p)
    with pytest.raises(LimitError) as e:
        design_types(p, space, hosting(p), p.vanilla_params, setup_deadline=time.perf_counter() - 1)
    assert e.value.field == "heads"
    assert f"x {len(space.values)} demand values) takes longer than the time limit allows" in e.value.message


def test_the_capped_round_asks_for_no_table_once_pricing_comes_first(monkeypatch):
    """`CappedTypesRound` with "price first" decided (and not the full program) goes to the
    restricted rounds without listing the capped types (it used to build the table, then
    refuse it)."""
    from eqattn.optimize.budget import Budget
    from eqattn.optimize.rounds import capped
    from eqattn.optimize.search import new_state

    p = Problem.create("C4", "2xregular", 4, 2)
    state = new_state(p, Budget.starting(30))
    state.price_first = True
    monkeypatch.setattr(capped, "design_types", lambda *a, **k: pytest.fail("the table was listed"))
    out = capped.CappedTypesRound().run(state)
    assert out.action == "next" and state.restricted and state.table is None
    state.full = True  # the program over every capped type: listed
    monkeypatch.setattr(capped, "design_types", lambda *a, **k: "table")
    capped.CappedTypesRound().run(state)
    assert state.table == "table" and not state.restricted
