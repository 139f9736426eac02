"""G-clusterings of H heads: multisets {(K_j, n_j)} with sum [G:K_j] n_j = H (SPEC §2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from ..errors import LimitError
from .problem import Problem

MAX_CLUSTERINGS = 5000


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
    items = _items(problem)
    weights = tuple(w for w, _, _ in items)

    @lru_cache(maxsize=None)
    def count(i: int, rem: int) -> int:
        if rem == 0:
            return 1
        if i == len(weights):
            return 0
        total = count(i + 1, rem)
        w = weights[i]
        k = 1
        while k * w <= rem:
            total += count(i + 1, rem - k * w)
            k += 1
        return total

    return count(0, problem.heads)


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
