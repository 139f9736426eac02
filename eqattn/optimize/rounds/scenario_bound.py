"""The scenario bound round (bounds.py, docs/theory-scale.md O7): the largest cost any one
scenario of S forces, a lower bound whatever the type set; it ends the search when it reaches
the incumbent.
"""

from __future__ import annotations

from .state import NEXT, Outcome, SearchState


class ScenarioBoundRound:
    """max over the keys of S of the cheapest cover of that scenario alone."""

    def applies(self, state: SearchState) -> bool:
        return bool(state.keys)

    def run(self, state: SearchState) -> Outcome:
        sb = max(state.bound.of_key(k, state.deadline) for k in state.keys)
        if state.best_units is not None and sb > state.best_units:
            raise RuntimeError("internal error: a scenario bound exceeds the cost of a covering design")
        state.lower = max(state.lower, sb)
        return state.optimal() if state.proven() else NEXT
