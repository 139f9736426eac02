"""The lazy scenario loop (SPEC §5.5; docs/optimizer.md): solve the program over some
scenario keys, separate the violated ones, add them, repeat; a relaxation's bound is a lower
bound of the optimum, and an answer that covers every scenario is optimal.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..attention import Problem
from ..errors import LimitError
from . import solver
from .budget import Budget, Usage, solve_within
from .program import Objective, build, hint
from ..attention.hosting import hosting
from .separation import ScenarioSpace
from .head_types import TypeTable

ROUND_ADD = 40  # violated scenarios added per round
SEPARATION_COLLECT = 400  # stop scanning for violated scenarios after this many
COMPLETE_ROUNDS = 8  # programs per completion of a non-covering answer
COMPLETE_GRACE_S = 5.0  # past the deadline (at most 20% of the limit), to complete the answer the limit stopped

Progress = Callable[[dict], None]


@dataclass
class Stage:
    status: str  # optimal | feasible | infeasible | unknown
    counts: dict[int, int] | None  # best covering design found
    objective: int | None  # its objective
    bound: float  # proven lower bound of the objective
    rounds: int
    stopped: str | None = None  # what stopped the stage before a proof: time_limit | work_limit | scenario_limit


class Context:
    """What the enumerating engine's loops share: the scenario space, the hosting table, the
    budget and what was spent (`usage`), and whether a candidate could not be checked."""

    def __init__(self, problem: Problem, budget: Budget, backend: str, progress: Progress | None, threads: int | None,
                 space: ScenarioSpace | None = None) -> None:
        self.problem = problem
        self.budget = budget
        self.backend = backend
        self.progress = progress
        self.threads = threads
        self.space = ScenarioSpace(problem) if space is None else space
        self.h = hosting(problem)
        self.raw_scenarios = self.space.raw_count()
        self.usage = Usage()
        self.unchecked = False  # a candidate left too many scenarios to check
        self.reason: str | None = None  # why the solver failed, when it did

    def out_of_work(self) -> bool:
        return self.budget.out_of_work(self.usage)

    def solve(self, model: solver.Model, deadline: float, start: np.ndarray | None = None) -> solver.Solution:
        """One program, within the deadline and what is left of the work limit."""
        sol = solve_within(model, self.budget, self.usage, deadline, self.backend, self.threads, start)
        if sol.reason is not None:
            self.reason = sol.reason
        return sol

    def report(self, **kw: object) -> None:
        if self.progress is not None:
            self.progress({"elapsed": time.perf_counter() - self.budget.start, "total_scenarios": self.raw_scenarios, **kw})

    def separate(self, table: TypeTable, counts: dict[int, int], limit: int = SEPARATION_COLLECT) -> list[tuple[int, ...]]:
        """Scenario keys the design `counts` does not meet (up to `limit`); [] if it covers."""
        t = time.perf_counter()
        chk = table.checker(counts)
        try:
            return chk.violated(limit)
        finally:
            self.usage.check_time += time.perf_counter() - t


def _pick(violated: list[tuple[int, ...]], values, k: int) -> list[tuple[int, ...]]:  # noqa: ANN001
    """Up to k violated keys: new demand values first, then the largest demands."""
    order = sorted(violated, key=lambda key: (-sum(values[v].size for v in key), key))
    chosen, seen_vals = [], set()
    for key in order:
        if set(key) - seen_vals:
            chosen.append(key)
            seen_vals |= set(key)
            if len(chosen) >= k:
                return chosen
    for key in order:
        if key not in chosen:
            chosen.append(key)
            if len(chosen) >= k:
                break
    return chosen


def _complete(
    ctx: Context,
    table: TypeTable,
    U: list[int],
    counts: dict[int, int],
    active: list[tuple[int, ...]],
    objective: Objective,
    deadline: float,
    heads_max: int | None = None,
    cost_max: int | None = None,
) -> dict[int, int] | None:
    """A covering design containing `counts`: add the scenarios it misses and re-solve with
    `counts` as lower bounds (a small program), until it covers. Improves the incumbent
    while the exact program is still far from a covering answer."""
    X = dict(counts)
    keys = list(active)
    seen = set(keys)
    for _ in range(COMPLETE_ROUNDS):
        if time.perf_counter() >= deadline or ctx.out_of_work():
            return None
        try:
            viol = ctx.separate(table, X, ROUND_ADD)
        except LimitError:
            return None
        if not viol:
            return X
        for key in _pick(viol, ctx.space.values, ROUND_ADD):
            if key not in seen:
                seen.add(key)
                keys.append(key)
        prog = build(table, U, keys, objective, lower=X, heads_max=heads_max, cost_max=cost_max)
        sol = ctx.solve(prog.model, deadline)
        if sol.values is None:
            return None
        X = {t: int(sol.values[prog.n[t]]) for t in range(len(table.types)) if sol.values[prog.n[t]] > 0}
    return None


def lazy(
    ctx: Context,
    table: TypeTable,
    U: list[int],
    active: list[tuple[int, ...]],
    objective: Objective,
    deadline: float,
    warm: dict[int, int] | None,
    stage: str,
    heads_eq: int | None = None,
    cutoff: int | None = None,
    complete: bool = False,
    heads_max: int | None = None,
    cost_max: int | None = None,
) -> Stage:
    """Solve, separate, add violated scenarios to `active` (in place), repeat."""

    def value(counts: dict[int, int]) -> int:
        return sum(objective.coef(table.types[t]) * c for t, c in counts.items())

    def params(v: float | None) -> float | None:
        return None if v is None else 4 * objective.units(v)

    best = warm
    best_obj = value(warm) if warm is not None else None
    bound = -math.inf
    rounds = 0
    candidate: dict[int, int] | None = None
    active_set = set(active)
    stopped: str | None = None
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0.05:
            stopped = "time_limit"
            break
        if ctx.out_of_work():
            stopped = "work_limit"
            break
        rounds += 1
        prog = build(table, U, active, objective, heads_eq, cutoff, heads_max=heads_max, cost_max=cost_max)
        start = hint(prog, table, active, best) if best is not None else None
        ctx.report(stage=stage, round=rounds, scenarios=len(active), bound=params(bound), incumbent=params(best_obj))
        sol = ctx.solve(prog.model, deadline, start)
        if sol.stopped is not None:
            stopped = {"time": "time_limit", "work": "work_limit", "error": "solver_error"}[sol.stopped]
        if sol.status == "infeasible":
            if best is not None and (cutoff is None or best_obj <= cutoff):
                # nothing beats the incumbent on these scenarios: it is optimal
                return Stage("optimal", best, best_obj, float(best_obj), rounds)
            return Stage("infeasible", None, None, math.inf, rounds)
        if math.isfinite(sol.bound):
            bound = max(bound, math.ceil(sol.bound - 1e-6))
        if sol.values is None:
            break
        counts = {t: int(sol.values[prog.n[t]]) for t in range(len(table.types)) if sol.values[prog.n[t]] > 0}
        try:
            violated = ctx.separate(table, counts)
        except LimitError:
            # this candidate cannot be checked: keep the bound, stop with the incumbent
            ctx.unchecked = True
            stopped = "scenario_limit"
            break
        if not violated:
            if best_obj is None or sol.objective < best_obj:
                best, best_obj = counts, sol.objective
            if sol.status == "optimal":
                ctx.report(stage=stage, round=rounds, scenarios=len(active), bound=params(bound), incumbent=params(best_obj), done=True)
                return Stage("optimal", best, best_obj, float(best_obj), rounds)
            break
        if sol.status == "optimal":
            candidate = counts  # the relaxation's optimum: the completion's starting point
        if sol.status != "optimal":
            break
        for key in _pick(violated, ctx.space.values, ROUND_ADD):
            if key not in active_set:
                active_set.add(key)
                active.append(key)
    if complete and candidate is not None and (best_obj is None or value(candidate) < best_obj) and bound < (best_obj or math.inf):
        # the time limit stopped the search: complete the last relaxation's optimum into a
        # covering design (a few small programs, at most COMPLETE_GRACE_S past the deadline)
        ctx.report(stage="repair", round=rounds, scenarios=len(active), bound=params(bound), incumbent=params(best_obj))
        grace = min(COMPLETE_GRACE_S, 0.2 * ctx.budget.time_limit)
        fixed = _complete(ctx, table, U, candidate, active, objective, min(max(deadline, time.perf_counter()) + grace, ctx.budget.hard_end), heads_max, cost_max)
        if fixed is not None and (best_obj is None or value(fixed) < best_obj):
            best, best_obj = fixed, value(fixed)
    if best is None:
        return Stage("unknown", None, None, bound, rounds, stopped)
    if best_obj is not None and bound >= best_obj:
        return Stage("optimal", best, best_obj, float(best_obj), rounds)
    return Stage("feasible", best, best_obj, bound, rounds, stopped)

