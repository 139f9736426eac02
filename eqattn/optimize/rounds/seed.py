"""The seed of a search (multiples.py, docs/theory-scale.md O16): what the search of
`(G, V, H / k, d)` found joins this search before its first pass. Its keys repeated `k`
times join S (Lemma O16: every covering design meets them; its certificate's keys the LP's
working set), its LP certificate carried to them is a lower bound at once (Lemma O16c;
without a head limit), its LP columns the LP's start, and its design repeated `k` times is checked as
a candidate: the incumbent when it covers and is cheaper, else the restricted programs keep
its orbits (lower bounds) until one covers or none is cheaper than the incumbent.
"""

from __future__ import annotations

import logging
from collections import Counter

from ...errors import LimitError
from ..multiples import Seed, multiply_certificate, multiply_design, multiply_key
from .state import SearchState

log = logging.getLogger("eqattn.optimize")


def plant_seed(state: SearchState, seed: Seed) -> None:
    """Add what the seed hands on to the state (module docstring)."""
    problem, cat = state.problem, state.catalogue
    at = state.place_keys(tuple(sorted(cat.intern(dm) for dm in multiply_key(dems, seed.k, problem.V))) for dems in seed.keys)
    index = {k: i for i, k in enumerate(state.keys)}
    if seed.certificate is not None and state.limits.max_heads is None:  # (a head limit: the smaller LP priced fewer types)
        cert = multiply_certificate(seed.certificate, seed.keys, seed.k, problem.V, cat.intern, index)
        if cert is not None:
            state.seed_certificate = cert
            state.lower = max(state.lower, state.seed_lower)
    mine = {at[i] for i in seed.active}
    state.lp_active = tuple(sorted(set(state.lp_active) | mine))  # (with the parity split's lifted keys, O21d)
    state.working |= mine or set(at)  # (no LP bound there: all its keys)
    state.extra.update(seed.columns)
    cand = None if seed.design is None else multiply_design(problem, seed.design, seed.k)
    if cand is not None and state.cheaper(cand) and state.limits.admits(cand):
        try:
            new = state.oracle.keys(cand, state.loop_end())
        except LimitError:
            new = ()
        if new == []:
            state.improve(cand)
        elif new:  # a candidate's counterexamples are keys like any
            state.floor = Counter((o.sub.id, o.W.mults) for o in cand.orbits)
            state.extra.update(state.floor)
            log.debug("the seed's design repeated misses %d clusterings or more: the restricted programs repair it", len(new))
            added = [k for k in new if k not in index]
            state.working |= set(range(len(state.keys), len(state.keys) + len(added)))
            state.keys.extend(added)
    log.debug(
        "seeded by H = %d: %d keys (%d active), %d columns, bound %s, design %s -> incumbent %s", problem.heads // seed.k,
        len(seed.keys), len(seed.active), len(seed.columns), state.seed_lower, None if seed.design is None else seed.design.params // 4, state.best_units,
    )
