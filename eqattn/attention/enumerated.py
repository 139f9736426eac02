"""The enumerating coverage checker (SPEC §4.5): every scenario of every clustering (after
the design-specific dominance reduction) gets an assignment search. The reference at atlas
sizes; `coverage.check_coverage` routes larger problems to the symbolic checker.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement, product

import numpy as np

from ..errors import LimitError
from ..reps import Rep, zero
from .assignment import SEARCH_BUDGET, Assignment, AssignmentSearch, Candidate, Demand
from .clusterings import Clustering, clusterings, count_scenarios
from .design import Design
from .dominance import SupplyDominance
from .hosting import hosting
from .options import Option, option_table
from .problem import Problem

MAX_SCENARIOS_PER_CLUSTERING = 20000
MAX_SCENARIOS_TOTAL = 200000


@dataclass(frozen=True)
class ScenarioResult:
    options: tuple[Option, ...]  # one per orbit of the expanded clustering
    demands: tuple[Demand, ...]
    assignments: tuple[Assignment, ...] | None  # None: no assignment exists
    shortfall: tuple[tuple[Demand, Rep], ...] = ()  # best attempt's missing irreps

    @property
    def ok(self) -> bool:
        return self.assignments is not None


@dataclass(frozen=True)
class Verdict:
    clustering: Clustering
    covered: bool
    witnesses: tuple[ScenarioResult, ...]  # one per checked scenario (the others are easier)
    counterexample: ScenarioResult | None
    scenarios: int = 0  # all scenarios of the clustering (before the design-specific reduction)


def scenario_count(problem: Problem, c: Clustering, search: "DesignSearch | None" = None) -> int:
    """Number of scenarios (multisets of options per orbit type); with `search`, of the
    scenarios left after the design-specific reduction."""
    if search is not None:
        return count_scenarios(c, lambda o: len(search.reduced_options(o)))
    return count_scenarios(c, option_table(problem).option_count)


def scenarios(problem: Problem, c: Clustering, search: "DesignSearch | None" = None):  # noqa: ANN201
    """Scenarios as multisets: identical orbits take non-decreasing option indices."""
    opts = search.reduced_options if search is not None else option_table(problem).options
    per_type = [list(combinations_with_replacement(opts(o), k)) for o, k in c.orbits]
    for combo in product(*per_type):
        yield tuple(opt for group in combo for opt in group)


def zero_pool(problem: Problem, total: np.ndarray) -> Rep:
    """The zero pool's demand D_0 = min(Σ D_j, V) over G (SPEC §4.3): the zero options'
    demands summed, capped by V.

        >>> p = Problem.create("C3", "E1", 4, 1)
        >>> str(zero_pool(p, np.array([0, 2])))
        'E1'
    """
    return Rep(problem.top, tuple(int(x) for x in np.minimum(total, problem.V.mults)))


def demands_of(problem: Problem, options: tuple[Option, ...]) -> tuple[Demand, ...]:
    G = problem.group
    top = G.subgroup_classes[-1]
    out = []
    pool = np.zeros(len(problem.V.mults), dtype=np.int64)
    pool_orbits = []
    for j, o in enumerate(options):
        if o.zero:
            pool += np.array(o.D.mults)
            pool_orbits.append(j)
        elif not o.D.is_zero():
            out.append(Demand(o.kbar, o.P, o.D, (j,), False))
    if pool.any():
        D0 = zero_pool(problem, pool)
        out.append(Demand(top.id, zero(top), D0, tuple(pool_orbits), True))
    return tuple(out)


class DesignSearch:
    """The assignment search and the option reduction for one design: its orbits grouped
    into types (identical orbits are interchangeable)."""

    def __init__(self, problem: Problem, design: Design, reduce: bool = True) -> None:
        self.problem = problem
        self.h = hosting(problem)
        types: dict[tuple, list[int]] = {}
        for i, o in enumerate(design.orbits):
            types.setdefault(o.key(), []).append(i)
        self.instances = [types[k] for k in types]
        self.type_orbit = [design.orbits[v[0]] for v in self.instances]
        counts = [len(v) for v in self.instances]
        self.search = AssignmentSearch(dict(enumerate(counts)), self._candidates, budget=SEARCH_BUDGET)
        self.dominance = SupplyDominance(problem, self.h, self.type_orbit, counts) if reduce else None

    def _candidates(self, d: Demand) -> list[Candidate]:
        """(type, a, supply clipped at D) for the hosts of d; per type only the double
        cosets whose clipped supply is not dominated by another's (more never helps)."""
        D = np.array(d.D.mults)
        out = []
        for t, o in enumerate(self.type_orbit):
            mine: list[tuple[int, np.ndarray]] = []
            for a, S in self.h.hosts(o.sub.id, o.W, d.kbar, d.P):
                s = np.minimum(np.array(S.mults), D)
                if not s.any():
                    continue
                if any((q >= s).all() for _, q in mine):
                    continue
                mine = [(b, q) for b, q in mine if not (s >= q).all()]
                mine.append((a, s))
            out += [(t, a, s) for a, s in mine]
        return out

    def reduced_options(self, orbit: tuple[int, int]) -> tuple[Option, ...]:
        if self.dominance is None:
            return option_table(self.problem).options(orbit)
        return self.dominance.reduced_options(orbit)

    def witness(self, demands: tuple[Demand, ...], plan: tuple) -> tuple[Assignment, ...]:
        def supply(t: int, a: int, d: Demand) -> Rep:
            o = self.type_orbit[t]
            return self.h.supply(o.sub.id, o.W, d.kbar)[a]

        return self.search.witness(demands, plan, self.instances, supply)


def check_scenario(problem: Problem, design: Design, options: tuple[Option, ...], search: DesignSearch | None = None) -> ScenarioResult:
    search = search or DesignSearch(problem, design)
    demands = demands_of(problem, options)
    plan = search.search.solve(demands)
    if plan is not None:
        return ScenarioResult(options, demands, search.witness(demands, plan))
    missing = search.search.best_attempt(demands)
    short = tuple(
        (d, Rep(d.D.sub, tuple(int(x) for x in m))) for d, m in zip(demands, missing) if (np.asarray(m) > 0).any()
    )
    return ScenarioResult(options, demands, None, short)


def check_clustering(problem: Problem, design: Design, c: Clustering, search: DesignSearch | None = None) -> Verdict:
    search = search or DesignSearch(problem, design)
    n = scenario_count(problem, c, search)
    if n > MAX_SCENARIOS_PER_CLUSTERING:
        raise LimitError(
            "heads",
            f"clustering {c.id} needs {n} scenarios checked; at most {MAX_SCENARIOS_PER_CLUSTERING} are checked",
        )
    witnesses = []
    for opts in scenarios(problem, c, search):
        r = check_scenario(problem, design, opts, search)
        if not r.ok:
            return Verdict(c, False, (), r, scenario_count(problem, c))
        witnesses.append(r)
    return Verdict(c, True, tuple(witnesses), None, scenario_count(problem, c))


def estimate_scenarios(problem: Problem) -> int:
    return sum(scenario_count(problem, c) for c in clusterings(problem))


def enumerated_coverage(problem: Problem, design: Design, reduce: bool = True) -> tuple[Verdict, ...]:
    """The enumerating reference checker: every scenario of every clustering (after the
    design-specific reduction when `reduce`) gets an assignment search."""
    search = DesignSearch(problem, design, reduce=reduce)
    total = sum(scenario_count(problem, c, search) for c in clusterings(problem))
    if total > MAX_SCENARIOS_TOTAL:
        raise LimitError(
            "heads",
            f"this design needs {total} scenarios checked over {len(clusterings(problem))} clusterings; "
            f"at most {MAX_SCENARIOS_TOTAL} are checked interactively",
        )
    return tuple(check_clustering(problem, design, c, search) for c in clusterings(problem))
