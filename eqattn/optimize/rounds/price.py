"""The price round: the LP bound over every type by column generation (lp_bound.py,
docs/theory-scale.md O10, O11), a certified lower bound of the optimum whatever the type set,
for a pass whose capped types are too many to list. Its columns and fractional design feed
the rounded and generated-types rounds that follow.
"""

from __future__ import annotations

import logging
import time
from typing import Iterable

from ..budget import LP_ITERATIONS_PER_UNIT
from ..lp_bound import lp_bound
from ..hosts import cheapest_hosts
from .state import NEXT, Outcome, SearchState

log = logging.getLogger("eqattn.optimize")


def lp_lower(state: SearchState, columns: Iterable, until: float | None = None) -> int:
    """The LP bound over the keys so far, until `until` (default: the search's end; 0 when no
    time is left or nothing changed since a converged one); records its columns, its working
    set, its time and the best certificate."""
    until = state.final_end() if until is None else until
    t_lp = time.perf_counter()
    if t_lp > until - 0.05 or state.lp_current():
        return 0
    hosts = sorted({(k[1], tuple(int(x) for x in W)) for k, W in state.hosts_memo.items() if W is not None})
    lim = state.limits
    left = state.budget.work_left(state.usage)
    res = lp_bound(
        state.problem, state.h, state.catalogue.values, state.keys, list(columns) + sorted(state.extra), until, lim.max_heads,
        lim.max_head_dim, state.threads, candidates=hosts, active=state.lp_active,
        work_limit=None if left is None else max(left, 0) * LP_ITERATIONS_PER_UNIT,
    )
    state.usage.add_lp(res.work)
    state.lp_done = (len(state.keys), res.converged)
    state.last_lp = res
    if res.converged:
        state.lp_seen.append(res.units)
    state.lp_active = res.active or state.lp_active
    if res.active:
        state.working = set(res.active) | state.recent
    if state.best_lp is None or res.units >= state.best_lp[1].units:
        state.best_lp = (tuple(state.keys), res)
    state.extra.update(res.columns)
    state.lp_s = time.perf_counter() - t_lp
    log.debug("LP bound over %d keys: %d units in %.2fs (%s)", len(state.keys), res.units, state.lp_s, "converged" if res.converged else "stopped")
    return res.units


class PriceRound:
    """The LP bound (with the cheapest hosts of the new demand values for its quick pricing)."""

    def applies(self, state: SearchState) -> bool:
        return state.restricted and state.table is None

    def run(self, state: SearchState) -> Outcome:
        lim = state.limits
        cheapest_hosts(state.problem, state.catalogue, state.h, lim.max_heads, lim.max_head_dim, state.deadline, state.hosts_memo, state.threads)
        state.lower = max(state.lower, lp_lower(state, ()))  # (the bound itself: until the search's end)
        state.deadline = state.loop_end()  # (the reserve follows the LP bound's time)
        return state.optimal() if state.proven() else NEXT
