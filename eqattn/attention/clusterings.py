"""G-clusterings of H heads: multisets {(K_j, n_j)} with sum [G:K_j] n_j = H (SPEC §2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..errors import LimitError
from .problem import Problem

MAX_CLUSTERINGS = 25000  # Oh with H = 16 has 23147; D4h with H = 16 (374416) is refused


@dataclass(frozen=True)
class Clustering:
    """Orbit types ((subgroup class id, cluster size), count), sorted; heads = sum index*n*count."""

    id: int
    orbits: tuple[tuple[tuple[int, int], int], ...]

    def expanded(self) -> list[tuple[int, int]]:
        return [o for o, c in self.orbits for _ in range(c)]


def count_scenarios(c: Clustering, options: Callable[[tuple[int, int]], int]) -> int:
    """Scenarios of c (SPEC §4.5): identical orbits take multisets of options, so
    `Π_types C(n_options + k - 1, k)` for k orbits of a type with `options(type)` options.

        >>> count_scenarios(Clustering(0, (((0, 1), 2),)), lambda o: 3)   # 2 orbits, 3 options
        6
    """
    return math.prod(math.comb(options(o) + k - 1, k) for o, k in c.orbits)


def _items(problem: Problem) -> list[tuple[int, int, int]]:
    """(weight, class id, n) for every orbit type that fits in H heads."""
    H = problem.heads
    out = []
    for c in problem.group.subgroup_classes:
        for n in range(1, H // c.index + 1):
            out.append((c.index * n, c.id, n))
    # G-fixed orbits first, then by index, cluster size
    out.sort(key=lambda t: (problem.group.subgroup_classes[t[1]].index, -t[1], t[2]))
    return out


def count_clusterings(problem: Problem) -> int:
    """Number of G-clusterings: multisets of orbit types (weight [G:K]·n each, any number of
    copies) of total weight H, counted by the unbounded-knapsack recurrence over the types
    (iterative: D4h with H = 64 has 524 types, too deep for a recursion).

        >>> count_clusterings(Problem.create("C2", "regular", 2, 1))  # G/C2·2, 2·G/C2, G/C1
        3
    """
    H = problem.heads
    ways = [1] + [0] * H
    for w, _, _ in _items(problem):
        for s in range(w, H + 1):
            ways[s] += ways[s - w]
    return ways[H]


def clusterings(problem: Problem) -> tuple[Clustering, ...]:
    """All G-clusterings in a deterministic order (refused above MAX_CLUSTERINGS)."""
    return problem.cached("clusterings", lambda: _enumerate(problem))


def _enumerate(problem: Problem) -> tuple[Clustering, ...]:
    total = count_clusterings(problem)
    if total > MAX_CLUSTERINGS:
        raise LimitError(
            "heads",
            f"{problem.group.name} with H = {problem.heads} has {total} clusterings; "
            f"at most {MAX_CLUSTERINGS} are listed (use fewer heads)",
        )
    items = _items(problem)
    out: list[tuple] = []

    def rec(i: int, rem: int, acc: list) -> None:
        if rem == 0:
            out.append(tuple(acc))
            return
        if i == len(items):
            return
        rec(i + 1, rem, acc)
        w, cid, n = items[i]
        k = 1
        while k * w <= rem:
            acc.append(((cid, n), k))
            rec(i + 1, rem - k * w, acc)
            acc.pop()
            k += 1

    rec(0, problem.heads, [])
    # fewer orbits first (the most symmetric clusterings lead)
    out.sort(key=lambda orbits: (sum(c for _, c in orbits), [(-cid, n, c) for (cid, n), c in orbits]))
    return tuple(Clustering(i, orbits) for i, orbits in enumerate(out))
