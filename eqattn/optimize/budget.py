"""The budget of one optimiser call and the work it has used (docs/theory-scale.md O5).

A `Budget` is a frozen value passed down: when the call started, its time limit, the end no
program or repair may pass (`hard_end`), and the optional work limit, a deterministic limit
on the solver work of the whole call: one unit per branch-and-bound node of a program and
per LP_ITERATIONS_PER_UNIT simplex iterations of the LP bound (its pricing nodes included).
Under a work limit every step that would otherwise take a share of the clock runs to the
work it needs instead, so two runs that the clock does not stop give the same answer. What was spent is a
`Usage` tally owned by the search; a solver answer carries its own time and nodes, and the
search adds them (`Usage.add`), so no solver writes into shared state.

    >>> b = Budget.starting(10.0, work_limit=5)
    >>> u = Usage(); u.work = 5
    >>> b.work_left(u), b.out_of_work(u), Budget.starting(10.0).work_left(u) is None
    (0, True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from . import solver


@dataclass(frozen=True)
class Budget:
    """Time and work an optimiser call may spend."""

    start: float  # time.perf_counter() at the call's start
    time_limit: float  # seconds for the whole call
    hard_end: float  # perf_counter value no program or repair runs past
    work_limit: int | None = None  # solver nodes for the whole call (None: no work limit)

    @staticmethod
    def starting(time_limit: float = math.inf, hard_end: float | None = None, work_limit: int | None = None) -> "Budget":
        """A budget starting now; `hard_end` defaults to the end of the time limit."""
        t0 = time.perf_counter()
        end = t0 + time_limit if hard_end is None else hard_end
        return Budget(t0, time_limit, end, work_limit)

    def until(self, hard_end: float, work_limit: int | None) -> "Budget":
        """The budget of a sub-search: the same start and limit, another end and work limit."""
        return replace(self, hard_end=hard_end, work_limit=work_limit)

    def work_left(self, used: "Usage") -> int | None:
        return None if self.work_limit is None else self.work_limit - used.work

    def out_of_work(self, used: "Usage") -> bool:
        left = self.work_left(used)
        return left is not None and left <= 0


LP_ITERATIONS_PER_UNIT = 100  # simplex iterations counted as one unit of work


@dataclass
class Usage:
    """What a search has spent: solver nodes (the work), solver and check seconds, solves."""

    work: int = 0
    solver_time: float = 0.0
    check_time: float = 0.0
    solves: int = 0
    lp_iterations: int = 0

    def add(self, sol: solver.Solution) -> solver.Solution:
        """Count one solver answer (its own nodes and seconds); returns it."""
        self.work += sol.nodes
        self.solver_time += sol.time_s
        self.solves += 1
        return sol

    def add_lp(self, iterations: int) -> None:
        """Count the LP bound's simplex iterations and pricing nodes."""
        self.lp_iterations += iterations
        self.work += iterations // LP_ITERATIONS_PER_UNIT

    def absorb(self, other: "Usage") -> None:
        """Add a sub-search's tally."""
        self.work += other.work
        self.solver_time += other.solver_time
        self.check_time += other.check_time
        self.solves += other.solves
        self.lp_iterations += other.lp_iterations


def solve_within(
    model: solver.Model, budget: Budget, used: Usage, deadline: float, backend: str, threads: int | None, hint: np.ndarray | None = None,
) -> solver.Solution:
    """One program within `deadline` and what is left of the budget's work, counted in `used`."""
    left = budget.work_left(used)
    sol = solver.solve(
        model, backend, time_limit=max(deadline - time.perf_counter(), 0.05), hint=hint, threads=threads,
        node_limit=None if left is None else max(left, 1),
    )
    return used.add(sol)
