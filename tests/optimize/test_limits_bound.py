"""The LP bound in heads and in attention cost (lp_bound objective, measure_bound.py), the
limits round and the ceiling of the compute limits (rounds/limits_bound.py, search.py), the
least-widening routes past the budget program (widening.heads_by_bisection,
head_dim_by_bisection), and infeasible answers without a bound: against the exhaustive
reference brute_force.py on small problems (docs/theory-scale.md O19d)."""

import re

import pytest
from brute_force import BruteForce, Budget

from eqattn.attention import Problem
from eqattn.optimize import optimize
from eqattn.optimize.measure_bound import measure_bound
from eqattn.attention import Design
from eqattn.optimize.widening import Extent, head_dim_by_bisection, heads_by_bisection, least_widening, resume

SMALL = [("S3", "regular", 2, 1), ("D4", "A1+E1", 1, 2), ("C2", "2xA+B", 2, 2), ("C4", "regular", 2, 2), ("C4", "B+E1", 2, 1)]


@pytest.fixture(scope="module")
def refs():
    return {s: BruteForce(Problem.create(*s)) for s in SMALL}


@pytest.mark.parametrize("spec", SMALL)
def test_the_heads_and_cost_bounds_are_valid(spec, refs):
    bf = refs[spec]
    p, ref = bf.problem, bf.least_widening()
    assert 1 <= measure_bound(p, "attention_cost", 10) <= ref.min_attention_cost
    assert 1 <= measure_bound(p, "heads", 10, max_head_dim=p.head_dim) <= ref.min_heads
    assert measure_bound(p, "heads", 10) <= measure_bound(p, "heads", 10, max_head_dim=p.head_dim)  # fewer limits: a lower bound


def test_the_bounds_by_hand():
    # SPEC §6.2: C4, E1, H = 2, d = 1: the optimum (C2, 1) is 2 heads of cost 1 each; no
    # orbit of one head (K = C4) hosts the demand of K-bar = C2, so 1 head cannot cover
    p = Problem.create("C4", "E1", 2, 1)
    assert measure_bound(p, "heads", 10) == 2 and measure_bound(p, "attention_cost", 10) == 2
    with pytest.raises(ValueError):
        measure_bound(p, "params", 10)


def _budgets(p):
    H, d = p.heads, p.head_dim
    return [(H, d, None), (2 * H, d, None), (H, 2 * d, None), (None, None, H * d), (H, None, None)]


@pytest.mark.parametrize("spec", SMALL)
def test_the_symbolic_engine_under_limits_equals_the_enumeration(spec, refs):
    """Statuses and optima of the counterexample search (where the limits round and the
    ceiling act) equal the brute force; an infeasible answer has a reason and no bound."""
    bf = refs[spec]
    p = bf.problem
    for mh, md, mc in _budgets(p):
        ref = bf.optimum(Budget(mh, md, mc))
        r = optimize(p, 20, constrained=False, engine="symbolic", max_heads=mh, max_head_dim=md, max_cost=mc)
        assert (r.status, r.design_params) == (ref.status, ref.params), (spec, mh, md, mc)
        if r.status == "infeasible":
            js = r.to_json()
            assert r.reason and js["lower_bound"] is None and js["attention_cost_lower_bound"] is None
            # every figure in the reason is small: no slack-sized "bound" (the cap itself is H d-sized)
            assert all(int(x) <= 64 * p.dim_v * p.heads * p.head_dim for x in re.findall(r"\d+", r.reason)), r.reason


def test_the_limits_round_names_the_heads_it_needs():
    # S3, regular, H = 2, d = 1: the brute force's fewest heads at dim <= 1 is 8; with at most
    # 2 heads the LP bound in heads (3) already exceeds the limit
    r = optimize(Problem.create("S3", "regular", 2, 1), 20, constrained=False, engine="symbolic", max_heads=2, max_head_dim=1)
    assert r.status == "infeasible" and re.search(r"at least (\d+) heads", r.reason)
    assert int(re.search(r"at least (\d+) heads", r.reason).group(1)) > 2


@pytest.mark.parametrize("spec", SMALL)
def test_the_least_cost_at_head_dim_d_equals_the_enumeration_and_bounds_the_heads(spec, refs):
    """`cost_search(..., max_head_dim=d)`: the least attention cost of a covering design with
    every head of dimension <= d equals the exhaustive one (larger than the unconstrained least
    cost on S3 regular H2 d1, C4 B+E1 ... where the least-cost design has a wider head), and
    ⌈c_d / d⌉ is at most the fewest heads at head dim <= d (h heads of dim <= d cost <= h d)."""
    from eqattn.optimize.widening import cost_search

    bf = refs[spec]
    p, ref = bf.problem, bf.least_widening()
    d = p.head_dim
    exact = bf.optimum(Budget(max_head_dim=d), "attention_cost")
    e, keys = cost_search(p, 30, max_head_dim=d)
    assert (e.value, e.status, e.lower_bound) == (exact.attention_cost, "optimal", exact.attention_cost)
    assert max(o.head_dim for o in e.design.orbits) <= d
    assert exact.attention_cost >= ref.min_attention_cost
    assert -(-exact.attention_cost // d) <= ref.min_heads


@pytest.mark.parametrize("spec", SMALL[:4])
def test_the_bisection_routes_equal_the_enumeration(spec, refs):
    """The fewest heads (head dim <= d) and the least largest head dim (<= H heads) by the
    optimiser's bisection from the LP bounds, as run past the budget program's sizes."""
    bf = refs[spec]
    ref = bf.least_widening()
    heads = heads_by_bisection(bf.problem, 40, ref.min_attention_cost)
    assert (heads.value, heads.status) == (ref.min_heads, "optimal") and heads.lower_bound <= ref.min_heads
    dim = head_dim_by_bisection(bf.problem, 40, ref.min_attention_cost)
    if ref.min_head_dim is None:
        assert dim.status == "infeasible" and dim.value is None and dim.lower_bound is None
    else:
        assert (dim.value, dim.status) == (ref.min_head_dim, "optimal")


@pytest.mark.parametrize("spec", SMALL[:4])
def test_resume_carries_an_unproven_head_count_to_the_enumeration(spec, refs):
    """`resume` (the time the three widening questions leave): from the regular design with
    the weakest bound, the fewest heads at head dim <= d and the least head dim at <= H
    heads reach the exhaustive values, proven; the bound never falls below the one given."""
    bf = refs[spec]
    p, ref = bf.problem, bf.least_widening()
    regular = Design.regular(p)
    heads = resume(p, Extent(regular.heads, "feasible", 1, regular), "heads", 40)
    assert (heads.value, heads.status, heads.lower_bound) == (ref.min_heads, "optimal", ref.min_heads)
    start = ref.min_heads  # a valid bound given: kept (never lowered)
    kept = resume(p, Extent(regular.heads, "feasible", start, regular), "heads", 40)
    assert kept.lower_bound >= start and kept.value == ref.min_heads
    if ref.min_head_dim is not None:  # a least-head-dim design with its bound forgotten: proven again
        found = head_dim_by_bisection(p, 40, 0)
        dim = resume(p, Extent(found.value, "feasible", 1, found.design), "max_head_dim", 40)
        assert (dim.value, dim.status, dim.lower_bound) == (ref.min_head_dim, "optimal", ref.min_head_dim)


def test_resume_leaves_decided_extents_alone():
    p = Problem.create("S3", "regular", 2, 1)
    for e in (Extent(8, "optimal", 8, Design.regular(p)), Extent(None, "infeasible", None, None), Extent(None, "unknown", 3, None)):
        assert resume(p, e, "heads", 10) is e
    with pytest.raises(ValueError, match="head question"):
        resume(p, Extent(12, "feasible", 1, Design.regular(p)), "attention_cost", 10)


def test_an_infeasible_extent_has_no_bound():
    w = least_widening(Problem.create("C4", "regular", 2, 2), 20)
    assert w.min_head_dim.status == "infeasible" and w.to_json()["min_head_dim"]["lower_bound"] is None


def test_phase_one_proves_only_what_the_enumeration_confirms(refs):
    """A positive least shortfall (lp_bound objective "shortfall": fractional designs within
    max_heads and max_head_dim, the demands of S not met) is only ever found where the
    brute force finds no design within the limits; and it is found somewhere."""
    from eqattn.attention.hosting import hosting
    from eqattn.optimize.lp_bound import lp_bound
    from eqattn.optimize.separation import ScenarioSpace

    proved = 0
    for spec in SMALL:
        bf = refs[spec]
        p = bf.problem
        space = ScenarioSpace(p)
        keys = space.initial_keys()
        for mh, md, _ in _budgets(p)[:3]:
            res = lp_bound(p, hosting(p), space.values, keys, (), max_heads=mh, max_head_dim=md, objective="shortfall")
            assert res.converged and res.value >= -1e-9
            if res.value > 1e-4:
                proved += 1
                assert bf.optimum(Budget(mh, md)).status == "infeasible", (spec, mh, md)
    assert proved >= 3


def test_the_ceiling_of_the_limits_is_the_cutoff_without_an_incumbent():
    """O19f: a design within at most 3 heads of dimension at most 2 has attention cost <= 6,
    hence (V = regular of C4: 4 parameters per unit of cost) at most 24 parameters, 6 units."""
    from eqattn.optimize.budget import Budget
    from eqattn.optimize.limits import ComputeLimits
    from eqattn.optimize.search import new_state

    st = new_state(Problem.create("C4", "regular", 2, 2), Budget.starting(10), ComputeLimits(max_heads=3, max_head_dim=2))
    assert (st.cost_cap, st.ceiling, st.cutoff()) == (6, 6, 6)
    st.best_units = 5
    assert st.cutoff() == 4  # cheaper than the incumbent
    st.best_units = 100
    assert st.cutoff() == 6  # never above the ceiling
    assert new_state(Problem.create("C4", "regular", 2, 2), Budget.starting(10)).cutoff() is None


def test_the_bisection_goes_on_past_an_undecided_value(monkeypatch):
    """`least_bound` with a stand-in optimiser whose least feasible x is 45. When it leaves 44
    and 46 undecided (no design, no proof), the bisection sets them aside and probes the
    other values: it finds the design at 45 and proves 43 infeasible, so 45 >= 44 (feasible:
    44 stays undecided). It used to stop at the first undecided value (48 >= 41). When only
    46 is undecided, 45 is proven."""
    from types import SimpleNamespace

    from eqattn.optimize import within, widening

    asked = []

    def fake(problem, time_limit, max_heads=None, max_head_dim=None):  # noqa: ANN001, ANN202
        asked.append(max_heads)
        if max_heads in (44, 46):
            return SimpleNamespace(status="unknown", design=None)
        if max_heads < 45:
            return SimpleNamespace(status="infeasible", design=None)
        return SimpleNamespace(status="feasible", design=SimpleNamespace(heads=45 if max_heads < 47 else max_heads))

    monkeypatch.setattr(within, "optimize_within", fake)
    p = Problem.create("S3", "regular", 2, 1)
    e = widening.least_bound(p, 40, 48, lambda h: {"max_heads": h, "max_head_dim": 1}, lambda a: a.heads, 60, best=SimpleNamespace(heads=48))
    assert (e.value, e.status, e.lower_bound) == (45, "feasible", 44)
    assert asked == [44, 42, 43, 46, 45]  # went on past the undecided values, lower intervals first
    asked.clear()

    def fake2(problem, time_limit, max_heads=None, max_head_dim=None):  # noqa: ANN001, ANN202 - 44 decided now
        asked.append(max_heads)
        if max_heads == 46:
            return SimpleNamespace(status="unknown", design=None)
        if max_heads < 45:
            return SimpleNamespace(status="infeasible", design=None)
        return SimpleNamespace(status="feasible", design=SimpleNamespace(heads=max_heads))

    monkeypatch.setattr(within, "optimize_within", fake2)
    e = widening.least_bound(p, 40, 48, lambda h: {"max_heads": h, "max_head_dim": 1}, lambda a: a.heads, 60, best=SimpleNamespace(heads=48))
    assert (e.value, e.status, e.lower_bound) == (45, "optimal", 45)


@pytest.mark.parametrize("spec", SMALL)
def test_the_cost_bound_over_the_search_keys_is_valid_and_no_weaker(spec, refs):
    """`measure_bound(..., extra=)`: the LP bound in attention cost (in heads at head dim <= d)
    over the empty design's counterexamples and the scenario keys the optimiser's search met
    (`scenario_keys`) is at most the exhaustive least attention cost (fewest heads) and at
    least the bound without them; past the budget program, `min_attention_cost` and the
    heads bisection use it (Oh 64×(vector + trivial) H8 d32: cost >= 2422 instead of 640;
    D4 48×regular H6 d64: heads >= 48 instead of 25)."""
    from eqattn.errors import LimitError
    from eqattn.optimize import widening

    bf = refs[spec]
    p, ref = bf.problem, bf.least_widening()
    res = optimize(p, 20, constrained=False, engine="symbolic")
    assert res.scenario_keys and "scenario_keys" not in res.to_json()
    plain = measure_bound(p, "attention_cost", 10)
    more = measure_bound(p, "attention_cost", 10, extra=res.scenario_keys)
    assert plain <= more <= ref.min_attention_cost
    plain = measure_bound(p, "heads", 10, max_head_dim=p.head_dim)
    more = measure_bound(p, "heads", 10, max_head_dim=p.head_dim, extra=res.scenario_keys)
    assert plain <= more <= ref.min_heads
    heads = widening.heads_by_bisection(p, 30, 0, res.scenario_keys)
    assert (heads.value, heads.status) == (ref.min_heads, "optimal")

    class TooMany:  # the budget program past its sizes
        def __init__(self, *a, **k):  # noqa: ANN002, ANN003
            raise LimitError("types", "too many")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(widening, "BudgetProgram", TooMany)
        e = widening.min_attention_cost(p, 20)
    assert e.lower_bound <= ref.min_attention_cost <= e.value
    assert e.status != "optimal" or e.value == ref.min_attention_cost


def test_a_probe_after_an_undecided_one_gets_more_time(monkeypatch):
    """`least_bound`: the probe after one the optimiser left undecided gets at least
    UNDECIDED_GROWTH times that one's seconds (not half of what is left: S4 21×regular H8 d64
    needs about 10 s for one infeasibility proof)."""
    import time as _time
    from types import SimpleNamespace

    from eqattn.optimize import within, widening

    shares = []

    def slow(problem, time_limit, max_heads=None, max_head_dim=None):  # noqa: ANN001, ANN202
        shares.append(time_limit)
        _time.sleep(min(time_limit, 1.0))
        return SimpleNamespace(status="unknown", design=None)

    monkeypatch.setattr(within, "optimize_within", slow)
    p = Problem.create("S3", "regular", 2, 1)
    e = widening.least_bound(p, 0, 40, lambda h: {"max_heads": h, "max_head_dim": 1}, lambda a: a.heads, 3.2, best=SimpleNamespace(heads=40))
    assert e.status == "feasible" and e.value == 40 and e.lower_bound == 1
    assert shares[0] == pytest.approx(1.6, abs=0.05)
    assert shares[1] >= widening.UNDECIDED_GROWTH * 1.0 - 0.05 > (3.2 - 1.0) / 2  # more than half of what was left


def test_the_heads_bisection_does_not_search_for_the_regular_design(monkeypatch, refs):
    """`heads_by_bisection` starts from the regular design (|G| H heads of dimension <= d,
    SPEC §3) as its known top: no probe asks for |G| H heads (that first probe took 60 % of
    the question's time), and the answer still equals the enumeration."""
    from eqattn.optimize import within, widening

    real = within.optimize_within
    asked = []

    def spy(problem, time_limit, **kw):  # noqa: ANN001, ANN003, ANN202
        asked.append(kw["max_heads"])
        return real(problem, time_limit, **kw)

    monkeypatch.setattr(within, "optimize_within", spy)
    bf = refs[("S3", "regular", 2, 1)]
    p, ref = bf.problem, bf.least_widening()
    # the least cost at head dim <= 1 (8) proves 8 heads and its design has 8: no probe at all
    e = widening.heads_by_bisection(p, 40, 0)
    assert (e.value, e.status, e.lower_bound) == (ref.min_heads, "optimal", ref.min_heads) and asked == []
    # without it (the cost search stopped with nothing), the bisection starts from the regular design
    monkeypatch.setattr(widening, "cost_search", lambda *a, **k: (widening.Extent(None, "unknown", None, None), ()))
    e = widening.heads_by_bisection(p, 40, 0)
    assert (e.value, e.status) == (ref.min_heads, "optimal")
    assert asked and p.group.order * p.heads not in asked


def test_the_fewest_heads_of_d4h_vector_plus_trivial_are_proven_by_the_least_cost_at_head_dim_d():
    """D4h, 64×(vector + trivial), H8 d64, past the budget program: the least attention cost
    of a covering design with every head of dim <= 64 is 8192 (proven), so every such design
    has >= 8192 / 64 = 128 heads, and the design found has 128: proven. Before, the heads LP
    bound and the bisection left `128 >= 121` after a 60 s widening (the probes at 121-127
    stopped on the type limit)."""
    from eqattn.optimize.widening import fewest_heads

    p = Problem.create("D4h", "64xvector + 64xtrivial", 8, 64)
    e = fewest_heads(p, 60)
    assert (e.value, e.status, e.lower_bound) == (128, "optimal", 128)
    assert e.design.heads == 128 and all(o.head_dim <= 64 for o in e.design.orbits)


def test_the_fewest_heads_of_oh_vector_plus_trivial_at_head_dim_32_are_the_regular_designs():
    """Oh, 64×(vector + trivial), H8 d32 (the widening benchmark's last unproven row): the
    least attention cost of a covering design with every head of dim <= 32 is the regular
    design's 12288, proven by the fixed types' exact program (54 822 types within the slack
    at 12287, 93 that host a demand; theory-scale O13) from the keys of the program round's
    drawings (O12b); so every such design has >= 12288 / 32 = 384 = |G| H heads, and the
    bisection from it answers 384, proven. Before, `cost_search` stopped at `12288 >= 12149`
    (`type_limit`) and the row at `384 >= 352`."""
    from eqattn.optimize.widening import cost_search

    p = Problem.create("Oh", "64xvector + 64xtrivial", 8, 32)
    e, _ = cost_search(p, 60, max_head_dim=32)
    assert (e.value, e.status, e.lower_bound) == (12288, "optimal", 12288)
    heads = heads_by_bisection(p, 20, 0, (), at_d=e)
    assert (heads.value, heads.status, heads.lower_bound) == (384, "optimal", 384)
    assert heads.design.heads == 384 and all(o.head_dim <= 32 for o in heads.design.orbits)


def test_a_proven_least_cost_design_within_head_dim_d_is_not_searched_again(monkeypatch):
    """`fewest_heads` given the least-cost answer: when it is proven and its design has every
    head of dim <= d, it is the least cost at head dim <= d (c_d = c*), so `cost_search` is not
    asked again (D4, E1, H2 d2: c* = 10 with heads of dim <= 2); the fewest heads still equal
    the enumeration. A least-cost design with a wider head (C4, A + E1, H2 d2: a head of dim 3)
    leaves the search to run."""
    from eqattn.errors import LimitError
    from eqattn.optimize import widening

    class TooMany:  # the budget program past its sizes: the bisection route
        def __init__(self, *a, **k):  # noqa: ANN002, ANN003
            raise LimitError("types", "too many")

    monkeypatch.setattr(widening, "BudgetProgram", TooMany)
    calls = []
    real = widening.cost_search
    monkeypatch.setattr(widening, "cost_search", lambda *a, **k: calls.append(k) or real(*a, **k))
    p = Problem.create("D4", "E1", 2, 2)
    cost, keys = real(p, 20)
    assert (cost.value, cost.status) == (10, "optimal") and all(o.head_dim <= 2 for o in cost.design.orbits)
    e = widening.fewest_heads(p, 40, cost, keys)
    assert calls == [] and (e.value, e.status, e.lower_bound) == (BruteForce(p).least_widening().min_heads, "optimal", e.value)
    q = Problem.create("C4", "A + E1", 2, 2)
    wide, keys = real(q, 20)
    assert wide.value == 9 and max(o.head_dim for o in wide.design.orbits) == 3
    e = widening.fewest_heads(q, 40, wide, keys)
    assert calls == [{"max_head_dim": 2}] and (e.value, e.status) == (BruteForce(q).least_widening().min_heads, "optimal")


def test_the_heads_bound_runs_only_where_phase_one_leaves_it_something_to_say(monkeypatch):
    """The limits round runs phase one first; the heads bound (no head-dim limit) after it
    only when phase one proved infeasibility and the search wants the plainer line
    (`reasons`), or stopped short: at 0 phase one implies the heads bound is within
    max_heads. With `reasons=False` the same verdict comes with phase one's line."""
    from eqattn.optimize import lp_bound as lpb
    from eqattn.optimize.budget import Budget as SearchBudget
    from eqattn.optimize.limits import ComputeLimits
    from eqattn.optimize.rounds import limits_bound
    from eqattn.optimize.search import search

    calls = []

    def counting(*a, **k):
        res = lpb.lp_bound(*a, **k)
        calls.append((k.get("objective"), res.converged, res.value))
        return res

    monkeypatch.setattr(limits_bound, "lp_bound", counting)
    p = Problem.create("S3", "regular", 2, 1)
    tight = ComputeLimits(max_heads=2, max_head_dim=1)
    r = search(p, SearchBudget.starting(20), tight)
    assert r.status == "infeasible" and "at least" in r.reason and [c[0] for c in calls][-2:] == ["shortfall", "heads"]
    calls.clear()
    r = search(p, SearchBudget.starting(20), tight, reasons=False)
    assert r.status == "infeasible" and "even fractionally" in r.reason and "heads" not in [c[0] for c in calls]
    calls.clear()
    r = search(Problem.create("C4", "regular", 2, 2), SearchBudget.starting(20), ComputeLimits(max_heads=4, max_head_dim=4))
    at_zero = [c for c in calls if c[0] == "shortfall" and c[1] and c[2] <= limits_bound.SHORTFALL_EPS]
    assert r.status == "optimal" and at_zero and "heads" not in [c[0] for c in calls]
