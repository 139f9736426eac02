"""Supports of maximal profiles and degenerate flags without listing profiles
(docs/theory-scale.md §1–§2), against the enumerating definitions on small problems."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eqattn.attention import Problem
from eqattn.attention.options import maximal_profiles, option_table
from eqattn.attention.supports import maximal_supports, profiles_with_support, reduced_problem
from eqattn.groups.catalog import get_group
import numpy as np

from eqattn.reps import Rep, irreps_of
from eqattn.reps.matrices import isotypic_projector

GROUPS = ["C2", "C3", "C4", "C2xC2", "D3", "D4", "Q8", "C6", "A4"]


def _support(a: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(i for i, k in enumerate(a) if k)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GROUPS), st.data())
def test_supports_match_enumeration(name: str, data: st.DataObject) -> None:
    G = get_group(name)
    K = data.draw(st.sampled_from(G.subgroup_classes))
    r = len(irreps_of(K))
    mults = tuple(data.draw(st.integers(0, 3)) for _ in range(r))
    bound = Rep(K, mults)
    cap = data.draw(st.integers(0, 9))
    brute = maximal_profiles(bound, cap)
    assert sorted({_support(a.mults) for a in brute}) == sorted(maximal_supports(bound, cap))
    for S in maximal_supports(bound, cap):
        mine = sorted(profiles_with_support(bound, cap, S))
        assert mine == sorted(a.mults for a in brute if _support(a.mults) == S)


def test_zero_profile_support() -> None:
    # SPEC §6 ex. 2: C4, V = E1, d = 1: only a = 0 is maximal
    p = Problem.create("C4", "E1", 2, 1)
    top = p.top
    assert maximal_supports(p.restrict(top), 1) == [()]


def _kbar_full(p: Problem, K, S: tuple[int, ...]) -> frozenset[int]:  # noqa: ANN001
    """K̄(K, S) computed on V itself (SPEC §4.3), not on the reduced V'."""
    if not S:
        return frozenset(range(p.group.order))
    rho = p.rho
    rk = rho[K.elements]
    irr = irreps_of(K)
    rng = np.random.default_rng(7)
    Y = rng.normal(size=rho.shape[1:])
    avg = np.matmul(np.matmul(rk, Y), rk.transpose(0, 2, 1)).mean(axis=0)
    X = np.zeros_like(Y)
    for s in S:
        Pi = isotypic_projector(rk, irr.chars[s, K.elements], int(irr.dims[s]), int(irr.es[s]))
        X += Pi @ avg @ Pi
    comm = np.einsum("gab,bc->gac", rho, X) - np.einsum("ab,gbc->gac", X, rho)
    err = np.sqrt((comm**2).sum(axis=(1, 2)))
    return frozenset(int(g) for g in np.nonzero(err <= 1e-6 * np.sqrt((X**2).sum()))[0])


def _old_degenerate(p: Problem, orbit: tuple[int, int]) -> bool:
    """The old definition: K̄ of every maximal profile, profiles listed, K̄ on V itself."""
    K = p.group.subgroup_classes[orbit[0]]
    VK = p.restrict(K)
    return any(len(_kbar_full(p, K, _support(a.mults))) != K.order for a in maximal_profiles(VK, p.head_dim))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["C4", "D4", "C2xC2", "D3", "Q8", "C3"]),
    st.sampled_from(["regular", "trivial", "2xregular", "vector"]),
    st.integers(1, 4),
)
def test_degenerate_flags_match_profiles(name: str, rep: str, d: int) -> None:
    from eqattn.errors import InputError

    try:
        p = Problem.create(name, rep if rep != "vector" else "regular + trivial", 2, d)
    except InputError:
        return
    t = option_table(p)
    for K in p.group.subgroup_classes:
        assert t.degenerate((K.id, 1)) == _old_degenerate(p, (K.id, 1))
        for S in maximal_supports(p.restrict(K), d):
            kb, c, elems = t.kbar(K, S)
            assert frozenset(int(g) for g in elems) == _kbar_full(p, K, S)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["C4", "D4", "C2xC2", "D3", "Q8", "C3", "A4"]), st.data())
def test_kbar_and_extension_on_reduced_rep(name: str, data: st.DataObject) -> None:
    """Lemma 2: K̄(K, S) and the extended irreps s~ are the same for V and V'."""
    G = get_group(name)
    top = G.subgroup_classes[-1]
    mults = tuple(data.draw(st.integers(0, 3)) for _ in range(len(irreps_of(top))))
    if not any(mults):
        return
    p = Problem(G, Rep(top, mults), 2, 3)
    small = reduced_problem(p)
    assert small.V.mults == tuple(1 if m else 0 for m in mults)
    t = option_table(p)
    for K in G.subgroup_classes:
        for S in maximal_supports(p.restrict(K), 3):
            _, _, elems = t.kbar(K, S)
            assert frozenset(int(g) for g in elems) == _kbar_full(p, K, S)


def test_limits() -> None:
    """Issue 9 limits: dim V <= 1024, H <= 64, d <= 256 accepted; larger refused up front."""
    import pytest

    from eqattn.errors import LimitError

    p = Problem.create("C4", "256xregular", 64, 256)
    assert (p.dim_v, p.heads, p.head_dim) == (1024, 64, 256)
    for args in (("C4", "257xregular", 4, 4), ("C4", "regular", 65, 4), ("C4", "regular", 4, 257)):
        with pytest.raises(LimitError):
            Problem.create(*args)
    # the numeric layer's matrices of V are refused past 512 MiB, the attention layer never needs them
    big = Problem.create("S5", "8xregular", 4, 8)
    with pytest.raises(LimitError):
        big.rho  # noqa: B018
    t = option_table(big)
    assert t.degenerate((0, 1)) in (True, False)
