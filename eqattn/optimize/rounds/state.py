"""The state of the symbolic search, what a round returns, and the search's result
(docs/theory-scale.md O6-O18; the rounds are the modules beside this one).

A round is a strategy with `applies(state)` and `run(state) -> Outcome`; the driver
(`rounds.drive`) runs, pass after pass, the first rounds of its list that apply, in order,
until one ends the pass (`AGAIN`), the loop (`stop`) or the search (`done`). Everything a
round reads or changes is a field of `SearchState`: the scenario keys `S` met so far (all of
them counterexamples, so every bound over a subset is valid by Lemma O1), the incumbent, the
lower bound, the LP bound's memory and the round kinds' switches.

    >>> lp_reserve(50.0, None), lp_reserve(50.0, 1.0), lp_reserve(50.0, 0.1), lp_reserve(50.0, 30.0)
    (10.0, 1.0, 0.5, 10.0)
    >>> lp_reserve(math.inf, None)
    0.0
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Protocol

from ...attention import Design, Problem
from ...attention.assignment import Demand
from ...attention.hosting import Hosting
from ..budget import Budget, Usage, solve_within
from ..catalogue import DemandCatalogue
from ..limits import ComputeLimits
from ..oracle import CounterexampleOracle
from ..program import Objective

if TYPE_CHECKING:
    from ..bounds import ScenarioBound
    from ..column_pool import ColumnPool
    from ..lp_bound import LPBound
    from ..lp_duals import Certificate
    from ..multiples import Seed
    from ..solver import Model, Solution
    from ..head_types import TypeTable

LOOP_SHARE = 0.8  # of the time for the loop's programs and checks, until an LP bound has been timed; the rest is kept for the final LP bound
LP_RESERVE = 1.0  # ... then the loop runs until the final deadline less this many times the last LP bound's time
LP_RESERVE_MIN = 0.5  # seconds at least

Key = tuple[int, ...]
Progress = Callable[[dict], None]


def lp_reserve(span: float, lp_s: float | None) -> float:
    """Seconds the loop keeps for the final LP bound of a search of `span` seconds: the share
    `1 - LOOP_SHARE` until an LP bound has been timed (`lp_s` None), then `LP_RESERVE` times
    the last LP bound's seconds (at least LP_RESERVE_MIN, at most that share)."""
    span = max(span, 0.0)
    share = span - LOOP_SHARE * span if math.isfinite(span) else 0.0
    return share if lp_s is None else min(share, max(LP_RESERVE_MIN, LP_RESERVE * lp_s))


def _certified(cert: "Certificate | None", values, keys) -> int | None:  # noqa: ANN001 - sequences of Demand / keys
    """The units a certificate over `keys` proves (its value rounded up, as an LP bound's), or None."""
    return None if cert is None else int(math.ceil(cert.value(values, keys, None) - 1e-6))


@dataclass(frozen=True)
class SearchResult:
    """What the symbolic search found: the answer, and what it met on the way (the keys and
    demand values, the best LP bound with the keys it was computed over, the programs over
    fixed types) for the caller's note and for a larger search it seeds."""

    status: str  # optimal | feasible | infeasible | unknown
    design: Design | None  # checked to cover every clustering
    lower_units: int  # lower bound of the cost / 4
    rounds: int
    scenarios: int  # scenario keys met (counterexamples); the programs run over a working set of them
    types: int  # types in the last program
    stopped: str | None  # time_limit | work_limit | scenario_limit | type_limit | solver_error | design_found (stop_at_design)
    keys: tuple[Key, ...] = ()
    values: tuple[Demand, ...] = ()
    best_lp: tuple[tuple[Key, ...], "LPBound"] | None = None
    fixed_programs: tuple[tuple[int, int, str], ...] = ()  # (cutoff, types, status) of each program over fixed types
    best_check_s: float = 0.0  # seconds the incumbent's check took (the re-check's measure)
    seed: "Seed | None" = None  # what the search of H / k heads handed on
    unchecked: bool = False  # a candidate could not be checked within the checker's limits
    usage: Usage = field(default_factory=Usage)
    reason: str | None = None  # one line: why a limit or failure stopped it
    induced: tuple[str, int] | None = None  # (subgroup, parameters) of the design induced from an index-2 subgroup, when it became the incumbent (O20)
    parity: tuple[str, int] | None = None  # (subgroup A, units): the two searches of the parity split proved this together (O21)
    seed_certificate: "Certificate | None" = None  # the seed's LP certificate carried to this search's keys (O16c; positions into keys)

    @property
    def seed_lower(self) -> int | None:
        """Units: what the seed's certificate carried to the keys proves (O16c); None without one."""
        return _certified(self.seed_certificate, self.values, self.keys)

    def demand_keys(self) -> tuple[tuple[Demand, ...], ...]:
        """The scenario keys as demand tuples (self-contained: no catalogue needed), for a
        larger search (a seed, O16) or an LP bound in another measure (widening.py)."""
        return tuple(tuple(self.values[v] for v in key) for key in self.keys)


@dataclass(frozen=True)
class Outcome:
    """`next`: the following round of this pass; `again`: a new pass; `stop`: the loop ends
    (`stopped`, when given, says why); `done`: the search's answer."""

    action: str
    stopped: str | None = None
    result: SearchResult | None = None


NEXT = Outcome("next")
AGAIN = Outcome("again")


def stop(reason: str | None = None) -> Outcome:
    return Outcome("stop", reason)


def done(result: SearchResult) -> Outcome:
    return Outcome("done", result=result)


class Round(Protocol):
    def applies(self, state: "SearchState") -> bool: ...

    def run(self, state: "SearchState") -> Outcome: ...


@dataclass
class SearchState:
    """Everything the rounds of one search share (module docstring)."""

    problem: Problem
    budget: Budget
    limits: ComputeLimits
    h: Hosting
    catalogue: DemandCatalogue
    oracle: CounterexampleOracle
    bound: "ScenarioBound"
    backend: str = "highs"
    threads: int | None = None
    progress: Progress | None = None
    cost_cap: int | None = None  # the largest attention cost of a design within the limits
    ceiling: int | None = None  # units (P/4) no design within the limits exceeds: ⌊ρ cost_cap / 4⌋ (O19)
    recheck_factor: float = 0.0  # the search ends earlier by this many times its check of the incumbent
    repair_always: bool = False  # repair every failing rounded design, not only on a creep
    start: float = field(default_factory=time.perf_counter)
    usage: Usage = field(default_factory=Usage)
    # the answer so far
    best: Design | None = None
    best_units: int | None = None
    best_check_s: float = 0.0
    lower: int = 0
    rounds: int = 0
    n_types: int = 0
    stopped: str | None = None
    reason: str | None = None
    reasons: bool = True  # an infeasible answer's plainest certificate line is wanted (worth an LP more; limits_bound.py)
    stop_at_design: bool = False  # feasibility only: the loop stops once a design is found (clock.py; partial coverage's parts)
    # the scenario keys S and the programs' working set (positions into keys)
    keys: list[Key] = field(default_factory=list)
    working: set[int] = field(default_factory=set)
    recent: set[int] = field(default_factory=set)  # the last round's keys (kept in the working set)
    objective: Objective = field(default_factory=lambda: Objective(0))
    # the LP bound's memory (price.py)
    lp_s: float | None = None  # seconds of the last LP bound
    lp_done: tuple[int, bool] | None = None  # (keys, converged) of the last LP bound
    lp_active: tuple[int, ...] = ()  # keys with a positive dual in the last LP bound
    last_lp: "LPBound | None" = None
    best_lp: tuple[tuple[Key, ...], "LPBound"] | None = None
    limits_keys: int = 0  # keys when the limits round last ran (limits_bound.py)
    limits_stopped: set = field(default_factory=set)  # its (measure, head dim) bounds the clock stopped
    sampled: int = 0  # drawings of random scenarios so far (sampled.py, O22)
    columns: "ColumnPool | None" = None  # the types of the limits round's LPs, shared by the searches of one call
    sample_wanted: bool = False  # no candidate is left to check: random scenarios next pass
    lp_seen: list[int] = field(default_factory=list)  # the converged LP bounds so far (a creep starts the repair)
    hosts_memo: dict = field(default_factory=dict)  # the cheapest hosts, kept between rounds
    extra: set = field(default_factory=set)  # types the LP's column generation found
    # the round kinds' switches
    lean: bool = True  # restricted programs over the LP's columns only
    lean_table: bool = False
    checkable: bool = False  # restricted programs limited to checkable designs (after one was not)
    shapes_tried: bool = False
    ms_limit: int = 0  # ... with at most this many orbit multisets
    full: bool = False  # the program over every capped type for the time left
    price_first: bool = False  # the program over every capped type is too large or too slow
    patient: bool = False  # a restricted program found no candidate within its share
    fixing: bool = True  # reduced-cost fixing (off when its program is over the variable limit)
    fixed_memo: tuple = (None, None)
    fixed_stalled: object = None
    fixed_programs: list[tuple[int, int, str]] = field(default_factory=list)
    floor: Counter = field(default_factory=Counter)  # (sub, W) -> copies the restricted programs keep
    floor_lo: dict[int, int] = field(default_factory=dict)
    rounded_seen: set = field(default_factory=set)
    rounded_last: bool = False
    rounded_check_s: float = 0.0  # the longest symbolic check of a rounded LP design so far (rounded.py)
    seed: "Seed | None" = None
    seed_certificate: "Certificate | None" = None  # the seed's LP certificate carried to its repeated keys (O16c; positions into keys)
    induced: tuple[str, int] | None = None  # (subgroup, parameters): the induced design became the incumbent (O20)
    parity: tuple[str, int] | None = None  # (subgroup A, units): the parity split's two searches proved this (O21)
    # this pass
    deadline: float = math.inf
    max_cost: float = math.inf  # types dearer than the incumbent are left out
    table: "TypeTable | None" = None
    restricted: bool = False
    fixed: tuple | None = None
    miss: tuple[Design, list[Key], int] | None = None  # a rounded design's (design, new keys, checks before)

    @property
    def end(self) -> float:
        return self.budget.hard_end

    def final_end(self) -> float:
        """The search's end: the budget's end less the re-check of the incumbent."""
        return self.end - self.recheck_factor * self.best_check_s

    def lp_current(self) -> bool:
        """The last LP bound converged over the keys as they are: another one would change
        nothing (the final LP bound is skipped)."""
        return self.lp_done == (len(self.keys), True)

    def loop_end(self) -> float:
        """The loop's end: the final one less the time kept for the final LP bound, none
        while that bound would change nothing (`lp_current`): the time is then the loop's,
        to check the LP's rounded design; a round that adds keys brings the reserve back."""
        if self.lp_current():
            return self.final_end()
        return self.final_end() - lp_reserve(self.end - self.start, self.lp_s)

    def out_of_work(self) -> bool:
        return self.budget.out_of_work(self.usage)

    def solve(self, model: "Model", until: float) -> "Solution":
        return solve_within(model, self.budget, self.usage, until, self.backend, self.threads)

    def cutoff(self) -> int | None:
        """The most units a design the search still wants can have: one less than the
        incumbent's, or without one the ceiling of the compute limits (None: no bound)."""
        if self.best_units is not None:
            return self.best_units - 1 if self.ceiling is None else min(self.best_units - 1, self.ceiling)
        return self.ceiling

    def cheaper(self, design: Design) -> bool:
        return self.best_units is None or design.params // 4 < self.best_units

    def improve(self, design: Design) -> None:
        """A checked covering design becomes the incumbent."""
        self.best, self.best_units, self.best_check_s = design, design.params // 4, self.oracle.last_check_s

    def proven(self) -> bool:
        return self.best_units is not None and self.lower >= self.best_units

    def place_keys(self, keys: Iterable[Key]) -> list[int]:
        """The positions of `keys` in S, those not in it yet appended (they do not join the
        working set: the caller says which do)."""
        index = {k: i for i, k in enumerate(self.keys)}
        out = []
        for k in keys:
            if k not in index:
                index[k] = len(self.keys)
                self.keys.append(k)
            out.append(index[k])
        return out

    def add_keys(self, new: list[Key]) -> list[Key]:
        """The keys of `new` not in S yet, appended; they join the working set as the recent ones."""
        index = set(self.keys)
        added = [k for k in dict.fromkeys(new) if k not in index]
        self.recent = set(range(len(self.keys), len(self.keys) + len(added)))
        self.keys.extend(added)
        self.working |= self.recent
        return added

    def report(self, **kw: object) -> None:
        if self.progress is not None:
            self.progress({"elapsed": time.perf_counter() - self.budget.start, "total_scenarios": 0, **kw})

    def result(self, status: str, design: Design | None = None, lower: int | None = None, stopped: str | None = None) -> SearchResult:
        """The search's answer with what it met (lower: the incumbent's units when optimal)."""
        if lower is None:
            lower = self.best_units if status == "optimal" and design is not None else self.lower
        self.usage.check_time = self.oracle.check_time
        return SearchResult(
            status, design, int(lower or 0), self.rounds, len(self.keys), self.n_types, stopped, tuple(self.keys),
            tuple(self.catalogue.values), self.best_lp, tuple(self.fixed_programs), self.best_check_s, self.seed,
            self.oracle.unchecked, self.usage, self.reason if (stopped or status == "infeasible") else None, self.induced,
            self.parity, self.seed_certificate,
        )

    @property
    def seed_lower(self) -> int | None:
        """Units: what the seed's certificate carried to the keys proves (O16c); None without one."""
        return _certified(self.seed_certificate, self.catalogue.values, self.keys)

    def optimal(self) -> Outcome:
        return done(self.result("optimal", self.best, self.best_units))
