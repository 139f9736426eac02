"""`optimize`: optimal designs with a proof (SPEC §5.5; the derivation is docs/optimizer.md).

Among all designs that cover every clustering of (G, V, H, d) and are within the compute
limits, the one with the fewest parameters (ties: fewer heads, then a smaller largest head
dimension), with the solver's lower bound, and the constrained-vanilla answer (exactly H
heads of dimension d). Two engines: the enumerating one (`enumerated.py`, every scenario
listed, atlas sizes) and the symbolic search (`search.py`, scenarios and types generated
from counterexamples); `finish.py` re-checks and builds the result of both.

    >>> optimize(Problem.create("C2", "A + B", 2, 2)).status
    'optimal'
"""

from __future__ import annotations

import math
import time

from ..attention import Design, Problem
from ..attention.clusterings import require_checkable
from ..attention.coverage import uses_symbolic
from ..errors import InputError, LimitError, whole_number
from . import search as search_module
from . import solver
from .budget import Budget
from .enumerated import optimize_enumerated
from .finish import Answer, finish
from .limits import ComputeLimits, uniform_ratio
from .result import OptimizeResult
from .rounds.state import Progress

MAX_TIME_LIMIT = 3600.0
DEFAULT_TIME_LIMIT = 60.0
ENGINES = ("auto", "enumerate", "symbolic")
OBJECTIVES = ("params", "attention_cost")
RECHECK_SHARE = 0.15  # of the time limit kept for the enumerating engine's final re-checks
RECHECK_FACTOR = 3.0  # symbolic engine, re-checked by the symbolic checker: this many times the search's check of its answer ...
RECHECK_MARGIN = 0.02  # ... plus this share of the time limit (and RECHECK_MARGIN_S) are kept for the re-check
RECHECK_MARGIN_S = 0.2


def _optimize_symbolic(
    problem: Problem, budget: Budget, backend: str, progress: Progress | None, threads: int | None, limits: ComputeLimits, objective: str,
) -> OptimizeResult:
    """`optimize` by the counterexample search (search.py), then `finish`."""
    require_checkable(problem)  # refused up front (LimitError) before the seed's search runs
    factor = RECHECK_FACTOR if uses_symbolic(problem) else 0.0
    # (re-checked by the same checker over the same clusterings as the search's check of its
    # answer: the search keeps a multiple of that; by the enumerating checker: a share)
    memo = search_module.SubSearches()  # (the smaller searches of this call: the seed's and the induced design's share it)
    res = search_module.search(
        problem, budget, limits, backend=backend, threads=threads, progress=progress, recheck_factor=factor, repair_always=True, memo=memo,
        seed=lambda end, used: search_module.seed_for(problem, budget, end, limits, backend=backend, threads=threads, progress=progress, used=used, memo=memo),
    )
    if progress is not None:
        progress({"elapsed": time.perf_counter() - budget.start, "total_scenarios": 0, "stage": "recheck", "scenarios": res.scenarios,
                  "bound": 4 * res.lower_units})
    notes = ["symbolic engine: no constrained-vanilla question and no head tie-break"]
    seed = res.seed
    if seed is not None:
        notes.append(
            f"seeded by the search of H = {problem.heads // seed.k} heads (theory-scale O16): its {len(seed.keys)} scenario keys repeated {seed.k} times"
            + ("" if seed.design is None else f", its design ({seed.design.params} parameters) repeated {seed.k} times as a candidate")
            + ("" if res.seed_lower is None else f"; its LP certificate on the repeated keys proves >= {4 * res.seed_lower} parameters (O16c)")
        )
    if res.parity is not None:
        notes.append(f"bounded by the parity split over {res.parity[0]} (theory-scale O21): the two halves of V its central involution "
                     f"separates need >= {4 * res.parity[1]} parameters together")
    if res.induced is not None:
        notes.append(f"a design induced from the search of the index-2 subgroup {res.induced[0]} ({res.induced[1]} parameters, theory-scale O20) was an incumbent")
    answer = Answer(
        res.design, res.status, res.lower_units, res.stopped, res.rounds, res.types, res.scenarios, res.usage, unchecked=res.unchecked,
        reason=res.reason, notes=notes, keys=res.demand_keys(),
    )
    return finish(problem, answer, budget, backend, limits, numeric_check=False, objective=objective)


def _check_time_limit(time_limit: float | None) -> float:
    if time_limit is None:
        return DEFAULT_TIME_LIMIT
    if isinstance(time_limit, bool):
        raise InputError("time_limit", f"must be a number of seconds, got {time_limit!r}")
    try:
        tl = float(time_limit)
    except (TypeError, ValueError):
        raise InputError("time_limit", f"must be a number of seconds, got {time_limit!r}") from None
    if not math.isfinite(tl) or tl <= 0:
        raise InputError("time_limit", f"must be a positive number of seconds, got {time_limit!r}")
    if tl > MAX_TIME_LIMIT:
        raise LimitError("time_limit", f"at most {MAX_TIME_LIMIT:g} seconds, got {tl:g}")
    return tl


def _check_objective(problem: Problem, objective: object) -> None:
    """"params", or "attention_cost" where it is the same question: when every orbit has the
    same parameters per unit of attention cost (V = m × regular: parameters = 4m × attention
    cost for every design, theory-scale O19), the fewest-parameter design is the least-cost
    one and its bound divided by 4m bounds the cost."""
    if objective not in OBJECTIVES:
        raise InputError("objective", f"one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if objective == "attention_cost" and uniform_ratio(problem) is None:
        raise InputError(
            "objective",
            "attention_cost is optimised exactly only where every head costs the same parameters per unit of attention "
            "(V = m x regular); for this V use max_cost (every answer reports attention_cost_lower_bound)",
        )


def _optional(value: object, field: str) -> int | None:
    return None if value is None else whole_number(value, field, text=True)


def optimize(
    problem: Problem,
    time_limit: float | None = None,
    *,
    constrained: bool = True,
    backend: str = solver.DEFAULT_BACKEND,
    progress: Progress | None = None,
    numeric_check: bool | None = None,
    threads: int | None = None,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    work_limit: int | None = None,
    engine: str = "auto",
    max_cost: int | None = None,
    objective: str = "params",
) -> OptimizeResult:
    """The covering design with the fewest parameters (ties: fewer heads, then a smaller
    largest head dimension), with the solver's lower bound; and the constrained-vanilla
    answer.

    `time_limit` (seconds, default 60) bounds the whole call, re-checks included.
    `work_limit` (solver branch-and-bound nodes, summed over every program of the call) is a
    deterministic limit: with it, two runs that are not stopped by the clock give the same
    answer. `max_heads` (total heads Σ [G:K_i]) and `max_head_dim` (every dim W_i) restrict
    the designs (compute limits); the answer is then the cheapest design within them,
    `infeasible` when none covers (proven), and the constrained-vanilla question is
    unchanged. Without limits there is always a design (`Design.regular` covers).

    `engine`: "enumerate" (scenarios and demand values listed up front; the
    constrained-vanilla question and the head tie-break), "symbolic" (scenarios, demand
    values and types generated from the symbolic checker's counterexamples, search.py; no
    constrained-vanilla question, no tie-break), or "auto" (symbolic exactly when
    `coverage.uses_symbolic`: past the atlas sizes).

    Example: `optimize(Problem.create("C4", "E1", 2, 1)).design_params == 8` (SPEC §6.2)."""
    tl = _check_time_limit(time_limit)
    if backend not in solver.BACKENDS:
        raise InputError("solver", f"one of {', '.join(solver.BACKENDS)}")
    limits = ComputeLimits(_optional(max_heads, "max_heads"), _optional(max_head_dim, "max_head_dim"), _optional(max_cost, "max_cost"))
    _check_objective(problem, objective)
    work_limit = _optional(work_limit, "work_limit")
    if engine not in ENGINES:
        raise InputError("engine", f"one of {', '.join(ENGINES)}")
    start = Budget.starting(tl, work_limit=work_limit)
    if engine == "symbolic" or (engine == "auto" and uses_symbolic(problem)):
        if uses_symbolic(problem):
            end = start.start + (1.0 - RECHECK_MARGIN) * tl - RECHECK_MARGIN_S
        else:
            end = start.start + (1.0 - RECHECK_SHARE) * tl
        return _optimize_symbolic(problem, start.until(end, work_limit), backend, progress, threads, limits, objective)
    budget = start.until(start.start + (1.0 - RECHECK_SHARE) * tl, work_limit)
    answer = optimize_enumerated(problem, budget, limits, backend, progress, threads, constrained)
    return finish(problem, answer, budget, backend, limits, numeric_check, objective)


def optimize_report(problem: Problem, time_limit: float | None = None, **kw: object) -> dict:
    """The JSON of `eqattn optimize --json` and POST /api/optimize."""
    return optimize(problem, time_limit, **kw).to_json()  # type: ignore[arg-type]


__all__ = ["Design", "optimize", "optimize_report"]
