"""The optimiser for large problems: scenarios AND orbit types generated from the symbolic
checker's counterexamples (docs/theory-scale.md O6, O8-O18).

At real transformer sizes the options of an orbit are far too many to list, so neither the
scenario space nor the demand values (hence the caps of the orbit types) can be enumerated
up front. The search keeps a set `S` of scenario keys, all of them counterexamples found by
`attention.symbolic.SymbolicChecker` (exact at any size the limits accept), and runs the
rounds of `rounds/` over them: programs over the capped (or fixed, or generated) types of
the demand values of `S`, whose optimum over every capped type is a lower bound by Lemma
O1; the LP bound by column generation when the types are too many; candidates checked by
the `CounterexampleOracle`, whose counterexamples join `S`.

The incumbent is the regular design (`Design.regular`, SPEC §3), checked first, when it is
within the compute limits; every design the search returns has been checked to cover every
clustering, and `optimize` re-checks it with `coverage.check_coverage`.

Example: `search(Problem.create("C2", "32xregular", 4, 16), Budget.starting(60))` proves
the regular design optimal (benchmarks/scale.py).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable

from ..attention import Design, Problem
from ..attention.clusterings import Clustering
from ..attention.hosting import hosting
from ..attention.dominance import MAX_MULTISETS
from ..attention.symbolic import HostingMemo
from ..errors import LimitError
from ..groups import SubgroupClass
from ..reps import Rep
from .bounds import DemandBounds, ScenarioBound
from .budget import Budget, Usage
from .catalogue import DemandCatalogue
from .column_pool import ColumnPool
from .induced import INDUCE_SHARE, induce_design, induce_from, subgroup_problem
from .limits import ComputeLimits, params_per_cost
from .multiples import SPLIT_SHARE, Seed, split_factor, sub_problem
from .oracle import ROUND_KEYS, CounterexampleOracle
from .parity import PARITY_LIFT, PARITY_MIN_ORDER, PARITY_SHARE, ParitySplit, lift_demand, lift_rep, parity_split
from .rounds import SearchResult, SearchState, drive, lp_lower, pipeline, plant_seed
from .rounds.certificate import certificate
from .rounds.state import Progress

FIRST_CHECK_SHARE = 1 / 3  # the first check of a problem (the regular design's) counts this much as the re-check's measure

log = logging.getLogger("eqattn.optimize")  # one debug line per round (program, types, keys, bounds)

SeedSource = Seed | Callable[[float, Usage], Seed | None] | None


class SubSearches:
    """The proven answers of the smaller searches of one call (the seeds of O16, the induced
    designs of O20), by problem and limits, so that a smaller problem met twice in one call
    is searched once: `A5, 8×regular, H = 4` is the seed of the induced `A5 … H = 8` and the
    problem whose design is induced to the seed `S5 … H = 4` of `S5 … H = 8` (3.5 s of 60).
    Only `optimal` answers are kept: their design, keys and certificate are what any rerun
    would prove again; an answer a limit stopped is searched anew with the time it then has.
    One per top-level call, passed down (`search(memo=)`, `seed_for`, `induced_for`).

        >>> memo = SubSearches()
        >>> p = Problem.create("C4", "regular", 2, 1)
        >>> res = search(p, Budget.starting(20))
        >>> memo.put(p, ComputeLimits(), res); memo.get(p, ComputeLimits()) is res, memo.get(p, ComputeLimits(max_heads=4))
        (True, None)
    """

    def __init__(self) -> None:
        self._done: dict[tuple, tuple[object, SearchResult]] = {}

    @staticmethod
    def _key(problem: Problem, limits: ComputeLimits) -> tuple:
        # (the group by identity: its object is held with the answer, so the id stays its own)
        return (id(problem.group), tuple(problem.V.mults), problem.heads, problem.head_dim, limits.max_heads, limits.max_head_dim, limits.max_cost)

    def get(self, problem: Problem, limits: ComputeLimits) -> SearchResult | None:
        hit = self._done.get(self._key(problem, limits))
        return None if hit is None or hit[0] is not problem.group else hit[1]

    def put(self, problem: Problem, limits: ComputeLimits, res: SearchResult) -> None:
        if res.status == "optimal":
            self._done[self._key(problem, limits)] = (problem.group, res)


@dataclass(frozen=True)
class Shared:
    """What the searches of one call of one problem share (the partial coverage's hundreds of
    searches, one per clustering or part, rounds/ and partial_search.py): `columns`, the
    types the limits round's LP bounds used (`ColumnPool`; a start only); `demand_bounds`,
    the scenario bounds of the demand values met (`bounds.DemandBounds`, of this problem and
    the limits' heads); `hosting`, the hosting classes the checkers listed
    (`HostingMemo`, by subgroup and the design's orbit types: the searches check the same
    rounded designs again and again). Each is a cache of facts about the problem, so what a
    search answers does not depend on it; None: the search's own.

        >>> p = Problem.create("C4", "regular", 2, 1)
        >>> shared = Shared(hosting=HostingMemo(p))
        >>> search(p, Budget.starting(20), shared=shared).status, len(shared.hosting) > 0
        ('optimal', True)
    """

    columns: ColumnPool | None = None
    demand_bounds: DemandBounds | None = None
    hosting: HostingMemo | None = None


def new_state(
    problem: Problem, budget: Budget, limits: ComputeLimits | None = None, *, backend: str = "highs", threads: int | None = None,
    progress: Progress | None = None, recheck_factor: float = 0.0, repair_always: bool = False, only: tuple[Clustering, ...] | None = None,
    shared: Shared | None = None,
    reasons: bool = True,
    stop_at_design: bool = False,
) -> SearchState:
    """The state a search starts from: no keys, no incumbent. `only`: the clusterings to
    cover (None: every clustering); `shared`: what earlier searches of the call found
    (`Shared`); `reasons`: whether an infeasible answer's plainest certificate line is wanted;
    `stop_at_design`: feasibility only (the loop stops at the first design found)."""
    catalogue = DemandCatalogue(problem)
    user = ComputeLimits() if limits is None else limits
    limits = user.for_engines()
    h = hosting(problem)
    cap = user.cost_cap(problem)
    shared = Shared() if shared is None else shared
    return SearchState(
        problem, budget, limits, h, catalogue, CounterexampleOracle(problem, catalogue, only, shared.hosting),
        ScenarioBound(problem, h, catalogue.values, limits.max_heads, threads, deterministic=budget.work_limit is not None,
                      shared=shared.demand_bounds),
        backend=backend, threads=threads, progress=progress,
        recheck_factor=recheck_factor, repair_always=repair_always, ms_limit=MAX_MULTISETS, cost_cap=cap,
        ceiling=None if cap is None else int(params_per_cost(problem) * cap // 4), columns=shared.columns, reasons=reasons,
        stop_at_design=stop_at_design,
    )


def search(
    problem: Problem,
    budget: Budget,
    limits: ComputeLimits | None = None,
    *,
    backend: str = "highs",
    threads: int | None = None,
    progress: Progress | None = None,
    recheck_factor: float = 0.0,
    seed: SeedSource = None,
    repair_always: bool = False,
    only: tuple[Clustering, ...] | None = None,
    memo: SubSearches | None = None,
    shared: Shared | None = None,
    reasons: bool = True,
    stop_at_design: bool = False,
) -> SearchResult:
    """The counterexample search until optimal, infeasible, or a limit: the regular design
    and the empty design's counterexamples first, then (a group of order >= 48 with an
    index-2 subgroup, every clustering to cover) the design induced from the subgroup's
    search (O20), then the seed, then passes of the rounds
    (`rounds.pipeline`) until the budget's end. The LP bound over every type runs when the
    loop cannot prove its answer (restricted types, a limit), until the end; the loop keeps
    time for it (`lp_reserve`). `recheck_factor`: the search ends earlier by this many times
    the seconds its check of the incumbent took (the caller's re-check of the answer).
    `seed`: what the search of `(G, V, H / k, d)` found (O16), or a function of the search's
    end and its usage giving it (`seed_for`), called once the regular design has been checked.
    `only`: cover these clusterings only (the least design covering a subset; every bound and
    infeasibility proof is then about that subset). `memo`: the proven smaller searches of
    this call (`SubSearches`; a new one when None). `shared`: the caches earlier searches of
    this problem in this call filled (`Shared`: LP columns, scenario bounds, hosting
    classes); `reasons=False`:
    an infeasible answer's certificate line may be the phase-one LP's even where the heads
    bound would give a plainer one (an LP less; rounds/limits_bound.py); `stop_at_design`:
    whether any design within the limits covers `only`, nothing more: the loop stops at the
    first one found (`feasible`, stopped by `design_found`, no final LP bound)."""
    memo = SubSearches() if memo is None else memo
    state = new_state(problem, budget, limits, backend=backend, threads=threads, progress=progress,
                      recheck_factor=recheck_factor, repair_always=repair_always, only=only, shared=shared,
                      reasons=reasons, stop_at_design=stop_at_design)
    opened = _open(state)
    if opened is not None:
        return opened
    if only is None:
        _plant_induced(state, memo)
        split = _plant_parity(state, memo)
        if split is not None:
            return split
    if callable(seed):
        seed = seed(state.final_end(), state.usage)
    state.seed = seed
    if seed is not None:
        plant_seed(state, seed)
    answer = drive(state, pipeline())
    return answer if answer is not None else conclude(state)


def _open(state: SearchState) -> SearchResult | None:
    """The regular design as the incumbent (when within the limits), and the first keys: the
    counterexamples of the empty design (every clustering with a demand). A result when that
    already decides the search."""
    problem = state.problem
    regular = Design.regular(problem, trimmed=True)
    if state.limits.admits(regular):
        viol = state.oracle.keys(regular, state.loop_end(), 1)
        if viol:
            raise RuntimeError("internal error: the regular design does not cover every clustering")
        if viol is None:  # the clock ran out while checking it
            return state.result("unknown", None, 0, "time_limit")
        # (the first check builds the problem's demand spaces, which the re-check reuses: a
        # third of it stands for a later check)
        state.improve(regular)
        state.best_check_s = state.oracle.last_check_s * FIRST_CHECK_SHARE
    first = state.oracle.keys(Design(problem, ()), state.loop_end(), ROUND_KEYS)
    if first is None:
        return state.result("feasible" if state.best else "unknown", state.best, state.lower, "time_limit")
    if not first:  # nothing to cover: the empty design is optimal
        return state.result("optimal", Design(problem, ()), 0)
    state.keys.extend(first)
    state.working = set(range(len(state.keys)))
    state.recent = set(state.working)
    return None


def _plant_induced(state: SearchState, memo: SubSearches | None = None) -> None:
    """The design induced from an index-2 subgroup's search (induced.py, Lemma O20) as the
    incumbent when it is cheaper and within the limits. It covers by the lemma; the oracle
    checks it all the same (a clustering it misses is an internal error, as for the regular
    design)."""
    problem = state.problem
    A = induce_from(problem)
    if A is None:
        return
    design = induced_for(problem, A, state.budget, state.final_end(), state.limits,
                         backend=state.backend, threads=state.threads, progress=state.progress, used=state.usage, memo=memo)
    if design is None or not state.cheaper(design) or not state.limits.admits(design):
        return
    viol = state.oracle.keys(design, state.loop_end(), 1)
    if viol:
        raise RuntimeError(f"internal error: the design induced from {A.name} does not cover every clustering")
    if viol is not None:
        log.debug("induced from %s: %d units", A.name, design.params // 4)
        state.improve(design)
        state.induced = (A.name, design.params)


def _plant_parity(state: SearchState, memo: SubSearches) -> SearchResult | None:
    """The parity split's bound (parity.py, Lemma O21), for a group of order at least
    `PARITY_MIN_ORDER` with a direct factor of order 2: the searches of `(A, V₊, H, d)` and
    `(A, V₋, H, d)` under the same limits (one when they are the same problem), each for
    `PARITY_SHARE` of the time left; the sum of their lower bounds raises the search's. When
    either proves that no design within the limits covers its part, the search's answer is
    `infeasible` (returned); else None."""
    problem = state.problem
    if problem.group.order < PARITY_MIN_ORDER:
        return None
    split = parity_split(problem)
    if split is None:
        return None
    total = 0
    same = split.same  # (V₊ ≅ V₋: one search bounds both parts)
    for sign, sub in split.parts()[:1] if same else split.parts():
        res = _sub_search(sub, 1, PARITY_SHARE, f"parity {sign} over {split.A.name}", state.budget, state.final_end(), state.limits,
                          state.backend, state.threads, state.progress, state.usage, memo)
        if res is None:  # (a limit of its own: the other part alone still bounds)
            continue
        log.debug("parity %s over %s (%s): %s, lower %d units", sign, split.A.name, sub.V, res.status, res.lower_units)
        if res.status == "infeasible":
            state.reason = (f"no design within the limits covers every clustering of the part of V where the central involution is "
                            f"{sign}1 ({split.A.name}, {sub.V}, H = {sub.heads}, d = {sub.head_dim}), which every covering design "
                            "restricts to (theory-scale O21)" + ("" if res.reason is None else f": {res.reason}"))
            return state.result("infeasible", None, state.lower)
        total += res.lower_units * (2 if same else 1)
        _lift_keys(state, split, res, ("+", "-") if same else (sign,))
    if total > state.lower:
        state.lower = total
        state.parity = (split.A.name, total)
    return None


def _lift_keys(state: SearchState, split: ParitySplit, res: SearchResult, signs: tuple[str, ...]) -> None:
    """The keys of a part's search lifted to the problem's as its own (Lemma O21d: every
    covering design meets them), once per sign in `signs` (both when `V₊ ≅ V₋`), when the
    part has an LP bound: those with a dual in its certificate or last master join the
    working set and the LP's start, and the types of its fractional design, lifted the same
    way, its columns. Nothing when the part has no LP bound (its programs proved it: their
    keys carry no duals to choose by, and every key in S makes each LP bound of the search
    larger; on Oh regular H8 d16 at 60 s lifting them all cost the search its LP bound), nor
    under compute limits (the searches of a bisection, whose proofs are short LP bounds:
    with the keys lifted, Oh 64×(v+t) H8 d64's fewest heads was no longer proven in 60 s)."""
    if not PARITY_LIFT or res.best_lp is None or state.limits.any or state.cost_cap is not None:
        return
    lp = res.best_lp[1]
    active = set(lp.active) | ({s for s, _, _, _ in lp.certificate.mu} if lp.certificate is not None else set())
    demands = res.demand_keys()  # (the LP's positions: into a prefix of res.keys)
    at: set[int] = set()
    for sign in signs:
        placed = state.place_keys(tuple(sorted(state.catalogue.intern(lift_demand(split, sign, dm)) for dm in dems)) for dems in demands)
        at.update(placed[i] for i in active)
        for sub, W in lp.support:
            U = lift_rep(split, sign, Rep(split.A.std.subgroup_classes[sub], tuple(W)))
            state.extra.add((U.sub.id, U.mults))
    state.working |= at
    state.lp_active = tuple(sorted(set(state.lp_active) | at))
    log.debug("parity: %d keys lifted (%d active)", len(demands) * len(signs), len(at))


def induced_for(
    problem: Problem, A: SubgroupClass, budget: Budget, deadline: float, limits: ComputeLimits | None = None, *,
    backend: str = "highs", threads: int | None = None, progress: Progress | None = None, used: Usage | None = None,
    memo: SubSearches | None = None,
) -> Design | None:
    """The best covering design the search of `(A, V|A, H, d)` finds (itself seeded as any
    search), run for `INDUCE_SHARE` of the time left (with a work limit: half the work left
    and no share of the time, as `seed_for`) under the limits divided by `[G:A]`, induced to
    `problem` (Lemma O20); None when it finds none or meets a limit. What it spends is added
    to `used`."""
    sub = subgroup_problem(problem, A)
    res = _sub_search(sub, A.index, INDUCE_SHARE, f"induced from {A.name}", budget, deadline, limits, backend, threads, progress, used, memo)
    if res is None:
        return None
    log.debug("induced from %s: %s, %s units", A.name, res.status, None if res.design is None else res.design.params // 4)
    return None if res.design is None else induce_design(problem, A, res.design)


def _sub_search(
    sub: Problem, k: int, share: float, stage: str, budget: Budget, deadline: float, limits: ComputeLimits | None,
    backend: str, threads: int | None, progress: Progress | None, used: Usage | None, memo: SubSearches | None = None,
) -> SearchResult | None:
    """The search of a smaller problem for a larger one (O16, O20), itself seeded by `seed_for`:
    `share` of the time left before `deadline` (with a work limit: half the work left, `used`
    saying what was spent, and no share of the time: the clock stops a sub-search only when
    it stops the run, O5), under the limits divided by `k` (its design repeated, or induced,
    `k`-fold then meets them); None when it meets a limit of its own. What it spends is added
    to `used`. A smaller problem this call has proven already (`memo`) is not searched again
    (and spends nothing)."""
    limits = ComputeLimits() if limits is None else limits
    used = Usage() if used is None else used
    memo = SubSearches() if memo is None else memo
    sub_limits = limits.divided(k)
    known = memo.get(sub, sub_limits)
    if known is not None:
        log.debug("%s: proven earlier in this call (%s units)", stage, None if known.design is None else known.design.params // 4)
        return known
    now = time.perf_counter()
    until = deadline if budget.work_limit is not None else now + share * max(deadline - now, 0.0)
    sub_progress = None if progress is None else lambda e: progress({**e, "stage": stage, "bound": None, "incumbent": None})
    sub_budget = budget.until(until, None if budget.work_limit is None else max(budget.work_left(used) or 0, 0) // 2)
    try:
        res = search(
            sub, sub_budget, sub_limits, backend=backend, threads=threads, progress=sub_progress, memo=memo,
            seed=lambda end, spent: seed_for(sub, sub_budget, end, sub_limits, backend=backend, threads=threads, progress=sub_progress, used=spent, memo=memo),
        )
    except LimitError as e:  # a limit of the smaller problem (the larger search meets its own limits)
        log.debug("%s: %s", stage, e.message)
        return None
    used.absorb(res.usage)
    memo.put(sub, sub_limits, res)
    return res


def conclude(state: SearchState) -> SearchResult:
    """The answer when the loop stopped: the final LP bound (when a limit stopped it short of
    a proof), then optimal, feasible or unknown."""
    log.debug("loop ended after %.1fs (%s); %.1fs to the end", time.perf_counter() - state.start, state.stopped, state.final_end() - time.perf_counter())
    if state.stopped not in (None, "design_found") and (state.best is None or state.lower < state.best_units):
        state.lower = max(state.lower, lp_lower(state, ()))
    reason = certificate(state)
    if reason is not None:
        state.reason = reason
        return state.result("infeasible", None, state.lower)
    if state.best is None:
        return state.result("unknown", None, state.lower, state.stopped)
    if state.proven():
        return state.result("optimal", state.best, state.best_units)
    return state.result("feasible", state.best, state.lower, state.stopped)


def seed_for(
    problem: Problem, budget: Budget, deadline: float, limits: ComputeLimits | None = None, *, backend: str = "highs",
    threads: int | None = None, progress: Progress | None = None, used: Usage | None = None, memo: SubSearches | None = None,
) -> Seed | None:
    """The seed of the search of `problem` (multiples.py, O16): the search of `(G, V, H / k, d)`,
    itself seeded the same way, run for `SPLIT_SHARE` of the time left (with the limits
    divided by `k`: its design repeated `k` times then meets them); None when `H` is below
    `SPLIT_HEADS` or prime. With a work limit: half the work left (`used` says what was
    spent) and no share of the time (the clock stops a sub-search only when it stops the run,
    O5). What the sub-search spends is added to `used`."""
    k = split_factor(problem)
    if k is None:
        return None
    sub = sub_problem(problem, k)
    res = _sub_search(sub, k, SPLIT_SHARE, f"seed H={sub.heads}", budget, deadline, limits, backend, threads, progress, used, memo)
    if res is None:
        return None
    active: set[int] = set()
    columns: tuple = ()
    cert = None
    if res.best_lp is not None:
        lp = res.best_lp[1]
        columns = lp.columns
        active = set(lp.active)
        cert = lp.certificate  # (its positions: into the keys it was computed over, a prefix of res.keys)
    carried = res.seed_certificate  # (its own seed's, carried to its keys: a certificate over them as well, O16c)
    if carried is not None and (cert is None or carried.value(res.values, res.keys, None) > cert.value(res.values, res.keys, None)):
        cert = carried
    if cert is not None:
        active |= {s for s, _, _, _ in cert.mu}
    log.debug("seed H = %d: %s, %s units, lower %d, %d keys", sub.heads, res.status, None if res.design is None else res.design.params // 4, res.lower_units, len(res.keys))
    return Seed(k, res.design, res.demand_keys(), tuple(sorted(active)), tuple(columns), cert)
