"""The JSON of the budget questions (`eqattn front / widening / optimize --partial --json`,
POST /api/front, /api/widening, /api/partial): one function per question.

    >>> from eqattn.attention import Problem
    >>> partial_report(Problem.create("C4", "E1", 2, 1), 20, max_heads=1)["partial"]["covered"]
    2
"""

from __future__ import annotations

from ..attention import Problem
from .limits import attention_cost
from .front import front
from .partial import coverage_curve, curve_costs, partial_coverage
from .widening import least_widening


def front_report(problem: Problem, time_limit: float | None = None) -> dict:
    """`Front.to_json()`: `{"points": [...], "vanilla_params", "vanilla_attention_cost", "status", ...}`."""
    return front(problem, time_limit).to_json()


def widening_report(problem: Problem, time_limit: float | None = None) -> dict:
    """`Widening.to_json()` with the problem."""
    return {**problem.to_json(), **least_widening(problem, time_limit).to_json()}


def partial_report(problem: Problem, time_limit: float | None = None, *, max_heads: int | None = None,
                   max_head_dim: int | None = None, max_cost: int | None = None,
                   curve_to: int | None = None, work_limit: int | None = None, engine: str = "auto") -> dict:
    """`{"partial": {covered, of, status, upper_bound, uncovered, ...}, "design_params",
    "orbits", "heads_total", "max_head_dim", "attention_cost", ...}`; with `curve_to`, also
    `"curve"`: the covered clusterings for attention-cost budgets from H d to `curve_to`
    (half the time limit goes to the curve). `work_limit` and `engine`: the partial question's
    (a deterministic limit; "auto", "program" or "search": partial_coverage)."""
    share = None if time_limit is None else (time_limit / 2 if curve_to else time_limit)
    r = partial_coverage(problem, share, max_heads=max_heads, max_head_dim=max_head_dim, max_cost=max_cost, work_limit=work_limit,
                         engine=engine)
    d = r.design
    out = {
        **problem.to_json(),
        "partial": r.to_json(),
        "design_params": None if d is None else d.params,
        "heads_total": 0 if d is None else d.heads,
        "max_head_dim": 0 if d is None else max((o.head_dim for o in d.orbits), default=0),
        "attention_cost": 0 if d is None else attention_cost(d),
        "vanilla_attention_cost": problem.heads * problem.head_dim,
        "orbits": [] if d is None else d.to_json()["orbits"],
    }
    if curve_to:
        pts = coverage_curve(problem, curve_costs(problem, curve_to), share)
        out["curve"] = [p.to_json() for p in pts]
    return out
