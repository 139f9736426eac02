"""The generated-types round (types.generated_types, docs/theory-scale.md O10): a restricted
type set (the LP's columns, the cheapest hosts of the demand values, their joins, the
regular type) for a pass whose capped types are too many to list. Programs over it give
candidates, not bounds: the type set is not complete.
"""

from __future__ import annotations

from ..type_sets import generated_types
from .state import NEXT, Outcome, SearchState


class GeneratedTypesRound:
    """The restricted table (with the seed's repaired copies as lower bounds)."""

    def applies(self, state: SearchState) -> bool:
        return state.restricted and state.table is None

    def run(self, state: SearchState) -> Outcome:
        lim = state.limits
        lean = bool(state.extra and state.lean)
        state.table = generated_types(
            state.problem, state.catalogue, state.h, state.max_cost, max_heads=lim.max_heads, max_head_dim=lim.max_head_dim,
            deadline=state.deadline, memo=state.hosts_memo, threads=state.threads, extra=sorted(state.extra),
            joins=not state.extra, hosts=not lean,
        )
        state.lean_table = lean
        state.floor_lo = {i: state.floor[(t.sub, t.W)] for i, t in enumerate(state.table.types) if (t.sub, t.W) in state.floor}
        state.stopped = "type_limit"
        return NEXT
