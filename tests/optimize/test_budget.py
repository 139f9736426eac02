"""The budget answers' own facts: the m x regular identity, infeasibility reasons, the
facade's status, the curve, and the regression of the constrained D4 run."""

from __future__ import annotations

import pytest

import eqattn
from eqattn.attention import Design, Problem
from eqattn.optimize import front, optimize
from eqattn.optimize.budgeted import attention_cost
from eqattn.optimize.partial import coverage_curve
from eqattn.optimize.widening import uniform_params_per_cost
from eqattn.optimize.within import optimize_within


@pytest.mark.parametrize("g,m", [("C4", 3), ("D4", 2), ("S3", 1)])
def test_m_regular_identity_every_type(g, m):
    # dim Hom_K(m x regular, W) = m [G:K] dim W for every orbit type: params = 4m x cost
    p = Problem.create(g, f"{m}xregular", 1, 1)
    assert uniform_params_per_cost(p) == 4 * m
    for K in p.group.subgroup_classes:
        for text in ("trivial", "regular"):
            d = Design.create(p, [(K.id, text)])
            assert d.params == 4 * m * attention_cost(d), (K.name, text)


def test_cost_budget_below_the_least_widening_is_infeasible_with_reason():
    w = optimize_within(Problem.create("D4", "regular", 1, 2), 30, max_cost=2)
    assert w.status == "infeasible" and w.design is None and w.lower_bound is None
    assert w.reason and "\n" not in w.reason


def test_facade_status_and_no_design():
    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "E1"), heads=2, head_dim=1)
    d = eqattn.optimal_design(prob, 20)
    assert isinstance(d, eqattn.Design) and d.proven and d.status == "optimal" and d.gap == 0.0 and d.lower_bound == 8
    d = eqattn.optimal_design(prob, 20, max_heads=2, max_head_dim=1, max_cost=2)
    assert d.params == 8 and d.proven and d.heads <= 2
    with pytest.raises(eqattn.NoDesign) as e:
        eqattn.optimal_design(prob, 20, max_heads=1)
    assert e.value.status == "infeasible" and e.value.reason
    with pytest.raises(eqattn.errors.InputError):
        eqattn.optimal_design(prob, 20, max_cost=0)


def test_facade_unproven_says_so(monkeypatch):
    # a work limit of one solver node stops C4 2 x regular H = 2 d = 2 before the proof: the
    # design is returned (it covers) and says it is not proven, with a valid bound
    import eqattn.optimize.optimizer as opt

    real = opt.optimize
    monkeypatch.setattr(opt, "optimize", lambda *a, **kw: real(*a, work_limit=1, **kw))
    G = eqattn.group("C4")
    d = eqattn.optimal_design(eqattn.Problem(G, eqattn.rep(G, "2xregular"), heads=2, head_dim=2), 20)
    assert d.covers() and not d.proven and d.status == "feasible"
    assert 0 < d.lower_bound < d.params and d.gap == (d.params - d.lower_bound) / d.params
    monkeypatch.setattr(opt, "optimize", real)
    assert eqattn.optimal_design(d.problem, 30).params <= d.params


def test_curve_is_monotone_and_reaches_everything():
    p = Problem.create("D4", "E1", 2, 2)
    pts = coverage_curve(p, [4, 6, 8, 10], 240)
    covered = [q.covered for q in pts]
    assert covered == sorted(covered) and covered[-1] == 5  # the least widening (10) covers all
    assert all(q.status == "optimal" and q.attention_cost <= q.max_cost for q in pts)


def test_least_bound_with_the_optimiser_matches_the_budget_program():
    # the route the head questions take past the budget program's sizes, on a small problem
    # whose answers the exhaustive reference gives: S3 regular H = 2 d = 1 needs 8 heads at
    # head dim 1, and no design with 2 heads covers at any head dim
    from eqattn.optimize.widening import least_bound

    p = Problem.create("S3", "regular", 2, 1)
    h = least_bound(p, 0, 12, lambda x: {"max_heads": x, "max_head_dim": 1}, lambda a: a.heads, 60)
    assert (h.value, h.status, h.lower_bound) == (8, "optimal", 8)
    dim = least_bound(p, 0, 6, lambda x: {"max_heads": 2, "max_head_dim": x}, lambda a: 0, 60)
    assert dim.status == "infeasible" and dim.value is None


@pytest.mark.parametrize("spec", [("C2", "2xA+B", 2, 2), ("C4", "B+E1", 2, 1), ("S3", "regular", 2, 1), ("C2", "A + B", 2, 2)])
def test_front_past_the_budget_program_gives_its_ends(monkeypatch, spec):
    # where the budget program refuses (symbolic sizes), the front's two ends come from the
    # optimiser (the least cost by the search priced by cost, theory-scale B5b); simulated on
    # small problems whose exhaustive front (brute_force.py) is one point: the same point, proven
    import importlib

    from brute_force import BruteForce

    from eqattn.errors import LimitError

    fr = importlib.import_module("eqattn.optimize.front")  # the module (eqattn.optimize.front is the function)

    def refuse(*a, **kw):
        raise LimitError("partial", "too large")

    monkeypatch.setattr(fr, "BudgetProgram", refuse)
    p = Problem.create(*spec)
    ref = [(b.attention_cost, b.params) for b in BruteForce(p).front()]
    f = fr.front(p, 30)
    assert len(ref) == 1 and f.status == "optimal" and f.single
    assert [(attention_cost(q.design), q.design.params, q.lower_bound, q.status) for q in f.points] == [(*ref[0], ref[0][1], "optimal")]


def test_front_ends_past_the_budget_program():
    """Oh, 8xvector + 8xtrivial, H4 d9 (dim V 32: past the budget program): two ends, the
    least cost first (cost proven by the priced search) and the fewest-parameter design last;
    strictly increasing cost, strictly decreasing parameters, bounds valid."""
    from eqattn.optimize.widening import cost_search

    p = Problem.create("Oh", "8xvector + 8xtrivial", 4, 9)
    f = front(p, 40)
    least, _ = cost_search(p, 30)
    assert least.status == "optimal"
    assert f.status == "feasible" and not f.single and len(f.points) == 2 and "not searched" in f.reason
    (c1, p1), (c2, p2) = [(attention_cost(q.design), q.design.params) for q in f.points]
    assert c1 == least.value < c2 and p1 > p2
    assert all(q.lower_bound is None or q.lower_bound <= q.design.params for q in f.points)
    assert f.points[1].status == "optimal" and f.points[1].lower_bound == p2 == optimize(p, 30, constrained=False).design_params
