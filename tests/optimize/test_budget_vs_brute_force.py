"""The budget questions (least widening, constrained optima / infeasibility, the front, best
partial coverage) against the exhaustive reference brute_force.py on small problems."""

import pytest
from brute_force import BruteForce, Budget

from eqattn.attention import Problem
from eqattn.optimize.budgeted import BudgetProgram
from eqattn.optimize.limits import ComputeLimits as Limits
from eqattn.optimize.front import front
from eqattn.optimize.partial import partial_coverage
from eqattn.optimize.widening import least_widening
from eqattn.optimize.within import optimize_within

SMALL = [("C4", "E1", 2, 1), ("C2", "A+B", 1, 1), ("C3", "E1", 4, 1), ("S3", "regular", 2, 1),
         ("D4", "A1+E1", 1, 2), ("C2", "2xA+B", 2, 2), ("C4", "B+E1", 2, 1)]


@pytest.fixture(scope="module")
def refs():
    return {s: BruteForce(Problem.create(*s)) for s in SMALL}


@pytest.mark.parametrize("spec", SMALL)
def test_least_widening(spec, refs):
    bf = refs[spec]
    w = least_widening(bf.problem, 30)
    ref = bf.least_widening()
    assert (w.min_attention_cost.value, w.min_attention_cost.status) == (ref.min_attention_cost, "optimal")
    assert (w.min_heads.value, w.min_heads.status) == (ref.min_heads, "optimal")
    assert w.min_head_dim.value == ref.min_head_dim
    assert w.min_head_dim.status == ("infeasible" if ref.min_head_dim is None else "optimal")


@pytest.mark.parametrize("spec", SMALL)
def test_constrained_optima(spec, refs):
    bf = refs[spec]
    H, d = bf.problem.heads, bf.problem.head_dim
    for lim in [Limits(H, d), Limits(2 * H, d), Limits(H, 2 * d), Limits(4 * H, d), Limits(max_cost=H * d),
                Limits(max_cost=2 * H * d)]:
        ref = bf.optimum(Budget(lim.max_heads, lim.max_head_dim, lim.max_cost))
        got = BudgetProgram(bf.problem, lim).solve("params", time_limit=30)
        api = optimize_within(bf.problem, 30, max_heads=lim.max_heads, max_head_dim=lim.max_head_dim, max_cost=lim.max_cost)
        assert got.status == api.status == ref.status, (spec, lim)
        if ref.status == "optimal":
            assert got.design.params == api.design.params == ref.params, (spec, lim)
            assert lim.admits(got.design) and lim.admits(api.design)


@pytest.mark.parametrize("spec", SMALL)
def test_front(spec, refs):
    bf = refs[spec]
    f = front(bf.problem, 30)
    assert f.status == "optimal"
    got = [(q.to_json()["attention_cost"], q.design.params) for q in f.points]
    assert got == [(b.attention_cost, b.params) for b in bf.front()]


@pytest.mark.parametrize("spec", SMALL)
def test_partial(spec, refs):
    bf = refs[spec]
    H, d = bf.problem.heads, bf.problem.head_dim
    for kw in [dict(max_heads=H, max_head_dim=d), dict(max_heads=2 * H, max_head_dim=d), dict(max_cost=H * d)]:
        got = partial_coverage(bf.problem, 30, **kw)
        ref = bf.partial(Budget(kw.get("max_heads"), kw.get("max_head_dim"), kw.get("max_cost")))
        assert (got.covered, got.of, got.status, got.upper_bound) == (ref.covered, ref.of, "optimal", ref.covered), (spec, kw)
        assert got.design.params == ref.params and got.params_proven
        assert len(got.uncovered) == got.of - got.covered


@pytest.mark.parametrize("spec", SMALL)
def test_partial_by_search(spec, refs):
    """The subset searches (partial_search.py) reach the same count, bound and parameters."""
    bf = refs[spec]
    H, d = bf.problem.heads, bf.problem.head_dim
    for kw in [dict(max_heads=H, max_head_dim=d), dict(max_heads=2 * H, max_head_dim=d), dict(max_cost=H * d)]:
        got = partial_coverage(bf.problem, 30, engine="search", **kw)
        ref = bf.partial(Budget(kw.get("max_heads"), kw.get("max_head_dim"), kw.get("max_cost")))
        assert got.engine == "search"
        assert (got.covered, got.of, got.status, got.upper_bound) == (ref.covered, ref.of, "optimal", ref.covered), (spec, kw)
        assert got.design.params == ref.params and got.params_proven, (spec, kw)
        assert len(got.uncovered) == got.of - got.covered


@pytest.mark.parametrize("spec", SMALL)
def test_one_orbit_of_a_clustering_is_easier_than_the_clustering(spec, refs):
    """Lemma B4c, with the enumerating checker over every design within (2H, d) and (H, d)
    and drawn ones: a design covering a clustering covers each part of it (one orbit, two
    orbits) taken as a clustering of its own (fewer heads than H), so a part no design within
    a budget covers rules out every clustering holding it."""
    from eqattn.attention import check_clustering
    from eqattn.attention.clusterings import Clustering
    from eqattn.optimize.partial_search import _parts

    import random

    bf = refs[spec]
    p = bf.problem
    parts = {U for c in bf.clusterings for U in _parts(c, 1) | _parts(c, 2)}
    rng = random.Random(0)
    drawn = [tuple(sorted(rng.randrange(len(bf.types)) for _ in range(rng.randint(1, 4)))) for _ in range(150)]
    keys = {k for b in (Budget(2 * p.heads, p.head_dim), Budget(p.heads, p.head_dim)) for k in bf.designs(b)} | set(drawn)
    met = 0
    for key in sorted(keys):
        design = bf.design(key)
        alone = {U: check_clustering(p, design, Clustering(-1, U)).covered for U in parts}
        for c in bf.clusterings:
            if c.id in bf.covered(key):
                met += len(c.expanded()) > 1
                assert all(alone[U] for U in _parts(c, 1) | _parts(c, 2)), (spec, key, c)
    if any(len(c.expanded()) > 1 for c in bf.clusterings):
        assert met > 0  # a clustering of several orbits is covered by some design (not vacuous)


def test_parts_refuted_alone_rule_out_what_the_enumeration_rules_out(refs):
    """partial_search's parts (one orbit type, or two orbits; B4c) proven uncoverable within
    the budget: no design the enumeration lists within it covers a clustering holding one;
    and some are refuted on these problems (the test is not vacuous)."""
    from eqattn.optimize.budget import Budget as SearchBudget
    from eqattn.optimize.partial_search import partial_search

    refuted = 0
    for spec in SMALL + [("C4", "B+E1", 3, 1)]:  # (the last: parts of one orbit refuted within (3, 1) and cost 3)
        bf = refs[spec] if spec in refs else BruteForce(Problem.create(*spec))
        p = bf.problem
        for lim in (Limits(p.heads, p.head_dim), Limits(2 * p.heads, p.head_dim), Limits(max_cost=p.heads * p.head_dim)):
            r = partial_search(p, lim, SearchBudget.starting(30))
            coverable = set().union(*(bf.covered(k) for k in bf.designs(Budget(lim.max_heads, lim.max_head_dim, lim.max_cost))))
            for part in r.parts:
                refuted += 1
                holding = {c.id for c in bf.clusterings if all(dict(c.orbits).get(o, 0) >= k for o, k in part)}
                assert holding and not holding & coverable, (spec, lim, part)
    assert refuted > 0
