"""The separation oracle of the optimiser: given a design as counts of orbit types, find
scenarios it does not meet (SPEC §4.5, §5.5).

Scenario keys. Two scenarios with the same multiset of demands `(K̄_0, P, D)` (zero pool
included) have the same assignments, so the optimiser works on these multisets: a scenario
(one option per orbit of a clustering, as `coverage.scenarios` lists them) is reduced to its
sorted tuple of demand ids ("key"); `ScenarioSpace` interns the demand values.

Hosts by linearity. `S = Ind_{aK'a⁻¹}^{K̄_0} W^{a⁻¹}` is the sum over the irreps τ of K' of
m_τ(W) times the supply of τ alone, and hosting is `P^a ≤ W`, a comparison of multiplicity
vectors. `HostTables` stores per subgroup K' and demand value the double cosets (those of
`hosting.Hosting.cosets`), the images `P^a` and the unit supplies.

Design-specific reduction. Scenarios are far too many to list for large problems
(multisets of options grow combinatorially), but for a fixed design most are implied by
others: the *requirement* of a demand is the set of minimal multisets of design orbit
types that can meet it alone (one double coset per orbit, supplies summed). If every
requirement multiset of option o also meets option o' of the same orbit, any assignment
for a scenario containing o serves the scenario with o' in its place (same hosts, the rest
unchanged), so only scenarios over the remaining options need checking. (The zero pool is
shared by several orbits; zero options are never removed this way.)

The coverage checker (`coverage.check_coverage`) stays the authority: the optimiser uses
this module to search and re-checks every design it returns with the checker.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations_with_replacement, product
from typing import Callable

import numpy as np

from ..errors import LimitError
from ..reps import Rep, irreps_of
from ..attention.clusterings import Clustering, clusterings
from ..attention.coverage import Demand
from ..attention.hosting import hosting
from ..attention.options import Option, option_table
from ..attention.problem import Problem

MAX_SEPARATION_SCENARIOS = 200000  # reduced scenarios checked in one separation pass
MAX_REQUIREMENT_MULTISETS = 4096  # design multisets examined for one requirement


@dataclass(frozen=True)
class DemandValue:
    """A demand (K̄_0, P, D) as the assignment sees it; `pool` marks the zero pool."""

    id: int
    kbar: int
    P: Rep
    D: Rep
    pool: bool

    @property
    def size(self) -> int:
        """Number of irreducible summands of D (counted with multiplicity)."""
        return int(sum(self.D.mults))

    def demand(self) -> Demand:
        return Demand(self.kbar, self.P, self.D, (), self.pool)


class ScenarioSpace:
    """Clusterings, their orbits' options as demand contributions, and the demand values."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.clusterings: tuple[Clustering, ...] = clusterings(problem)
        self.values: list[DemandValue] = []
        self._vid: dict[tuple, int] = {}
        self.table = option_table(problem)
        top = problem.group.subgroup_classes[-1]
        self.top = top
        self.zero_top = Rep(top, (0,) * len(irreps_of(top)))
        self.Vm = np.array(problem.V.mults, dtype=np.int64)
        # per orbit type: its options and, per option, (demand id or None, pool vector or None)
        self.options: dict[tuple[int, int], tuple[Option, ...]] = {}
        self.contrib: dict[tuple[int, int], list[tuple[int | None, np.ndarray | None]]] = {}
        for c in self.clusterings:
            for orbit, _ in c.orbits:
                if orbit in self.options:
                    continue
                opts = self.table.options(orbit)
                self.options[orbit] = opts
                out = []
                for o in opts:
                    if o.zero:
                        out.append((None, np.array(o.D.mults, dtype=np.int64) if not o.D.is_zero() else None))
                    elif o.D.is_zero():
                        out.append((None, None))
                    else:
                        out.append((self.intern(o.kbar, o.P, o.D, False), None))
                self.contrib[orbit] = out
        # the largest pool any scenario can have (used for caps and bounds only)
        self.pool_bound = self.intern(top.id, self.zero_top, problem.V, True) if self._has_zero() else None

    def _has_zero(self) -> bool:
        return any(p is not None for cs in self.contrib.values() for _, p in cs)

    def intern(self, kbar: int, P: Rep, D: Rep, pool: bool) -> int:
        k = (pool, kbar, P.mults, D.mults)
        i = self._vid.get(k)
        if i is None:
            i = len(self.values)
            self._vid[k] = i
            self.values.append(DemandValue(i, kbar, P, D, pool))
        return i

    def raw_count(self) -> int:
        """Scenarios over all clusterings before any reduction."""
        return sum(math.prod(math.comb(len(self.options[o]) + k - 1, k) for o, k in c.orbits) for c in self.clusterings)

    def key(self, parts: list[tuple[tuple[int, ...], np.ndarray]]) -> tuple[int, ...]:
        """The key of a scenario from its per-orbit (demand ids, pool vector) parts."""
        ids: list[int] = []
        pool = np.zeros(len(self.Vm), dtype=np.int64)
        for d_ids, p in parts:
            ids.extend(d_ids)
            pool += p
        if pool.any():
            D0 = Rep(self.top, tuple(int(x) for x in np.minimum(pool, self.Vm)))
            ids.append(self.intern(self.top.id, self.zero_top, D0, True))
        return tuple(sorted(ids))

    def option_part(self, orbit: tuple[int, int], i: int) -> tuple[tuple[int, ...], np.ndarray]:
        d, p = self.contrib[orbit][i]
        return ((d,) if d is not None else ()), (p if p is not None else np.zeros(len(self.Vm), dtype=np.int64))

    def scenario_key(self, c: Clustering, choice: list[tuple[int, ...]]) -> tuple[int, ...]:
        """Key of the scenario choosing, per orbit type of c, the option indices `choice[i]`."""
        parts = [self.option_part(orbit, i) for (orbit, _), idx in zip(c.orbits, choice) for i in idx]
        return self.key(parts)

    def demands(self, key: tuple[int, ...]) -> tuple[Demand, ...]:
        return tuple(self.values[i].demand() for i in key)

    def initial_keys(self) -> list[tuple[int, ...]]:
        """Per clustering, the scenario whose orbits all take their largest option."""
        out, seen = [], set()
        for c in self.clusterings:
            choice = []
            for orbit, k in c.orbits:
                sizes = []
                for d, p in self.contrib[orbit]:
                    sizes.append(self.values[d].size if d is not None else (int(np.minimum(p, self.Vm).sum()) if p is not None else 0))
                best = max(range(len(sizes)), key=lambda i: (sizes[i], -i))
                choice.append((best,) * k)
            key = self.scenario_key(c, choice)
            if key and key not in seen:
                seen.add(key)
                out.append(key)
        return out


class HostTables:
    """Per subgroup class K' and demand value: double cosets a, the image P^a on K', and the
    supply of each irrep τ of K' through a (a matrix over K̄_0's irreps)."""

    def __init__(self, problem: Problem, space: ScenarioSpace) -> None:
        self.problem = problem
        self.space = space
        self.h = hosting(problem)
        self._unit: dict[tuple[int, int], np.ndarray] = {}
        self._img: dict[tuple[int, int], np.ndarray] = {}

    def cosets(self, sub: int, kbar: int) -> list[int]:
        return self.h.cosets(kbar, sub)

    def unit_supply(self, sub: int, kbar: int) -> np.ndarray:
        """(cosets, irreps of K', irreps of K̄_0): supply of each irrep of K' through each a."""
        key = (sub, kbar)
        if key not in self._unit:
            G = self.problem.group
            K = G.subgroup_classes[sub]
            kb = G.subgroup_classes[kbar]
            nK, nB = len(irreps_of(K)), len(irreps_of(kb))
            cos = self.cosets(sub, kbar)
            out = np.zeros((len(cos), nK, nB), dtype=np.int64)
            for t in range(nK):
                unit = Rep(K, tuple(int(i == t) for i in range(nK)))
                sup = self.h.supply(sub, unit, kbar)
                for ai, a in enumerate(cos):
                    out[ai, t] = sup[a].mults
            self._unit[key] = out
        return self._unit[key]

    def image(self, sub: int, value: int) -> np.ndarray:
        """(cosets, irreps of K'): P^a restricted to K' for each double coset a."""
        key = (sub, value)
        if key not in self._img:
            v = self.space.values[value]
            img = self.h.image_at(v.kbar, sub, v.P)
            cos = self.cosets(sub, v.kbar)
            nK = len(irreps_of(self.problem.group.subgroup_classes[sub]))
            arr = np.zeros((len(cos), nK), dtype=np.int64)
            for ai, a in enumerate(cos):
                arr[ai] = img[a]
            self._img[key] = arr
        return self._img[key]


HostsFn = Callable[[int, int], list]  # (type, demand value) -> [(a, supply capped at D)]


class AssignmentCheck:
    """Whether a design, given as counts of orbit types, meets every demand of a scenario key
    (distinct orbits, each through one double coset; supplies summed per irrep)."""

    def __init__(self, space: ScenarioSpace, hosts: HostsFn, counts: dict[int, int]) -> None:
        self.space = space
        self.hosts = hosts
        self.counts = {t: c for t, c in counts.items() if c > 0}
        self._cands: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
        self._memo: dict[tuple[int, ...], tuple | None] = {}
        self._req: dict[int, list[tuple[int, ...]] | None] = {}
        self._reduced: dict[tuple[int, int], list[int]] = {}

    def candidates(self, value: int) -> list[tuple[int, int, tuple[int, ...]]]:
        if value not in self._cands:
            out = []
            for t in sorted(self.counts):
                for a, s in self.hosts(t, value):
                    out.append((t, a, tuple(int(x) for x in s)))
            out.sort(key=lambda c: -sum(c[2]))  # larger supplies first: assignments sooner
            self._cands[value] = out
        return self._cands[value]

    # ----- one scenario -----------------------------------------------------------------------
    def solve(self, key: tuple[int, ...]) -> tuple | None:
        """Per demand (in key order), the list of (type, a) hosting it; None if impossible."""
        if key not in self._memo:
            self._memo[key] = self._solve(key, self.counts)
        return self._memo[key]

    def _solve(self, key: tuple[int, ...], counts: dict[int, int]) -> tuple | None:
        values = self.space.values
        cands = [[c for c in self.candidates(v) if counts.get(c[0], 0)] for v in key]
        for v, cs in zip(key, cands):  # a demand that everything available cannot meet
            D = values[v].D.mults
            tot = [0] * len(D)
            for t, _, s in cs:
                for i, x in enumerate(s):
                    tot[i] += counts[t] * x
            if any(x < d for x, d in zip(tot, D)):
                return None
        order = sorted(range(len(key)), key=lambda j: len(cands[j]))
        avail = dict(counts)
        chosen: list[list[tuple[int, int]]] = [[] for _ in key]
        failed: set = set()

        def dfs(pos: int) -> bool:
            if pos == len(order):
                return True
            j = order[pos]
            return cover(pos, j, 0, tuple(values[key[j]].D.mults))

        def cover(pos: int, j: int, start: int, deficit: tuple[int, ...]) -> bool:
            if all(x <= 0 for x in deficit):
                return dfs(pos + 1)
            st = (pos, start, deficit, tuple(sorted(avail.items())))
            if st in failed:
                return False
            cs = cands[j]
            best: dict[int, list[int]] = {}  # bound: all still available hosts together
            for t, _, s in cs[start:]:
                if avail[t]:
                    b = best.get(t)
                    best[t] = list(s) if b is None else [max(x, y) for x, y in zip(b, s)]
            for i, d in enumerate(deficit):
                if d > 0 and sum(avail[t] * b[i] for t, b in best.items()) < d:
                    failed.add(st)
                    return False
            for ci in range(start, len(cs)):
                t, a, s = cs[ci]
                if not avail[t] or not any(x > 0 and d > 0 for x, d in zip(s, deficit)):
                    continue
                avail[t] -= 1
                chosen[j].append((t, a))
                if cover(pos, j, ci, tuple(d - x for d, x in zip(deficit, s))):
                    return True
                chosen[j].pop()
                avail[t] += 1
            failed.add(st)
            return False

        if not dfs(0):
            return None
        return tuple(tuple(c) for c in chosen)

    # ----- design-specific reduction ------------------------------------------------------
    def requirement(self, value: int) -> list[tuple[int, ...]] | None:
        """Minimal multisets (counts over the design's types, in sorted type order) that meet
        the demand alone; None when there are too many multisets to examine."""
        if value in self._req:
            return self._req[value]
        types = sorted(self.counts)
        hosting_types = {t for t, _, _ in self.candidates(value)}
        ranges = [range(self.counts[t] + 1) if t in hosting_types else range(1) for t in types]
        if math.prod(len(r) for r in ranges) > MAX_REQUIREMENT_MULTISETS:
            self._req[value] = None
            return None
        minimal: list[tuple[int, ...]] = []
        for m in sorted(product(*ranges), key=lambda m: (sum(m), m)):
            if any(all(x <= y for x, y in zip(q, m)) for q in minimal):
                continue
            if self._solve((value,), {t: k for t, k in zip(types, m) if k}) is not None:
                minimal.append(m)
        self._req[value] = minimal
        return minimal

    def reduced_options(self, orbit: tuple[int, int]) -> list[int]:
        """Indices of the orbit's options left after removing those some other option makes
        redundant for this design (see the module docstring)."""
        if orbit in self._reduced:
            return self._reduced[orbit]
        contrib = self.space.contrib[orbit]
        zero_vec = tuple(0 for _ in self.counts)
        reqs: list[list[tuple[int, ...]] | None] = []
        for d, p in contrib:
            if d is None:
                reqs.append(None if p is not None else [zero_vec])  # pool: kept; nothing: easiest
            else:
                reqs.append(self.requirement(d))

        def harder_or_equal(rj: list, ri: list) -> bool:
            """up(rj) within up(ri): every multiset meeting j meets i."""
            return all(any(all(x <= y for x, y in zip(q2, q)) for q2 in ri) for q in rj)

        any_pool = any(d is None and p is not None for d, p in contrib)
        keep = []
        for i, ri in enumerate(reqs):
            redundant = False
            if ri is not None and ri == [zero_vec] and contrib[i][0] is None and any_pool:
                redundant = True  # contributes nothing; a zero option only adds to the pool
            elif ri is not None:
                for j, rj in enumerate(reqs):
                    if j != i and rj is not None and harder_or_equal(rj, ri) and (j < i or not harder_or_equal(ri, rj)):
                        redundant = True
                        break
            if not redundant:
                keep.append(i)
        self._reduced[orbit] = keep
        return keep

    def reduced_count(self) -> int:
        return sum(
            math.prod(math.comb(len(self.reduced_options(o)) + k - 1, k) for o, k in c.orbits) for c in self.space.clusterings
        )

    def violated(self, limit: int, budget: int = MAX_SEPARATION_SCENARIOS) -> list[tuple[int, ...]]:
        """Keys of scenarios the design does not meet (up to `limit`); [] means it covers.
        At most `budget` scenarios are examined: LimitError when that many pass and more
        remain."""
        space = self.space
        out: list[tuple[int, ...]] = []
        seen = 0
        for c in space.clusterings:
            per_type = []
            for orbit, k in c.orbits:
                red = self.reduced_options(orbit)
                parts = [space.option_part(orbit, i) for i in red]
                combos = []
                for combo in combinations_with_replacement(range(len(parts)), k):
                    ids: tuple[int, ...] = ()
                    pool = np.zeros(len(space.Vm), dtype=np.int64)
                    for i in combo:
                        ids += parts[i][0]
                        pool = pool + parts[i][1]
                    combos.append((ids, pool))
                per_type.append(combos)
            for sel in product(*per_type):
                seen += 1
                if seen > budget:
                    if out:
                        return out
                    raise LimitError(
                        "heads",
                        f"a candidate design leaves {self.reduced_count()} scenarios to check; at most {budget} are "
                        "checked (use fewer heads, a smaller head dimension or a smaller V)",
                    )
                key = space.key([(p[0], p[1]) for p in sel])
                if key and self.solve(key) is None and key not in out:
                    out.append(key)
                    if len(out) >= limit:
                        return out
        return out
