"""G-clusterings of H heads: multisets {(K_j, n_j)} with sum [G:K_j] n_j = H (SPEC §2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..errors import LimitError
from .problem import Problem

MAX_CLUSTERINGS = 25000  # Oh with H = 16 has 23147; D4h with H = 16 (374416) is not listed
MAX_REPRESENTED = 10_000_000  # clusterings past which they are not checked through representatives either (theory-scale C7) ...
MAX_ORBIT_TYPES = 160  # ... nor past this many orbit types (K, n)


@dataclass(frozen=True)
class Clustering:
    """Orbit types ((subgroup class id, cluster size), count), sorted; heads = sum index*n*count.
    `id` is the position in `clusterings(problem)`; -1 for a clustering built outside that
    list (a representative of the symbolic check past MAX_CLUSTERINGS, theory-scale C7)."""

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


def orbit_types(problem: Problem) -> list[tuple[int, int, int]]:
    """(weight [G:K]·n, class id of K, n) for every orbit type that fits in H heads, in the
    order the orbits of a clustering are listed.

        >>> orbit_types(Problem.create("C2", "regular", 2, 1))   # G/C2·1, G/C2·2, G/C1·1
        [(1, 1, 1), (2, 1, 2), (2, 0, 1)]
    """
    H = problem.heads
    out = []
    for c in problem.group.subgroup_classes:
        for n in range(1, H // c.index + 1):
            out.append((c.index * n, c.id, n))
    # G-fixed orbits first, then by index, cluster size
    out.sort(key=lambda t: (problem.group.subgroup_classes[t[1]].index, -t[1], t[2]))
    return out


def _count(H: int, items: list[tuple[int, int, int]]) -> int:
    ways = [1] + [0] * H
    for w, _, _ in items:
        for s in range(w, H + 1):
            ways[s] += ways[s - w]
    return ways[H]


def count_clusterings(problem: Problem) -> int:
    """Number of G-clusterings: multisets of orbit types (weight [G:K]·n each, any number of
    copies) of total weight H, counted by the unbounded-knapsack recurrence over the types
    (iterative: D4h with H = 64 has 524 types, too deep for a recursion).

        >>> count_clusterings(Problem.create("C2", "regular", 2, 1))  # G/C2·2, 2·G/C2, G/C1
        3
    """
    return _count(problem.heads, orbit_types(problem))


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
    return tuple(Clustering(i, orbits) for i, orbits in enumerate(_multisets(problem.heads, orbit_types(problem))))


def require_checkable(problem: Problem) -> None:
    """Refuses (LimitError) a problem whose clusterings can neither be listed (at most
    MAX_CLUSTERINGS) nor checked through representatives (at most MAX_REPRESENTED
    clusterings and MAX_ORBIT_TYPES orbit types, theory-scale C7); lists them when they can
    be listed.

        >>> require_checkable(Problem.create("D4h", "vector", 16, 1))   # 374416 clusterings, 131 types
        >>> require_checkable(Problem.create("D4h", "vector", 24, 1))
        Traceback (most recent call last):
        ...
        eqattn.errors.LimitError: heads: D4h with H = 24 has 34883552 clusterings (196 orbit types); at most 25000 are listed and at most 10000000 (160 orbit types) checked through representatives (use fewer heads)
    """
    total = count_clusterings(problem)
    if total <= MAX_CLUSTERINGS:
        clusterings(problem)
        return
    types = len(orbit_types(problem))
    if total > MAX_REPRESENTED or types > MAX_ORBIT_TYPES:
        raise LimitError(
            "heads",
            f"{problem.group.name} with H = {problem.heads} has {total} clusterings ({types} orbit types); at most "
            f"{MAX_CLUSTERINGS} are listed and at most {MAX_REPRESENTED} ({MAX_ORBIT_TYPES} orbit types) checked through representatives (use fewer heads)",
        )


def clusterings_of_types(problem: Problem, types: set[tuple[int, int]], limit: int) -> tuple[Clustering, ...]:
    """The G-clusterings whose orbits are all of the given types `(class id, n)`, in the
    order of `clusterings(problem)`, with id -1; refused above `limit` of them.

        >>> [c.orbits for c in clusterings_of_types(Problem.create("C2", "regular", 2, 1), {(1, 1)}, 10)]
        [(((1, 1), 2),)]
    """
    items = [it for it in orbit_types(problem) if (it[1], it[2]) in types]
    total = _count(problem.heads, items)
    if total > limit:
        raise LimitError(
            "heads",
            f"{problem.group.name} with H = {problem.heads}: the check needs {total} representative clusterings; at most {limit} (use fewer heads)",
        )
    return tuple(Clustering(-1, orbits) for orbits in _multisets(problem.heads, items))


def _multisets(H: int, items: list[tuple[int, int, int]]) -> list[tuple]:
    """Multisets of the items of total weight H, sorted as the clusterings are listed. A
    branch is entered only when the items left can still make up its remaining weight
    (`reach[i][r]`: some multiset of items[i:] weighs r), so the walk visits no dead end."""
    out: list[tuple] = []
    reach = [[False] * (H + 1) for _ in range(len(items) + 1)]
    reach[len(items)][0] = True
    for i in range(len(items) - 1, -1, -1):
        w = items[i][0]
        row, nxt = reach[i], reach[i + 1]
        for r in range(H + 1):
            row[r] = nxt[r] or (r >= w and row[r - w])

    def rec(i: int, rem: int, acc: list) -> None:
        if rem == 0:
            out.append(tuple(acc))
            return
        if i == len(items) or not reach[i][rem]:
            return
        rec(i + 1, rem, acc)
        w, cid, n = items[i]
        k = 1
        while k * w <= rem:
            acc.append(((cid, n), k))
            rec(i + 1, rem - k * w, acc)
            acc.pop()
            k += 1

    rec(0, H, [])
    # fewer orbits first (the most symmetric clusterings lead)
    out.sort(key=lambda orbits: (sum(c for _, c in orbits), [(-cid, n, c) for (cid, n), c in orbits]))
    return out
