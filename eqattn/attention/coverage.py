"""The coverage criterion (SPEC §4.5): a design covers a clustering iff every scenario
(one option per orbit) has an assignment of distinct design orbits, each through a double
coset, to the scenario's demands — one per orbit with a != 0 and D != 0, plus the zero
pool — such that every assigned orbit hosts its demand and supplies sum to at least D."""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations_with_replacement, product

import numpy as np

from ..errors import LimitError
from ..reps import Rep, irreps_of, zero
from .clusterings import Clustering, clusterings
from .design import Design
from .hosting import hosting
from .options import Option, option_table
from .problem import Problem

MAX_SCENARIOS_PER_CLUSTERING = 20000
MAX_SCENARIOS_TOTAL = 200000
SEARCH_BUDGET = 200000
MAX_MULTISETS = 4096


@dataclass(frozen=True)
class Demand:
    """A demand of a scenario: an option (K̄_0, P, D) of one orbit, or the zero pool."""

    kbar: int
    P: Rep
    D: Rep
    orbits: tuple[int, ...]  # positions in the clustering's expanded orbit list
    pool: bool

    def value(self) -> tuple:
        return (self.pool, self.kbar, self.P.mults, self.D.mults)


@dataclass(frozen=True)
class Host:
    design_orbit: int
    a: int
    supply: Rep


@dataclass(frozen=True)
class Assignment:
    demand: Demand
    hosts: tuple[Host, ...]


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


def scenario_count(problem: Problem, c: Clustering, search: "_Search | None" = None) -> int:
    """Number of scenarios (multisets of options per orbit type); with `search`, of the
    scenarios left after the design-specific reduction."""
    if search is not None:
        return math.prod(math.comb(len(search.reduced_options(o)) + k - 1, k) for o, k in c.orbits)
    table = option_table(problem)
    return math.prod(math.comb(table.option_count(o) + k - 1, k) for o, k in c.orbits)


def scenarios(problem: Problem, c: Clustering, search: "_Search | None" = None):  # noqa: ANN201
    """Scenarios as multisets: identical orbits take non-decreasing option indices."""
    opts = search.reduced_options if search is not None else option_table(problem).options
    per_type = [list(combinations_with_replacement(opts(o), k)) for o, k in c.orbits]
    for combo in product(*per_type):
        yield tuple(opt for group in combo for opt in group)


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
        D0 = Rep(top, tuple(int(x) for x in np.minimum(pool, problem.V.mults)))
        out.append(Demand(top.id, zero(top), D0, tuple(pool_orbits), True))
    return tuple(out)


class _Search:
    """Assignment search over design orbit types (identical orbits interchangeable)."""

    def __init__(self, problem: Problem, design: Design, reduce: bool = True) -> None:
        self.problem = problem
        self.reduce = reduce
        self.h = hosting(problem)
        types: dict[tuple, list[int]] = {}
        for i, o in enumerate(design.orbits):
            types.setdefault(o.key(), []).append(i)
        self.type_keys = list(types)
        self.instances = [types[k] for k in self.type_keys]
        self.type_orbit = [design.orbits[v[0]] for v in self.instances]
        self.counts = [len(v) for v in self.instances]
        self.memo: dict[tuple, tuple | None] = {}
        self._cands: dict[tuple, list[tuple[int, int, np.ndarray]]] = {}
        self._sums: dict[tuple, list[np.ndarray]] = {}
        self._dcache: dict[tuple, np.ndarray] = {}
        self._reduced: dict[tuple[int, int], tuple[Option, ...]] = {}

    def candidates(self, d: Demand) -> list[tuple[int, int, np.ndarray]]:
        key = d.value()
        if key not in self._cands:
            self._cands[key] = self._candidates(d)
        return self._cands[key]

    def _candidates(self, d: Demand) -> list[tuple[int, int, np.ndarray]]:
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

    # ----- design-specific dominance between options ---------------------------------------
    def multisets(self) -> list[tuple[int, ...]] | None:
        """All multisets of design orbit types (counts per type), or None if too many."""
        if math.prod(c + 1 for c in self.counts) > MAX_MULTISETS:
            return None
        return sorted(product(*[range(c + 1) for c in self.counts]), key=lambda m: (sum(m), m))

    def host_sums(self, kbar: int, P: Rep) -> list[np.ndarray]:
        """For each multiset m (in `multisets()` order): the maximal supply sums (k, r) its
        orbits can give to a demand (K̄_0 = kbar, P), one double coset per orbit."""
        hostable = []
        for o in self.type_orbit:
            hostable.append(tuple(a for a, _ in self.h.hosts(o.sub.id, o.W, kbar, P)))
        key = (kbar, tuple(hostable))  # supplies depend on P only through which cosets host
        if key not in self._sums:
            ms = self.multisets()
            assert ms is not None
            r = len(irreps_of(self.problem.group.subgroup_classes[kbar]))
            hosts = []
            for o in self.type_orbit:
                hs = [np.array(S.mults) for _, S in self.h.hosts(o.sub.id, o.W, kbar, P)]
                hosts.append(_maximal(np.array(hs)) if hs else np.zeros((0, r), dtype=np.int64))
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
                    sums[m] = _maximal((prev[:, None, :] + hosts[t][None, :, :]).reshape(-1, r))
            self._sums[key] = [sums[m] for m in ms]
        return self._sums[key]

    def _dmat(self, kb: int, c: int, dl: list) -> np.ndarray:
        key = (kb, c, id(dl))
        if key not in self._dcache:
            self._dcache[key] = np.array([D.mults for _, D in dl])
        return self._dcache[key]

    def reduced_options(self, orbit: tuple[int, int]) -> tuple[Option, ...]:
        """The orbit's options, less those that are easier than another for this design.
        For each option, meets[m] says whether the multiset m of design orbits can serve its
        demand alone; o' is easier than o when meets(o) is contained in meets(o'): then any
        assignment for a scenario with o serves the scenario with o' instead. Of options with
        equal meets, the first is kept."""
        if orbit in self._reduced:
            return self._reduced[orbit]
        table = option_table(self.problem)
        if not self.reduce or self.multisets() is None:
            self._reduced[orbit] = table.options(orbit)
            return self._reduced[orbit]
        keep: list[Option] = []
        blocks: list[np.ndarray] = []
        refs: list[tuple] = []  # per block: (a, kb, c, P, ds)
        nm = len(self.multisets() or [])
        for zero, kb, pes, ds in table.pareto_groups(orbit):
            if zero:  # the zero pool: kept as they are (pooled demands add up)
                keep += [Option(orbit, a, b, kb, c, P, D) for a, c, P in pes for b, D in ds[c]]
                continue
            for a, c, P in pes:
                sums = self.host_sums(kb, P)
                Ds = self._dmat(kb, c, ds[c])  # (q, r)
                meets = np.zeros((Ds.shape[0], nm), dtype=bool)
                for k, sm in enumerate(sums):
                    if sm.shape[0]:
                        meets[:, k] = (sm[None, :, :] >= Ds[:, None, :]).all(axis=2).any(axis=1)
                blocks.append(meets)
                refs.append((a, kb, c, P, ds[c]))
        if blocks:
            allm = np.concatenate(blocks)
            owner = np.concatenate([np.full(b.shape[0], i) for i, b in enumerate(blocks)])
            pos = np.concatenate([np.arange(b.shape[0]) for b in blocks])
            U, first = np.unique(allm, axis=0, return_index=True)
            order = np.argsort(first)  # keep the first option of each meets vector, in order
            U, first = U[order], first[order]
            # o_j easier than o_i (drop j) when meets_i is a strict subset of meets_j
            sub = (U[:, None, :] <= U[None, :, :]).all(axis=2)  # sub[i, j]: meets_i within meets_j
            easier = (sub & ~sub.T).any(axis=0)
            for k in np.nonzero(~easier)[0]:
                a, kb, c, P, dl = refs[owner[first[k]]]
                b, D = dl[pos[first[k]]]
                keep.append(Option(orbit, a, b, kb, c, P, D))
        self._reduced[orbit] = tuple(keep)
        return self._reduced[orbit]

    def solve(self, demands: tuple[Demand, ...]) -> tuple | None:
        # the memo is keyed by the sorted demand values, so solve in that order and map the
        # plan back to the caller's order (a plan is positional: one entry per demand)
        order = sorted(range(len(demands)), key=lambda j: demands[j].value())
        key = tuple(demands[j].value() for j in order)
        if key not in self.memo:
            self.memo[key] = self._solve(tuple(demands[j] for j in order))
        res = self.memo[key]
        if res is None:
            return None
        out: list = [()] * len(demands)
        for pos, j in enumerate(order):
            out[j] = res[pos]
        return tuple(out)

    def _solve(self, demands: tuple[Demand, ...]) -> tuple | None:
        cands = [self.candidates(d) for d in demands]
        order = sorted(range(len(demands)), key=lambda j: len(cands[j]))
        avail = list(self.counts)
        chosen: list[list[tuple[int, int, np.ndarray]]] = [[] for _ in demands]
        failed: set = set()
        budget = [SEARCH_BUDGET]

        def dfs(pos: int) -> bool:
            if pos == len(order):
                return True
            j = order[pos]
            return cover(pos, j, 0, np.array(demands[j].D.mults))

        def cover(pos: int, j: int, start: int, deficit: np.ndarray) -> bool:
            if (deficit <= 0).all():
                return dfs(pos + 1)
            key = (pos, start, tuple(deficit), tuple(avail))
            if key in failed:
                return False
            budget[0] -= 1
            if budget[0] < 0:
                raise LimitError("orbits", f"the assignment search exceeded {SEARCH_BUDGET} steps")
            # bound: everything still available cannot close the deficit
            need = deficit > 0
            total = np.zeros_like(deficit)
            best_by_type: dict[int, np.ndarray] = {}
            for t, a, s in cands[j][start:]:
                if avail[t]:
                    best_by_type[t] = np.maximum(best_by_type.get(t, 0), s)
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
                chosen[j].append((t, a, s))
                if cover(pos, j, ci, deficit - s):
                    return True
                chosen[j].pop()
                avail[t] += 1
            failed.add(key)
            return False

        if not dfs(0):
            return None
        return tuple(tuple((t, a) for t, a, _ in chosen[j]) for j in range(len(demands)))

    def best_attempt(self, demands: tuple[Demand, ...]) -> list[np.ndarray]:
        """Per demand, the missing multiplicities in an assignment of least total shortfall
        (weighted by irrep dimension), found by bounded branch and bound."""
        cands = [self.candidates(d) for d in demands]
        dims = [d.D.irreps.dims for d in demands]
        avail = list(self.counts)
        best: list = [math.inf, None]
        budget = [20000]
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

    def instantiate(self, demands: tuple[Demand, ...], plan: tuple) -> tuple[Assignment, ...]:
        used = [0] * len(self.instances)
        out = []
        for d, picks in zip(demands, plan):
            hosts = []
            for t, a in picks:
                inst = self.instances[t][used[t]]
                used[t] += 1
                o = self.type_orbit[t]
                hosts.append(Host(inst, a, self.h.supply(o.sub.id, o.W, d.kbar)[a]))
            out.append(Assignment(d, tuple(hosts)))
        return tuple(out)


def _maximal(V: np.ndarray) -> np.ndarray:
    """Rows of V not dominated by another row (duplicates removed)."""
    V = np.unique(V, axis=0)
    if V.shape[0] <= 1:
        return V
    ge = (V[:, None, :] >= V[None, :, :]).all(axis=2)
    np.fill_diagonal(ge, False)
    return V[~ge.any(axis=0)]


def check_scenario(problem: Problem, design: Design, options: tuple[Option, ...], search: _Search | None = None) -> ScenarioResult:
    search = search or _Search(problem, design)
    demands = demands_of(problem, options)
    plan = search.solve(demands)
    if plan is not None:
        return ScenarioResult(options, demands, search.instantiate(demands, plan))
    missing = search.best_attempt(demands)
    short = tuple(
        (d, Rep(d.D.sub, tuple(int(x) for x in m))) for d, m in zip(demands, missing) if (np.asarray(m) > 0).any()
    )
    return ScenarioResult(options, demands, None, short)


def check_clustering(problem: Problem, design: Design, c: Clustering, search: _Search | None = None) -> Verdict:
    search = search or _Search(problem, design)
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


def check_coverage(problem: Problem, design: Design, reduce: bool = True) -> tuple[Verdict, ...]:
    """A verdict per clustering, with witnesses or a counterexample (SPEC §4.5).
    `reduce=False` checks every scenario (no design-specific dominance), for benchmarks."""
    search = _Search(problem, design, reduce=reduce)
    total = sum(scenario_count(problem, c, search) for c in clusterings(problem))
    if total > MAX_SCENARIOS_TOTAL:
        raise LimitError(
            "heads",
            f"this design needs {total} scenarios checked over {len(clusterings(problem))} clusterings; "
            f"at most {MAX_SCENARIOS_TOTAL} are checked interactively",
        )
    return tuple(check_clustering(problem, design, c, search) for c in clusterings(problem))
