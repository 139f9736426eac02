"""The optimiser for large problems: scenarios AND orbit types generated from the symbolic
checker's counterexamples (issue 9; docs/theory-scale.md O6, O8–O12).

At real transformer sizes the options of an orbit are far too many to list, so neither the
scenario space nor the demand values (hence the caps of the orbit types) can be enumerated
up front. This loop keeps a set `S` of scenario keys, all of them counterexamples found by
`attention.symbolic.SymbolicChecker` (exact at any size the limits accept), and the demand
values they contain:

1. types = the capped types over the demand values of `S` (`types.design_types` with the
   values of `S` only), with the compute constraints and the incumbent's cost as filters;
2. solve the program over `S` (`program.build`): its optimum (or proven bound) is a lower
   bound of the optimum by Lemma O1 — an optimal covering design, capped by the values of
   `S`, still meets every scenario of `S`;
3. check the program's design with the symbolic checker, clustering by clustering; every
   clustering it does not cover gives a counterexample scenario, whose key (and new demand
   values, so new caps and types) joins `S`; if it covers every clustering and the program
   was solved to optimality, it is optimal.

When the capped types are too many to list (or over `FULL_TYPES`), a round is *price and
branch* instead (theory-scale O10, O11): the LP bound over every type (`lp_bound.py`, column
generation; a certified lower bound that may end the search), then the program over the LP's
columns (and the cheapest hosts when those alone cannot meet `S`), whose design is checked
as in 3. A design with too many orbit types for the checker is checked through a coarser
design above it (`coarsen.py`, O12): its counterexamples are the design's too.

The programs and the LP's master run over *working sets* of `S` (the keys with a positive
LP dual and the last round's keys; a subset of scenarios is a relaxation, so every bound
stays valid), with the incumbent's cost as a cutoff.

The incumbent is the regular design (H orbits `(C1, min(d, dim V)·trivial)`, SPEC §3), itself
checked by the symbolic checker, when it meets the compute constraints; every design this
loop returns has been checked to cover every clustering, and `optimize` re-checks it once
more with `coverage.check_coverage`.

Example: `search(problem, ...)` on `C2, 32xregular, H = 4, d = 16` proves the regular design
optimal (see benchmarks/scale.py).
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import Callable, Iterator

from ..attention import Design, DesignOrbit, Problem
from ..attention.assignment import Demand
from ..attention.clusterings import MAX_CLUSTERINGS, Clustering, clusterings, count_clusterings
from ..attention.coverage import ScenarioResult
from ..attention.dominance import MAX_MULTISETS
from ..attention.hosting import hosting
from ..attention.symbolic import SymbolicChecker
from ..errors import LimitError
from ..reps import Rep
from .bounds import ScenarioBound
from .coarsen import coarsen
from .fixing import fixed_types
from .lazy import Context, Progress
from .lp_bound import lp_bound
from .multiples import SPLIT_SHARE, Seed, multiply_design, multiply_key, split_factor, sub_problem
from .program import Objective, build
from .repair import repair
from .result import to_design
from .types import cheapest_hosts, design_types, generated_types

ROUND_KEYS = 60  # counterexamples added per round at most (one per clustering)
REPAIR = True  # a rounded LP design that misses clusterings is repaired by raises (O18) ...
REPAIR_SHARE = 0.25  # ... for at most this share of the round's time left, once the LP bound
REPAIR_CREEP = 0.01  # ... rose by at most this fraction in its last round (a creep: O18)
FULL_TYPES = 1000  # capped types past which the restricted rounds (LP columns, cheapest hosts) run first
RESTRICTED_SHARE = 0.25  # of the loop's time left, for one restricted program
FULL_SHARE = 0.25  # of the loop's time left, for the program over every capped type before the restricted rounds
FIXING_GAP = 0.05  # reduced-cost fixing is tried when the LP bound is within this fraction of the incumbent
FIXED_TYPES = 3000  # the exact program over the fixed types (O13) is used when they are at most this many
FIXED_NODES = 300_000  # partial W's of its branch and bound at most
FIXED_SMALL = 300  # ... and gets the time left when at most this many, else FIXED_SHARE of it
FIXED_SHARE = 0.5
FIXED_VARS = 60_000  # ... and its program has at most this many variables (measured: 42 516 solved in 1 s, 88 542 not in 7 s)
MAX_PROGRAM_VARS = 300_000  # variables of one program at most (memory: well under 2 GB)
ROUNDED_MULTISETS = 256  # a rounded LP design past the checker's limits is checked through a coarser one with at most this many
LOOP_SHARE = 0.8  # of the time for the loop's programs and checks, until an LP bound has been timed; the rest is kept for the final LP bound
LP_RESERVE = 1.0  # ... then the loop runs until the final deadline less this many times the last LP bound's time
LP_RESERVE_MIN = 0.5  # seconds at least
FIRST_CHECK_SHARE = 1 / 3  # the first check of a problem (the regular design's) counts this much as the re-check's measure

log = logging.getLogger("eqattn.optimize")  # one debug line per round (program, types, keys, bounds)


class DemandValues:
    """The demand values met so far, interned (the `space` the type table and program read)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.values: list[Demand] = []
        self._vid: dict[tuple, int] = {}

    def intern(self, d: Demand) -> int:
        k = d.value()
        i = self._vid.get(k)
        if i is None:
            i = len(self.values)
            self._vid[k] = i
            self.values.append(Demand(d.kbar, d.P, d.D, (), d.pool))
        return i

    def key(self, result: ScenarioResult) -> tuple[int, ...]:
        """The scenario key (sorted demand ids) of a counterexample; demands with D = 0 need
        no host (SPEC §4.5) and are left out."""
        return tuple(sorted(self.intern(d) for d in result.demands if any(d.D.mults)))


class SearchContext(Context):
    """`Context` without the enumerated scenario space (work and time accounting only)."""

    def __init__(self, problem: Problem, backend: str, progress: Progress | None, threads: int | None) -> None:  # noqa: D107
        super().__init__(problem, backend, progress, threads, enumerate_space=False)
        self.last_check_s = 0.0  # seconds of the last design check (_counterexamples)
        self.best_check_s = 0.0  # ... of the check of the search's incumbent
        self.failing: dict[Clustering, int] = {}  # clustering -> when it last gave a counterexample (checked first)
        self.checks = 0  # counterexamples found so far (the order of `failing`)
        self.seed: Seed | None = None  # what the search of H / k heads handed on (multiples.py)


@dataclass
class SearchResult:
    status: str  # optimal | feasible | infeasible | unknown
    design: Design | None  # checked to cover every clustering
    lower_units: int  # lower bound of the cost / 4
    rounds: int
    scenarios: int  # scenario keys met (counterexamples); the programs run over a working set of them
    types: int  # types in the last program
    stopped: str | None  # time_limit | work_limit | scenario_limit | type_limit (too many head representations)


def lp_reserve(span: float, lp_s: float | None) -> float:
    """Seconds the loop keeps for the final LP bound of a search of `span` seconds: the share
    `1 - LOOP_SHARE` until an LP bound has been timed (`lp_s` None), then `LP_RESERVE` times
    the last LP bound's seconds (at least LP_RESERVE_MIN, at most that share).

    >>> lp_reserve(50.0, None), lp_reserve(50.0, 1.0), lp_reserve(50.0, 0.1), lp_reserve(50.0, 30.0)
    (10.0, 1.0, 0.5, 10.0)
    >>> lp_reserve(math.inf, None)
    0.0
    """
    span = max(span, 0.0)
    share = span - LOOP_SHARE * span if math.isfinite(span) else 0.0
    return share if lp_s is None else min(share, max(LP_RESERVE_MIN, LP_RESERVE * lp_s))


def _regular(problem: Problem) -> Design:
    triv = problem.group.subgroup_classes[0]
    W = Rep(triv, (min(problem.head_dim, problem.dim_v),))
    return Design(problem, tuple(DesignOrbit(triv, W) for _ in range(problem.heads)))


def _within(design: Design, max_heads: int | None, max_head_dim: int | None) -> bool:
    """The design meets the compute constraints (theory-scale O2)."""
    return (max_heads is None or design.heads <= max_heads) and (
        max_head_dim is None or all(o.head_dim <= max_head_dim for o in design.orbits)
    )


def _rounded(problem: Problem, solution, max_heads: int | None) -> Design | None:  # noqa: ANN001 - LPBound.solution
    """The LP's fractional design rounded up (`⌈n_t⌉` copies of each type), a candidate whose
    counterexamples are scenarios the LP's solution is short of too (mostly); None when it
    has more heads than `max_heads` or no orbit."""
    G = problem.group
    items = sorted(((c, math.ceil(n - 1e-6)) for c, n in solution if n > 1e-6), key=lambda cn: (-G.subgroup_classes[cn[0][0]].order, cn[0]))
    orbits = []
    for (sub, W), k in items:
        K = G.subgroup_classes[sub]
        orbits.extend([DesignOrbit(K, Rep(K, W))] * k)
    if not orbits or (max_heads is not None and sum(o.heads for o in orbits) > max_heads):
        return None
    return Design(problem, tuple(orbits))


def _checked_clusterings(problem: Problem, chk: SymbolicChecker) -> Iterator[Clustering]:
    """The clusterings a covering verdict needs: all of them, or past MAX_CLUSTERINGS the
    design's representatives (theory-scale C7, computed only when reached)."""
    if count_clusterings(problem) <= MAX_CLUSTERINGS:
        yield from clusterings(problem)
    else:
        yield from chk.representatives()


def _counterexamples(ctx: SearchContext, design: Design, values: DemandValues, deadline: float, limit: int) -> list[tuple[int, ...]] | None:
    """Keys of counterexample scenarios of `design`, at most one per clustering (up to
    `limit`); [] when it covers every clustering. The clusterings that gave a counterexample
    before are checked first (the most recent first: a candidate near the last one tends to
    fail on them, and a check ends at `limit` keys). When the deadline passes first: the keys
    found so far, None when there are none (a covering verdict needs every clustering)."""
    t = time.perf_counter()
    try:
        chk = SymbolicChecker(ctx.problem, design)
        chk.shortfalls = False  # only the counterexamples' demands are used
        out: list[tuple[int, ...]] = []
        first = sorted(ctx.failing, key=ctx.failing.__getitem__, reverse=True)
        done = set(first)
        for c in chain(first, (c for c in _checked_clusterings(ctx.problem, chk) if c not in done)):
            if time.perf_counter() > deadline:
                return out or None
            r = chk.first_uncovered(c)
            if r is not None:
                ctx.checks += 1
                ctx.failing[c] = ctx.checks
                key = values.key(r)
                if not key:
                    raise AssertionError("a counterexample scenario without demands")
                if key not in out:
                    out.append(key)
                if len(out) >= limit:
                    break
        return out
    finally:
        ctx.last_check_s = time.perf_counter() - t
        ctx.separation_time += ctx.last_check_s


def _repair(
    ctx: SearchContext, design: Design, values: DemandValues, before: int, until: float, best_units: int, max_head_dim: int | None,
) -> tuple[Design | None, list[tuple[int, ...]]]:
    """`repair.repair` of a candidate whose check stamped the clusterings it misses after
    `ctx.checks == before`: a covering design below `best_units`, or None; and the keys met."""
    failing = [c for c, t in ctx.failing.items() if t > before]
    if not failing:
        return None, []

    def check(d: Design):  # noqa: ANN202
        mark = ctx.checks
        try:
            new = _counterexamples(ctx, d, values, until, ROUND_KEYS)
        except LimitError:
            return None
        if new is None:
            return None
        return [c for c, t in ctx.failing.items() if t > mark], new

    return repair(design, failing, check, until, best_units, max_head_dim)


def _rounded_counterexamples(
    ctx: SearchContext, design: Design, values: DemandValues, deadline: float
) -> tuple[Design, list[tuple[int, ...]] | tuple | None]:
    """(the design checked, its counterexample keys) for a rounded LP design (O14): past the
    checker's limits, a coarser design above it with at most ROUNDED_MULTISETS multisets
    (O12) is checked instead; keys () when neither can be checked, None at the deadline."""
    try:
        return design, _counterexamples(ctx, design, values, deadline, ROUND_KEYS)
    except LimitError:
        coarse = coarsen(design, ROUNDED_MULTISETS)
        if coarse is not None:
            try:
                return coarse, _counterexamples(ctx, coarse, values, deadline, ROUND_KEYS)
            except LimitError:
                pass
        return design, ()


def _coarse_counterexamples(
    ctx: SearchContext, design: Design, values: DemandValues, deadline: float
) -> tuple[Design | None, list[tuple[int, ...]] | None]:
    """(coarse design, its counterexample keys) for a design too large to check: the first
    coarsening (at MAX_MULTISETS, then 16 times fewer multisets) the checker accepts;
    (None, []) when none is accepted; keys None when the deadline passed."""
    limit = MAX_MULTISETS
    while limit >= 1:
        coarse = coarsen(design, limit)
        if coarse is None:
            break
        try:
            return coarse, _counterexamples(ctx, coarse, values, deadline, ROUND_KEYS)
        except LimitError:
            limit //= 16
    return None, []


def search(
    ctx: SearchContext,
    deadline: float,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    trace: dict | None = None,
    recheck_factor: float = 0.0,
    seed: Seed | Callable[[float], Seed | None] | None = None,
    repair_always: bool = False,
) -> SearchResult:
    """The counterexample loop (module docstring) until optimal, infeasible, or a limit.
    The LP bound over every type (lp_bound.py, theory-scale O11) runs when the loop cannot
    prove its answer (restricted types, a limit), until the final `deadline`; the loop's own
    steps keep time for the final LP bound (`lp_reserve`). `trace` (a dict, for tests) receives the scenario
    keys, the demand values, the best LP bound (its certificate) and the fixed programs
    (cutoff, types, status). `recheck_factor`: the search ends earlier by this many times the
    seconds its check of the incumbent took (the caller's re-check of the answer, timed by
    the same work). `seed`: what the search of `(G, V, H / k, d)` found (multiples.py, O16):
    its keys repeated `k` times join `S` (its certificate's keys the LP's working set), its
    LP columns the LP's start, and its design repeated `k` times is checked as a candidate;
    or a function of the search's end giving it (`seed_for`), called once the regular design
    (the answer if time runs out) has been checked."""
    problem = ctx.problem
    start, end = time.perf_counter(), deadline
    ctx.best_check_s = 0.0  # seconds the incumbent's check took
    lp_s = None  # seconds of the last LP bound

    def final_end() -> float:
        """The search's end: `deadline` less the re-check of the incumbent."""
        return end - recheck_factor * ctx.best_check_s

    def loop_end() -> float:
        """The loop's end: the final one less the time kept for the final LP bound."""
        return final_end() - lp_reserve(end - start, lp_s)
    values = DemandValues(problem)
    regular = _regular(problem)
    reg_ok = _within(regular, max_heads, max_head_dim)
    best: Design | None = None
    if reg_ok:
        viol = _counterexamples(ctx, regular, values, loop_end(), 1)
        if viol:
            raise RuntimeError("internal error: the regular design does not cover every clustering")
        if viol is None:  # the clock ran out while checking it
            return SearchResult("unknown", None, 0, 0, 0, 0, "time_limit")
        # (the first check builds the problem's demand spaces, which the re-check reuses:
        # measured re-check / first check 0.25, so a third of it stands for a later check)
        best, ctx.best_check_s = regular, ctx.last_check_s * FIRST_CHECK_SHARE
    best_units = None if best is None else best.params // 4
    keys: list[tuple[int, ...]] = []
    trace = {} if trace is None else trace
    trace.update(keys=keys, values=values.values, lp=None, fixed=[])
    lower = 0
    rounds = 0
    n_types = 0
    stopped: str | None = None
    # first keys: the counterexamples of the empty design (every clustering with a demand)
    first = _counterexamples(ctx, Design(problem, ()), values, loop_end(), ROUND_KEYS)
    if first is None:
        return SearchResult("feasible" if best else "unknown", best, lower, rounds, 0, 0, "time_limit")
    if not first:  # nothing to cover: the empty design is optimal
        return SearchResult("optimal", Design(problem, ()), 0, rounds, 0, 0, None)
    keys.extend(first)
    # the programs' working set (positions into keys): after each LP bound, the keys with a
    # positive dual and those of the last round; any subset gives a valid bound (Lemma O1)
    work: set[int] = set(range(len(keys)))
    recent: set[int] = set(work)
    objective = Objective(0)
    bound = ScenarioBound(problem, ctx.h, values.values, max_heads, ctx.threads)
    hosts_memo: dict = {}  # generated_types' cheapest hosts, kept between rounds
    extra: set = set()  # types the LP bound's column generation found, offered to the restricted programs
    lp_done: tuple[int, bool] | None = None  # (keys, converged) of the last LP bound
    lp_active: tuple[int, ...] = ()  # keys with a positive dual in the last LP bound (the next one's working set)
    lean = True  # restricted programs over the LP's columns only (few distinct types: checkable designs)
    lean_table = False
    checkable = shapes_tried = False  # restricted programs limited to checkable designs (after one was not)
    ms_limit = MAX_MULTISETS  # ... with at most this many orbit multisets (smaller after a checkable one was not)
    full = False  # past FULL_TYPES capped types, the restricted rounds (price and branch) come first
    price_first = False  # the program over every capped type is too large (MAX_PROGRAM_VARS) or too slow (FULL_SHARE)
    patient = False  # a restricted program found no candidate within its share
    fixing = True  # reduced-cost fixing (off when its program is over the variable limit)
    fixed_memo: tuple = (None, None)  # ((LP result, incumbent, demand values), fixed_types' answer)
    fixed_stalled = None  # the memo key whose program was too large or ran out of its share (not tried again)
    floor: Counter = Counter()  # (sub, W) -> copies the restricted programs keep (the seed's design, repaired)
    floor_lo: dict[int, int] = {}  # ... as lower bounds of the restricted program's counts

    if callable(seed):
        seed = seed(final_end())
    ctx.seed = seed
    if seed is not None:
        # the smaller problem's keys, repeated (Lemma O16: every covering design meets them)
        index = {k: i for i, k in enumerate(keys)}
        at = []
        for dems in seed.keys:
            key = tuple(sorted(values.intern(dm) for dm in multiply_key(dems, seed.k, problem.V)))
            if key not in index:
                index[key] = len(keys)
                keys.append(key)
            at.append(index[key])
        lp_active = tuple(sorted({at[i] for i in seed.active}))
        work |= set(lp_active) if lp_active else set(at)  # (no LP bound there: all its keys)
        extra.update(seed.columns)
        cand = None if seed.design is None else multiply_design(problem, seed.design, seed.k)
        if cand is not None and (best_units is None or cand.params // 4 < best_units) and _within(cand, max_heads, max_head_dim):
            try:
                new = _counterexamples(ctx, cand, values, loop_end(), ROUND_KEYS)
            except LimitError:
                new = ()
            if new == []:
                best, best_units, ctx.best_check_s = cand, cand.params // 4, ctx.last_check_s
            elif new:  # a candidate's counterexamples are keys like any
                # and the restricted programs keep its orbits (a repair: the cheapest orbits
                # to add to it), until one covers or none is cheaper than the incumbent
                floor = Counter((o.sub.id, o.W.mults) for o in cand.orbits)
                extra.update(floor)
                log.debug("the seed's design repeated misses %d clusterings or more: the restricted programs repair it", len(new))
                added = [k for k in new if k not in index]
                work |= set(range(len(keys), len(keys) + len(added)))
                keys.extend(added)
        log.debug(
            "seeded by H = %d: %d keys (%d active), %d columns, design %s -> incumbent %s", problem.heads // seed.k,
            len(seed.keys), len(seed.active), len(seed.columns), None if seed.design is None else seed.design.params // 4, best_units,
        )
    last_lp = None  # the last LP bound's result (its fractional design is rounded into a candidate)
    lp_seen: list[int] = []  # the converged LP bounds so far (a creep starts the repair, O18)
    rounded_seen: set = set()  # rounded LP designs checked so far
    rounded_last = False  # the last round was a rounded design's (none dearer than the incumbent twice in a row)

    def lp_lower(columns, until: float | None = None) -> int:  # noqa: ANN001 - iterable of (sub, W)
        """The LP bound over the keys so far, until `until` (default: the search's end; 0
        when no time is left); records its columns and its time."""
        nonlocal lp_done, lp_active, work, last_lp, lp_s
        until = final_end() if until is None else until
        t_lp = time.perf_counter()
        if t_lp > until - 0.05 or lp_done == (len(keys), True):
            return 0
        hosts = sorted({(k[1], tuple(int(x) for x in W)) for k, W in hosts_memo.items() if W is not None})
        res = lp_bound(
            problem, ctx.h, values.values, keys, list(columns) + sorted(extra), until, max_heads, max_head_dim, ctx.threads,
            candidates=hosts, active=lp_active,
        )
        lp_done = (len(keys), res.converged)
        last_lp = res
        if res.converged:
            lp_seen.append(res.units)
        lp_active = res.active or lp_active
        if res.active:
            work = set(res.active) | recent
        if trace["lp"] is None or res.units >= trace["lp"][1].units:
            trace["lp"] = (list(keys), res)
        extra.update(res.columns)
        lp_s = time.perf_counter() - t_lp
        log.debug("LP bound over %d keys: %d units in %.2fs (%s)", len(keys), res.units, lp_s, "converged" if res.converged else "stopped")
        return res.units
    while True:
        deadline = loop_end()  # this round's steps end by then
        if time.perf_counter() > deadline - 0.05:
            stopped = "time_limit"
            break
        if ctx.out_of_work():
            stopped = "work_limit"
            break
        rounds += 1
        # the scenario bound (bounds.py): valid whatever the type set
        sb = max(bound.of_key(k, deadline) for k in keys)
        if best_units is not None and sb > best_units:
            raise RuntimeError("internal error: a scenario bound exceeds the cost of a covering design")
        lower = max(lower, sb)
        if best_units is not None and lower >= best_units:
            return SearchResult("optimal", best, best_units, rounds, len(keys), n_types, None)
        max_cost = math.inf if best_units is None else 4 * best_units
        fixed = None
        if (
            fixing and best_units is not None and trace["lp"] is not None and trace["lp"][1].certificate is not None
            and trace["lp"][1].units >= (1.0 - FIXING_GAP) * best_units
        ):
            # reduced-cost fixing (fixing.py, O13): every type a design cheaper than the
            # incumbent can use, from the best LP certificate; the program over them is exact
            if lp_done is not None and lp_done[0] < len(keys) and fixed_memo[1] is not None:
                lp_lower((), time.perf_counter() + 0.25 * max(deadline - time.perf_counter(), 0.0))  # a tighter certificate
            lp = trace["lp"][1]
            memo_key = (id(lp), best_units, len(values.values))
            if fixed_memo[0] != memo_key:
                fixed_memo = (memo_key, fixed_types(
                    problem, values, ctx.h, keys, lp.certificate, best_units - 1, max_heads, max_head_dim,
                    max_nodes=FIXED_NODES, max_types=FIXED_TYPES,
                ))
            fixed = fixed_memo[1] if memo_key != fixed_stalled else None
            log.debug("fixing at %d units (LP %d): %s", best_units - 1, lp.units, "over the limits" if fixed is None else f"{len(fixed[0])} types")
            if fixed is not None:
                lower = max(lower, lp.units)
                if lower >= best_units:
                    return SearchResult("optimal", best, best_units, rounds, len(keys), n_types, None)
                work |= {s for s, _, _, _ in lp.certificate.mu}  # the fixing holds for designs meeting these
        if fixed is not None:
            table = fixed[0]
            restricted = False
        else:
            try:
                table = design_types(problem, values, ctx.h, max_cost, deadline, max_heads=max_heads, max_head_dim=max_head_dim)
                if (price_first and not full) or (len(table) > FULL_TYPES and not full):
                    raise LimitError("rep", f"{len(table)} capped types: price and branch first")
                restricted = False
            except LimitError:
                if time.perf_counter() > deadline:
                    stopped = "time_limit"
                    break
                # too many capped types to list: search a generated subset for cheaper covering
                # designs (their programs' bounds are not lower bounds of the optimum)
                # the LP bound over every type first: a valid bound, and its columns are the types
                # the restricted program needs (price and branch)
                # the cheapest hosts of the new demand values (memoised), for the LP's quick pricing
                cheapest_hosts(problem, values, ctx.h, max_heads, max_head_dim, deadline, hosts_memo, ctx.threads)
                lower = max(lower, lp_lower(()))  # (the bound itself: until the search's end)
                deadline = loop_end()  # (the reserve follows the LP bound's time)
                if best_units is not None and lower >= best_units:
                    return SearchResult("optimal", best, best_units, rounds, len(keys), n_types, None)
                # the LP's design rounded up: its new counterexamples are a round without a program
                cand = None if last_lp is None else _rounded(problem, last_lp.solution, max_heads)
                if cand is not None and best_units is not None and cand.params // 4 >= best_units and rounded_last:
                    cand = None  # no incumbent in it, and the last round was one: a program's round now
                rounded_last = False
                if cand is not None and cand.orbits not in rounded_seen:
                    rounded_seen.add(cand.orbits)
                    before = ctx.checks
                    cand, new = _rounded_counterexamples(ctx, cand, values, deadline)
                    if new is None:
                        stopped = "time_limit"
                        break
                    if new == [] and _within(cand, max_heads, max_head_dim) and (best_units is None or cand.params // 4 < best_units):
                        best, best_units, ctx.best_check_s = cand, cand.params // 4, ctx.last_check_s
                        continue
                    index = {k: i for i, k in enumerate(keys)}
                    added = [k for k in new if k not in index]
                    log.debug("round %d: the LP's design rounded up (%d units): %s", rounds, cand.params // 4, f"{len(added)} new counterexamples" if new != () else "not checkable")
                    creeping = len(lp_seen) >= 2 and lp_seen[-1] - lp_seen[-2] <= REPAIR_CREEP * lp_seen[-1]
                    if added and REPAIR and (creeping or repair_always) and best_units is not None and cand.params // 4 < best_units:
                        # raise the rounded design where it falls short (repair.py, O18)
                        now = time.perf_counter()
                        fixed_design, more = _repair(ctx, cand, values, before, min(deadline, now + REPAIR_SHARE * max(deadline - now, 0.0)), best_units, max_head_dim)
                        added += [k for k in dict.fromkeys(more) if k not in index and k not in added]
                        if fixed_design is not None and fixed_design.params // 4 < best_units:
                            best, best_units, ctx.best_check_s = fixed_design, fixed_design.params // 4, ctx.last_check_s
                            log.debug("round %d: the rounded design repaired: %d units", rounds, best_units)
                    if added:
                        recent = set(range(len(keys), len(keys) + len(added)))
                        keys.extend(added)
                        work |= recent
                        rounded_last = True
                        continue
                table = generated_types(
                    problem, values, ctx.h, max_cost, max_heads=max_heads, max_head_dim=max_head_dim, deadline=deadline,
                    memo=hosts_memo, threads=ctx.threads, extra=sorted(extra), joins=not extra, hosts=not (extra and lean),
                )
                lean_table = bool(extra and lean)
                floor_lo = {i: floor[(t.sub, t.W)] for i, t in enumerate(table.types) if (t.sub, t.W) in floor}
                restricted = True
                stopped = "type_limit"
        n_types = len(table)
        # copies: no more than the incumbent's cost allows, max_heads allows, or any one
        # scenario of S can use (a minimal cover of D uses at most Σ_σ D_σ copies)
        use = max(sum(values.values[v].size for v in key) for key in keys)
        U = []
        for t in table.types:
            u = use
            if best_units is not None:
                u = min(u, best_units // t.units)
            if max_heads is not None:
                u = min(u, max_heads // t.heads)
            U.append(u)
        if fixed is not None:  # the copies the fixing allows (O13)
            U = [u if b is None else min(u, b) for u, b in zip(U, fixed[1])]
        ctx.report(stage="optimum", round=rounds, scenarios=len(keys), bound=4 * lower, incumbent=None if best_units is None else 4 * best_units)
        if time.perf_counter() > deadline - 0.05:
            stopped = "time_limit"
            break
        try:
            prog = build(
                table, U, [keys[i] for i in sorted(work)], objective, heads_max=max_heads,
                multisets=ms_limit if restricted and checkable else None, max_vars=MAX_PROGRAM_VARS,
                cutoff=None if best_units is None else best_units - 1, lower=floor_lo if restricted and floor else None,
            )
        except LimitError:  # (memory) the program over every capped type: restricted rounds from now on
            if fixed is not None:  # the program over the fixed types: not again
                fixing = False
                continue
            if restricted:
                stopped = "scenario_limit"
                break
            full, price_first = False, True  # back to the restricted rounds (with the incumbent's cutoff)
            continue
        if fixed is not None and prog.model.num_vars > FIXED_VARS:
            # a large exact program rarely finishes (its root LP alone can take the time left):
            # the other rounds instead, until the certificate, the incumbent or the values change
            log.debug("round %d: the fixed program has %d variables: not solved", rounds, prog.model.num_vars)
            fixed_stalled = fixed_memo[0]
            continue
        until = deadline
        share = RESTRICTED_SHARE if restricted else None if full else FULL_SHARE
        if fixed is not None:
            share = None if len(table) <= FIXED_SMALL else FIXED_SHARE
        if restricted and patient:
            share = None
        if share is not None and ctx.work_limit is None:  # (with a work limit only the work limit, theory-scale O5)
            # a restricted program: a candidate, not a bound, is wanted (a good solution soon beats
            # a proof late); the program over every capped type before the restricted rounds had
            # their turn: a share of the time too
            until = min(deadline, time.perf_counter() + max(5.0, share * (deadline - time.perf_counter())))
        t_solve = time.perf_counter()
        sol = ctx.solve(prog.model, until)
        if fixed is not None:
            trace["fixed"].append((best_units - 1, n_types, sol.status))
        log.debug(
            "round %d: %s program, %d types, %d variables, %d/%d keys, %s in %.2fs (bound %s), lower %d, incumbent %s",
            rounds, "restricted" if restricted else "fixed" if fixed is not None else "full", n_types, prog.model.num_vars, len(work), len(keys), sol.status,
            time.perf_counter() - t_solve, sol.bound, lower, best_units,
        )
        # the program over every capped type ran out of its share: the restricted rounds next
        capped = not restricted and sol.status in ("feasible", "unknown") and time.perf_counter() < deadline - 0.05
        if capped and fixed is not None:
            fixed_stalled = fixed_memo[0]
        price_first = price_first or capped
        if restricted and sol.status == "infeasible":
            if restricted and checkable:  # no checkable design meets S: candidates of any shape again
                checkable, shapes_tried = False, True
                continue
            if lean_table:  # the LP's columns alone do not meet S: the cheapest hosts too, from now on
                lean = False
                continue
            if floor:  # nothing added to the seed's design is cheaper than the incumbent: free programs
                floor.clear()
                continue
            break  # no generated design cheaper than the incumbent meets S
        if sol.status == "infeasible":
            # no design (cheaper than the incumbent, within the constraints) meets S
            if best is not None:
                return SearchResult("optimal", best, best_units, rounds, len(keys), n_types, None)
            return SearchResult("infeasible", None, 0, rounds, len(keys), n_types, None)
        if math.isfinite(sol.bound) and not restricted:
            lower = max(lower, int(math.ceil(sol.bound - 1e-6)))
        if best_units is not None and lower >= best_units:
            return SearchResult("optimal", best, best_units, rounds, len(keys), n_types, None)
        if sol.values is None:
            if capped:
                continue
            if restricted and not patient and sol.stopped == "time" and time.perf_counter() < deadline - 0.05:
                patient = True  # no candidate within its share: the next restricted program gets the time left
                continue
            stopped = {"time": "time_limit", "work": "work_limit"}.get(str(sol.stopped), "time_limit")
            break
        counts = {t: int(sol.values[prog.n[t]]) for t in range(len(table.types)) if sol.values[prog.n[t]] > 0}
        design = to_design(problem, table, counts)
        try:
            new = _counterexamples(ctx, design, values, deadline, ROUND_KEYS)
        except LimitError as e:
            log.debug("round %d: the program's design (%d units) is past the checker's limits: %s", rounds, design.params // 4, e.message)
            if restricted and not checkable and not shapes_tried:
                checkable = True  # restricted programs from now on keep their designs checkable
                continue
            if restricted and checkable and ms_limit > 16 and time.perf_counter() < deadline - 0.05:
                ms_limit //= 4  # past another limit of the checker (its demand search): fewer multisets
                continue
            # too many orbit types to check: check a design above it instead (coarsen.py);
            # its counterexamples are the candidate's too
            coarse, new = _coarse_counterexamples(ctx, design, values, deadline)
            if new is not None and not new and coarse is not None:  # the coarse design covers
                if _within(coarse, max_heads, max_head_dim) and (best_units is None or coarse.params // 4 < best_units):
                    best, best_units, ctx.best_check_s = coarse, coarse.params // 4, ctx.last_check_s
            if not new:
                ctx.unchecked = True
                stopped = "scenario_limit" if new is not None else "time_limit"
                break
        if new is None:
            stopped = "time_limit"
            break
        if not new:
            units = design.params // 4
            if best_units is None or units < best_units:
                best, best_units, ctx.best_check_s = design, units, ctx.last_check_s
            floor.clear()  # (a repaired seed design covers: the programs are free again)
            if restricted:
                # the cheapest generated design meeting S covers: the LP bound over every type
                # may prove it optimal, or offer the types the generated set lacks
                known = {(t.sub, t.W) for t in table.types}
                lower = max(lower, lp_lower(known))
                if lower >= best_units:
                    return SearchResult("optimal", best, best_units, rounds, len(keys), n_types, None)
                if time.perf_counter() > deadline:
                    break
                if extra <= known:
                    # the program over every capped type (when they fit) for the time left; else
                    # the restricted rounds go on: with the cutoff, each finds a cheaper design
                    # (whose counterexamples raise the LP bound) or none (the loop ends)
                    full = True
                continue
            if sol.status == "optimal":
                return SearchResult("optimal", best, best_units, rounds, len(keys), n_types, None)
            if capped:
                continue
            stopped = {"time": "time_limit", "work": "work_limit"}.get(str(sol.stopped), "time_limit")
            break
        index = {k: i for i, k in enumerate(keys)}
        added = [k for k in new if k not in index]
        recent = {index[k] for k in new if k in index} - work
        if not added and not recent:
            raise AssertionError("a counterexample of the program's design is already in the program")
        recent |= set(range(len(keys), len(keys) + len(added)))
        keys.extend(added)
        work |= recent
        if sol.status != "optimal" and not ((restricted or capped) and sol.stopped == "time" and time.perf_counter() < deadline):
            stopped = {"time": "time_limit", "work": "work_limit"}.get(str(sol.stopped), "time_limit")
            break
    log.debug("loop ended after %.1fs (%s); %.1fs to the end", time.perf_counter() - start, stopped, final_end() - time.perf_counter())
    if best is not None and lower < best_units and stopped is not None:
        lower = max(lower, lp_lower(()))
    if best is None:
        return SearchResult("unknown", None, lower, rounds, len(keys), n_types, stopped)
    if lower >= best_units:
        return SearchResult("optimal", best, best_units, rounds, len(keys), n_types, None)
    return SearchResult("feasible", best, lower, rounds, len(keys), n_types, stopped)


def seed_for(ctx: SearchContext, deadline: float, max_heads: int | None = None, max_head_dim: int | None = None) -> Seed | None:
    """The seed of the search of `ctx.problem` (multiples.py, theory-scale O16): the search of
    `(G, V, H / k, d)`, itself seeded the same way, run for `SPLIT_SHARE` of the time left
    (with `max_heads // k`: its design repeated `k` times then meets `max_heads`); None when
    `H` is below `SPLIT_HEADS` or prime."""
    problem = ctx.problem
    k = split_factor(problem)
    if k is None:
        return None
    sub = sub_problem(problem, k)
    now = time.perf_counter()
    # (with a work limit, half the work left and no share of the time: the clock stops a
    # run's sub-search only when it stops the run, theory-scale O5)
    until = deadline if ctx.work_limit is not None else now + SPLIT_SHARE * max(deadline - now, 0.0)
    progress = None
    if ctx.progress is not None:
        def progress(e: dict) -> None:
            ctx.report(**{**e, "stage": f"seed H={sub.heads}", "bound": None, "incumbent": None})
    sub_heads = None if max_heads is None else max_heads // k
    sctx = SearchContext(sub, ctx.backend, progress, ctx.threads)
    if ctx.work_limit is not None:
        sctx.work_limit = max(ctx.work_left() or 0, 0) // 2
    trace: dict = {}
    try:
        res = search(sctx, until, sub_heads, max_head_dim, trace, seed=lambda end: seed_for(sctx, end, sub_heads, max_head_dim))
    except LimitError as e:  # a limit of the smaller problem: no seed (the search of H meets its own limits)
        log.debug("seed H = %d: %s", sub.heads, e.message)
        return None
    finally:
        ctx.work += sctx.work
        ctx.solver_time += sctx.solver_time
        ctx.separation_time += sctx.separation_time
        ctx.solves += sctx.solves
    keys, vals = trace.get("keys", []), trace.get("values", [])
    lp = trace.get("lp")
    active: set[int] = set()
    columns: tuple = ()
    if lp is not None:
        res_lp = lp[1]
        columns = res_lp.columns
        active = set(res_lp.active)
        if res_lp.certificate is not None:
            active |= {s for s, _, _, _ in res_lp.certificate.mu}
    log.debug("seed H = %d: %s, %s units, lower %d, %d keys", sub.heads, res.status, None if res.design is None else res.design.params // 4, res.lower_units, len(keys))
    return Seed(
        k, res.design, tuple(tuple(vals[v] for v in key) for key in keys), tuple(sorted(active)), tuple(columns),
    )
