"""Supports of maximal profiles and the support-only token representation (SPEC §4.1,
§4.3; proofs in docs/theory-scale.md §1–§2).

A profile `a ≤ V|K` with `dim a ≤ d` is maximal iff every irrep σ of `V|K` has
`a_σ = m_σ` or `δ_σ > r`, where `r = d − dim a` is the slack and `δ_σ = dim σ`. So a
maximal profile with support exactly `S` exists iff for some slack
`0 ≤ r < min{δ_σ : σ ∈ T∖S}` (T the support of `V|K`) the saturated irreps
`Sat = {σ ∈ S : δ_σ ≤ r}` fit and the rest of `S` can make up the remaining dimension
exactly: `Σ_{σ∈S∖Sat} a_σ δ_σ = d − r − Σ_{σ∈Sat} m_σ δ_σ` with `1 ≤ a_σ ≤ m_σ`
(a bounded subset-sum, decided with a bitset). `K̄`, the extended irreps `σ̃` and hence the
degenerate flag depend on `supp a` only, and on `V` only through which irreps of `G` occur
in it: they are computed on `V' = ⊕_{τ : m_τ(V) > 0} τ` (`reduced_problem`).

Example: `maximal_supports(Rep(C4, (2, 0, 1)), 2)` (V|K = 2A + E, d = 2) gives
`[(0,), (2,)]`: `2A` and `E` are maximal, `A + …` with slack 1 would need an irrep of
dimension 1 outside the support.
"""

from __future__ import annotations

from itertools import combinations
from typing import Iterator

from ..reps import Rep
from .problem import Problem

MAX_SUPPORT_IRREPS = 16  # irreps of V|K examined for supports (2^16 subsets)


def reduced_problem(problem: Problem) -> Problem:
    """The same problem with V replaced by V' = sum of the distinct irreps of G in V
    (theory-scale.md Lemma 2: K̄(K, S) and σ̃ are the same for V and V')."""

    def build() -> Problem:
        mults = tuple(1 if m else 0 for m in problem.V.mults)
        if mults == problem.V.mults:
            return problem
        return Problem(problem.group, Rep(problem.V.sub, mults), problem.heads, problem.head_dim)

    return problem.cached("reduced", build)


def _reachable(items: list[tuple[int, int]], target: int) -> bool:
    """Is `target` = Σ a_i δ_i with 1 ≤ a_i ≤ m_i for items (δ_i, m_i)? Bitset subset-sum."""
    if target < 0:
        return False
    mask = (1 << (target + 1)) - 1
    reach = 1  # bit s: sum s reachable
    for delta, m in items:
        nxt = 0
        top = min(m, target // delta)
        if top < 1:
            return False
        for k in range(1, top + 1):
            nxt |= reach << (k * delta)
        reach = nxt & mask
        if not reach:
            return False
    return bool((reach >> target) & 1)


def slacks_for_support(bound: Rep, cap: int, support: tuple[int, ...]) -> list[int]:
    """The slacks r = cap − dim a of the maximal profiles a ≤ bound, dim a ≤ cap, whose
    support is exactly `support` (empty list: the support does not occur)."""
    dims = [int(x) for x in bound.irreps.dims]
    m = bound.mults
    T = [i for i, k in enumerate(m) if k]
    S = set(support)
    outside = [dims[i] for i in T if i not in S]
    mu = min(outside) if outside else cap + 1
    out = []
    for r in range(0, min(cap, mu - 1) + 1):
        sat = [i for i in support if dims[i] <= r]
        free = [(dims[i], m[i]) for i in support if dims[i] > r]
        target = cap - r - sum(m[i] * dims[i] for i in sat)
        if target < 0:
            continue
        if not free:
            if target == 0:
                out.append(r)
            continue
        if _reachable(free, target):
            out.append(r)
    return out


def maximal_supports(bound: Rep, cap: int) -> list[tuple[int, ...]]:
    """Supports (sorted irrep indices) of the maximal profiles a ≤ bound with dim a ≤ cap
    (SPEC §4.1), without listing the profiles. () is the support of a = 0."""
    T = [i for i, k in enumerate(bound.mults) if k]
    if len(T) > MAX_SUPPORT_IRREPS:
        from ..errors import LimitError

        raise LimitError("rep", f"V restricted to a subgroup has {len(T)} distinct irreps; at most {MAX_SUPPORT_IRREPS}")
    out = []
    for size in range(len(T) + 1):
        for S in combinations(T, size):
            if slacks_for_support(bound, cap, S):
                out.append(S)
    return out


def supports_of(problem: Problem, cid: int) -> list[tuple[int, ...]]:
    """maximal_supports(V|K, d) for subgroup class `cid`, memoised per problem."""
    return problem.cached(
        f"supports:{cid}",
        lambda: maximal_supports(problem.restrict(problem.group.subgroup_classes[cid]), problem.head_dim),
    )


def profiles_with_support(bound: Rep, cap: int, support: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """The maximal profiles with exactly this support (for tests and small cases)."""
    dims = [int(x) for x in bound.irreps.dims]
    m = bound.mults
    for r in slacks_for_support(bound, cap, support):
        sat = {i for i in support if dims[i] <= r}
        free = [i for i in support if i not in sat]
        target = cap - r - sum(m[i] * dims[i] for i in sat)

        def rec(j: int, rem: int, acc: dict[int, int]) -> Iterator[dict[int, int]]:
            if j == len(free):
                if rem == 0:
                    yield dict(acc)
                return
            i = free[j]
            for k in range(1, min(m[i], rem // dims[i]) + 1):
                acc[i] = k
                yield from rec(j + 1, rem - k * dims[i], acc)
            acc.pop(i, None)

        for acc in rec(0, target, {}):
            vec = [0] * len(m)
            for i in sat:
                vec[i] = m[i]
            for i, k in acc.items():
                vec[i] = k
            yield tuple(vec)
