"""The first round of every pass: the clock and the work limit (docs/theory-scale.md O5).

It ends the loop when the loop's end (`SearchState.loop_end`) has passed or the work limit is
spent, or, in a search for feasibility only (`stop_at_design`), once it has a design; otherwise
it opens a pass: its deadline, the incumbent's cost as the types' cost cap,
no table chosen yet.
"""

from __future__ import annotations

import math
import time

from .state import NEXT, Outcome, SearchState, stop


class Clock:
    """Opens a pass, or stops the loop at the time or work limit."""

    def applies(self, state: SearchState) -> bool:
        return True

    def run(self, state: SearchState) -> Outcome:
        state.deadline = state.loop_end()
        if time.perf_counter() > state.deadline - 0.05:
            return stop("time_limit")
        if state.out_of_work():
            return stop("work_limit")
        if state.stop_at_design and state.best is not None:
            return stop("design_found")
        state.rounds += 1
        cut = state.cutoff()
        state.max_cost = math.inf if cut is None else 4 * (cut + 1 if state.best_units is not None else cut)
        state.table, state.fixed, state.restricted, state.miss = None, None, False, None
        return NEXT
