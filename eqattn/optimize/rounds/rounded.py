"""The rounded-LP round (docs/theory-scale.md O14) and the repair round (O18).

The LP's fractional design rounded up (`⌈n_t⌉` copies of each type) is a candidate whose
counterexamples are scenarios the LP's solution is short of too (mostly): met first by
scenarios drawn at random (O12b, milliseconds), then, when none of those is new, checked by
the symbolic checker; it is the incumbent when it covers and is cheaper, else its
counterexamples join S (a round without a program). When the LP bound creeps (or always,
with `repair_always`), the repair round first raises the rounded design where it falls short
(repair.py); every key met on the way joins S.
"""

from __future__ import annotations

import logging
import math
import time

from ...attention import Design, DesignOrbit, Problem
from ...reps import Rep
from .state import AGAIN, NEXT, Outcome, SearchState, stop

QUICK_DRAWS = 32  # random scenarios per clustering drawn against a rounded design before its symbolic check (0: none; O14)
QUICK_TOTAL = 2000  # ... and in all
QUICK_AFTER_S = 0.25  # ... once a symbolic check of a rounded design in this search took longer than this (seconds)
REPAIR = True  # a rounded LP design that misses clusterings is repaired by raises (O18) ...
REPAIR_SHARE = 0.25  # ... for at most this share of the round's time left, once the LP bound
REPAIR_CREEP = 0.01  # ... rose by at most this fraction in its last round (a creep: O18)

log = logging.getLogger("eqattn.optimize")


def rounded_design(problem: Problem, solution, max_heads: int | None) -> Design | None:  # noqa: ANN001 - LPBound.solution
    """The LP's fractional design rounded up (`⌈n_t⌉` copies of each type); None when it has
    more heads than `max_heads` or no orbit."""
    G = problem.group
    items = sorted(((c, math.ceil(n - 1e-6)) for c, n in solution if n > 1e-6), key=lambda cn: (-G.subgroup_classes[cn[0][0]].order, cn[0]))
    orbits = []
    for (sub, W), k in items:
        K = G.subgroup_classes[sub]
        orbits.extend([DesignOrbit(K, Rep(K, W))] * k)
    if not orbits or (max_heads is not None and sum(o.heads for o in orbits) > max_heads):
        return None
    return Design(problem, tuple(orbits))


class RoundedRound:
    """Check the last LP's rounded design (once per design)."""

    def applies(self, state: SearchState) -> bool:
        return state.restricted and state.table is None

    def run(self, state: SearchState) -> Outcome:
        cand = None if state.last_lp is None else rounded_design(state.problem, state.last_lp.solution, state.limits.max_heads)
        if cand is not None and not state.cheaper(cand) and state.rounded_last:
            cand = None  # no incumbent in it, and the last round was one: a program's round now
        state.rounded_last = False
        if cand is None or cand.orbits in state.rounded_seen:
            return NEXT
        state.rounded_seen.add(cand.orbits)
        before = state.oracle.checks
        known = set(state.keys)
        new = None
        # drawn scenarios first (O12b) where the symbolic check is slow: milliseconds instead of
        # seconds (on the clock, so not under a work limit: that search stays reproducible)
        if QUICK_DRAWS and state.rounded_check_s > QUICK_AFTER_S and state.budget.work_limit is None:
            drawn = state.oracle.sampled_keys(cand, state.deadline, seed=state.rounds, draws=QUICK_DRAWS, total=QUICK_TOTAL)
            new = drawn if any(k not in known for k in drawn) else None  # none new: the symbolic check
        if new is None:
            cand, new = state.oracle.rounded_keys(cand, state.deadline)
            state.rounded_check_s = max(state.rounded_check_s, state.oracle.last_check_s)
        if new is None:
            return stop("time_limit")
        if new == [] and state.limits.admits(cand) and state.cheaper(cand):
            state.improve(cand)
            return AGAIN
        added = [k for k in new if k not in known]
        log.debug("round %d: the LP's design rounded up (%d units): %s", state.rounds, cand.params // 4, f"{len(added)} new counterexamples" if new != () else "not checkable")
        state.miss = (cand, added, before)
        return NEXT


class RepairRound:
    """Raise a failing rounded design cheaper than the incumbent (repair.py, O18)."""

    def applies(self, state: SearchState) -> bool:
        if state.miss is None or not state.miss[1] or not REPAIR or state.best_units is None:
            return False
        creeping = len(state.lp_seen) >= 2 and state.lp_seen[-1] - state.lp_seen[-2] <= REPAIR_CREEP * state.lp_seen[-1]
        return (creeping or state.repair_always) and state.cheaper(state.miss[0])

    def run(self, state: SearchState) -> Outcome:
        assert state.miss is not None and state.best_units is not None
        cand, added, before = state.miss
        now = time.perf_counter()
        until = state.deadline if state.budget.work_limit is not None else min(state.deadline, now + REPAIR_SHARE * max(state.deadline - now, 0.0))
        repaired, more = state.oracle.repair(cand, before, until, state.best_units, state.limits.max_head_dim)
        known = set(state.keys)
        added += [k for k in dict.fromkeys(more) if k not in known and k not in added]
        if repaired is not None and state.cheaper(repaired):
            state.improve(repaired)
            log.debug("round %d: the rounded design repaired: %d units", state.rounds, state.best_units)
        return NEXT


class RoundedKeysRound:
    """The rounded design's new counterexamples (and the repair's) join S: a new pass."""

    def applies(self, state: SearchState) -> bool:
        return state.miss is not None and bool(state.miss[1])

    def run(self, state: SearchState) -> Outcome:
        assert state.miss is not None
        state.add_keys(state.miss[1])
        state.rounded_last = True
        return AGAIN
