"""The design-specific option reduction (SPEC §4.5): which options of an orbit need checking.

For a fixed design, let `meets(o)` be the set of multisets m of design orbit types that can
serve option o's demand alone (one double coset per orbit, supplies summed). If
`meets(o) ⊆ meets(o')`, any assignment for a scenario containing o serves the scenario
with o' in its place (same hosts, the rest unchanged), so o' is *easier* and only
scenarios over the other options need checking. `keep_hardest` is that rule: it keeps the
options whose meets set contains no other's (of equal sets, the first). The zero pool is
shared by several orbits; pooled options are never removed this way.

Two ways to compute `meets`, both exact: `SupplyDominance` (the coverage checker's)
enumerates all multisets of the design and the maximal supply sums of their orbits;
`RequirementDominance` (the optimiser's separation) lists the minimal multisets that meet
each demand (an up-set is compared through its minimal elements), restricted to the types
that host it.

    >>> keep_hardest(np.array([[True, True], [True, False]]))   # option 1 is harder
    [1]
"""

from __future__ import annotations

import math
from itertools import product
from typing import Sequence

import numpy as np

from ..reps import irreps_of
from .assignment import AssignmentSearch, Demand
from .hosting import Hosting
from .options import Option, option_table
from .problem import Problem

MAX_MULTISETS = 4096  # multisets of design orbits examined for one reduction


def keep_hardest(within: np.ndarray, compared: Sequence[bool] | None = None) -> list[int]:
    """Indices (in order) of the options to keep, given `within[i, j]`: meets(i) ⊆ meets(j).
    Option i is dropped when some other compared option j has meets(j) ⊆ meets(i), strictly,
    or equally with j first. Options not `compared` are kept and drop nothing."""
    n = within.shape[0]
    cmp = np.ones(n, dtype=bool) if compared is None else np.asarray(compared, dtype=bool)
    w = within & cmp[:, None] & cmp[None, :]
    np.fill_diagonal(w, False)
    strict = w & ~w.T
    equal_before = np.triu(w & w.T, 1)  # [j, i]: equal sets, j < i
    drop = (strict | equal_before).any(axis=0)
    return [i for i in range(n) if not drop[i]]


def maximal_rows(V: np.ndarray) -> np.ndarray:
    """Rows of V not dominated by another row (duplicates removed)."""
    V = np.unique(V, axis=0)
    if V.shape[0] <= 1:
        return V
    ge = (V[:, None, :] >= V[None, :, :]).all(axis=2)
    np.fill_diagonal(ge, False)
    return V[~ge.any(axis=0)]


class SupplyDominance:
    """The coverage checker's reduction: meets(o)[m] for every multiset m of the design's
    orbit types (`counts[t]` copies of `(sub_t, W_t)`), from the maximal supply sums of m's
    orbits (each hosting o through one double coset). No reduction past MAX_MULTISETS."""

    def __init__(self, problem: Problem, h: Hosting, orbits: Sequence, counts: Sequence[int]) -> None:  # orbits: DesignOrbit
        self.problem = problem
        self.h = h
        self.orbits = list(orbits)
        self.counts = list(counts)
        self._sums: dict[tuple, list[np.ndarray]] = {}
        self._reduced: dict[tuple[int, int], tuple[Option, ...]] = {}
        size = math.prod(c + 1 for c in self.counts)
        self.multisets = (
            sorted(product(*[range(c + 1) for c in self.counts]), key=lambda m: (sum(m), m)) if size <= MAX_MULTISETS else None
        )

    def host_sums(self, kbar: int, P) -> list[np.ndarray]:  # noqa: ANN001 - P: Rep
        """For each multiset m (in `multisets` order): the maximal supply sums (k, r) its
        orbits can give to a demand (K̄_0 = kbar, P), one double coset per orbit."""
        hostable = tuple(tuple(a for a, _ in self.h.hosts(o.sub.id, o.W, kbar, P)) for o in self.orbits)
        key = (kbar, hostable)  # supplies depend on P only through which cosets host
        if key not in self._sums:
            ms = self.multisets
            assert ms is not None
            r = len(irreps_of(self.problem.group.subgroup_classes[kbar]))
            hosts = []
            for o in self.orbits:
                hs = [np.array(S.mults) for _, S in self.h.hosts(o.sub.id, o.W, kbar, P)]
                hosts.append(maximal_rows(np.array(hs)) if hs else np.zeros((0, r), dtype=np.int64))
            sums: dict[tuple[int, ...], np.ndarray] = {}
            for m in ms:
                if not any(m):
                    sums[m] = np.zeros((1, r), dtype=np.int64)
                    continue
                t = next(i for i, k in enumerate(m) if k)
                prev = sums[tuple(k - (i == t) for i, k in enumerate(m))]
                if hosts[t].shape[0] == 0 or prev.shape[0] == 0:
                    sums[m] = np.zeros((0, r), dtype=np.int64)
                else:
                    sums[m] = maximal_rows((prev[:, None, :] + hosts[t][None, :, :]).reshape(-1, r))
            self._sums[key] = [sums[m] for m in ms]
        return self._sums[key]

    def reduced_options(self, orbit: tuple[int, int]) -> tuple[Option, ...]:
        """The orbit's options less the easier ones (see the module docstring)."""
        if orbit in self._reduced:
            return self._reduced[orbit]
        table = option_table(self.problem)
        if self.multisets is None:
            self._reduced[orbit] = table.options(orbit)
            return self._reduced[orbit]
        pooled: list[Option] = []
        rows: list[np.ndarray] = []
        opts: list[Option] = []
        nm = len(self.multisets)
        for zero, kb, pes, ds in table.pareto_groups(orbit):
            if zero:  # the zero pool: kept as they are (pooled demands add up)
                pooled += [Option(orbit, a, b, kb, c, P, D) for a, c, P in pes for b, D in ds[c]]
                continue
            for a, c, P in pes:
                sums = self.host_sums(kb, P)
                Ds = np.array([D.mults for _, D in ds[c]])  # (q, r)
                meets = np.zeros((Ds.shape[0], nm), dtype=bool)
                for k, sm in enumerate(sums):
                    if sm.shape[0]:
                        meets[:, k] = (sm[None, :, :] >= Ds[:, None, :]).all(axis=2).any(axis=1)
                rows.append(meets)
                opts += [Option(orbit, a, b, kb, c, P, D) for b, D in ds[c]]
        keep: list[Option] = list(pooled)
        if rows:
            allm = np.concatenate(rows)
            U, first = np.unique(allm, axis=0, return_index=True)
            order = np.argsort(first)  # one row per meets vector, in the order of their first option
            U, first = U[order], first[order]
            within = (U[:, None, :] <= U[None, :, :]).all(axis=2)
            keep += [opts[first[k]] for k in keep_hardest(within)]
        self._reduced[orbit] = tuple(keep)
        return self._reduced[orbit]


class RequirementDominance:
    """The separation's reduction: meets(demand) through its *requirement*, the minimal
    multisets (counts over the search's types, in sorted type order) that meet it alone,
    over the types that host it; no reduction past MAX_MULTISETS multisets."""

    def __init__(self, search: AssignmentSearch) -> None:
        self.search = search
        self.types = sorted(search.counts)
        self._req: dict[tuple, list[tuple[int, ...]] | None] = {}

    def requirement(self, d: Demand) -> list[tuple[int, ...]] | None:
        key = d.value()
        if key in self._req:
            return self._req[key]
        counts = self.search.counts
        hosting_types = {t for t, _, _ in self.search.candidates(d)}
        ranges = [range(counts[t] + 1) if t in hosting_types else range(1) for t in self.types]
        if math.prod(len(r) for r in ranges) > MAX_MULTISETS:
            self._req[key] = None
            return None
        minimal: list[tuple[int, ...]] = []
        for m in sorted(product(*ranges), key=lambda m: (sum(m), m)):
            if any(all(x <= y for x, y in zip(q, m)) for q in minimal):
                continue
            if self.search.solve_with((d,), {t: k for t, k in zip(self.types, m) if k}) is not None:
                minimal.append(m)
        self._req[key] = minimal
        return minimal

    def reduce(self, options: Sequence[Demand | None], pooled: Sequence[bool]) -> list[int]:
        """Indices of the options to keep. `options[i]`: the demand of option i, None when it
        has none (zero D, or pooled); `pooled[i]`: it adds to the zero pool."""
        empty = tuple(0 for _ in self.types)
        reqs: list[list[tuple[int, ...]] | None] = []
        for d, p in zip(options, pooled):
            if d is None:
                reqs.append(None if p else [empty])  # pool: kept; nothing: met by no orbit
            else:
                reqs.append(self.requirement(d))

        def up_within(rj: list, ri: list) -> bool:
            """up(rj) ⊆ up(ri): every multiset meeting j meets i."""
            return all(any(all(x <= y for x, y in zip(q2, q)) for q2 in ri) for q in rj)

        n = len(reqs)
        within = np.zeros((n, n), dtype=bool)
        compared = [r is not None for r in reqs]
        for i, ri in enumerate(reqs):
            for j, rj in enumerate(reqs):
                if i != j and ri is not None and rj is not None:
                    within[i, j] = up_within(ri, rj)
        keep = keep_hardest(within, compared)
        if any(pooled):  # an option contributing nothing is easier than joining the pool
            keep = [i for i in keep if not (options[i] is None and not pooled[i])]
        return keep

