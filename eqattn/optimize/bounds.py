"""Scenario bounds: a lower bound of the optimum that needs no list of head types (
docs/theory-scale.md O9).

In a scenario the demands are met by *disjoint* sets of design orbits (SPEC §4.5), and
costs are additive, so every covering design costs at least `Σ_j c(v_j)` over the non-zero
demands `v_j` of any one scenario, where `c(v)` is the least cost of a set of orbits that
host `v` and whose supplies meet `D`. `demand_bound` computes a lower bound of `c(v)` by a
small integer program: aggregate the orbits of such a set by (K', double coset a) into
`X_{K',a} = Σ W` (cost and supply are linear in W, SPEC §3/§4.4), so `Σ unit_a X ≥ D`;
an aggregate that is used contains an orbit, which hosts: `X_{K',a} ≥ img_a` (P^a ≤ W).

    >>> from eqattn.attention import Problem
    >>> from eqattn.attention.hosting import hosting
    >>> from eqattn.optimize.separation import ScenarioSpace
    >>> p = Problem.create("C4", "E1", 1, 2)   # SPEC §6.1: the optimum is 8 parameters
    >>> space = ScenarioSpace(p)
    >>> 4 * max(ScenarioBound(p, hosting(p), space.values).of_key(k) for k in space.initial_keys())
    8
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..attention import Problem
from ..attention.assignment import Demand
from ..attention.hosting import Hosting
from . import solver
from .hosts import host_slots

DEMAND_NODES = 1000  # branch-and-bound nodes of one demand's bound under a work limit (deterministic)


def demand_bound(
    problem: Problem, h: Hosting, v: Demand, max_heads: int | None = None, time_limit: float = 5.0, threads: int | None = None,
    node_limit: int | None = None,
) -> int:
    """A lower bound (in units, P/4) of the cost of any set of orbits meeting the demand v
    alone; 0 when D = 0. Orbits of more than `max_heads` heads are left out (they are in no
    design within that constraint). `threads`: as for every program of the call (HiGHS keeps
    one thread pool per process)."""
    D = np.array(v.D.mults, dtype=np.int64)
    if not D.any():
        return 0
    m = solver.Model()
    supply_rows: dict[int, tuple[list[int], list[int]]] = {int(s): ([], []) for s in np.nonzero(D)[0]}
    big_n = max(1, int(D.sum()))  # a minimal set meeting D has at most Σ D orbits
    z_all: list[int] = []
    for slot in host_slots(problem, h, v, max_heads):
        feeds = [t for t in range(len(slot.VK)) if slot.unit[t][D > 0].any()]
        if not feeds:
            continue  # supplies nothing D needs: not in a minimal set
        z = m.add_var(0, 1)
        z_all.append(z)
        for t in sorted(set(feeds) | {t for t in range(len(slot.VK)) if slot.img[t] > 0}):
            big = int(max(slot.VK[t], 1) * big_n)  # each W ≤ V|K'
            x = m.add_var(0, big, int(slot.unit_cost[t]))
            m.add_row([x, z], [1, -int(slot.img[t])], lo=0)  # X ≥ img · z
            m.add_row([x, z], [1, -big], hi=0)  # X = 0 unless used
            for s, (idx, coef) in supply_rows.items():
                if slot.unit[t, s] > 0:
                    idx.append(x)
                    coef.append(int(slot.unit[t, s]))
    if not z_all:
        return 0  # nothing can host v: no bound from it (the program will say infeasible)
    m.add_row(z_all, [1] * len(z_all), lo=1)
    for s, (idx, coef) in supply_rows.items():
        if not idx:
            return 0
        m.add_row(idx, coef, lo=int(D[s]))
    sol = solver.solve(m, time_limit=time_limit, threads=threads, node_limit=node_limit)
    if sol.status == "optimal":
        return int(sol.objective)
    if sol.status == "infeasible":
        return 0
    return max(0, int(np.ceil(sol.bound - 1e-6))) if np.isfinite(sol.bound) else 0


class DemandBounds:
    """`demand_bound` by demand value (`Demand.value()`: what the bound depends on), for the
    searches of one call over one problem and head limit: each search interns demands in
    its own catalogue (its own ids), but the values repeat from search to search (the
    partial coverage's searches of single clusterings, partial_search.py), and each bound
    is a program. A remembered bound is valid whichever search computed it.

        >>> from eqattn.attention import Problem
        >>> from eqattn.attention.hosting import hosting
        >>> from eqattn.optimize.separation import ScenarioSpace
        >>> p = Problem.create("C4", "E1", 1, 2); space = ScenarioSpace(p); shared = DemandBounds(p, None)
        >>> key = space.initial_keys()[0]
        >>> a = ScenarioBound(p, hosting(p), space.values, shared=shared).of_key(key)
        >>> b = ScenarioBound(p, hosting(p), space.values, shared=shared); b.of_key(key) == a, len(shared)
        (True, 1)
    """

    def __init__(self, problem: Problem, max_heads: int | None, deterministic: bool = False) -> None:
        self.problem, self.max_heads, self.deterministic = problem, max_heads, deterministic
        self._memo: dict[tuple, int] = {}

    def __len__(self) -> int:
        return len(self._memo)

    def get(self, v: Demand) -> int | None:
        return self._memo.get(v.value())

    def put(self, v: Demand, bound: int) -> None:
        self._memo[v.value()] = bound


class ScenarioBound:
    """`Σ_j demand_bound(v_j)` per scenario key, memoised per demand value (and in `shared`,
    a `DemandBounds` of the same problem, head limit and mode, across searches)."""

    def __init__(
        self, problem: Problem, h: Hosting, values: list[Demand], max_heads: int | None = None, threads: int | None = None,
        deterministic: bool = False, shared: DemandBounds | None = None,
    ) -> None:
        """`deterministic`: each demand's program stops at DEMAND_NODES nodes, not at 5 s (under a work limit)."""
        if shared is not None and (shared.problem is not problem or shared.max_heads != max_heads or shared.deterministic != deterministic):
            raise ValueError("shared: DemandBounds of another problem, head limit or mode")
        self.problem, self.h, self.values, self.max_heads, self.threads = problem, h, values, max_heads, threads
        self.deterministic = deterministic
        self.shared = shared
        self._memo: dict[int, int] = {}

    def of_value(self, i: int, deadline: float = math.inf) -> int:
        """The bound of demand value i (0, not remembered, once the deadline has passed)."""
        b = self._memo.get(i)
        if b is None and self.shared is not None:
            b = self.shared.get(self.values[i])
            if b is not None:
                self._memo[i] = b
        if b is None:
            left = deadline - time.perf_counter()
            if left <= 0:
                return 0
            if self.deterministic:
                b = demand_bound(self.problem, self.h, self.values[i], self.max_heads, left, self.threads, node_limit=DEMAND_NODES)
            else:
                b = demand_bound(self.problem, self.h, self.values[i], self.max_heads, min(5.0, left), self.threads)
            self._memo[i] = b
            if self.shared is not None:
                self.shared.put(self.values[i], b)
        return b

    def of_key(self, key: tuple[int, ...], deadline: float = math.inf) -> int:
        """A lower bound (units) of every design meeting the scenario `key` (demand ids)."""
        return sum(self.of_value(i, deadline) for i in key)
