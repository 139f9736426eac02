"""The fewest-parameter covering design within a compute budget (max_heads, max_head_dim,
max_cost), with its status and a one-line reason (docs/theory-scale.md B1-B3).

Routes: the optimiser itself when it takes `max_cost`; for `V = m × regular` the optimiser
under the head limits and the identity parameters = 4m × attention cost (B1): the cheapest
design is also the least-cost one, so a cost budget below its cost is infeasible (proven when
the optimiser's bound / 4m exceeds the budget) and one above it changes nothing; otherwise
the budget program (budgeted.py).

    >>> from eqattn.attention import Problem
    >>> w = optimize_within(Problem.create("C4", "regular", 2, 1), 20, max_cost=4)
    >>> w.status, w.reason
    ('infeasible', 'every covering design has attention cost >= 6; the budget is 4')
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

from ..attention import Design, Problem
from ..errors import InputError, LimitError
from .budgeted import BudgetProgram, Limits, attention_cost
from .widening import DEFAULT_TIME_LIMIT, regular_multiple


@dataclass(frozen=True)
class Within:
    """`status`: optimal | infeasible (proven) | feasible (a design, not proven cheapest) |
    unknown (none found, none ruled out). `lower_bound`: valid lower bound on the parameters
    of any covering design within the budget (None when infeasible)."""

    status: str
    design: Design | None
    lower_bound: int | None
    reason: str

    @property
    def gap(self) -> float | None:
        if self.design is None or self.lower_bound is None or self.design.params == 0:
            return None if self.design is None else 0.0
        return max(0.0, (self.design.params - self.lower_bound) / self.design.params)


def _check(v: object, name: str) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise InputError(name, f"must be a whole number >= 1 (or None: any), got {v!r}")
    return v


def optimize_within(problem: Problem, time_limit: float | None = None, *, max_heads: int | None = None,
                    max_head_dim: int | None = None, max_cost: int | None = None) -> Within:
    """The cheapest covering design within the budget (module docstring)."""
    from .optimizer import optimize

    limits = Limits(_check(max_heads, "max_heads"), _check(max_head_dim, "max_head_dim"), _check(max_cost, "max_cost"))
    tl = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    kw = {"max_heads": limits.max_heads, "max_head_dim": limits.max_head_dim}
    if limits.max_cost is None or "max_cost" in inspect.signature(optimize).parameters:
        if limits.max_cost is not None:
            kw["max_cost"] = limits.max_cost
        return _from_result(optimize(problem, tl, constrained=False, **kw), limits)
    m = regular_multiple(problem)
    if m is not None:
        res = optimize(problem, tl, constrained=False, **kw)
        if res.status == "infeasible":
            return _from_result(res, limits)
        cost_lb = math.ceil(res.lower_bound / (4 * m))
        if cost_lb > limits.max_cost:
            return Within("infeasible", None, None, _too_costly(cost_lb, limits.max_cost))
        if res.design is not None and attention_cost(res.design) <= limits.max_cost:
            return _from_result(res, limits)
        return Within("unknown", None, res.lower_bound, "no covering design within the budget was found before the limit")
    try:
        prog = BudgetProgram(problem, limits)
    except LimitError as e:
        raise LimitError("max_cost", f"{e.message}; without max_cost the optimiser answers") from None
    r = prog.solve("params", time_limit=tl)
    if r.status == "infeasible":
        return Within("infeasible", None, None, "no design within the budget covers every clustering (proven)")
    if r.design is None:
        return Within("unknown", None, r.bound, "no covering design within the budget was found before the limit")
    return Within(r.status, r.design, r.bound, _found(r.status))


def _too_costly(lb: int, budget: int) -> str:
    return f"every covering design has attention cost >= {lb}; the budget is {budget}"


def _found(status: str) -> str:
    return "proven: no covering design within the budget has fewer parameters" if status == "optimal" else \
        "a limit stopped the search before the proof"


def _from_result(res, limits: Limits) -> Within:  # noqa: ANN001 - OptimizeResult
    if res.status == "infeasible":
        why = getattr(res, "reason", None) or "no design within the budget covers every clustering (proven)"
        return Within("infeasible", None, None, why)
    if res.design is None:
        return Within("unknown", None, res.lower_bound, "no covering design within the budget was found before the limit")
    assert limits.allows(res.design)
    status = "optimal" if res.status == "optimal" else "feasible"
    return Within(status, res.design, res.lower_bound, _found(status))
