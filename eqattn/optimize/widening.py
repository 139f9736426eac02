"""The least widening: how much wider than the vanilla layer a covering design must be
(docs/theory-scale.md B1, B2).

Three numbers, each with a status and a valid lower bound: the least attention cost
Σ [G:K_i] dim W_i of any covering design, the fewest heads with every head dim ≤ d, and
the smallest largest head dim with at most H heads.

Where every orbit type has the same parameters per unit of attention cost ρ
(`limits.uniform_ratio`; `V = m × regular` has ρ = 4m, theory-scale B1 / O19b), a design's
parameters are exactly ρ × its attention cost: the fewest-parameter design (the optimiser,
with its proof) is the least-cost one, and its bound divided by ρ bounds the cost. Other V
go to the budget program (budgeted.py) with the cost as objective.

    >>> from eqattn.attention import Problem
    >>> w = least_widening(Problem.create("C4", "regular", 2, 1), 20)
    >>> w.min_attention_cost.value, w.min_attention_cost.status, w.params_per_cost
    (6, 'optimal', 4)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ..attention import Design, Problem
from ..errors import LimitError
from .budgeted import BudgetProgram, Outcome
from .limits import ComputeLimits, attention_cost, uniform_ratio
from .optimizer import DEFAULT_TIME_LIMIT


@dataclass(frozen=True)
class Extent:
    """One least value: `status` optimal | feasible (value found, not proven least) |
    infeasible (no covering design at all under the other bound) | unknown."""

    value: int | None
    status: str
    lower_bound: int | None  # None when infeasible
    design: Design | None

    def to_json(self) -> dict:
        return {"value": self.value, "status": self.status, "lower_bound": self.lower_bound,
                "design": None if self.design is None else {**self.design.to_json(), "attention_cost": attention_cost(self.design)}}


@dataclass(frozen=True)
class Widening:
    problem: Problem
    min_attention_cost: Extent
    min_heads: Extent  # every head dim <= d
    min_head_dim: Extent  # at most H heads
    params_per_cost: int | None  # ρ when every design has parameters = ρ x attention cost (4m for m x regular)
    time_s: float

    def to_json(self) -> dict:
        p = self.problem
        c = self.min_attention_cost.value
        return {
            "min_attention_cost": self.min_attention_cost.to_json(),
            "min_heads": self.min_heads.to_json(),
            "min_head_dim": self.min_head_dim.to_json(),
            "params_per_cost": self.params_per_cost,
            "vanilla_attention_cost": p.heads * p.head_dim,
            "ratio": None if c is None else c / (p.heads * p.head_dim),
            "statement": self.statement(),
            "time_s": round(self.time_s, 3),
        }

    def statement(self) -> str:
        """The least widening in plain words."""
        p = self.problem
        c = self.min_attention_cost
        base = p.heads * p.head_dim
        if c.value is None:
            return "no covering design was found within the limits"
        proven = "proven" if c.status == "optimal" else f"not proven; at least {c.lower_bound}"
        return (f"every design that keeps the vanilla layer's whole equivariant function class has attention cost "
                f">= {c.lower_bound} ({c.lower_bound / base:.2f} x the layer's {base}); the least found is {c.value} ({proven})")


def uniform_params_per_cost(problem: Problem) -> int | None:
    """ρ (a whole number) when every design has parameters = ρ × attention cost, else None.

        >>> uniform_params_per_cost(Problem.create("D4", "3xregular", 1, 1)), uniform_params_per_cost(Problem.create("C2", "A", 1, 1))
        (12, None)
    """
    r = uniform_ratio(problem)
    return None if r is None or r.denominator != 1 else int(r)


def _from_outcome(r: Outcome) -> Extent:
    if r.status == "infeasible":
        return Extent(None, "infeasible", None, None)
    return Extent(r.value, r.status, r.bound if r.status != "optimal" else r.value or 0, r.design)


def min_attention_cost(problem: Problem, time_limit: float) -> Extent:
    """The least attention cost of a covering design (B1 where parameters = ρ × cost, else B3)."""
    from .optimizer import optimize

    rho = uniform_params_per_cost(problem)
    if rho is not None:
        res = optimize(problem, time_limit, constrained=False)
        if res.design is None:
            return Extent(None, "unknown", math.ceil(res.lower_bound / rho), None)
        cost = attention_cost(res.design)
        if res.design.params != rho * cost:
            raise RuntimeError("internal error: parameters differ from rho x attention cost")
        status = "optimal" if res.status == "optimal" else "feasible"
        return Extent(cost, status, cost if status == "optimal" else math.ceil(res.lower_bound / rho), res.design)
    try:
        prog = BudgetProgram(problem, ComputeLimits())
    except LimitError:
        # past the budget program: the fewest-parameter design's cost, and the bound ⌈L / ρ⌉ (O19c)
        res = optimize(problem, time_limit, constrained=False)
        if res.design is None:
            return Extent(None, "unknown", res.attention_cost_lower_bound, None)
        cost = attention_cost(res.design)
        lb = min(cost, res.attention_cost_lower_bound)
        return Extent(cost, "optimal" if lb == cost else "feasible", lb, res.design)
    return _from_outcome(prog.solve("attention_cost", time_limit=time_limit))


def min_heads(problem: Problem, time_limit: float) -> Extent:
    """The fewest heads of a covering design with every head dim <= d (maximal W suffice:
    coverage is monotone in W and the head count ignores it)."""
    r = BudgetProgram(problem, ComputeLimits(max_head_dim=problem.head_dim), maximal=True).solve("heads", time_limit=time_limit)
    return _from_outcome(r)


def min_head_dim(problem: Problem, time_limit: float) -> Extent:
    """The smallest largest head dim of a covering design with at most H heads, by bisection
    over the bound δ (feasibility is monotone in δ); infeasible when even δ = dim V fails
    (a larger W than V|K never helps, SPEC §5.5)."""
    deadline = time.perf_counter() + time_limit
    lo, hi = 0, problem.dim_v  # lo: proven infeasible (0: no orbit at all), hi: to test
    best: Outcome | None = None
    undecided = False
    top = BudgetProgram(problem, ComputeLimits(max_heads=problem.heads, max_head_dim=hi), maximal=True)
    r = top.solve("heads", time_limit=max(0.1, deadline - time.perf_counter()))
    if r.status == "infeasible":
        return Extent(None, "infeasible", None, None)
    if r.design is None:
        return Extent(None, "unknown", 1, None)
    best = r
    hi = max(o.head_dim for o in r.design.orbits) if r.design.orbits else 0
    if hi == 0:
        return Extent(0, "optimal", 0, r.design)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        left = deadline - time.perf_counter()
        if left <= 0:
            undecided = True
            break
        r = BudgetProgram(problem, ComputeLimits(max_heads=problem.heads, max_head_dim=mid), maximal=True).solve("heads", time_limit=left)
        if r.status == "infeasible":
            lo = mid
        elif r.design is not None:
            best = r
            hi = max(o.head_dim for o in r.design.orbits)
        else:
            undecided = True
            break
    return Extent(hi, "feasible" if undecided else "optimal", lo + 1, best.design)


def least_bound(problem: Problem, lo: int, hi: int, limits_at, measure, time_limit: float) -> Extent:  # noqa: ANN001
    """The least x in (lo, hi] with a covering design within `limits_at(x)`, by bisection with
    the optimiser (`optimize_within`: infeasible is a proof), where the budget program's types
    are too many. Feasibility is monotone in x (the limits grow with x). `hi` must be
    feasible or tested; `lo` is known infeasible (or 0); `measure(design)` is the x a found
    design attains (at most the x it was asked for)."""
    from .within import optimize_within

    deadline = time.perf_counter() + time_limit
    best = None
    tested_hi = False
    while hi - lo > 1 or not tested_hi:
        mid = hi if not tested_hi else (lo + hi) // 2
        left = deadline - time.perf_counter()
        if left <= 0.5:
            break
        w = optimize_within(problem, left / 2 if tested_hi else left * 0.6, **limits_at(mid))
        if w.status == "infeasible":
            if not tested_hi:
                return Extent(None, "infeasible", None, None)
            lo = mid
        elif w.design is not None:
            best, hi, tested_hi = w.design, min(mid, measure(w.design)), True
        else:
            break
        tested_hi = True
    if best is None:
        return Extent(None, "unknown", lo + 1, None)
    return Extent(hi, "optimal" if hi - lo == 1 else "feasible", lo + 1, best)


def least_widening(problem: Problem, time_limit: float | None = None) -> Widening:
    """The three least widenings within `time_limit`: the attention cost first (60 %: the
    headline), then the head count and the head dim (the rest, shared). Where the budget
    program's types are too many, the head questions go to `least_bound` with the optimiser."""
    tl = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
    t0 = time.perf_counter()
    G, H, d = problem.group.order, problem.heads, problem.head_dim
    cost = min_attention_cost(problem, 0.6 * tl)
    share = max(1.0, (t0 + tl - time.perf_counter()) / 2)
    try:
        heads = min_heads(problem, share)
    except LimitError:
        heads = least_bound(problem, 0, G * H, lambda h: {"max_heads": h, "max_head_dim": d},
                            lambda a: a.heads, share)
    left = max(1.0, t0 + tl - time.perf_counter())
    try:
        dim = min_head_dim(problem, left)
    except LimitError:
        dim = least_bound(problem, 0, problem.dim_v, lambda x: {"max_heads": H, "max_head_dim": x},
                          lambda a: max((o.head_dim for o in a.orbits), default=0), left)
    return Widening(problem, cost, heads, dim, uniform_params_per_cost(problem), time.perf_counter() - t0)
