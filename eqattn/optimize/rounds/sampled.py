"""The sampled-scenarios round (docs/theory-scale.md O22): when no design within the compute
limits is left to check (the restricted program has no solution and there is no
incumbent), random scenarios of the clusterings to cover join S, so that the limits round
(O19e) can refute them together.

Each drawing adds SAMPLE_KEYS · 2^k keys (k: drawings so far), at most MAX_DRAWINGS times;
the keys are scenarios of those clusterings (sampled.py), so the limits round's verdict over
them is a proof whatever was drawn.
"""

from __future__ import annotations

import logging

from ..sampled import sampled_keys
from .state import NEXT, Outcome, SearchState

SAMPLE_KEYS = 24  # keys of the first drawing
MAX_DRAWINGS = 3

log = logging.getLogger("eqattn.optimize")


def may_sample(state: SearchState) -> bool:
    """Whether a drawing is left and would serve: limits that exclude every design found so
    far (no incumbent), clusterings that failed, drawings left."""
    return state.best is None and state.sampled < MAX_DRAWINGS and bool(to_sample(state))


def to_sample(state: SearchState) -> list:
    """The clusterings to draw from: those the search must cover (`only`), else those that
    gave counterexamples, the most recent first."""
    oracle = state.oracle
    if oracle.only is not None:
        return list(oracle.only)
    return sorted(oracle.failing, key=oracle.failing.__getitem__, reverse=True)


class SampledKeysRound:
    """Random scenarios of the clusterings to cover join S (and the working set)."""

    def applies(self, state: SearchState) -> bool:
        return state.sample_wanted

    def run(self, state: SearchState) -> Outcome:
        state.sample_wanted = False
        count = SAMPLE_KEYS * 2**state.sampled
        new = sampled_keys(state.problem, state.catalogue, to_sample(state), count, seed=state.sampled, known=set(state.keys))
        state.sampled += 1
        added = state.add_keys(new)
        log.debug("sampled: %d random scenarios join S (%d keys)", len(added), len(state.keys))
        return NEXT


__all__ = ["MAX_DRAWINGS", "SAMPLE_KEYS", "SampledKeysRound", "may_sample"]
