"""The best partial coverage under a budget: the design within the budget that covers the
most clusterings, then has the fewest parameters (docs/theory-scale.md B4), and the curve
of covered clusterings as the attention-cost budget grows.

The budget program (budgeted.py) with one indicator per clustering: its bound is a valid
upper bound on the clusterings any design within the budget covers, and a solution whose
design covers every clustering it claims is the proven optimum. Past the enumerating checker's sizes or
the program's type limit: searches over subsets of the clusterings (partial_search.py,
theory-scale B4b), whose bound comes from the clusterings and sets proven uncoverable.

    >>> from eqattn.attention import Problem
    >>> r = partial_coverage(Problem.create("C4", "E1", 2, 1), 20, max_heads=1)
    >>> (r.covered, r.of, r.status, r.upper_bound, r.uncovered, r.design.params)
    (2, 3, 'optimal', 2, (1,), 8)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..attention import Design, Problem, check_coverage
from ..errors import InputError, LimitError, whole_number
from ..attention.coverage import uses_symbolic
from .budget import Budget
from .budgeted import BudgetProgram
from .limits import ComputeLimits, attention_cost
from .partial_search import partial_search
from .widening import DEFAULT_TIME_LIMIT

ENGINES = ("auto", "program", "search")
MAX_EXACT_TYPES = 600  # past this many types only maximal W are offered (the count stays exact, the parameter tie-break is not proven)


@dataclass(frozen=True)
class PartialResult:
    problem: Problem
    limits: ComputeLimits
    design: Design | None
    covered: int
    of: int
    status: str  # optimal (the count proven maximal) | feasible (a limit stopped it; upper_bound holds)
    upper_bound: int
    uncovered: tuple[int, ...]
    params_proven: bool  # whether the fewest-parameter tie-break is proven too
    stopped_by: str | None
    time_s: float
    engine: str = "program"  # program (the budget program, B4) | search (subset searches, B4b)

    def to_json(self) -> dict:
        """`{"partial": {...}, "design": ...}`: the contract's shape plus the reasons."""
        return {
            "covered": self.covered, "of": self.of, "status": self.status, "upper_bound": self.upper_bound,
            "uncovered": list(self.uncovered), "params_proven": self.params_proven, "stopped_by": self.stopped_by,
            "engine": self.engine, "limits": {"max_heads": self.limits.max_heads, "max_head_dim": self.limits.max_head_dim,
                       "max_cost": self.limits.max_cost}, "time_s": round(self.time_s, 3),
            "statement": self.statement(),
        }

    def statement(self) -> str:
        if self.covered == self.of:
            return f"a design within this budget covers all {self.of} clusterings"
        if self.status == "optimal":
            return f"no design within this budget covers everything (proven); the best one covers {self.covered} of {self.of} clusterings"
        bound = (f"no design within it covers more than {self.upper_bound} (proven bound)" if self.upper_bound < self.of
                 else "no bound below all of them was proven")
        return f"the best design found within this budget covers {self.covered} of {self.of} clusterings; {bound}"

    def counterexamples(self) -> list[dict]:
        """Per uncovered clustering, the scenario no assignment serves (SPEC §4.5)."""
        if self.design is None:
            return []
        out = []
        for v in check_coverage(self.problem, self.design):
            if not v.covered and v.counterexample is not None:
                out.append({"clustering": v.clustering.id, "demands": len(v.counterexample.demands)})
        return out


def _limits(max_heads: int | None, max_head_dim: int | None, max_cost: int | None) -> ComputeLimits:
    for name, v in (("max_heads", max_heads), ("max_head_dim", max_head_dim), ("max_cost", max_cost)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise InputError(name, f"must be a whole number >= 1, got {v!r}")
    if max_heads is None and max_head_dim is None and max_cost is None:
        raise InputError("partial", "partial coverage needs a budget: max_heads, max_head_dim or max_cost")
    return ComputeLimits(max_heads, max_head_dim, max_cost)


def partial_coverage(problem: Problem, time_limit: float | None = None, *, max_heads: int | None = None,
                     max_head_dim: int | None = None, max_cost: int | None = None, engine: str = "auto",
                     work_limit: int | None = None) -> PartialResult:
    """The most clusterings covered within the budget, then the fewest parameters.

    `engine`: "program" (the budget program with one indicator per clustering, B4: every
    orbit type listed, the enumerating checker), "search" (searches over subsets of the
    clusterings, partial_search.py, B4b: types generated, the symbolic checker), or "auto":
    the program on problems the enumerating checker takes and whose types it can list, the
    search otherwise, and always under a `work_limit` (solver nodes over the whole call, a
    deterministic limit, budget.py; the program has none)."""
    limits = _limits(max_heads, max_head_dim, max_cost)
    tl = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
    if engine not in ENGINES:
        raise InputError("engine", f"one of {', '.join(ENGINES)}, got {engine!r}")
    work_limit = None if work_limit is None else whole_number(work_limit, "work_limit")
    prog = None
    if engine == "program" or (engine == "auto" and work_limit is None and not uses_symbolic(problem)):
        prog, exact = _program(problem, limits, engine == "program")
    if prog is None:
        return _by_search(problem, limits, tl, work_limit)
    r = prog.solve("params", partial=True, time_limit=tl)
    status = "optimal" if r.status == "optimal" else "feasible"
    return PartialResult(problem, limits, r.design, r.covered, r.of, status, r.upper_bound, r.uncovered,
                         exact and r.status == "optimal", r.stopped_by, r.time_s)


def _program(problem: Problem, limits: ComputeLimits, required: bool) -> tuple[BudgetProgram | None, bool]:
    """(the budget program, whether it lists every type) or (None, False) when it cannot be
    built (too many types; raised when the program was asked for)."""
    try:
        prog = BudgetProgram(problem, limits)
        if len(prog.types) <= MAX_EXACT_TYPES:
            return prog, True
    except LimitError:
        pass
    try:
        return BudgetProgram(problem, limits, maximal=True), False
    except LimitError:
        if required:
            raise
        return None, False


def _by_search(problem: Problem, limits: ComputeLimits, tl: float, work_limit: int | None) -> PartialResult:
    t0 = time.perf_counter()
    r = partial_search(problem, limits, Budget.starting(tl, work_limit=work_limit))
    status = "optimal" if len(r.covered) == r.upper_bound else "feasible"
    uncovered = tuple(c for c in range(r.of) if c not in r.covered)
    return PartialResult(problem, limits, r.design, len(r.covered), r.of, status, r.upper_bound, uncovered,
                         r.params_proven and status == "optimal", None if status == "optimal" else (r.stopped_by or "search"),
                         time.perf_counter() - t0, "search")


@dataclass(frozen=True)
class CurvePoint:
    max_cost: int
    covered: int
    upper_bound: int
    status: str
    attention_cost: int

    def to_json(self) -> dict:
        return {"max_cost": self.max_cost, "covered": self.covered, "upper_bound": self.upper_bound,
                "status": self.status, "attention_cost": self.attention_cost}


def coverage_curve(problem: Problem, costs: list[int], time_limit: float | None = None) -> list[CurvePoint]:
    """Covered clusterings (most within the budget, or a bound) for each attention-cost
    budget in `costs`, the time limit shared equally."""
    tl = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
    t_end = time.perf_counter() + tl
    out = []
    for i, c in enumerate(costs):
        share = max(0.1, (t_end - time.perf_counter()) / (len(costs) - i))
        r = partial_coverage(problem, share, max_cost=c)
        out.append(CurvePoint(c, r.covered, r.upper_bound, r.status, 0 if r.design is None else attention_cost(r.design)))
    return out


def curve_costs(problem: Problem, widest: int, points: int = 6) -> list[int]:
    """From H d to `widest` (the least widening), `points` budgets spaced geometrically.

        >>> curve_costs(Problem.create("C4", "E1", 2, 1), 8, 3)
        [2, 4, 8]
    """
    lo = problem.heads * problem.head_dim
    if widest <= lo:
        return [lo]
    out = sorted({round(lo * (widest / lo) ** (k / (points - 1))) for k in range(points)})
    return out
