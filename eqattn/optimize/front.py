"""The front: the Pareto front of (attention cost, parameters) over covering designs
(docs/theory-scale.md B5).

Point k is the least attention cost c_k of a covering design with fewer parameters than
point k-1 (ties: fewer parameters), so its parameters p_k are the least of any covering
design of cost <= c_k; the front ends when no covering design has fewer parameters than
the last point (proven: then p_last is the fewest-parameter optimum). Where parameters are
ρ × cost for every design (V = m × regular: ρ = 4m, B1) the front is one point, the optimum.
Past the budget program's sizes only the two ends are computed (`front_ends`, B5b).

    >>> from eqattn.attention import Problem
    >>> f = front(Problem.create("C4", "E1", 2, 1), 20)
    >>> [(p.to_json()["attention_cost"], p.design.params) for p in f.points], f.status, f.single
    ([(2, 8)], 'optimal', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..attention import Design, Problem
from ..errors import LimitError
from .budgeted import BudgetProgram
from .limits import ComputeLimits, attention_cost
from .widening import DEFAULT_TIME_LIMIT, uniform_params_per_cost

MAX_POINTS = 64


@dataclass(frozen=True)
class FrontPoint:
    design: Design
    lower_bound: int | None  # fewest parameters of any covering design of cost <= this point's (valid; None: not proven)
    status: str  # optimal | feasible

    def to_json(self) -> dict:
        d = self.design
        return {
            "attention_cost": attention_cost(d),
            "heads": d.heads,
            "max_head_dim": max((o.head_dim for o in d.orbits), default=0),
            "design_params": d.params,
            "lower_bound": self.lower_bound,
            "status": self.status,
            "orbits": d.to_json()["orbits"],
        }


@dataclass(frozen=True)
class Front:
    problem: Problem
    points: tuple[FrontPoint, ...]
    status: str  # optimal: every point proven and nothing beyond the last | feasible | unknown
    single: bool
    reason: str
    time_s: float

    def to_json(self) -> dict:
        p = self.problem
        return {
            "group": p.group.name, "rep": str(p.V), "heads": p.heads, "head_dim": p.head_dim,
            "points": [q.to_json() for q in self.points],
            "vanilla_params": p.vanilla_params,
            "vanilla_attention_cost": p.heads * p.head_dim,
            "status": self.status,
            "single_point": self.single,
            "reason": self.reason,
            "time_s": round(self.time_s, 3),
        }


LAST_SHARE = 0.4  # past the budget program: of the time for the fewest-parameter design (the last point) ...
LEAST_SHARE = 0.3  # ... for the least attention cost (the first point's cost); the rest for its fewest parameters


def front_ends(problem: Problem, tl: float, t0: float) -> Front:
    """The front's two ends, past the budget program (B5b; `front` calls it there, started at
    `t0` with `tl` seconds; `benchmarks/budget.py --sweep` checks it on small problems). The last point is the
    fewest-parameter design (the optimiser, its bound valid for designs of any cost); the
    first is the least attention cost c* (the search priced by cost, B1d) with the fewest
    parameters of any covering design of cost <= c* (the optimiser under max_cost = c*).
    Points between are not searched."""
    from .optimizer import optimize
    from .widening import cost_search

    res = optimize(problem, LAST_SHARE * tl, constrained=False)
    if res.design is None:
        return Front(problem, (), "unknown", False, "no covering design was found within the limits", time.perf_counter() - t0)
    st = "optimal" if res.status == "optimal" else "feasible"
    last = FrontPoint(res.design, res.design.params if st == "optimal" else res.lower_bound or None, st)
    between = "points between the two ends (least attention cost, fewest parameters) are not searched past the budget program's sizes"
    least, _ = cost_search(problem, max(0.5, t0 + (LAST_SHARE + LEAST_SHARE) * tl - time.perf_counter()))
    if least.value is None or least.value >= attention_cost(res.design):
        if least.status == "optimal" and st == "optimal" and least.value == attention_cost(res.design):
            return Front(problem, (last,), "optimal", True,
                         "a single point: the fewest-parameter design has the least attention cost (both proven)", time.perf_counter() - t0)
        return Front(problem, (last,), "feasible", False, "only the fewest-parameter design was found: " + between, time.perf_counter() - t0)
    first = optimize(problem, max(0.5, t0 + tl - time.perf_counter()), constrained=False, max_cost=least.value)
    design = first.design if first.design is not None else least.design
    if design.params <= res.design.params:
        # a design of lower cost and no more parameters: the fewest-parameter design found is
        # dominated; with both ends proven its parameters are P* and the front is this point
        one = st == "optimal" and least.status == "optimal"
        why = ("a single point: a least-cost design has the fewest parameters (both proven)" if one else
               "the least-cost design found has no more parameters than the fewest-parameter design found: " + between)
        return Front(problem, (FrontPoint(design, design.params if one else None, "optimal" if one else "feasible"),),
                     "optimal" if one else "feasible", one, why, time.perf_counter() - t0)
    proven = least.status == "optimal" and first.status == "optimal" and first.design is not None
    # (first's bound is on designs of cost <= least.value, so also on those of this point's cost)
    head = FrontPoint(design, design.params if proven else first.lower_bound, "optimal" if proven else "feasible")
    return Front(problem, (head, last), "feasible", False, between, time.perf_counter() - t0)


def front(problem: Problem, time_limit: float | None = None) -> Front:
    """The front within `time_limit` seconds (default 60)."""
    from .optimizer import optimize

    tl = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
    t0 = time.perf_counter()
    rho = uniform_params_per_cost(problem)
    if rho is not None:
        res = optimize(problem, tl, constrained=False)
        if res.design is None:
            return Front(problem, (), "unknown", True, "no covering design was found within the limits", time.perf_counter() - t0)
        st = "optimal" if res.status == "optimal" else "feasible"
        pt = FrontPoint(res.design, res.design.params if st == "optimal" else res.lower_bound or None, st)
        why = (f"every design has parameters = {rho} x attention cost (V = m x regular: 4m), so the cheapest "
               "covering design is also the least-cost one and the front is this single point")
        return Front(problem, (pt,), st, True, why, time.perf_counter() - t0)
    points: list[FrontPoint] = []
    try:
        prog = BudgetProgram(problem, ComputeLimits())
    except LimitError:
        return front_ends(problem, tl, t0)
    cap: int | None = None
    status = "optimal"
    reason = ""
    while len(points) < MAX_POINTS:
        left = t0 + tl - time.perf_counter()
        if left <= 0:
            status, reason = "feasible", "the time limit stopped the search for further points"
            break
        r = prog.solve("attention_cost", time_limit=left, max_params=cap)
        if r.status == "infeasible":
            reason = ("no covering design has fewer parameters than the last point (proven)"
                      if points else "no covering design (proven)")
            break
        if r.design is None or r.status != "optimal":
            status = "feasible" if points else "unknown"
            reason = f"point {len(points) + 1} was not proven within the limits"
            if r.design is not None:
                points.append(FrontPoint(r.design, None, "feasible"))
            break
        points.append(FrontPoint(r.design, r.design.params, "optimal"))
        cap = r.design.params - 1
    single = len(points) == 1 and status == "optimal"
    if single:
        reason = "a single point: the least-cost covering design also has the fewest parameters (proven)"
    return Front(problem, tuple(points), status, single, reason, time.perf_counter() - t0)
