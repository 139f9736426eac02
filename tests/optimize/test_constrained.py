"""Constrained optima and infeasibility (max_heads, max_head_dim, max_cost; theory-scale O2,
O19) against the exhaustive reference (brute_force.py: every design within the budget
listed and checked by the coverage checker), for both engines; and the cost certificate."""

from __future__ import annotations

import pytest

from brute_force import BruteForce, Budget
from eqattn.attention import Problem
from eqattn.errors import InputError
from eqattn.optimize import optimize
from eqattn.optimize.limits import ComputeLimits, cost_lower_bound, params_per_cost, uniform_ratio

CASES = [
    ("C4", "E1", 2, 1, [(None, None, 1), (None, None, 2), (2, 1, None), (1, None, 3)]),
    ("C2", "A + B", 1, 1, [(1, 1, None), (1, 2, None), (None, None, 2), (None, None, 1)]),
    ("C4", "regular", 2, 2, [(None, None, 8), (None, None, 12), (4, 2, None), (None, 1, 10)]),
    ("D3", "E1", 2, 2, [(None, None, 3), (None, None, 4), (3, 2, 6), (2, None, None)]),
    ("C2xC2", "A.A + B.B", 2, 1, [(None, None, 2), (None, None, 3), (2, 1, None)]),
]


@pytest.mark.parametrize("group, rep, heads, head_dim, budgets", CASES, ids=lambda c: str(c) if not isinstance(c, list) else "")
def test_constrained_optima_equal_the_brute_force(group, rep, heads, head_dim, budgets):
    p = Problem.create(group, rep, heads, head_dim)
    bf = BruteForce(p)
    for mh, md, mc in budgets:
        ref = bf.optimum(Budget(max_heads=mh, max_head_dim=md, max_cost=mc))
        for engine in ("enumerate", "symbolic"):
            r = optimize(p, 60, constrained=False, engine=engine, max_heads=mh, max_head_dim=md, max_cost=mc)
            assert r.status == ref.status, (engine, mh, md, mc, r.status, ref.status, r.notes)
            assert r.design_params == ref.params, (engine, mh, md, mc)
            if r.design is not None:
                assert ComputeLimits(mh, md, mc).admits(r.design)
            else:
                assert r.reason, "an infeasible answer says why in one line"


def test_params_are_four_m_times_the_attention_cost_for_m_regular():
    """theory-scale O19: for V = m × regular every orbit has 4m parameters per unit of
    attention cost, so the fewest-parameter design is the least-cost one: brute force."""
    for group, rep, m, H, d in [("C4", "regular", 1, 2, 1), ("D3", "regular", 1, 2, 1), ("C2", "2xregular", 2, 1, 2)]:
        p = Problem.create(group, rep, H, d)
        assert uniform_ratio(p) == params_per_cost(p) == 4 * m
        bf = BruteForce(p)
        best = bf.optimum(Budget())
        assert best.params == 4 * m * best.attention_cost
        assert bf.least_widening().min_attention_cost == best.attention_cost
        r = optimize(p, 60, objective="attention_cost")
        assert r.attention_cost == best.attention_cost and r.attention_cost_lower_bound == best.attention_cost


def test_cost_lower_bound_is_valid_for_other_v():
    """ρ bounds the parameters per unit of cost of every orbit: the least attention cost of
    a covering design is at least ⌈P_opt / ρ⌉ (brute force, V not a multiple of regular)."""
    for group, rep, H, d in [("C4", "E1", 2, 1), ("C2", "A + B", 1, 1), ("D3", "A1 + E1", 2, 2), ("C3", "A + E1", 2, 2)]:
        p = Problem.create(group, rep, H, d)
        bf = BruteForce(p)
        assert cost_lower_bound(p, bf.optimum(Budget()).params) <= bf.least_widening().min_attention_cost


def test_attention_cost_objective_is_refused_where_it_is_not_the_parameter_count():
    with pytest.raises(InputError) as e:
        optimize(Problem.create("C4", "E1", 2, 1), 10, objective="attention_cost")
    assert e.value.field == "objective" and "max_cost" in e.value.message
    with pytest.raises(InputError):
        optimize(Problem.create("C4", "E1", 2, 1), 10, objective="flops")


def test_an_infeasible_answer_says_why_in_one_line():
    """C4, 2×regular, H = 4, d = 2: every covering design costs at least 224 / 8 = 28 (the
    optimum 224, O19 with ρ = 8); a budget of 20 is infeasible, said in one line."""
    p = Problem.create("C4", "2xregular", 4, 2)
    for engine in ("symbolic", "enumerate"):
        r = optimize(p, 60, engine=engine, max_cost=20)
        assert r.status == "infeasible" and r.design is None and r.stopped_by is None
        assert r.reason and "\n" not in r.reason and r.to_json()["reason"] == r.reason
