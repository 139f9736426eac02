"""Property tests on random small problems (|G| <= 12, small V, H <= 4, d <= 3)."""

import itertools
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as hst

from eqattn.attention import Design, Problem, check_coverage, clusterings, count_clusterings
from eqattn.attention.coverage import check_scenario, scenarios
from eqattn.groups import STANDARD as st
from eqattn.numeric import verify_design
from eqattn.reps import Rep, irreps

GROUPS = [st.cyclic(2), st.cyclic(3), st.cyclic(4), st.dihedral(3), st.dihedral(4), st.quaternion(),
          st.direct_product((st.cyclic(2), st.cyclic(2))), st.alternating(4), st.cyclic(6)]


@hst.composite
def problems(draw, max_heads=4):
    G = draw(hst.sampled_from(GROUPS))
    top = G.subgroup_classes[-1]
    r = len(irreps(G))
    mults = draw(hst.lists(hst.integers(0, 1), min_size=r, max_size=r).filter(lambda m: any(m)))
    V = Rep(top, tuple(mults))
    if V.dim > 6:
        mults = [1 if i == r - 1 else 0 for i in range(r)]
        V = Rep(top, tuple(mults))
    H = draw(hst.integers(1, max_heads))
    d = draw(hst.integers(1, 3))
    return Problem(G, V, H, d)


@given(problems())
def test_regular_design_has_vanilla_count_and_covers_everything(p):
    d = Design.regular(p)
    assert d.params == p.vanilla_params
    assert d.heads == p.heads * p.group.order
    assert all(v.covered for v in check_coverage(p, d))


@given(problems(), hst.data())
def test_param_count_is_sum_of_hom_dims(p, data):
    G = p.group
    K = data.draw(hst.sampled_from(G.subgroup_classes))
    r = len(irreps(K.std))
    W = Rep(K, tuple(data.draw(hst.lists(hst.integers(0, 2), min_size=r, max_size=r))))
    d = Design(p, (Design.create(p, []).orbits + (type(Design.regular(p).orbits[0])(K, W),)))
    VK = p.restrict(K)
    expected = 4 * sum(m * w * e for m, w, e in zip(VK.mults, W.mults, W.irreps.es))
    assert d.params == expected
    # dim Hom_K(V, W) also equals the size of the explicit basis
    from eqattn.numeric.equivariant import hom_basis

    assert hom_basis(K, p.rho[K.elements], VK, W).shape[0] * 4 == expected


def _brute_force_clusterings(p):
    """All multisets of (class, n) with sum index*n = H, by exhaustive product."""
    types = [(c.id, n) for c in p.group.subgroup_classes for n in range(1, p.heads + 1) if c.index * n <= p.heads]
    idx = {c.id: c.index for c in p.group.subgroup_classes}
    found = set()
    for k in range(1, p.heads + 1):
        for combo in itertools.combinations_with_replacement(types, k):
            if sum(idx[c] * n for c, n in combo) == p.heads:
                found.add(tuple(sorted(combo)))
    return found


@given(problems())
def test_clusterings_are_exactly_the_multisets(p):
    cl = clusterings(p)
    assert len(cl) == count_clusterings(p)
    mine = {tuple(sorted(c.expanded())) for c in cl}
    assert len(mine) == len(cl)
    assert mine == _brute_force_clusterings(p)
    for c in cl:
        assert sum(p.group.subgroup_classes[cid].index * n for cid, n in c.expanded()) == p.heads


@given(problems(max_heads=3), hst.data())
def test_verdicts_confirmed_numerically(p, data):
    """Every 'covered' verdict of a random design is confirmed by building the weights; every
    counterexample is a genuine scenario of its clustering that the checker rejects."""
    G = p.group
    orbits = []
    for _ in range(data.draw(hst.integers(0, 2))):
        K = data.draw(hst.sampled_from(G.subgroup_classes))
        VK = p.restrict(K)
        W = Rep(K, tuple(data.draw(hst.integers(0, m)) for m in VK.mults))
        orbits.append((K.id, str(W)))
    d = Design.create(p, orbits)
    verdicts = check_coverage(p, d)
    rep = verify_design(p, d, verdicts=verdicts)
    assert rep.worst_rel_error <= 1e-8
    assert rep.worst_equivariance_error <= 1e-8
    for v in verdicts:
        if not v.covered:
            ce = v.counterexample
            assert ce.options in set(scenarios(p, v.clustering))
            assert not check_scenario(p, d, ce.options).ok
            assert ce.shortfall


def _partitions(n: int) -> list[int]:
    """p(0..n) by Euler's pentagonal number recurrence (independent of the knapsack count)."""
    p = [1] + [0] * n
    for m in range(1, n + 1):
        k, total = 1, 0
        while k * (3 * k - 1) // 2 <= m:
            sign = 1 if k % 2 else -1
            total += sign * p[m - k * (3 * k - 1) // 2]
            if k * (3 * k + 1) // 2 <= m:
                total += sign * p[m - k * (3 * k + 1) // 2]
            k += 1
        p[m] = total
    return p


def test_clustering_counts_at_the_limits():
    """C_q (q prime) has two classes, G (weight n) and C1 (weight q n): the clusterings of H
    heads are pairs of partitions (λ, μ) with |λ| + q|μ| = H. The limit sits between Oh with
    H = 16 (accepted) and D4h with H = 16 (not listed, with the count; the optimiser checks it
    through representatives, theory-scale C7); D4h with H = 64
    (524 orbit types) is counted, not a RecursionError."""
    from eqattn.attention.clusterings import MAX_CLUSTERINGS
    from eqattn.errors import LimitError

    for g, q, H in (("C2", 2, 32), ("C3", 3, 32), ("C5", 5, 64)):
        p = _partitions(H)
        assert count_clusterings(Problem.create(g, "regular", H, 1)) == sum(p[H - q * b] * p[b] for b in range(H // q + 1))
    oh = Problem.create("Oh", "4xvector + 4xtrivial", 16, 1)
    assert count_clusterings(oh) == len(clusterings(oh)) == 23147 <= MAX_CLUSTERINGS
    for H, n in ((16, 374416), (64, 1113709369258615)):
        big = Problem.create("D4h", "4xvector + 4xtrivial", H, 1)
        assert count_clusterings(big) == n
        try:
            clusterings(big)
        except LimitError as e:
            assert e.field == "heads" and str(n) in e.message
        else:
            raise AssertionError("refused up front")
