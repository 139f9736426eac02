"""The assignment search (SPEC §4.5): can distinct design orbits, each through one double
coset, meet every demand of a scenario, the supplies summed irrep by irrep?

A design is seen as counts of orbit *types* (identical orbits are interchangeable); a
*candidate* for a demand is `(type, a, supply capped at D)` for a double coset a through
which the type hosts the demand. `AssignmentSearch` is the one exact search (depth first,
failed states memoised, a step budget), used by the coverage checker and by the optimiser's
separation; `best_attempt` finds the least shortfall when no assignment exists.

    >>> from eqattn.attention import Problem
    >>> G = Problem.create("C2", "2xA", 1, 1).top
    >>> demand = Demand(G.id, Rep(G, (0, 0)), Rep(G, (2, 0)), (), False)   # D = 2xA
    >>> search = AssignmentSearch({0: 2}, lambda d: [(0, 0, np.array([1, 0]))])
    >>> search.solve((demand,))   # met by two copies of type 0, each supplying A
    (((0, 0), (0, 0)),)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..errors import LimitError
from ..reps import Rep

SEARCH_BUDGET = 200000  # search steps for one scenario (LimitError past it)
ATTEMPT_BUDGET = 20000  # steps of the best-attempt search (then the best found so far)

Candidate = tuple[int, int, np.ndarray]  # (type, double coset a, supply capped at D)
Plan = tuple[tuple[tuple[int, int], ...], ...]  # per demand, the (type, a) hosting it


@dataclass(frozen=True)
class Demand:
    """A demand of a scenario: an option (K̄_0, P, D) of one orbit, or the zero pool."""

    kbar: int
    P: Rep
    D: Rep
    orbits: tuple[int, ...]  # positions in the clustering's expanded orbit list (() when unknown)
    pool: bool

    def value(self) -> tuple:
        """What the assignment depends on (two demands with equal values are met alike)."""
        return (self.pool, self.kbar, self.P.mults, self.D.mults)

    @property
    def size(self) -> int:
        """Number of irreducible summands of D (counted with multiplicity)."""
        return int(sum(self.D.mults))


@dataclass(frozen=True)
class Host:
    design_orbit: int
    a: int
    supply: Rep


@dataclass(frozen=True)
class Assignment:
    demand: Demand
    hosts: tuple[Host, ...]


class AssignmentSearch:
    """Assignments of a design, given as `counts` of orbit types, to scenarios' demands.

    `candidates(demand)` lists the demand's candidates `(type, a, supply capped at D)` in the
    order the search tries them; they are computed once per demand value. Results are
    memoised per multiset of demand values."""

    def __init__(self, counts: dict[int, int], candidates: Callable[[Demand], list[Candidate]], budget: int = SEARCH_BUDGET) -> None:
        self.counts = {t: c for t, c in counts.items() if c > 0}
        self.budget = budget
        self._make = candidates
        self._cands: dict[tuple, list[Candidate]] = {}
        self._memo: dict[tuple, Plan | None] = {}

    def candidates(self, d: Demand) -> list[Candidate]:
        key = d.value()
        out = self._cands.get(key)
        if out is None:
            out = self._cands[key] = self._make(d)
        return out

    def solve(self, demands: Sequence[Demand]) -> Plan | None:
        """Per demand (in the caller's order), the (type, a) hosting it; None if impossible.
        LimitError when the search runs past its step budget."""
        # the memo is keyed by the sorted demand values, so solve in that order and map the
        # plan back to the caller's order (a plan is positional: one entry per demand)
        return in_value_order(demands, self._memo, lambda ds: self.solve_with(ds, self.counts))

    def solve_with(self, demands: Sequence[Demand], counts: dict[int, int]) -> Plan | None:
        """`solve` for other counts of the same types (not memoised)."""
        cands = [[c for c in self.candidates(d) if counts.get(c[0], 0)] for d in demands]
        needs = [np.array(d.D.mults, dtype=np.int64) for d in demands]
        for D, cs in zip(needs, cands):  # a demand that everything available cannot meet
            tot = np.zeros_like(D)
            for t, _, s in cs:
                tot = tot + counts[t] * s
            if (tot < D).any():
                return None
        order = sorted(range(len(demands)), key=lambda j: len(cands[j]))
        avail = dict(counts)
        chosen: list[list[tuple[int, int]]] = [[] for _ in demands]
        failed: set = set()
        budget = [self.budget]

        def dfs(pos: int) -> bool:
            if pos == len(order):
                return True
            j = order[pos]
            return cover(pos, j, 0, needs[j])

        def cover(pos: int, j: int, start: int, deficit: np.ndarray) -> bool:
            if (deficit <= 0).all():
                return dfs(pos + 1)
            key = (pos, start, tuple(deficit), tuple(sorted(avail.items())))
            if key in failed:
                return False
            budget[0] -= 1
            if budget[0] < 0:
                raise LimitError("orbits", f"the assignment search exceeded {self.budget} steps")
            # bound: everything still available cannot close the deficit
            need = deficit > 0
            best_by_type: dict[int, np.ndarray] = {}
            for t, _, s in cands[j][start:]:
                if avail[t]:
                    best_by_type[t] = np.maximum(best_by_type.get(t, 0), s)
            total = np.zeros_like(deficit)
            for t, s in best_by_type.items():
                total = total + avail[t] * s
            if (total[need] < deficit[need]).any():
                failed.add(key)
                return False
            for ci in range(start, len(cands[j])):
                t, a, s = cands[j][ci]
                if not avail[t] or not (s[need] > 0).any():
                    continue
                avail[t] -= 1
                chosen[j].append((t, a))
                if cover(pos, j, ci, deficit - s):
                    return True
                chosen[j].pop()
                avail[t] += 1
            failed.add(key)
            return False

        if not dfs(0):
            return None
        return tuple(tuple(c) for c in chosen)

    def best_attempt(self, demands: Sequence[Demand]) -> list[np.ndarray]:
        """Per demand, the missing multiplicities in an assignment of least total shortfall
        (weighted by irrep dimension), found by branch and bound within ATTEMPT_BUDGET steps."""
        cands = [self.candidates(d) for d in demands]
        dims = [d.D.irreps.dims for d in demands]
        avail = dict(self.counts)
        best: list = [math.inf, None]
        budget = [ATTEMPT_BUDGET]
        missing: list[np.ndarray] = [np.zeros(0)] * len(demands)

        def rec(j: int, start: int, deficit: np.ndarray, acc: float) -> None:
            budget[0] -= 1
            if budget[0] < 0 or acc >= best[0]:
                return
            if j == len(demands):
                best[0] = acc
                best[1] = list(missing)
                return
            if (deficit <= 0).all():
                missing[j] = np.zeros_like(deficit)
                nxt = j + 1
                rec(nxt, 0, np.array(demands[nxt].D.mults) if nxt < len(demands) else deficit, acc)
                return
            need = deficit > 0
            for ci in range(start, len(cands[j])):
                t, a, s = cands[j][ci]
                if avail[t] and (s[need] > 0).any():
                    avail[t] -= 1
                    rec(j, ci, deficit - s, acc)
                    avail[t] += 1
            # stop serving demand j here
            short = np.maximum(deficit, 0)
            missing[j] = short
            nxt = j + 1
            rec(nxt, 0, np.array(demands[nxt].D.mults) if nxt < len(demands) else deficit, acc + float(np.dot(short, dims[j])))

        if demands:
            rec(0, 0, np.array(demands[0].D.mults), 0.0)
        if best[1] is None:
            return [np.array(d.D.mults) for d in demands]
        return best[1]

    def witness(
        self, demands: Sequence[Demand], plan: Plan, instances: Sequence[Sequence[int]], supply: Callable[[int, int, Demand], Rep]
    ) -> tuple[Assignment, ...]:
        """The plan with named design orbits: copy k of type t is `instances[t][k]`;
        `supply(t, a, demand)` is the full (uncapped) supply of type t through a."""
        used = {t: 0 for t in self.counts}
        out = []
        for d, picks in zip(demands, plan):
            hosts = []
            for t, a in picks:
                inst = instances[t][used[t]]
                used[t] += 1
                hosts.append(Host(inst, a, supply(t, a, d)))
            out.append(Assignment(d, tuple(hosts)))
        return tuple(out)


def in_value_order(
    demands: Sequence[Demand], memo: dict, solve_sorted: Callable[[list[Demand]], tuple | None]
) -> tuple | None:
    """`solve_sorted` on the demands sorted by value, memoised per sorted value tuple (the
    multiset of demand values), answered positionally in the caller's order; None stays None.

    >>> in_value_order([], {}, lambda ds: ())
    ()
    """
    values = [d.value() for d in demands]
    order = sorted(range(len(demands)), key=lambda j: values[j])
    key = tuple(values[j] for j in order)
    if key not in memo:
        memo[key] = solve_sorted([demands[j] for j in order])
    res = memo[key]
    if res is None:
        return None
    out: list = [()] * len(demands)
    for pos, j in enumerate(order):
        out[j] = res[pos]
    return tuple(out)
