"""The best partial coverage by searches over subsets of clusterings, for problems the budget
program cannot take (docs/theory-scale.md B4b): no list of orbit types, no counterexample
cuts, only the symbolic search (search.py) asked for the least design within the budget that
covers a given subset `T` of the clusterings (`search(..., only=T)`; its types and
scenarios are generated as for full coverage, theory-scale O6-O18).

Three facts make the answer exact or honestly bounded:

* every design covers the clusterings the empty design covers (B2, monotone), so those
  (`trivial`) count in every design;
* a clustering `c` that no design within the budget covers is uncovered in every design:
  proven by a cheap scenario bound (one scenario of `c` whose least cover, O9, exceeds what
  the cost cap allows, O19) or by the search of `{c}` ending `infeasible`; so
  `upper_bound = N - |proven uncoverable|` bounds what any design within the budget covers;
* a design the search returns covers its subset (checked), and its covered set is checked
  clustering by clustering with the symbolic checker.

The incumbent grows greedily: clusterings in the order of their scenario bound, each tried
with the covered set so far (`T = covered ∪ {c}`); a design found replaces the incumbent
with everything it covers. The remaining time goes to the single searches that prove
clusterings uncoverable. When the count reaches the bound it is optimal, and then the
covered set is the only one of that size (every other clustering is uncoverable), so the
search over it, when optimal, proves the fewest parameters too.

    >>> from eqattn.attention import Problem
    >>> r = partial_search(Problem.create("C4", "E1", 2, 1), ComputeLimits(max_heads=1), Budget.starting(30))
    >>> len(r.covered), sorted(r.infeasible), r.design.params, r.params_proven
    (2, [1], 8, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ..attention import Design, Problem
from ..attention.clusterings import Clustering, clusterings
from ..attention.hosting import hosting
from ..attention.symbolic import SymbolicChecker
from ..errors import LimitError
from . import solver
from .bounds import ScenarioBound
from .budget import Budget, Usage
from .catalogue import DemandCatalogue
from .limits import ComputeLimits, params_per_cost
from .rounds.state import SearchResult

GROW_SHARE = 0.6  # of the time (or work) for growing the incumbent; the rest proves clusterings uncoverable
SPREAD = 8  # a search gets the time left in its phase divided by at most this many searches
CHEAP_SHARE = 0.2  # of the time at most for the scenario bounds of the first counterexamples


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


@dataclass(frozen=True)
class _Incumbent:
    """The best design so far, the clusterings it covers, the search that found it (its
    subset and result) and the clusterings every design covers."""

    design: Design
    covered: frozenset[int]
    last: tuple[frozenset[int], SearchResult] | None
    trivial: frozenset[int] = frozenset()


class _Runner:
    """The searches of one partial-coverage call, their budget and what they proved."""

    def __init__(self, problem: Problem, limits: ComputeLimits, budget: Budget, threads: int | None) -> None:
        self.problem, self.limits, self.budget, self.threads = problem, limits, budget, threads
        self.cl = clusterings(problem)
        self.usage = Usage()
        self.searches = 0
        self.stopped: str | None = None
        self.infeasible: set[int] = set()
        self.single: set[int] = set()  # clusterings whose search alone has ended (feasible or not)
        self.conflicts: list[frozenset[int]] = []  # sets of clusterings no design within the limits covers (proven)

    def out(self, until: float) -> bool:
        if self.budget.out_of_work(self.usage):
            self.stopped = "work_limit"
            return True
        if time.perf_counter() >= until:
            self.stopped = "time_limit"
            return True
        return False

    def search(self, only: frozenset[int], until: float, work: int | None, left: int) -> SearchResult | None:
        """The least design within the limits covering the clusterings `only`, with the time
        to `until` (or the work `work`) shared among `left` searches; None past a limit of
        the checker."""
        from .search import search

        now = time.perf_counter()
        if self.budget.work_limit is not None:
            share = max(1, work // max(1, min(left, SPREAD)))
            b = Budget.starting(self.budget.hard_end - now, work_limit=min(share, self.budget.work_left(self.usage)))
        else:
            b = Budget.starting(max((until - now) / max(1, min(left, SPREAD)), 0.05))
        self.searches += 1
        try:
            r = search(self.problem, b, self.limits, threads=self.threads, only=tuple(self.cl[i] for i in sorted(only)))
        except LimitError:
            return None
        self.usage.absorb(r.usage)
        if r.status == "infeasible":
            if len(only) == 1:
                self.infeasible |= only
            else:
                self.conflicts.append(only)
        if len(only) == 1:
            if r.status in ("infeasible", "optimal", "feasible"):
                self.single |= only
        return r

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
            chk = SymbolicChecker(self.problem, design, shortfalls=False)
            return frozenset(known | {c.id for c in self.cl if c.id not in known and chk.first_uncovered(c) is None})
        except LimitError:
            return None

    def cheap(self, until: float) -> tuple[frozenset[int], list[int]]:
        """(the clusterings the empty design covers, the others in the order of the bound of
        the empty design's counterexample); those whose bound exceeds the cost cap join the
        proven uncoverable ones."""
        cap = self.limits.cost_cap(self.problem)
        ceiling = None if cap is None else int(params_per_cost(self.problem) * cap // 4)
        cat = DemandCatalogue(self.problem)
        engines = self.limits.for_engines()
        sb = ScenarioBound(self.problem, hosting(self.problem), cat.values, engines.max_heads, self.threads,
                           deterministic=self.budget.work_limit is not None)
        chk = SymbolicChecker(self.problem, Design(self.problem, ()), shortfalls=False)
        trivial, bound = set(), {}
        for c in self.cl:
            r = chk.first_uncovered(c)
            if r is None:
                trivial.add(c.id)
                continue
            b = sb.of_key(cat.key(r), until)
            bound[c.id] = b
            if ceiling is not None and b > ceiling:
                self.infeasible.add(c.id)
        return frozenset(trivial), sorted(bound, key=lambda i: (bound[i], i))


def partial_search(problem: Problem, limits: ComputeLimits, budget: Budget, threads: int | None = None) -> PartialSearch:
    """The design within `limits` covering the most clusterings found by subset searches,
    with the proven uncoverable clusterings and sets (module docstring)."""
    run = _Runner(problem, limits, budget, threads)
    t0, end = time.perf_counter(), budget.hard_end
    grow_end = t0 + GROW_SHARE * (end - t0) if math.isfinite(end) else end
    trivial, order = run.cheap(t0 + CHEAP_SHARE * (end - t0) if math.isfinite(end) else end)
    inc = _Incumbent(Design(problem, ()), trivial, None, trivial)
    work = None if budget.work_limit is None else int(GROW_SHARE * budget.work_limit)
    todo = [c for c in order if c not in run.infeasible]
    for k, c in enumerate(todo):
        if c in inc.covered or c in run.infeasible:
            continue
        if run.out(grow_end):
            break
        only = (inc.covered - trivial) | {c}
        inc = run.offer(inc, only, run.search(only, grow_end, None if work is None else max(work - run.usage.work, 1), len(todo) - k))
    todo = [c for c in order if c not in inc.covered and c not in run.infeasible and c not in run.single]
    for k, c in enumerate(todo):
        if run.out(end):
            break
        inc = run.offer(inc, frozenset({c}), run.search(frozenset({c}), end, run.budget.work_left(run.usage), len(todo) - k))
    inc, upper = _close(run, trivial, inc, end)
    proven = None if len(inc.covered) < upper else _tie_break(run, trivial, inc, len(inc.covered) - len(trivial), end)
    return PartialSearch(inc.design if proven is None else proven, inc.covered, frozenset(run.infeasible), len(run.cl),
                         upper, proven is not None, run.stopped, run.searches, run.usage.work)


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
        r = run.search(X, end, run.budget.work_left(run.usage), 1)
        if r is None or (r.design is None and r.status != "infeasible"):
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
            r = run.search(X, end, run.budget.work_left(run.usage), 1)
        if r is None or r.status not in ("optimal", "infeasible"):
            return None
        if r.status == "optimal" and (best is None or r.design.params < best.params):
            best = r.design
