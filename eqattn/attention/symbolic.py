"""Coverage of a given design without listing options (SPEC §4.5; proofs in
docs/theory-scale.md §3–§5).

For a fixed design, an option matters only through its *pattern*: the set F of multisets
y of design orbit types (counts per type, `_Search.multisets()`) that can meet its demand
alone — one double coset per orbit among those that host it, supplies summed. A scenario
has an assignment iff the demands can be given disjoint multisets y_j ∈ F_j with Σ y_j ≤
the design's counts, so a scenario whose options have larger patterns is easier (Lemma 5).
Hence only options with *minimal* patterns need checking, one concrete representative each.

Per orbit (K, n) and stabiliser group (K̄_0, c):
* hosting sets come from the supports of maximal profiles (supports.py) and, per support,
  from the maximal profiles listed over the coordinates that can break a hosting condition
  (the others only use up dimension: a subset-sum);
* for each minimal hosting set, the demands are searched by the sets E of multisets they
  defeat (E is down-closed, F = complement): E grows one multiset at a time, each step a
  choice of an irrep τ per maximal supply sum s of y with D_τ ≥ s_τ + 1, each choice tested
  exactly by `DemandSpace.witness` (dynamic programming, no listing).
The zero pool (SPEC §4.3) is treated the same way, its demand space the sum of the zero
orbits' blocks; it is computed per clustering.

Per clustering, an abstract scenario is a multiset of interned demand ids: its assignment
(Lemma 3: disjoint minimal multisets y_j ≤ c, one per demand; with one orbit type a count
test) is memoised per multiset, the double cosets of each y_j come from the enumerating
checker's assignment search restricted to y_j, so witnesses and counterexamples are concrete
options and have the shapes of `coverage.ScenarioResult` (a counterexample's shortfall is the
assignment search's best attempt). `check_clustering_general` is the per-scenario route
(demands rebuilt, the reference search confirming every failure) that tests compare against.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from itertools import combinations_with_replacement, product
from typing import Callable

import numpy as np

from ..errors import LimitError
from ..reps import Rep, zero
from .clusterings import MAX_CLUSTERINGS, Clustering, clusterings, count_clusterings
from .assignment import Assignment, Demand, Host, in_value_order
from .enumerated import DesignSearch, ScenarioResult, Verdict, check_scenario, demands_of, zero_pool
from .demands import DemandSpace
from .design import Design
from .hosting import hosting
from .options import Option, option_table
from .problem import Problem
from . import defeated_supply
from .defeated_supply import DefeatedSupply
from .hosting_sets import DeadlinePassed, HostingMemo, HostingSets, minimal_patterns  # noqa: F401 (DeadlinePassed: raised by the checker)
from .representatives import Representatives

MAX_ABSTRACT_SCENARIOS = 200_000  # abstract scenarios over all clusterings


@dataclass(frozen=True)
class Pattern:
    """A minimal abstract option: `meets[k]` says whether multiset k of design orbit types
    can meet the demand alone; `option` is a concrete option with exactly this pattern."""

    option: Option
    meets: tuple[bool, ...]
    demand: int = -1  # the interned demand value (`SymbolicChecker.demand_id`); -1: D = 0


@dataclass(frozen=True)
class PoolPattern:
    """A minimal pattern of the zero pool: one concrete zero option per zero orbit, in the
    sorted order of the zero orbits, and their pooled demand D0 = min(Σ D, V)."""

    options: tuple[Option, ...]
    meets: tuple[bool, ...]
    D: Rep | None = None
    demand: int = -1  # the interned demand value of D0; -1: D0 = 0


class SymbolicChecker(HostingSets, DefeatedSupply, Representatives):
    """Exact coverage of one design at any size the limits accept (module docstring)."""

    def __init__(
        self, problem: Problem, design: Design, *, fast: bool = True, shortfalls: bool = True, stop: Callable[[], bool] | None = None,
        memo: HostingMemo | None = None,
    ) -> None:
        """`fast=False`: every abstract scenario through `check_scenario` (the general path);
        `shortfalls=False`: counterexamples without the best attempt's shortfall (the
        optimiser needs their demands only); `stop`: asked before each support of an orbit's
        hosting sets (the caller's clock, e.g. `lambda: time.perf_counter() > deadline`); when
        it says True they stop with `DeadlinePassed`, keeping nothing partial; `memo`: the
        hosting classes listed by earlier checkers of `problem`'s designs (`HostingMemo`)."""
        if memo is not None and memo.problem != problem:
            raise ValueError("memo: a HostingMemo of another problem")
        self.problem = problem
        self.stop = stop
        self.memo = memo
        self.design = design
        self.table = option_table(problem)
        self.h = hosting(problem)
        self.search = DesignSearch(problem, design, reduce=True)
        self.dom = self.search.dominance
        ms = self.dom.multisets if self.dom is not None else None
        if ms is None:
            raise LimitError("orbits", "the design has too many distinct orbit multisets for the symbolic check")
        self.ms = ms
        self.index = {m: k for k, m in enumerate(ms)}
        G = problem.group
        self.top = G.subgroup_classes[-1]
        self._patterns: dict[tuple[int, int], list[Pattern]] = {}
        self._pool: dict[tuple, list[PoolPattern]] = {}
        self._spaces: dict[tuple, DemandSpace] = {}
        self._mins: dict[tuple, list[tuple[int, ...]]] = {}
        self._plans: dict[tuple, tuple | None] = {}
        self._single: dict[tuple, tuple] = {}
        self._defeat_memo: dict[tuple, tuple] = {}
        self._lattice_memo: tuple[np.ndarray, list[np.ndarray]] | None = None
        self._hostclass: dict[int, dict] = {}
        self._replaced: dict[tuple[int, int], tuple[int, int]] | None = None  # orbit type -> kept type (C7)
        self._zero: dict[int, bool] = {}
        # interned demand values (small ints): the per-clustering path hashes only these
        self._demand_ids: dict[tuple, int] = {}
        self._demand_of: list[Demand] = []  # a template per id (orbits = ())
        self._mins_of: list[list[tuple[int, ...]]] = []  # minimal multisets y per id
        self._feasible: dict[tuple[int, ...], tuple | None] = {}  # sorted ids -> y per id, or None
        self._shortfalls: dict[tuple[int, ...], list] = {}
        self._supplies: dict[tuple[int, int], dict[int, Rep]] = {}
        self._demands_at: dict[tuple, Demand] = {}
        self._assignments: dict[tuple, tuple] = {}
        self.counts = tuple(self.search.search.counts.get(t, 0) for t in range(len(self.ms[-1])))
        # one orbit type: B is a chain, each demand has at most one minimal multiset (k,), and a
        # scenario has an assignment iff every demand has one and the k's sum to at most c (C3)
        self.single_type = len(self.counts) == 1
        self.fast = fast
        self.shortfalls = shortfalls


    # ----- patterns of an orbit --------------------------------------------------------------
    def patterns(self, orbit: tuple[int, int]) -> list[Pattern]:
        """The minimal patterns of a non-zero orbit, each with a concrete option."""
        if orbit not in self._patterns:
            self._patterns[orbit] = [
                replace(p, demand=self.demand_id(Demand(p.option.kbar, p.option.P, p.option.D, (), False)))
                for p in self._compute_patterns(orbit)
            ]
        return self._patterns[orbit]

    def demand_id(self, d: Demand) -> int:
        """A small int per demand value (-1 for D = 0), with its minimal multisets."""
        if d.D.is_zero():
            return -1
        key = d.value()
        k = self._demand_ids.get(key)
        if k is None:
            k = self._demand_ids[key] = len(self._demand_of)
            self._demand_of.append(d)
            mins = self._minimal_multisets(d)
            if self.single_type:
                assert len(mins) <= 1, "patterns of one orbit type form a chain"
            self._mins_of.append(mins)
        return k

    def _meets(self, kb: int, P: Rep, D: Rep) -> tuple[bool, ...]:
        if D.is_zero():
            return (True,) * len(self.ms)
        Dv = np.array(D.mults)
        return tuple(bool(s.shape[0] and (s >= Dv).all(axis=1).any()) for s in self.dom.host_sums(kb, P))

    def _compute_patterns(self, orbit: tuple[int, int]) -> list[Pattern]:
        G = self.problem.group
        K = G.subgroup_classes[orbit[0]]
        VK = self.problem.restrict(K)
        cands: list[Pattern] = []
        for (kb, c), profiles in self.hosting_classes(orbit).items():
            space = self._space((orbit,), kb, c)
            for a_vec in profiles:
                a = Rep(K, a_vec)
                kb2, c2, P = self.table.image(K, a)
                assert (kb2, c2) == (kb, c)
                sums = self.dom.host_sums(kb, P)
                for (b_raw,) in self._defeated_sets(space, sums):
                    b = _extend(VK, b_raw, orbit[1] * self.problem.head_dim)
                    D = self.table.demand(K, b, kb, c)
                    opt = Option(orbit, a, b, kb, c, P, D)
                    cands.append(Pattern(opt, self._meets(kb, P, D)))
        return minimal_patterns(cands, key=lambda p: p.meets)

    def pool_patterns(self, zero_orbits: tuple[tuple[int, int], ...]) -> list[PoolPattern]:
        """Minimal patterns of the zero pool of these zero orbits (with repetition)."""
        key = tuple(sorted(zero_orbits))
        if key not in self._pool:
            G = self.problem.group
            space = self._space(key, self.top.id, 0)
            P0 = zero(self.top)
            sums = self.dom.host_sums(self.top.id, P0)
            cands = []
            for bs in self._defeated_sets(space, sums):
                opts = []
                total = np.zeros(len(self.problem.V.mults), dtype=np.int64)
                for orbit, b_raw in zip(key, bs):
                    K = G.subgroup_classes[orbit[0]]
                    b = _extend(self.problem.restrict(K), b_raw, orbit[1] * self.problem.head_dim)
                    D = self.table.demand(K, b, self.top.id, 0)
                    opts.append(Option(orbit, zero(K), b, self.top.id, 0, P0, D))
                    total += np.asarray(D.mults)  # D0 as coverage.demands_of pools it
                D0 = zero_pool(self.problem, total)
                cands.append(PoolPattern(tuple(opts), self._meets(self.top.id, P0, D0), D0))
            self._pool[key] = [
                replace(pp, demand=self.demand_id(Demand(self.top.id, P0, pp.D, (), True)))
                for pp in minimal_patterns(cands, key=lambda p: p.meets)
            ]
        return self._pool[key]

    # ----- clusterings -------------------------------------------------------------------
    def _abstract(self, c: Clustering) -> tuple[list, list, list[tuple[int, int]]]:
        key = ("abstract", c.orbits)
        if key not in self._pool:
            self._pool[key] = self._abstract_uncached(c)  # type: ignore[assignment]
        return self._pool[key]  # type: ignore[return-value]

    def _abstract_uncached(self, c: Clustering) -> tuple[list, list, list[tuple[int, int]]]:
        zero_orbits = [o for o in c.expanded() if self.is_zero_orbit(o)]
        pools = self.pool_patterns(tuple(zero_orbits)) if zero_orbits else [None]
        per_type = []
        for o, k in c.orbits:
            if self.is_zero_orbit(o):
                continue
            per_type.append(list(combinations_with_replacement(self.patterns(o), k)))
        return pools, per_type, zero_orbits


    def scenario_count(self, c: Clustering) -> int:
        pools, per_type, _ = self._abstract(c)
        return len(pools) * math.prod(len(x) for x in per_type)

    def _scenarios(self, c: Clustering):  # noqa: ANN202
        """Abstract scenarios as concrete option tuples in the order of c.expanded()."""
        pools, per_type, _ = self._abstract(c)
        for pool in pools:
            for combo in product(*per_type):
                nz = iter(p.option for group in combo for p in group)
                zs = list(pool.options) if pool is not None else []
                opts = []
                for o in c.expanded():
                    if self.is_zero_orbit(o):
                        k = next(i for i, z in enumerate(zs) if z.orbit == o)
                        opts.append(zs.pop(k))
                    else:
                        opts.append(next(nz))
                yield tuple(opts)

    def check_clustering(self, c: Clustering) -> Verdict:
        n = self.scenario_count(c)
        if n > MAX_ABSTRACT_SCENARIOS:
            raise LimitError("heads", f"clustering {c.id} has {n} abstract scenarios; at most {MAX_ABSTRACT_SCENARIOS}")
        if not self.fast:
            return self.check_clustering_general(c)
        pools, per_type, zero_orbits = self._abstract(c)
        nz_pos, zero_pos = self._positions(c)
        witnesses = []
        for pool in pools:
            for combo in product(*per_type):
                pats = [p for group in combo for p in group]
                ids = [p.demand for p in pats if p.demand >= 0]
                if pool is not None and pool.demand >= 0:
                    ids.append(pool.demand)
                key = tuple(sorted(ids))
                ys = self._feasible.get(key, False)
                if ys is False:
                    ys = self._feasible[key] = self._feasible_sorted(key)
                r = self._result(pats, pool, nz_pos, zero_pos, key, ys)
                if ys is None:
                    return Verdict(c, False, (), r, n)
                witnesses.append(r)
        return Verdict(c, True, tuple(witnesses), None, n)

    def check_clustering_general(self, c: Clustering) -> Verdict:
        """`check_clustering` with every abstract scenario as concrete options through
        `check_scenario` (demands rebuilt, pattern plan, reference search when it fails): the
        route the per-clustering path (interned demands, memoised feasibility) is tested against."""
        n = self.scenario_count(c)
        witnesses = []
        for opts in self._scenarios(c):
            r = self.check_scenario(opts)
            if not r.ok:
                return Verdict(c, False, (), r, n)
            witnesses.append(r)
        return Verdict(c, True, tuple(witnesses), None, n)

    def _positions(self, c: Clustering) -> tuple[list[int], list[int]]:
        """Positions in c.expanded() of the non-zero orbits (in order) and, for the k-th
        option of a pool pattern (sorted zero orbits), the position of its zero orbit."""
        key = ("positions", c.orbits)
        hit = self._pool.get(key)
        if hit is None:
            exp = c.expanded()
            nz = [j for j, o in enumerate(exp) if not self.is_zero_orbit(o)]
            zs = [j for j, o in enumerate(exp) if self.is_zero_orbit(o)]
            order = sorted(zs, key=lambda j: exp[j])  # stable: equal orbits keep their order
            hit = self._pool[key] = (nz, order)  # type: ignore[assignment]
        return hit  # type: ignore[return-value]

    def _feasible_sorted(self, ids: tuple[int, ...]) -> tuple | None:
        """Per demand id (sorted), a minimal multiset y_j with Σ y_j ≤ c (Lemma 3), or None."""
        mins = [self._mins_of[k] for k in ids]
        if any(not m for m in mins):
            return None
        if self.single_type:  # one minimal multiset each: decided by the counts
            ys = tuple(m[0] for m in mins)
            return ys if sum(y[0] for y in ys) <= self.counts[0] else None
        return self._choose(mins)

    def _result(self, pats: list[Pattern], pool: PoolPattern | None, nz_pos: list[int], zero_pos: list[int],
                key: tuple[int, ...], ys: tuple | None) -> ScenarioResult:
        """The scenario's concrete options and demands (as `coverage.demands_of` orders them),
        with the assignment of the plan `ys` (or, when None, the best attempt's shortfall).
        Demands and assignments are immutable and shared between clusterings: one per
        (demand id, orbit positions) and per (that, multiset, design orbits used before)."""
        opts: list = [None] * (len(nz_pos) + len(zero_pos))
        demands = []
        ids = []
        for j, p in zip(nz_pos, pats):
            opts[j] = p.option
            if p.demand >= 0:
                demands.append(self._demand_at(p.demand, (j,)))
                ids.append(p.demand)
        if pool is not None:
            for j, o in zip(zero_pos, pool.options):
                opts[j] = o
            if pool.demand >= 0:
                demands.append(self._demand_at(pool.demand, tuple(sorted(zero_pos))))
                ids.append(pool.demand)
        order = sorted(range(len(ids)), key=ids.__getitem__)  # the positions of `key`
        if ys is not None:
            y_of: list = [()] * len(ids)
            for pos, i in enumerate(order):
                y_of[i] = ys[pos]
            return ScenarioResult(tuple(opts), tuple(demands), self._witness(demands, ids, y_of))
        if not self.shortfalls:
            return ScenarioResult(tuple(opts), tuple(demands), None, ())
        missing = self._shortfalls.get(key)
        if missing is None:  # per position of `key`: the missing multiplicities, or None
            raw = self.search.search.best_attempt([self._demand_of[k] for k in key])
            missing = [tuple(np.asarray(m, dtype=np.int64).tolist()) for m in raw]
            missing = self._shortfalls[key] = [m if any(x > 0 for x in m) else None for m in missing]
        short = []
        for pos, i in sorted(enumerate(order), key=lambda t: t[1]):
            if missing[pos] is not None:
                short.append((demands[i], Rep(demands[i].D.sub, missing[pos])))
        return ScenarioResult(tuple(opts), tuple(demands), None, tuple(short))

    def _demand_at(self, k: int, where: tuple[int, ...]) -> Demand:
        """The demand of id k for the orbits at positions `where` (shared, immutable)."""
        d = self._demands_at.get((k, where))
        if d is None:
            t = self._demand_of[k]
            d = self._demands_at[(k, where)] = Demand(t.kbar, t.P, t.D, where, t.pool)
        return d

    def _witness(self, demands: list[Demand], ids: list[int], ys: list) -> tuple[Assignment, ...]:
        """`DesignSearch.witness` for the sub-plans of (id, y): design orbits numbered per type
        in demand order, supplies looked up once per (type, K̄_0); assignments memoised per
        (id, positions, y, orbits used before)."""
        used = (0,) * len(self.search.instances)
        out = []
        for d, k, y in zip(demands, ids, ys):
            key = (k, d.orbits, y, used)
            hit = self._assignments.get(key)
            if hit is None:
                now = list(used)
                hosts = []
                for t, a in self._single_plan(k, y):
                    s = self._supplies.get((t, d.kbar))
                    if s is None:
                        o = self.search.type_orbit[t]
                        s = self._supplies[(t, d.kbar)] = self.h.supply(o.sub.id, o.W, d.kbar)
                    hosts.append(Host(self.search.instances[t][now[t]], a, s[a]))
                    now[t] += 1
                hit = self._assignments[key] = (Assignment(d, tuple(hosts)), tuple(now))
            out.append(hit[0])
            used = hit[1]
        return tuple(out)

    def _single_plan(self, k: int, y: tuple[int, ...]) -> tuple:
        """The double cosets meeting demand id k with the orbits of multiset y."""
        d = self._demand_of[k]
        key = (k, y)
        if key not in self._single:
            sub = self.search.search.solve_with([d], {t: q for t, q in enumerate(y) if q})
            if sub is None:
                raise AssertionError("a multiset in the pattern cannot meet its demand")
            self._single[key] = sub[0]
        return self._single[key]

    def check_scenario(self, opts: tuple[Option, ...]) -> ScenarioResult:
        """Assignment by patterns (Lemma 6: an assignment exists iff the demands get disjoint
        multisets y_j in their patterns), then double cosets per demand within y_j."""
        demands = demands_of(self.problem, opts)
        plan = self._plan(demands)
        if plan is None:
            r = check_scenario(self.problem, self.design, opts, self.search)
            if r.ok:  # the two exact searches must agree
                raise AssertionError("pattern search and assignment search disagree")
            return r
        return ScenarioResult(opts, demands, self.search.witness(demands, plan))

    def _minimal_multisets(self, d: Demand) -> list[tuple[int, ...]]:
        key = d.value()
        if key not in self._mins:
            meets = self._meets(d.kbar, d.P, d.D)
            ys = [self.ms[k] for k, ok in enumerate(meets) if ok]
            mins = []
            for y in ys:  # ms is ordered by size: a later y never lies below an earlier one
                if not any(all(u <= v for u, v in zip(z, y)) for z in mins):
                    mins.append(y)
            self._mins[key] = mins
        return self._mins[key]

    def _plan(self, demands: tuple[Demand, ...]) -> tuple | None:
        return in_value_order(demands, self._plans, self._plan_sorted)

    def _plan_sorted(self, demands: list[Demand]) -> tuple | None:
        chosen = self._choose([self._minimal_multisets(d) for d in demands])
        if chosen is None:
            return None
        return tuple(self._single_plan(self.demand_id(d), y) for d, y in zip(demands, chosen))

    def _choose(self, mins: list[list[tuple[int, ...]]]) -> tuple | None:
        """A minimal multiset per demand (from its list) with Σ y_j ≤ c (Lemma 3), or None:
        depth first, fewest choices first, failed (position, counts left) memoised."""
        if any(not m for m in mins):
            return None
        counts = self.counts
        seq = sorted(range(len(mins)), key=lambda j: len(mins[j]))
        failed: set = set()
        chosen: list[tuple[int, ...]] = [()] * len(mins)
        steps = [0]

        def dfs(pos: int, left: tuple[int, ...]) -> bool:
            if pos == len(seq):
                return True
            if (pos, left) in failed:
                return False
            steps[0] += 1
            if steps[0] > defeated_supply.MAX_SEARCH_NODES:
                raise LimitError("orbits", f"the assignment search exceeded {defeated_supply.MAX_SEARCH_NODES} steps")
            j = seq[pos]
            for y in mins[j]:
                if all(u <= v for u, v in zip(y, left)):
                    chosen[j] = y
                    if dfs(pos + 1, tuple(v - u for u, v in zip(y, left))):
                        return True
            failed.add((pos, left))
            return False

        return tuple(chosen) if dfs(0, counts) else None

    def first_uncovered(self, c: Clustering) -> ScenarioResult | None:
        v = self.check_clustering(c)
        return v.counterexample


def symbolic_coverage(problem: Problem, design: Design) -> tuple[Verdict, ...]:
    """A verdict per clustering (SPEC §4.5) by the symbolic engine."""
    chk = SymbolicChecker(problem, design)
    cl = clusterings(problem)
    total = sum(chk.scenario_count(c) for c in cl)
    if total > MAX_ABSTRACT_SCENARIOS:
        raise LimitError("heads", f"this design needs {total} abstract scenarios checked; at most {MAX_ABSTRACT_SCENARIOS}")
    return tuple(chk.check_clustering(c) for c in cl)


def representative_coverage(problem: Problem, design: Design) -> tuple[Verdict, ...]:
    """A verdict per clustering when they can be listed (`symbolic_coverage`), else per
    representative clustering (`SymbolicChecker.representatives`, theory-scale C7): every
    verdict covered iff the design covers every clustering."""
    if count_clusterings(problem) <= MAX_CLUSTERINGS:
        return symbolic_coverage(problem, design)
    chk = SymbolicChecker(problem, design)
    return tuple(chk.check_clustering(c) for c in chk.representatives())


# ----- helpers ----------------------------------------------------------------------------


def _extend(bound: Rep, b_raw: np.ndarray, cap: int) -> Rep:
    """A maximal profile ≥ b_raw (≤ bound, dim ≤ cap): add irreps greedily (SPEC §4.1)."""
    dims = [int(x) for x in bound.irreps.dims]
    b = [int(x) for x in b_raw]
    room = cap - sum(k * dl for k, dl in zip(b, dims))
    assert room >= 0 and all(x <= y for x, y in zip(b, bound.mults))
    for i, dl in enumerate(dims):
        add = min(bound.mults[i] - b[i], room // dl)
        b[i] += add
        room -= add * dl
    return Rep(bound.sub, tuple(b))
