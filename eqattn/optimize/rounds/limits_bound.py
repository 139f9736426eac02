"""The limits round: infeasibility under head, head-dim and cost limits from LP bounds that
need no parameter figure (docs/theory-scale.md O11, O19e).

The LP bound (lp_bound.py) holds for any additive cost of a type, and for the phase-one
objective too. Over the scenarios of S (Lemma O1), in order:

* phase one (`objective="shortfall"`): the least total shortfall of the demands of S over
  fractional designs within every head and head-dim limit (the `max_heads` row included, the
  master's slacks at cost 1); a positive LP optimum proves that no design within the limits
  meets S even fractionally. It subsumes the heads bound below, the heads bound with the
  head-dim limit and the cost bound of `max_heads · max_head_dim` (a fractional design
  within both has cost at most their product);
* under a user's `max_cost`, the attention-cost bound (cost [G:K'] dim W: the LP of the problem
  priced by attention cost, theory-scale B1d) against the cost cap;
* the heads bound (the cost of (K', W) is its heads [G:K']), without the head-dim limit: when
  it exceeds `max_heads`, no design within the limits covers ("every covering design has at
  least 14 heads ...; the limits allow at most 6"). Phase one at 0 (converged) means a
  fractional design within the limits meets S, so this bound is at most `max_heads` and is
  not computed; it is computed when phase one stopped short of its optimum (its certified
  bound may still exceed the limit), and after phase one proved infeasibility only for the
  plainer certificate line, when the search wants one (`SearchState.reasons`).

The parameter LP under a `max_heads` row is infeasible in such cases, and its bound then only
says so through the master's costly slacks (a huge, meaningless figure, whose duals also make
its pricing slow); these bounds are the meaningful certificate. The round runs again when S
has doubled, without the bounds that the clock stopped short of their LP optimum (their time
is the other rounds'). Each LP starts from the types the last LP of its kind used when the
search was given a `ColumnPool` (column_pool.py: the searches of one partial-coverage call).
"""

from __future__ import annotations

import logging
import time

from ..budget import LP_ITERATIONS_PER_UNIT
from ..column_pool import lp_kind
from ..lp_bound import lp_bound, measured
from ..limits import ComputeLimits
from .state import NEXT, Outcome, SearchState, done

LIMITS_SHARE = 0.3  # of the loop's time left (or work left), for each LP bound of this round at most
SHORTFALL_EPS = 1e-4  # a phase-one optimum above this (demand units; the solver's tolerances are ~1e-7) proves infeasibility

log = logging.getLogger("eqattn.optimize")


def limit_bounds(lim: ComputeLimits, cost_cap: int | None) -> list[tuple[str, int | None, int]]:
    """(measure, head-dim limit of the LP, the limit its bound must exceed) of each bound
    the limits (as the engines read them, `ComputeLimits.for_engines`) call for, in the
    order they run ("shortfall": the limit is 0); the heads bound is left out after phase
    one at 0 (`heads_implied`). Used by this round and by partial_search's cheap bounds."""
    out: list[tuple[str, int | None, int]] = []
    if lim.max_heads is not None or lim.max_head_dim is not None:
        out.append(("shortfall", lim.max_head_dim, 0))
    if lim.max_cost is not None and cost_cap is not None:
        out.append(("attention_cost", lim.max_head_dim, cost_cap))
    if lim.max_heads is not None:
        out.append(("heads", None, lim.max_heads))
    return out


def heads_implied(phase_one: bool | None) -> bool:
    """Whether the heads bound can be left out: phase one converged at 0 (`phase_one` False),
    so a fractional design within the limits meets S and the heads bound is at most
    `max_heads` (module docstring)."""
    return phase_one is False


def reason(measure: str, head_dim: int | None, bound: int, limit: int, state: SearchState) -> str:
    """The one line of the certificate."""
    within = "" if head_dim is None else f" with every head of dimension at most {head_dim}"
    if measure == "shortfall":
        heads = "" if state.limits.max_heads is None else f" with at most {state.limits.max_heads} heads"
        return (f"no design{heads}{within} meets the demands of the {len(state.keys)} scenarios met, even fractionally "
                "(the LP over every such head type has no solution)")
    if measure == "heads":
        return (f"every covering design{within} has at least {bound} heads (LP bound over {len(state.keys)} scenarios); "
                f"the limits allow at most {limit}")
    return (f"every covering design{within} has attention cost at least {bound} (LP bound over {len(state.keys)} scenarios); "
            f"the limits allow at most {limit}")


class LimitsBoundRound:
    """Ends the search as infeasible when the heads or the attention cost every covering
    design needs exceeds the limits."""

    def applies(self, state: SearchState) -> bool:
        return state.best is None and bool(state.keys) and len(state.keys) >= 2 * state.limits_keys and bool(limit_bounds(state.limits, state.cost_cap))

    def run(self, state: SearchState) -> Outcome:
        state.limits_keys = len(state.keys)
        phase_one: bool | None = None  # the phase-one LP converged: True (infeasible) / False (at 0); None: not run or stopped
        for measure, head_dim, limit in limit_bounds(state.limits, state.cost_cap):
            if (measure, head_dim) in state.limits_stopped:
                continue
            if phase_one and (measure != "heads" or not state.reasons):
                continue  # proven: only the heads bound's plainer line is still wanted
            if measure == "heads" and heads_implied(phase_one):
                continue
            now = time.perf_counter()
            left = state.budget.work_left(state.usage)
            work = None if left is None else int(LIMITS_SHARE * max(left, 0) * LP_ITERATIONS_PER_UNIT)
            # (under a work limit a share of the work, not of the clock: deterministic, O5)
            until = state.loop_end() if work is not None else min(state.loop_end(), now + LIMITS_SHARE * max(state.loop_end() - now, 0.0))
            if until - now < 0.05 or work == 0:
                break
            heads_row = state.limits.max_heads if measure == "shortfall" else None
            problem, objective = measured(state.problem, measure)
            kind = lp_kind(problem, objective, heads_row, head_dim)
            start = () if state.columns is None else state.columns.start(kind)
            res = lp_bound(problem, state.h, state.catalogue.values, state.keys, start, until, heads_row, head_dim, state.threads,
                           objective=objective, work_limit=work)
            if state.columns is not None:
                state.columns.add(kind, res.support)
            state.usage.add_lp(res.work)
            log.debug("limits: %s LP bound (head dim <= %s) over %d keys: %d (limit %d, %s)", measure, head_dim, len(state.keys),
                      res.units, limit, "converged" if res.converged else "stopped")
            if not res.converged:
                state.limits_stopped.add((measure, head_dim))
            if measure == "shortfall":
                if res.converged:
                    phase_one = res.value > SHORTFALL_EPS
                if phase_one:
                    state.reason = reason(measure, head_dim, res.units, limit, state)
            elif res.units > limit:
                state.reason = reason(measure, head_dim, res.units, limit, state)
                return done(state.result("infeasible", None, state.lower))
        if phase_one:
            return done(state.result("infeasible", None, state.lower))
        return NEXT


__all__ = ["LimitsBoundRound", "heads_implied", "limit_bounds", "reason"]
