"""The fixed-types round: reduced-cost fixing (fixing.py, docs/theory-scale.md O13).

When the best LP certificate is within FIXING_GAP of the incumbent, every type a design
cheaper than the incumbent can use follows from the certificate; the program over those
types (run by the program round) is exact, so its bound is a lower bound of the optimum.
"""

from __future__ import annotations

import logging
import time

from ..fixing import fixed_types
from .price import lp_lower
from .state import NEXT, Outcome, SearchState

FIXING_GAP = 0.05  # reduced-cost fixing is tried when the LP bound is within this fraction of the incumbent
FIXED_TYPES = 3000  # the exact program over the fixed types is used when they are at most this many
FIXED_NODES = 300_000  # partial W's of its branch and bound at most

log = logging.getLogger("eqattn.optimize")


class FixedTypesRound:
    """The types of every design cheaper than the incumbent, from the LP certificate."""

    def applies(self, state: SearchState) -> bool:
        lp = None if state.best_lp is None else state.best_lp[1]
        return (
            state.fixing and state.cutoff() is not None and lp is not None and lp.certificate is not None
            and lp.units >= (1.0 - FIXING_GAP) * (state.cutoff() + 1)
        )

    def run(self, state: SearchState) -> Outcome:
        if state.lp_done is not None and state.lp_done[0] < len(state.keys) and state.fixed_memo[1] is not None:
            now = time.perf_counter()
            share = state.deadline if state.budget.work_limit is not None else now + 0.25 * max(state.deadline - now, 0.0)
            lp_lower(state, (), share)  # a tighter certificate (under a work limit: no share of the clock)
        cut = state.cutoff()
        assert state.best_lp is not None and cut is not None
        lp = state.best_lp[1]
        memo_key = (id(lp), cut, len(state.catalogue.values))
        if state.fixed_memo[0] != memo_key:
            lim = state.limits
            state.fixed_memo = (memo_key, fixed_types(
                state.problem, state.catalogue, state.h, state.keys, lp.certificate, cut, lim.max_heads,
                lim.max_head_dim, max_nodes=FIXED_NODES, max_types=FIXED_TYPES,
            ))
        fixed = state.fixed_memo[1] if memo_key != state.fixed_stalled else None
        log.debug("fixing at %d units (LP %d): %s", cut, lp.units, "over the limits" if fixed is None else f"{len(fixed[0])} types")
        if fixed is not None:
            state.lower = max(state.lower, lp.units)
            if state.proven():
                return state.optimal()
            state.working |= {s for s, _, _, _ in lp.certificate.mu}  # the fixing holds for designs meeting these
            state.fixed, state.table, state.restricted = fixed, fixed[0], False
        return NEXT
