"""The fewest-parameter covering design within a compute budget (max_heads, max_head_dim,
max_cost) as a status, a design, a bound and a one-line reason: the optimiser's answer
(`optimize(..., max_cost=...)`, theory-scale O2, O19) in the form the Python API returns.

    >>> from eqattn.attention import Problem
    >>> w = optimize_within(Problem.create("C4", "regular", 2, 1), 20, max_cost=4)
    >>> w.status, w.design is None, bool(w.reason)
    ('infeasible', True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..attention import Design, Problem
from .optimizer import DEFAULT_TIME_LIMIT


@dataclass(frozen=True)
class Within:
    """`status`: optimal | infeasible (proven) | feasible (a design, not proven cheapest) |
    unknown (none found, none ruled out). `lower_bound`: a valid lower bound on the
    parameters of every covering design within the budget (None when infeasible)."""

    status: str
    design: Design | None
    lower_bound: int | None
    reason: str


def optimize_within(problem: Problem, time_limit: float | None = None, *, max_heads: int | None = None,
                    max_head_dim: int | None = None, max_cost: int | None = None, threads: int | None = None) -> Within:
    """The cheapest covering design within the budget (bad bounds: InputError naming the field)."""
    from .optimizer import optimize

    tl = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    res = optimize(problem, tl, constrained=False, threads=threads, max_heads=max_heads, max_head_dim=max_head_dim,
                   max_cost=max_cost)
    if res.status == "infeasible":
        return Within("infeasible", None, None, res.reason or "no design within the budget covers every clustering (proven)")
    if res.design is None:
        return Within("unknown", None, res.lower_bound,
                      res.reason or "no covering design within the budget was found before the limit")
    if res.status == "optimal":
        return Within("optimal", res.design, res.design.params, "proven: no covering design within the budget has fewer parameters")
    return Within("feasible", res.design, res.lower_bound,
                  res.reason or f"the search stopped ({res.stopped_by or 'a limit'}) before the proof; lower bound {res.lower_bound}")
