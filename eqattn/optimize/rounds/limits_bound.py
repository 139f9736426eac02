"""The limits round: infeasibility under head and cost limits from the LP bound in the
limited measure itself (docs/theory-scale.md O11, O19d).

The LP bound (lp_bound.py) holds for any additive cost of a type, so with the cost of
(K', W) taken as its heads [G:K'] (or its attention cost [G:K'] dim W) it bounds the
heads (the attention cost) of every design meeting the scenarios of S whose heads all have
dimension at most `max_head_dim`: fewer types than all, a relaxation of the design problem
(Lemma O1). When the heads bound exceeds `max_heads`, or the cost bound exceeds the cost cap
(`ComputeLimits.cost_cap`), no design within the limits covers every clustering: the answer
is `infeasible`, and the one-line reason says which figure and which limit.

The parameter LP under a `max_heads` row is infeasible in such cases, and its bound then
only says so through the master's costly slacks (a huge, meaningless number); the bound in
heads or attention cost is the meaningful certificate, and it comes without that row. Each
measure is bounded twice: without the head-dim limit first (a further relaxation, often
quicker), then with it. The round runs again when S has doubled, without the bounds that
the clock stopped short of the LP optimum (their time is the other rounds').
"""

from __future__ import annotations

import logging
import time

from ..lp_bound import lp_bound
from .state import NEXT, Outcome, SearchState, done

LIMITS_SHARE = 0.15  # of the loop's time left, for each LP bound of this round at most

log = logging.getLogger("eqattn.optimize")


def limit_bounds(state: SearchState) -> list[tuple[str, int | None, int]]:
    """(measure, head-dim limit of the LP, the limit its bound must exceed) of each bound
    this search's limits call for, the relaxed ones first."""
    lim, out = state.limits, []
    if lim.max_heads is not None:
        out.append(("heads", None, lim.max_heads))
        if lim.max_head_dim is not None:
            out.append(("heads", lim.max_head_dim, lim.max_heads))
    if state.cost_cap is not None:
        if lim.max_head_dim is not None:
            out.append(("attention_cost", lim.max_head_dim, state.cost_cap))
        else:
            out.append(("attention_cost", None, state.cost_cap))
    return out


def reason(measure: str, head_dim: int | None, bound: int, limit: int, state: SearchState) -> str:
    """The one line of the certificate."""
    within = "" if head_dim is None else f" with every head of dimension at most {head_dim}"
    if measure == "heads":
        return (f"every covering design{within} has at least {bound} heads (LP bound over {len(state.keys)} scenarios); "
                f"the limits allow at most {limit}")
    return (f"every covering design{within} has attention cost at least {bound} (LP bound over {len(state.keys)} scenarios); "
            f"the limits allow at most {limit}")


class LimitsBoundRound:
    """Ends the search as infeasible when the heads or the attention cost every covering
    design needs exceeds the limits."""

    def applies(self, state: SearchState) -> bool:
        return state.best is None and bool(state.keys) and len(state.keys) >= 2 * state.limits_keys and bool(limit_bounds(state))

    def run(self, state: SearchState) -> Outcome:
        state.limits_keys = len(state.keys)
        for measure, head_dim, limit in limit_bounds(state):
            if (measure, head_dim) in state.limits_stopped:
                continue
            now = time.perf_counter()
            until = min(state.loop_end(), now + LIMITS_SHARE * max(state.loop_end() - now, 0.0))
            if until - now < 0.05:
                break
            res = lp_bound(state.problem, state.h, state.catalogue.values, state.keys, (), until, None, head_dim, state.threads,
                           objective=measure)
            state.usage.add_lp(res.work)
            log.debug("limits: %s LP bound (head dim <= %s) over %d keys: %d (limit %d, %s)", measure, head_dim, len(state.keys),
                      res.units, limit, "converged" if res.converged else "stopped")
            if not res.converged:
                state.limits_stopped.add((measure, head_dim))
            if res.units > limit:
                state.reason = reason(measure, head_dim, res.units, limit, state)
                return done(state.result("infeasible", None, state.lower))
        return NEXT


__all__ = ["LimitsBoundRound", "limit_bounds", "reason"]
