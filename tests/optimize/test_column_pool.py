"""The types earlier LP bounds used, as the start of later ones (optimize/column_pool.py,
theory-scale O11 "A start only seeds the master"): the LP value does not depend on the
start, the limits round fills the pool of its kind only, and a search given a pool answers
as one without."""

import pytest

from eqattn.attention import Problem
from eqattn.attention.clusterings import clusterings
from eqattn.attention.hosting import hosting
from eqattn.optimize.budget import Budget
from eqattn.optimize.catalogue import DemandCatalogue
from eqattn.optimize.column_pool import ColumnPool
from eqattn.optimize.limits import ComputeLimits
from eqattn.optimize.lp_bound import lp_bound, measured
from eqattn.optimize.sampled import sampled_keys
from eqattn.optimize.search import Shared, search
from eqattn.reps import irreps_of


@pytest.mark.parametrize("measure,heads_row,head_dim", [("heads", None, 4), ("shortfall", 4, 4), ("params", None, None),
                                                        ("attention_cost", None, 4)])
def test_the_lp_value_does_not_depend_on_the_start(measure, heads_row, head_dim):
    """Two LPs over different scenario keys of D4 2 x regular, H 2, d 4: the second from the
    first one's types and from none; the same converged value."""
    p = Problem.create("D4", "2xregular", 2, 4)
    cat, h = DemandCatalogue(p), hosting(p)
    cl = clusterings(p)
    first = sampled_keys(p, cat, cl[:3], 8, seed=1)
    second = sampled_keys(p, cat, cl[2:], 8, seed=2)
    q, objective = measured(p, measure)
    a = lp_bound(q, h, cat.values, first, (), max_heads=heads_row, max_head_dim=head_dim, objective=objective)
    assert a.converged and a.support
    cold = lp_bound(q, h, cat.values, second, (), max_heads=heads_row, max_head_dim=head_dim, objective=objective)
    warm = lp_bound(q, h, cat.values, second, a.support, max_heads=heads_row, max_head_dim=head_dim, objective=objective)
    assert cold.converged and warm.converged
    assert warm.value == pytest.approx(cold.value, rel=1e-7, abs=1e-7) and warm.units == cold.units


def test_a_search_fills_the_pool_of_its_kinds_and_answers_alike():
    """A5, 8 x regular, H 8, d 60, the clustering of one cluster of all eight heads within
    (16, 60) (tests/optimize/test_sampled.py): infeasible with or without a pool; the pool
    holds types of the limits round's two kinds (heads without the head-dim limit, phase one
    with both limits), every one within its kind's head-dim limit."""
    p = Problem.create("A5", "8xregular", 8, 60)
    c = clusterings(p)[0]
    limits = ComputeLimits(16, 60)
    pool = ColumnPool()
    with_pool = search(p, Budget.starting(120), limits, only=(c,), shared=Shared(columns=pool))
    without = search(p, Budget.starting(120), limits, only=(c,))
    assert with_pool.status == without.status == "infeasible"
    heads, shortfall = ("heads", "params", None, None), ("shortfall", "params", 16, 60)
    assert pool.start(heads) and pool.start(shortfall)
    dims = {s.id: s for s in p.group.subgroup_classes}
    for sub, W in pool.start(shortfall):
        assert sum(int(d) * m for d, m in zip(irreps_of(dims[sub]).dims, W)) <= 60
    again = search(p, Budget.starting(120), limits, only=(c,), shared=Shared(columns=pool))  # a full pool as the start
    assert again.status == "infeasible"


def test_the_pool_keeps_the_most_recent_types():
    pool = ColumnPool(size=3)
    kind = ("heads", "params", None, None)
    pool.add(kind, [(1, (1,)), (2, (1,)), (3, (1,))])
    pool.add(kind, [(1, (1,)), (4, (1,))])  # (1, (1,)) used again: the most recent
    assert pool.start(kind) == ((3, (1,)), (1, (1,)), (4, (1,)))
