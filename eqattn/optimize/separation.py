"""The separation oracle of the optimiser: given a design as counts of orbit types, find
scenarios it does not meet (SPEC §4.5, §5.5).

Scenario keys. Two scenarios with the same multiset of demands `(K̄_0, P, D)` (zero pool
included) have the same assignments, so the optimiser works on these multisets: a scenario
(one option per orbit of a clustering, as `coverage.scenarios` lists them) is reduced to its
sorted tuple of demand ids ("key"); `ScenarioSpace` interns the demand values.

Hosts by linearity. `S = Ind_{aK'a⁻¹}^{K̄_0} W^{a⁻¹}` is the sum over the irreps τ of K' of
m_τ(W) times the supply of τ alone, and hosting is `P^a ≤ W`, a comparison of multiplicity
vectors. `Hosting.image_matrix` and `Hosting.unit_supply` give, per subgroup K' and
demand, the images `P^a` and the unit supplies over the double cosets.

Design-specific reduction. Scenarios are far too many to list for large problems
(multisets of options grow combinatorially), but for a fixed design most are implied by
others: `attention.dominance.RequirementDominance` keeps only the options no other option
makes redundant, and only scenarios over those are checked. The assignment search is
`attention.assignment.AssignmentSearch`.

The coverage checker (`coverage.check_coverage`) stays the authority: the optimiser uses
this module to search and re-checks every design it returns with the checker.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product
from typing import Callable

import numpy as np

from ..errors import LimitError
from ..reps import Rep, irreps_of
from ..attention import Problem
from ..attention.assignment import AssignmentSearch, Candidate, Demand
from ..attention.clusterings import Clustering, clusterings, count_scenarios
from ..attention.dominance import RequirementDominance
from ..attention.options import Option, option_table
from ..attention.enumerated import zero_pool
from .catalogue import DemandCatalogue

MAX_SEPARATION_SCENARIOS = 200000  # reduced scenarios checked in one separation pass


class ScenarioSpace:
    """Clusterings, their orbits' options as demand contributions, and the demand values."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.clusterings: tuple[Clustering, ...] = clusterings(problem)
        self.catalogue = DemandCatalogue(problem)
        self.values: list[Demand] = self.catalogue.values  # interned demand values; a value's id is its position
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
        return self.catalogue.intern(Demand(kbar, P, D, (), pool))

    def raw_count(self) -> int:
        """Scenarios over all clusterings before any reduction."""
        return sum(count_scenarios(c, lambda o: len(self.options[o])) for c in self.clusterings)

    def key(self, parts: list[tuple[tuple[int, ...], np.ndarray]]) -> tuple[int, ...]:
        """The key of a scenario from its per-orbit (demand ids, pool vector) parts."""
        ids: list[int] = []
        pool = np.zeros(len(self.Vm), dtype=np.int64)
        for d_ids, p in parts:
            ids.extend(d_ids)
            pool += p
        if pool.any():
            D0 = zero_pool(self.problem, pool)
            ids.append(self.intern(self.top.id, self.zero_top, D0, True))
        return tuple(sorted(ids))

    def option_part(self, orbit: tuple[int, int], i: int) -> tuple[tuple[int, ...], np.ndarray]:
        d, p = self.contrib[orbit][i]
        return ((d,) if d is not None else ()), (p if p is not None else np.zeros(len(self.Vm), dtype=np.int64))

    def scenario_key(self, c: Clustering, choice: list[tuple[int, ...]]) -> tuple[int, ...]:
        """Key of the scenario choosing, per orbit type of c, the option indices `choice[i]`."""
        parts = [self.option_part(orbit, i) for (orbit, _), idx in zip(c.orbits, choice) for i in idx]
        return self.key(parts)

    def id_of(self, d: Demand) -> int:
        return self.catalogue.id_of(d)

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


HostsFn = Callable[[int, int], list]  # (type, demand value) -> [(a, supply capped at D)]


class Separation:
    """The scenarios a design, given as counts of orbit types, does not meet: the assignment
    search over those counts, and the scenarios left after the design-specific reduction."""

    def __init__(self, space: ScenarioSpace, hosts: HostsFn, counts: dict[int, int]) -> None:
        self.space = space
        self.hosts = hosts
        self.search = AssignmentSearch(counts, self._candidates)
        self.counts = self.search.counts
        self.dominance = RequirementDominance(self.search)
        self._reduced: dict[tuple[int, int], list[int]] = {}

    def _candidates(self, d: Demand) -> list[Candidate]:
        value = self.space.id_of(d)
        out = [(t, a, s) for t in sorted(self.counts) for a, s in self.hosts(t, value)]
        out.sort(key=lambda c: -int(c[2].sum()))  # larger supplies first: assignments sooner
        return out

    def solve(self, key: tuple[int, ...]) -> tuple | None:
        """Per demand of the scenario key (in key order), the (type, a) hosting it; None if impossible."""
        return self.search.solve([self.space.values[v] for v in key])

    def reduced_options(self, orbit: tuple[int, int]) -> list[int]:
        """Indices of the orbit's options left after the design-specific reduction."""
        if orbit not in self._reduced:
            contrib = self.space.contrib[orbit]
            demands = [self.space.values[d] if d is not None else None for d, _ in contrib]
            self._reduced[orbit] = self.dominance.reduce(demands, [d is None and p is not None for d, p in contrib])
        return self._reduced[orbit]

    def reduced_count(self) -> int:
        return sum(count_scenarios(c, lambda o: len(self.reduced_options(o))) for c in self.space.clusterings)

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
