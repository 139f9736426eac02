"""The demand search of the symbolic checker (`SymbolicChecker._defeated_sets_uncached`,
docs/theory-scale.md §C5) against the branching search it replaced (kept here as the
reference): on every demand space and hosting pattern met while checking a sample of
designs, both give the same maximal defeated sets E (read back from the returned profiles'
demands)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from eqattn.attention import Design, DesignOrbit, Problem, clusterings
from eqattn.attention import defeated_supply as symbolic_module
from eqattn.attention.defeated_supply import least_raises
from eqattn.attention.symbolic import SymbolicChecker
from eqattn.errors import LimitError
from eqattn.reps import Rep


def branching_defeated_sets(chk: SymbolicChecker, space, sums) -> list:  # noqa: ANN001
    """The former search: multisets in order, each met or defeated (with every least raise
    of L, `least_raises`, shared with the new search), all maximal E's reached."""
    ms = chk.ms
    n = len(ms)
    r = len(space.Vbar)
    pred = []
    for y in ms:
        mask = 0
        for t, k in enumerate(y):
            if k:
                mask |= 1 << chk.index[tuple(v - (u == t) for u, v in enumerate(y))]
        pred.append(mask)

    results = []
    stack = [(0, 0, (0,) * r)]
    while stack:
        i, E, L = stack.pop()
        La = np.array(L, dtype=np.int64)
        while i < n:
            if E & pred[i] != pred[i]:
                i += 1
                continue
            Si = sums[i]
            if Si.shape[0] == 0 or (La[None, :] > Si).any(axis=1).all():
                E |= 1 << i
                i += 1
                continue
            break
        if i == n:
            results.append((E, L))
            continue
        stack.append((i + 1, E, L))
        for L2 in least_raises(space, sums[i], L):
            stack.append((i + 1, E | (1 << i), L2))
    results.sort(key=lambda t: -bin(t[0]).count("1"))
    keep = []
    for E, L in results:
        if any(E & ~F == 0 for F, _ in keep):
            continue
        keep.append((E, L))
    return [space.witness(L) for _, L in keep]


def defeated_of(chk: SymbolicChecker, space, sums, profiles) -> int:  # noqa: ANN001
    """E(D) for the demand D of the profiles: y is in E iff no supply sum of any z ≤ y is ≥ D."""
    D = np.minimum(sum(np.asarray(b) @ bl.I for b, bl in zip(profiles, space.blocks)), space.Vbar)
    E = 0
    for i, y in enumerate(chk.ms):
        preds = [chk.index[tuple(v - (u == t) for u, v in enumerate(y))] for t, k in enumerate(y) if k]
        if all(E >> j & 1 for j in preds) and not (sums[i] >= D[None, :]).all(axis=1).any():
            E |= 1 << i
    return E


def _designs(p: Problem, rng: random.Random, count: int) -> list[Design]:
    out = []
    subs = p.group.subgroup_classes
    for _ in range(count):
        orbits = []
        for _ in range(rng.randint(1, 5)):
            K = rng.choice(subs)
            VK = p.restrict(K).mults
            W = tuple(rng.randint(0, m) for m in VK)
            if any(W):
                orbits += [DesignOrbit(K, Rep(K, W))] * rng.randint(1, 3)
        if orbits:
            out.append(Design(p, tuple(orbits)))
    return out


CASES = [("C4", "2xregular", 4, 2), ("C4", "8xregular", 16, 2), ("D4", "2xregular", 8, 2), ("D4", "regular", 3, 2), ("C2xC2", "2xregular", 4, 2), ("C4", "4xregular", 8, 2), ("S3", "2xregular", 3, 3)]


MULTI: list[int] = []  # searches with several maximal sets, per case


@pytest.mark.parametrize("seed,case", list(enumerate(CASES)), ids=lambda c: "-".join(map(str, c)) if isinstance(c, tuple) else str(c))
def test_visiting_bounds_finds_the_same_maximal_defeated_sets(seed, case, monkeypatch):
    p = Problem.create(case[0], case[1], case[2], case[3])
    calls = []
    new = SymbolicChecker._defeated_sets_uncached

    def record(self, space, sums):  # noqa: ANN001, ANN202
        out = new(self, space, sums)
        calls.append((self, space, sums, out))
        return out

    monkeypatch.setattr(SymbolicChecker, "_defeated_sets_uncached", record)
    for design in _designs(p, random.Random(seed), 12):
        try:
            chk = SymbolicChecker(p, design)
            for c in clusterings(p):
                chk.scenario_count(c)
        except LimitError:
            continue
    assert calls
    multi = 0
    for chk, space, sums, out in calls:
        ref = branching_defeated_sets(chk, space, sums)
        got = {defeated_of(chk, space, sums, w) for w in out}
        want = {defeated_of(chk, space, sums, w) for w in ref}
        assert got == want
        assert len(out) == len(got)  # one profile per maximal E
        multi += len(got) > 1
    MULTI.append(multi)


def test_several_maximal_sets_were_compared():
    """(runs after the comparisons) the sample holds searches with several maximal E's."""
    assert len(MULTI) == len(CASES) and sum(MULTI) >= 3, MULTI


def test_the_search_is_bounded(monkeypatch):
    p = Problem.create("C4", "4xregular", 8, 2)
    K = p.group.subgroup_classes
    design = Design(p, (DesignOrbit(K[1], Rep(K[1], (3, 2))), DesignOrbit(K[2], Rep(K[2], (2, 1, 1))), DesignOrbit(K[0], Rep(K[0], (2,)))))
    monkeypatch.setattr(symbolic_module, "MAX_SEARCH_NODES", 1)
    with pytest.raises(LimitError, match="demand search"):
        chk = SymbolicChecker(p, design)
        for c in clusterings(p):
            chk.scenario_count(c)
