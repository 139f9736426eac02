"""The best partial coverage by searches over subsets of clusterings, for problems the budget
program cannot take (docs/theory-scale.md B4b): no list of orbit types, no counterexample
cuts, only the symbolic search (search.py) asked for the least design within the budget that
covers a given subset `T` of the clusterings (`search(..., only=T)`; its types and
scenarios are generated as for full coverage, theory-scale O6-O18).

Three facts make the answer exact or honestly bounded (Proposition B4b):

* every design covers the clusterings the empty design covers (B2, monotone), so those
  (`trivial`) count in every design;
* a set of clusterings no design within the budget covers is never inside a design's
  covered set: proven for `{c}` by a cheap scenario bound (one scenario of `c` whose least
  cover, O9, exceeds what the cost cap allows, O19), by a search ending `infeasible`, or by
  one orbit type of `c` that no design within the budget covers as a clustering of its own
  (its search ended `infeasible`; a design covering `c` covers each of its orbits alone,
  Lemma B4c), for larger sets by their search; the largest set containing none of them (a
  small program, `_most`) bounds what any design within the budget covers;
* a design the search returns covers its subset (checked), and its covered set is checked
  clustering by clustering with the symbolic checker.

The phases: the cheap bounds; parts of the open clusterings (single orbit types, then pairs
of orbits) searched as clusterings of their own (the parts most clusterings hold first; on
D4h 64×(v+t) H8 d64 at (8, 64) the 65 orbit types rule out all 1722 clusterings in 10 s);
every clustering searched alone, in passes of doubling time
(the quick refutations first); the incumbent as the single design covering the most, united
with the others while within the budget; grown greedily (`T = covered ∪ {c}`); the parts
not yet searched (each part once: growing rarely needs the whole phase where parts refute);
the undecided ones searched alone again (an even share of the time left each, never less than a
first try: a thinner share decides nothing); then, while the bound's largest set exceeds the
incumbent, that set searched (a design covering it, or a new proven-uncoverable set). When
the count reaches the bound it is optimal; then every set of that size the program admits is
searched, and the least optimal design over them is the fewest-parameter one. A search the
type set (not the clock) stopped is not tried again (O22); the LP bounds of every search and
of the cheap bounds start from the types the last LP of their kind used (`ColumnPool`, O11:
the same values, fewer pricing rounds).

    >>> from eqattn.attention import Problem
    >>> r = partial_search(Problem.create("C4", "E1", 2, 1), ComputeLimits(max_heads=1), Budget.starting(30))
    >>> len(r.covered), sorted(r.infeasible), r.design.params, r.params_proven
    (2, [1], 8, True)
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass

from ..attention import Design, Problem
from ..attention.clusterings import Clustering, clusterings
from ..attention.hosting import hosting
from ..attention.symbolic import HostingMemo, SymbolicChecker
from ..errors import LimitError
from . import solver
from .bounds import DemandBounds, ScenarioBound
from .budget import Budget, Usage
from .catalogue import DemandCatalogue
from .column_pool import ColumnPool, lp_kind
from .limits import ComputeLimits, params_per_cost
from .lp_bound import lp_bound, measured
from .rounds.limits_bound import SHORTFALL_EPS, heads_implied, limit_bounds
from .rounds.state import SearchResult
from .search import Shared, search

PART_SHARE = 0.25  # of the time (or work), until here at most: parts of the clusterings searched as clusterings of their own (B4c)
PART_SIZES = (1, 2)  # orbits in a part: single orbit types first, then pairs
RESUME_SHARE = 0.9  # ... after growing, the parts not yet searched, until here; then the undecided clusterings alone
SINGLE_SHARE = 0.4  # ... until here: every clustering searched alone
GROW_SHARE = 0.75  # ... until here: the incumbent grown; the rest proves clusterings and sets uncoverable
FIRST_SECONDS = 0.5  # a single search's first try (doubled on each pass over the undecided ones)
FIRST_WORK = 4  # ... under a work limit: solver work units
KEY_LP_ITERATIONS = 20_000  # simplex iterations of one cheap LP bound under a work limit (deterministic)
GROW_SECONDS = 1.0  # a growing search gets at least this (or its share of the phase)
CHEAP_SHARE = 0.2  # of the time at most for the scenario bounds of the first counterexamples
RETRIED = ("time_limit", "work_limit")  # a single search that these stopped is tried again with twice the time


Part = tuple[tuple[tuple[int, int], int], ...]  # orbit types with counts, sorted (a Clustering's `orbits`)


@dataclass(frozen=True)
class PartialSearch:
    """What the searches found: the best design, the clusterings it covers (ids), those no
    design within the budget covers (proven), whether the parameter tie-break is proven."""

    design: Design
    covered: frozenset[int]
    infeasible: frozenset[int]
    of: int
    upper_bound: int  # most clusterings any design within the budget covers (proven)
    params_proven: bool
    stopped_by: str | None
    searches: int
    work: int
    parts: tuple[Part, ...] = ()  # parts (sub-multisets of orbits) no design within the budget covers (B4c)


@dataclass(frozen=True)
class _Incumbent:
    """The best design so far, the clusterings it covers, the search that found it (its
    subset and result) and the clusterings every design covers."""

    design: Design
    covered: frozenset[int]
    last: tuple[frozenset[int], SearchResult] | None
    trivial: frozenset[int] = frozenset()


def _parts(c: Clustering, size: int) -> set[Part]:
    """The sub-multisets of `size` orbits of `c` (size 1 or 2), as `Clustering.orbits`.

        >>> sorted(_parts(Clustering(0, (((1, 1), 2), ((2, 1), 1))), 2))
        [(((1, 1), 1), ((2, 1), 1)), (((1, 1), 2),)]
    """
    if size == 1:
        return {((o, 1),) for o, _ in c.orbits}
    out = {((o, 2),) for o, k in c.orbits if k >= 2}
    out |= {((a, 1), (b, 1)) for (a, _), (b, _) in itertools.combinations(c.orbits, 2)}
    return out


class _Runner:
    """The searches of one partial-coverage call, their budget and what they proved."""

    def __init__(self, problem: Problem, limits: ComputeLimits, budget: Budget, threads: int | None) -> None:
        self.problem, self.limits, self.budget, self.threads = problem, limits, budget, threads
        self.cl = clusterings(problem)
        self.usage = Usage()
        self.searches = 0
        self.stopped: str | None = None
        self.infeasible: set[int] = set()
        self.single: set[int] = set()  # clusterings whose search alone has ended (feasible or not, or short of types)
        self.conflicts: list[frozenset[int]] = []  # sets of clusterings no design within the limits covers (proven)
        self.refuted_parts: list[Part] = []  # parts no design within the limits covers (B4c)
        self.tried_parts: set[Part] = set()  # parts searched so far (each once)
        # what the searches (and the cheap bounds) share: the types of the LP bounds so far (the
        # next ones start from them), the scenario bounds of the demand values met so far (the
        # searches' own catalogues repeat them), the hosting classes the checkers listed (they
        # check the same designs)
        self.shared = Shared(
            ColumnPool(), DemandBounds(problem, limits.for_engines().max_heads, budget.work_limit is not None), HostingMemo(problem),
        )

    def out(self, until: float, work: int | None = None) -> bool:
        """Past `until` or out of work (the phase's `work`, or the call's): the call's
        limits are recorded as what stopped it."""
        if self.budget.out_of_work(self.usage):
            self.stopped = "work_limit"
            return True
        if time.perf_counter() >= until:
            if until >= self.budget.hard_end:
                self.stopped = "time_limit"
            return True
        return work is not None and self.usage.work >= work

    def _search(self, only: tuple[Clustering, ...], until: float, seconds: float, work: int | None,
                stop_at_design: bool = False) -> SearchResult | None:
        """The least design within the limits covering `only` (any one, with
        `stop_at_design`), for `seconds` (not past `until`), or under a work limit for `work`
        units (at most what is left); None past a limit of the checker."""
        now = time.perf_counter()
        if self.budget.work_limit is not None:
            left = self.budget.work_left(self.usage) or 0
            b = Budget.starting(self.budget.hard_end - now, work_limit=max(1, min(work or left, left)))
        else:
            b = Budget.starting(max(min(seconds, until - now), 0.05))
        self.searches += 1
        try:
            r = search(self.problem, b, self.limits, threads=self.threads, only=only, shared=self.shared, reasons=False,
                       stop_at_design=stop_at_design)
        except LimitError:
            return None
        self.usage.absorb(r.usage)
        return r

    def search(self, only: frozenset[int], until: float, seconds: float, work: int | None) -> SearchResult | None:
        """`_search` of the clusterings with ids `only`, its verdict recorded."""
        r = self._search(tuple(self.cl[i] for i in sorted(only)), until, seconds, work)
        if r is None:
            return None
        if r.status == "infeasible":
            if len(only) == 1:
                self.infeasible |= only
            else:
                self.conflicts.append(only)
        if len(only) == 1:
            if r.status in ("infeasible", "optimal", "feasible") or r.stopped not in RETRIED:
                self.single |= only
        return r

    def parts(self, trivial: frozenset[int], until: float, work: int | None) -> None:
        """Parts of the open clusterings (sub-multisets of their orbits: single orbit types,
        then two orbits) searched as clusterings of their own (fewer heads than H;
        FIRST_SECONDS each, FIRST_WORK units under a work limit) until `until` (or `work`):
        when no design within the limits covers a part, none covers a clustering holding it
        (Lemma B4c), and those join the proven uncoverable ones. Within a size, the part held
        by the most clusterings still open goes first (greedy, counts refreshed lazily)."""
        for size in PART_SIZES:
            holders: dict[Part, list[int]] = {}
            for c in self.cl:
                if c.id not in trivial and c.id not in self.infeasible:
                    for U in _parts(c, size):
                        if U != c.orbits and U not in self.tried_parts:  # (a whole clustering: its single search's)
                            holders.setdefault(U, []).append(c.id)
            heap = [(-len(ids), U) for U, ids in holders.items()]
            heapq.heapify(heap)
            while heap:
                _, U = heapq.heappop(heap)
                ids = [i for i in holders[U] if i not in self.infeasible]
                if not ids:
                    continue
                if heap and len(ids) < -heap[0][0]:
                    heapq.heappush(heap, (-len(ids), U))  # its count fell: the next one may hold more
                    continue
                if self.out(until, work):
                    return
                self.tried_parts.add(U)
                r = self._search((Clustering(-1, U),), until, FIRST_SECONDS, FIRST_WORK, stop_at_design=True)
                if r is not None and r.status == "infeasible":
                    self.refuted_parts.append(U)
                    self.infeasible.update(ids)

    def singles(self, order: list[int], trivial: frozenset[int], until: float, work: int | None) -> list["_Incumbent"]:
        """Each clustering not yet decided searched alone, in passes: every one undecided
        gets FIRST_SECONDS (FIRST_WORK units under a work limit), twice that in the next pass,
        and so on until `until` (or `work`): the designs found, with what each covers."""
        found: list[_Incumbent] = []
        pending = [c for c in order if c not in self.infeasible]
        seconds, units = FIRST_SECONDS, FIRST_WORK
        while pending and not self.out(until, work):
            later = []
            for c in pending:
                if any(c in f.covered for f in found):
                    continue  # coverable; the growing searches take it
                if self.out(until, work):
                    break
                r = self.search(frozenset({c}), until, seconds, units)
                if r is not None and r.design is not None:
                    got = self.covered_by(r.design, {c} | trivial)
                    if got is not None:
                        found.append(_Incumbent(r.design, got, (frozenset({c}), r), trivial))
                elif r is not None and c not in self.single:
                    later.append(c)  # undecided, stopped by the clock (`search` marks the rest as ended)
            pending, seconds, units = later, 2 * seconds, 2 * units
        return found

    def unite(self, inc: "_Incumbent", found: list["_Incumbent"]) -> "_Incumbent":
        """The incumbent from the single designs: the one covering the most, then the union
        with each other one (largest first) that stays within the limits and covers more
        (a union covers what its parts cover, B2; the rest is checked)."""
        for f in sorted(found, key=lambda f: (-len(f.covered), f.design.params)):
            if len(f.covered) > len(inc.covered):
                inc = f
                continue
            if f.covered <= inc.covered:
                continue
            orbits = sorted(inc.design.orbits + f.design.orbits, key=lambda o: (-o.sub.order, o.sub.id, o.W.mults))
            union = Design(self.problem, tuple(orbits))
            if self.limits.admits(union):
                got = self.covered_by(union, set(inc.covered | f.covered))
                if got is not None and len(got) > len(inc.covered):
                    inc = _Incumbent(union, got, None, inc.trivial)
        return inc

    def grow(self, inc: "_Incumbent", order: list[int], until: float, work: int | None) -> "_Incumbent":
        """The incumbent grown greedily: each clustering it misses searched together with
        what it covers (`T = covered ∪ {c}`), until `until`."""
        todo = [c for c in order if c not in inc.covered and c not in self.infeasible]
        for k, c in enumerate(todo):
            if c in inc.covered or c in self.infeasible:
                continue
            if self.out(until, work):
                break
            only = (inc.covered - inc.trivial) | {c}
            if only == {c} and c in self.single:
                continue  # (that search alone has ended: again it would end the same)
            seconds = max(GROW_SECONDS, (until - time.perf_counter()) / (len(todo) - k))
            units = None if work is None else max(FIRST_WORK, (work - self.usage.work) // (len(todo) - k))
            inc = self.offer(inc, only, self.search(only, until, seconds, units))
        return inc

    def offer(self, inc: "_Incumbent", only: frozenset[int], r: SearchResult | None) -> "_Incumbent":
        """The incumbent, or the design of `r` (it covers `only`) when it covers more."""
        if r is None or r.design is None:
            return inc
        got = self.covered_by(r.design, set(only | inc.trivial))
        if got is None or len(got) <= len(inc.covered):
            return inc
        return _Incumbent(r.design, got, (only, r), inc.trivial)

    def covered_by(self, design: Design, known: set[int]) -> frozenset[int] | None:
        """The clusterings `design` covers (those of `known` without a check: it covers them);
        None past the checker's limits."""
        try:
            chk = SymbolicChecker(self.problem, design, shortfalls=False, memo=self.shared.hosting)
            return frozenset(known | {c.id for c in self.cl if c.id not in known and chk.first_uncovered(c) is None})
        except LimitError:
            return None

    def cheap(self, until: float) -> tuple[frozenset[int], list[int]]:
        """(the clusterings the empty design covers, the others in the order of the bound of
        the empty design's counterexample); those whose counterexample no design within the
        limits meets (its scenario bound above the cost cap, or `refutes`) join the proven
        uncoverable ones."""
        cap = self.limits.cost_cap(self.problem)
        ceiling = None if cap is None else int(params_per_cost(self.problem) * cap // 4)
        cat = DemandCatalogue(self.problem)
        h = hosting(self.problem)
        sb = ScenarioBound(self.problem, h, cat.values, self.limits.for_engines().max_heads, self.threads,
                           deterministic=self.budget.work_limit is not None, shared=self.shared.demand_bounds)
        chk = SymbolicChecker(self.problem, Design(self.problem, ()), shortfalls=False, memo=self.shared.hosting)
        trivial, bound, refuted = set(), {}, {}
        for c in self.cl:
            r = chk.first_uncovered(c)
            if r is None:
                trivial.add(c.id)
                continue
            key = cat.key(r)
            bound[c.id] = b = sb.of_key(key, until)
            if ceiling is not None and b > ceiling:
                self.infeasible.add(c.id)
                continue
            if key not in refuted and time.perf_counter() < until:
                refuted[key] = self.refutes(h, cat, key, until)
            if refuted.get(key):
                self.infeasible.add(c.id)
        return frozenset(trivial), sorted(bound, key=lambda i: (bound[i], i))

    def refutes(self, h, cat: DemandCatalogue, key: tuple[int, ...], until: float) -> bool:  # noqa: ANN001 - Hosting
        """Whether the LP bounds of the limits round (rounds/limits_bound.py: the phase-one
        shortfall, attention cost, heads; O11, O19e) over the one scenario `key` prove that
        no design within the limits meets it."""
        eng = self.limits.for_engines()
        phase_one: bool | None = None  # (converged: True above 0, False at 0)
        for measure, head_dim, limit in limit_bounds(eng, self.limits.cost_cap(self.problem)):
            if time.perf_counter() >= until:
                return False
            if measure == "heads" and heads_implied(phase_one):
                continue
            work = None if self.budget.work_limit is None else KEY_LP_ITERATIONS
            problem, objective = measured(self.problem, measure)
            heads_row = eng.max_heads if measure == "shortfall" else None
            kind = lp_kind(problem, objective, heads_row, head_dim)
            res = lp_bound(problem, h, cat.values, [key], self.shared.columns.start(kind), until, heads_row,
                           head_dim, self.threads, objective=objective, work_limit=work)
            self.shared.columns.add(kind, res.support)
            self.usage.add_lp(res.work)
            if (res.converged and res.value > SHORTFALL_EPS) if measure == "shortfall" else res.units > limit:
                return True
            if measure == "shortfall" and res.converged:
                phase_one = False  # (True returned above)
        return False


def partial_search(problem: Problem, limits: ComputeLimits, budget: Budget, threads: int | None = None) -> PartialSearch:
    """The design within `limits` covering the most clusterings found by subset searches,
    with the proven uncoverable clusterings and sets (module docstring)."""
    run = _Runner(problem, limits, budget, threads)
    t0, end = time.perf_counter(), budget.hard_end

    def at(share: float) -> tuple[float, int | None]:
        return (t0 + share * (end - t0) if math.isfinite(end) else end), (None if budget.work_limit is None else int(share * budget.work_limit))

    trivial, order = run.cheap(at(CHEAP_SHARE)[0])
    run.parts(trivial, *at(PART_SHARE))
    inc = _Incumbent(Design(problem, ()), trivial, None, trivial)
    inc = run.unite(inc, run.singles(order, trivial, *at(SINGLE_SHARE)))
    inc = run.grow(inc, order, *at(GROW_SHARE))
    run.parts(trivial, *at(RESUME_SHARE))
    todo = [c for c in order if c not in inc.covered and c not in run.infeasible and c not in run.single]
    for k, c in enumerate(todo):
        if run.out(end):
            break
        # an even share of what is left, but never less than a first try: a search given less
        # than it needs to decide ends undecided, and the share is spent for nothing
        seconds = max(FIRST_SECONDS, (end - time.perf_counter()) / (len(todo) - k))
        units = None if budget.work_limit is None else max(FIRST_WORK, (run.budget.work_left(run.usage) or 0) // (len(todo) - k))
        inc = run.offer(inc, frozenset({c}), run.search(frozenset({c}), end, seconds, units))
    inc, upper = _close(run, trivial, inc, end)
    proven = None if len(inc.covered) < upper else _tie_break(run, trivial, inc, len(inc.covered) - len(trivial), end)
    return PartialSearch(inc.design if proven is None else proven, inc.covered, frozenset(run.infeasible), len(run.cl),
                         upper, proven is not None, run.stopped, run.searches, run.usage.work, tuple(run.refuted_parts))


def _most(run: _Runner, trivial: frozenset[int], size: int | None = None, excluded: tuple = ()) -> tuple[frozenset[int] | None, int]:
    """(a largest set X of clusterings containing no proven-uncoverable set, its size
    bound): the program max Σ y_c over the clusterings neither trivial nor uncoverable,
    Σ_{c∈F} y_c ≤ |F| - 1 per proven-uncoverable set F. With `size`: a set of exactly that
    size other than the `excluded` ones (X None when there is none)."""
    free = [c.id for c in run.cl if c.id not in trivial and c.id not in run.infeasible]
    if not free:
        return (frozenset() if size is None else None), 0
    m = solver.Model()
    y = {c: m.add_var(0, 1, -1) for c in free}
    for F in run.conflicts:
        if F <= y.keys():
            m.add_row([y[c] for c in F], [1] * len(F), hi=len(F) - 1)
    for X in excluded:
        m.add_row([y[c] for c in X], [1] * len(X), hi=len(X) - 1)
    if size is not None:
        m.add_row(list(y.values()), [1] * len(y), lo=size, hi=size)
    sol = solver.solve(m, time_limit=max(run.budget.hard_end - time.perf_counter(), 1.0), threads=run.threads)
    if sol.status == "infeasible":
        return None, -1
    top = len(free) if not math.isfinite(sol.bound) else int(math.floor(-sol.bound + 1e-6))
    if sol.values is None or sol.status != "optimal":
        return None, top
    return frozenset(c for c in free if sol.values[y[c]] > 0.5), top


def _close(run: _Runner, trivial: frozenset[int], inc: "_Incumbent", end: float) -> tuple["_Incumbent", int]:
    """(the incumbent, the upper bound): the largest set of clusterings without a proven
    uncoverable subset bounds every design's covered set; while it exceeds the incumbent,
    its search either finds a design covering it (the bound is reached) or proves it
    uncoverable (a new conflict)."""
    while True:
        X, top = _most(run, trivial)
        upper = len(trivial) + top
        if X is None or upper <= len(inc.covered) or run.out(end):
            return inc, max(upper, len(inc.covered))
        r = run.search(X, end, math.inf, None)
        if r is None or (r.design is None and r.status != "infeasible"):
            run.stopped = run.stopped or ("checker_limit" if r is None else (r.stopped or "unknown"))
            return inc, upper
        inc = run.offer(inc, X, r)


def _tie_break(run: _Runner, trivial: frozenset[int], inc: "_Incumbent", k: int, end: float) -> Design | None:
    """When the count is proven (`k` non-trivial clusterings covered, no design covers
    more), the fewest parameters over every set of `k` clusterings some design covers: each
    such set's search, optimal, gives the least design covering it (it covers no more). The
    best design; None when some set was left unproven."""
    if k == 0:
        return Design(run.problem, ())
    best, seen = None, []
    while True:
        X, _ = _most(run, trivial, k, tuple(seen))
        if X is None:
            return best
        seen.append(X)
        if inc.last is not None and inc.last[0] == X and inc.last[1].status == "optimal":
            r = inc.last[1]
        elif run.out(end):
            return None
        else:
            r = run.search(X, end, math.inf, None)
        if r is None or r.status not in ("optimal", "infeasible"):
            return None
        if r.status == "optimal" and (best is None or r.design.params < best.params):
            best = r.design
