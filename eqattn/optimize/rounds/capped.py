"""The capped-types round: every capped type `(K', W)` over the demand values of S
(`types.design_types`, docs/theory-scale.md O2), when they are few enough to list; the
program round then solves the full program, whose bound is a lower bound of the optimum
(Lemma O1). Past FULL_TYPES (or after the full program was too large or too slow) the pass
goes to the price-and-branch rounds instead.
"""

from __future__ import annotations

import time

from ...errors import LimitError
from ..type_sets import design_types
from .state import NEXT, Outcome, SearchState, stop

FULL_TYPES = 1000  # capped types past which the restricted rounds (LP columns, cheapest hosts) run first


class CappedTypesRound:
    """The table of every capped type, or the restricted rounds when it is too large."""

    def applies(self, state: SearchState) -> bool:
        return state.table is None

    def run(self, state: SearchState) -> Outcome:
        lim = state.limits
        try:
            if state.price_first and not state.full:
                raise LimitError("rep", "price and branch first")
            table = design_types(
                state.problem, state.catalogue, state.h, state.max_cost, state.deadline, max_heads=lim.max_heads,
                max_head_dim=lim.max_head_dim, max_types=None if state.full else FULL_TYPES,
            )
        except LimitError:
            if time.perf_counter() > state.deadline:
                return stop("time_limit")
            state.restricted = True
            return NEXT
        state.table, state.restricted = table, False
        return NEXT
