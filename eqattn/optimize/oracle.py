"""The counterexample oracle of the symbolic search (docs/theory-scale.md O6, O12, O12b, O14, O18):
scenario keys a design does not meet, from the symbolic checker, with the memory of which
clusterings failed before.

A covering verdict needs every clustering (or, past MAX_CLUSTERINGS, the design's
representatives, theory-scale C7); the clusterings that gave a counterexample before are
checked first, the most recent first: a candidate near the last one tends to fail on them,
and a check ends at `limit` keys. With `only`, "covering" means covering those clusterings
(the search for the designs that cover a subset, partial coverage). Designs past the checker's limits are checked through a
coarser design above them (`coarsen.py`, O12): its counterexamples are the design's too; and
by scenarios drawn at random, each decided on the design itself (O12b).

    >>> from eqattn.attention import Design, Problem
    >>> from eqattn.optimize.catalogue import DemandCatalogue
    >>> p = Problem.create("C4", "E1", 2, 1)
    >>> oracle = CounterexampleOracle(p, DemandCatalogue(p))
    >>> oracle.keys(Design.regular(p), math.inf, 1), len(oracle.keys(Design(p, ()), math.inf, 60)) > 0
    ([], True)
    >>> oracle.sampled_keys(Design.regular(p), math.inf), len(oracle.sampled_keys(Design(p, ()), math.inf)) > 0
    ([], True)
"""

from __future__ import annotations

import math
import random
import time
from itertools import chain
from typing import Iterator

from ..attention import Design, Problem
from ..attention.clusterings import MAX_CLUSTERINGS, Clustering, clusterings, count_clusterings
from ..attention.dominance import MAX_MULTISETS
from ..attention.enumerated import DesignSearch, demands_of
from ..attention.symbolic import DeadlinePassed, HostingMemo, SymbolicChecker
from ..errors import LimitError
from . import repair as greedy
from .catalogue import DemandCatalogue
from .coarsen import coarsen
from .sampled import random_scenario

ROUND_KEYS = 60  # counterexamples added per round at most (one per clustering)
SHARED_MEMO = True  # the checkers of one search share the hosting classes they list (a switch for benchmarks/induced.py)
ROUNDED_MULTISETS = 256  # a rounded LP design past the checker's limits is checked through a coarser one with at most this many
SAMPLED_DRAWS = 1024  # random scenarios drawn per clustering at most when a design past the checker's limits is tested by drawing (O12b)
SAMPLED_TOTAL = 20_000  # ... and in all (a fixed amount of work: under a work limit a drawing is not cut by the clock)
SAME_EVERY_OTHER = True  # a drawing asked for `same` alternates with scenarios all the same per orbit type (O12b; off: independent draws only, for the benchmarks)

Key = tuple[int, ...]


class CounterexampleOracle:
    """Counterexample keys of designs, with the failing clusterings remembered."""

    def __init__(
        self, problem: Problem, catalogue: DemandCatalogue, only: tuple[Clustering, ...] | None = None, memo: HostingMemo | None = None,
    ) -> None:
        self.problem = problem
        self.catalogue = catalogue
        self.only = only  # the clusterings a design must cover (None: every clustering)
        self.failing: dict[Clustering, int] = {}  # clustering -> when it last gave a counterexample
        self.checks = 0  # counterexamples found so far (the order of `failing`)
        self.last_check_s = 0.0  # seconds of the last design check
        self.check_time = 0.0  # seconds of every check
        self.unchecked = False  # a candidate could not be checked within the checker's limits
        # the hosting classes its checkers (and the repair's) listed; `memo`: one shared with other searches of the problem
        self.memo = memo if memo is not None else HostingMemo(problem) if SHARED_MEMO else None

    def _clusterings(self, chk: SymbolicChecker | None) -> Iterator[Clustering]:
        """The clusterings to cover: `only`, else every one, else (past MAX_CLUSTERINGS) the
        checker's representatives of the design (none without a checker)."""
        if self.only is not None:
            yield from self.only
        elif count_clusterings(self.problem) <= MAX_CLUSTERINGS:
            yield from clusterings(self.problem)
        elif chk is not None:
            yield from chk.representatives()

    def _order(self, chk: SymbolicChecker | None) -> Iterator[Clustering]:
        """The clusterings that failed before (the most recent first), then the others."""
        first = sorted(self.failing, key=self.failing.__getitem__, reverse=True)
        done = set(first)
        return chain(first, (c for c in self._clusterings(chk) if c not in done))

    def _stamp(self, c: Clustering) -> None:
        """`c` gave a counterexample (the order of `failing`)."""
        self.checks += 1
        self.failing[c] = self.checks

    def keys(self, design: Design, deadline: float, limit: int = ROUND_KEYS) -> list[Key] | None:
        """Keys of counterexample scenarios of `design`, at most one per clustering (up to
        `limit`); [] when it covers every clustering. When the deadline passes first: the keys
        found so far, None when there are none (a covering verdict needs every clustering);
        the checker stops at the deadline inside an orbit's hosting sets too. LimitError past
        the checker's limits."""
        t = time.perf_counter()
        out: list[Key] = []
        try:
            chk = SymbolicChecker(self.problem, design, shortfalls=False, stop=lambda: time.perf_counter() > deadline, memo=self.memo)
            for c in self._order(chk):
                if time.perf_counter() > deadline:
                    return out or None
                r = chk.first_uncovered(c)
                if r is not None:
                    self._stamp(c)
                    key = self.catalogue.key(r)
                    if not key:
                        raise AssertionError("a counterexample scenario without demands")
                    if key not in out:
                        out.append(key)
                    if len(out) >= limit:
                        break
            return out
        except DeadlinePassed:
            return out or None
        finally:
            self.last_check_s = time.perf_counter() - t
            self.check_time += self.last_check_s

    def rounded_keys(self, design: Design, deadline: float) -> tuple[Design, list[Key] | tuple | None]:
        """(the design checked, its keys) for a rounded LP design (O14): past the checker's
        limits, a coarser design above it with at most ROUNDED_MULTISETS multisets is checked
        instead; keys () when neither can be checked, None at the deadline."""
        try:
            return design, self.keys(design, deadline)
        except LimitError:
            coarse = coarsen(design, ROUNDED_MULTISETS)
            if coarse is not None:
                try:
                    return coarse, self.keys(coarse, deadline)
                except LimitError:
                    pass
            return design, ()

    def coarse_keys(self, design: Design, deadline: float) -> tuple[Design | None, list[Key] | None]:
        """(coarse design, its keys) for a design too large to check: the first coarsening (at
        MAX_MULTISETS, then 16 times fewer multisets) the checker accepts; (None, []) when none
        is accepted; keys None when the deadline passed. Its keys are counterexamples of
        `design` too (O12)."""
        limit = MAX_MULTISETS
        while limit >= 1:
            coarse = coarsen(design, limit)
            if coarse is None:
                break
            try:
                return coarse, self.keys(coarse, deadline)
            except LimitError:
                limit //= 16
        return None, []

    def sampled_keys(self, design: Design, deadline: float, limit: int = ROUND_KEYS, seed: int = 0,
                     draws: int = SAMPLED_DRAWS, total: int = SAMPLED_TOTAL, same: bool = False) -> list[Key]:
        """Keys of random scenarios that `design` does not meet (theory-scale O12b), at most one
        per clustering (up to `limit`): for a design past the symbolic checker's limits, whose
        design above covers. Each drawn scenario (one random option per orbit, `sampled.py`)
        is decided by the exact assignment search on the design itself, so a key returned is a
        counterexample of the design; finding none proves nothing. The clusterings that
        failed before come first, then the others (those to cover; none past
        MAX_CLUSTERINGS); `draws` per clustering and `total` in all at most, until the deadline.
        With `same` (and SAME_EVERY_OTHER) the passes alternate between scenarios
        all the same per orbit type, first, and independent options per orbit."""
        order = list(self._order(None))
        rng = random.Random(seed)
        search = DesignSearch(self.problem, design, reduce=False)
        out: list[Key] = []
        t = time.perf_counter()
        try:
            for i in range(draws):  # passes: one scenario of each clustering not yet failed
                alike = same and SAME_EVERY_OTHER and i % 2 == 0
                for c in list(order):
                    if time.perf_counter() > deadline or len(out) >= limit or total <= 0:
                        return out
                    total -= 1
                    demands = demands_of(self.problem, random_scenario(self.problem, c, rng, alike))
                    try:
                        if search.search.solve(demands) is not None:
                            continue
                    except LimitError:  # the assignment search's step budget: undecided, not a counterexample
                        continue
                    self._stamp(c)
                    order.remove(c)
                    key = self.catalogue.key_of(demands)  # not empty: a scenario without demands is met
                    if key not in out:
                        out.append(key)
                if not order:
                    break
            return out
        finally:
            self.last_check_s = time.perf_counter() - t
            self.check_time += self.last_check_s

    def repair(self, design: Design, before: int, until: float, best_units: int, max_head_dim: int | None) -> tuple[Design | None, list[Key]]:
        """The greedy repair (`repair.repair`, O18) of a candidate whose check stamped the
        clusterings it misses after `checks == before`: a covering design below `best_units`,
        or None; and the keys met on the way."""
        failing = [c for c, t in self.failing.items() if t > before]
        if not failing:
            return None, []

        def check(d: Design):  # noqa: ANN202
            mark = self.checks
            try:
                new = self.keys(d, until)
            except LimitError:
                return None
            if new is None:
                return None
            return [c for c, t in self.failing.items() if t > mark], new

        return greedy.repair(design, failing, check, until, best_units, max_head_dim, self.memo)
