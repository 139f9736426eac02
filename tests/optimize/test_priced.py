"""The optimiser on a problem priced by attention cost (`Problem.priced`, theory-scale B1d):
its least count is 4 × the least attention cost of a covering design, proven by the same
search. Checked against the exhaustive listing (brute_force.py, no optimiser) with both
engines, and, past the budget program, against the optimiser under `max_cost` (the least
cost c* has a covering design within max_cost = c* and none within c* - 1)."""

from __future__ import annotations

import re
import pytest
from brute_force import BruteForce

from eqattn.attention import Design, Problem
from eqattn.errors import InputError
from eqattn.reps import irreps_of
from eqattn.optimize import optimize
from eqattn.optimize.limits import attention_cost, uniform_ratio
from eqattn.optimize.rounds import sampled as sampled_round
from eqattn.optimize.widening import cost_search, min_attention_cost

SMALL = [("C2", "A + 2xB", 2, 2), ("C3", "A + E1", 2, 2), ("C4", "E1 + B", 3, 1), ("D3", "A1 + E1", 2, 2),
         ("C2xC2", "A.B + B.A + B.B", 2, 1), ("D4", "A1 + E1", 2, 2), ("Q8", "A + B1 + H", 2, 1), ("C4", "2xA + E1", 2, 2)]


@pytest.mark.parametrize("group, rep", [("C4", "A + E1"), ("D4", "regular"), ("Q8", "A + H"), ("S4", "[4] + 2x[3,1]"),
                                        ("Oh", "vector + trivial"), ("Ih", "T1u")])
def test_params_are_4_hom_dim_and_priced_counts_are_4_cost(group, rep):
    """`DesignOrbit.params` reads the problem's unit costs: the SPEC count 4 dim Hom_K(V, W)
    on every subgroup class with W = V|K and with one copy of each irrep, and 4 [G:K] dim W
    on the priced problem."""
    from eqattn.attention.design import DesignOrbit
    from eqattn.reps import Rep

    p = Problem.create(group, rep, 2, 2)
    q = p.priced("attention_cost")
    for K in p.group.subgroup_classes:
        for W in (p.restrict(K), Rep(K, (1,) * len(irreps_of(K).dims))):
            o = DesignOrbit(K, W)
            assert o.params(p) == 4 * p.restrict(K).hom_dim(W)
            assert o.params(q) == 4 * K.index * W.dim


def test_priced_problem():
    p = Problem.create("D4", "A1 + E1", 2, 2)
    q = p.priced("attention_cost")
    assert q.priced("attention_cost") is q and p.priced("params") is p and q.priced("params").price == "params"
    assert q.memo is p.memo  # coverage tables are shared: the price does not change them
    for K in p.group.subgroup_classes:
        assert q.unit_costs(K).tolist() == [K.index * int(dim) for dim in irreps_of(K).dims]
    d = Design.regular(p, trimmed=True)
    assert Design(q, d.orbits).params == 4 * attention_cost(d)
    assert d.params == sum(4 * p.restrict(o.sub).hom_dim(o.W) for o in d.orbits)  # unpriced: the SPEC count
    assert uniform_ratio(q) == 4
    with pytest.raises(InputError, match="price"):
        p.priced("flops")


@pytest.mark.parametrize("group, rep, heads, head_dim", SMALL)
@pytest.mark.parametrize("engine", ["enumerate", "symbolic"])
def test_least_cost_by_pricing_equals_the_exhaustive_least_cost(group, rep, heads, head_dim, engine):
    p = Problem.create(group, rep, heads, head_dim)
    ref = BruteForce(p).least_widening().min_attention_cost
    res = optimize(p.priced("attention_cost"), 60, constrained=False, engine=engine)
    assert res.status == "optimal" and res.lower_bound == res.design_params == 4 * ref
    assert attention_cost(Design(p, res.design.orbits)) == ref


def test_least_cost_past_the_budget_program_against_max_cost(monkeypatch):
    """Oh, 8xvector + 8xtrivial, H2 d9 (past the budget program): least cost 34 proven by
    pricing, half the cost of the fewest-parameter design (68, same 704 parameters); the
    optimiser under max_cost finds a covering design at c* and proves none at c* - 1: by
    the limits round over the keys met and drawn (O22), and without drawings by the search
    for the least cost (optimizer._by_cost)."""
    p = Problem.create("Oh", "8xvector + 8xtrivial", 2, 9)
    e, keys = cost_search(p, 60)
    assert e.status == "optimal" and e.value == e.lower_bound == attention_cost(e.design) and keys
    assert min_attention_cost(p, 60).value == e.value  # the widening question takes this route
    at = optimize(p, 60, constrained=False, max_cost=e.value)
    assert at.design is not None and attention_cost(at.design) <= e.value
    below = optimize(p, 60, constrained=False, max_cost=e.value - 1)
    assert below.status == "infeasible"
    assert re.fullmatch(r"every covering design with every head of dimension at most 33 has attention cost "
                        r"at least 34 \(LP bound over \d+ scenarios\); the limits allow at most 33", below.reason), below.reason
    monkeypatch.setattr(sampled_round, "MAX_DRAWINGS", 0)
    below = optimize(p, 60, constrained=False, max_cost=e.value - 1)
    assert below.status == "infeasible"
    assert below.reason == "every covering design within the limits has attention cost at least 34; the limits allow at most 33"
    assert any("proven by the search for the least attention cost" in n for n in below.notes)  # (optimizer._by_cost)
    assert e.value == 34
    # the fewest-parameter design is not the least-cost one here (the reason for the search)
    fewest = optimize(p, 60, constrained=False)
    assert attention_cost(fewest.design) > e.value
