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
from dataclasses import replace

from ..attention import Design, Problem
from ..attention.clusterings import require_checkable
from ..attention.coverage import uses_symbolic
from ..errors import InputError, LimitError, whole_number
from . import search as search_module
from . import solver
from .budget import Budget, Usage
from .enumerated import optimize_enumerated
from .finish import Answer, finish
from .limits import ComputeLimits, uniform_ratio
from .result import ConstrainedResult, OptimizeResult
from .rounds.state import Progress
from .separation import ScenarioSpace
from .vanilla import constrained_from, vanilla_limits

MAX_TIME_LIMIT = 3600.0
DEFAULT_TIME_LIMIT = 60.0
ENGINES = ("auto", "enumerate", "symbolic")
OBJECTIVES = ("params", "attention_cost")
RECHECK_SHARE = 0.15  # of the time limit kept for the enumerating engine's final re-checks
RECHECK_FACTOR = 3.0  # symbolic engine, re-checked by the symbolic checker: this many times the search's check of its answer ...
RECHECK_MARGIN = 0.02  # ... plus this share of the time limit (and RECHECK_MARGIN_S) are kept for the re-check
RECHECK_MARGIN_S = 0.2
AUTO_MAX_VALUES = 500  # demand values up to which "auto" takes the enumerating engine (benchmarks/engines.py) ...
AUTO_ENUMERATE_SHARE = 1 / 3  # ... with this share of the time; not proven by then: the symbolic search goes on
VANILLA_SHARE = 0.1  # of the search time kept for the constrained-vanilla question where "auto" took the symbolic engine


def auto_engine(problem: Problem) -> tuple[str, ScenarioSpace | None, str | None]:
    """The engine "auto" picks: (engine, the scenario space built to decide, why symbolic).

    The enumerating engine lists every demand value up front and sets up a program over
    (head representations × demand values); it also answers the constrained-vanilla
    question and the head tie-break. Past the atlas sizes (`coverage.uses_symbolic`), and
    where the scenario space cannot be listed or has more than `AUTO_MAX_VALUES` demand
    values, the symbolic search answers the same question (the same optimum wherever both
    prove one, measured in benchmarks/engines.py) in a fraction of the time; below that the
    enumerating engine is as fast.

        >>> auto_engine(Problem.create("C2", "A + B", 2, 2))[0]
        'enumerate'
        >>> auto_engine(Problem.create("S4", "regular", 8, 8))[0]
        'symbolic'
    """
    if uses_symbolic(problem):
        return "symbolic", None, None
    try:
        space = ScenarioSpace(problem)
    except LimitError as e:
        return "symbolic", None, f"the enumerating engine cannot list this problem's scenarios ({e.message})"
    n = len(space.values)
    if n > AUTO_MAX_VALUES:
        return "symbolic", None, f"the enumerating engine's program would have {n} demand values (more than {AUTO_MAX_VALUES})"
    return "enumerate", space, None


def _symbolic_answer(
    problem: Problem, budget: Budget, backend: str, progress: Progress | None, threads: int | None, limits: ComputeLimits,
    note: str = "symbolic engine: no constrained-vanilla question and no head tie-break",
) -> Answer:
    """The counterexample search's answer (search.py), for `finish`; `note`: the first of its
    notes (what the engine does not answer, and why "auto" chose it)."""
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
    notes = [note]
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
    if limits.max_cost is not None and problem.price == "params" and answer.status not in ("optimal", "infeasible"):
        answer = _by_cost(problem, answer, budget, backend, threads, limits)
    return answer


def _by_cost(problem: Problem, answer: Answer, budget: Budget, backend: str, threads: int | None, limits: ComputeLimits) -> Answer:
    """An unproven answer under `max_cost`, carried on by the search on the problem priced by
    attention cost (`Problem.priced`, theory-scale B1d) within the same limits for the time
    left: its least cost is the least attention cost of a covering design within the head
    limits, so past `max_cost` nothing within the budget covers (proven, `infeasible`), and
    any design it finds is a covering design within the budget (an incumbent when cheaper)."""
    left = budget.work_left(answer.usage)
    if time.perf_counter() >= budget.hard_end - 0.1 or (left is not None and left <= 0):
        return answer
    priced = _symbolic_answer(problem.priced("attention_cost"), budget.until(budget.hard_end, left), backend, None, threads, limits)
    usage = _usage_sum(answer.usage, priced.usage)
    if priced.status == "infeasible":
        return replace(answer, design=None, status="infeasible", stopped=None, usage=usage, reason=priced.reason,
                       notes=answer.notes + ["proven by the search for the least attention cost (the problem priced by attention cost, theory-scale B1d)"])
    if priced.design is not None:
        design = Design(problem, priced.design.orbits)
        if answer.design is None or design.params < answer.design.params:
            proven = design.params <= 4 * answer.lower_units
            return replace(answer, design=design, status="optimal" if proven else "feasible", stopped=None if proven else answer.stopped,
                           usage=usage, notes=answer.notes + [
                               "the design came from the search for the least attention cost within the limits (theory-scale B1d)"])
    return replace(answer, usage=usage)


def _usage_sum(a: Usage, b: Usage) -> Usage:
    """A new tally of both (`Usage.absorb` adds in place)."""
    out = replace(a)
    out.absorb(b)
    return out


def merge_answers(enum: Answer, sym: Answer) -> Answer:
    """One answer from the enumerating engine's and then the symbolic search's, on the same
    problem and limits: both bounds are valid, so the larger holds; the cheaper design is
    the incumbent (proven when it meets the bound); the symbolic search's proof of
    infeasibility is one; the constrained-vanilla answer is the enumerating engine's (the
    search does not ask it)."""
    usage = _usage_sum(enum.usage, sym.usage)
    notes = enum.notes + sym.notes
    if sym.status == "infeasible" or enum.status == "infeasible":
        a = sym if sym.status == "infeasible" else enum
        return replace(a, design=None, usage=usage, notes=notes, constrained=enum.constrained)
    lower = max(enum.lower_units, sym.lower_units)
    designs = [x for x in (sym, enum) if x.design is not None]
    best = min(designs, key=lambda x: x.design.params) if designs else sym  # (ties: the search's, whose proof is its own)
    proven = best.design is not None and best.design.params <= 4 * lower
    return replace(
        best, status="optimal" if proven else best.status, lower_units=lower, stopped=None if proven else sym.stopped,
        rounds=enum.rounds + sym.rounds, usage=usage, notes=notes, constrained=enum.constrained,
        ties_proven=best is enum and enum.ties_proven, unchecked=sym.unchecked or enum.unchecked,
        reason=None if proven else sym.reason or enum.reason, keys=sym.keys,
    )


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
    constrained-vanilla question, no tie-break), or "auto" (`auto_engine`: symbolic past the
    atlas sizes and where the enumerating engine's scenario space is large).

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
    space, why = None, None
    if engine == "auto":
        engine, space, why = auto_engine(problem)
    search_end = start.start + (1.0 - RECHECK_SHARE) * tl
    if engine == "symbolic":
        if uses_symbolic(problem):
            search_end = start.start + (1.0 - RECHECK_MARGIN) * tl - RECHECK_MARGIN_S
        budget = start.until(search_end, work_limit)
        if why is not None and constrained:  # "auto" at atlas size: the constrained-vanilla question too
            answer = _symbolic_with_vanilla(problem, start, search_end, work_limit, backend, progress, threads, limits, why)
        else:
            note = "symbolic engine: no constrained-vanilla question and no head tie-break" + ("" if why is None else f" ({why})")
            answer = _symbolic_answer(problem, budget, backend, progress, threads, limits, note)
        return finish(problem, answer, budget, backend, limits, False, objective)
    if space is None:  # engine="enumerate", asked for
        budget = start.until(search_end, work_limit)
        answer = optimize_enumerated(problem, budget, limits, backend, progress, threads, constrained)
        return finish(problem, answer, budget, backend, limits, numeric_check, objective)
    # "auto" on a small scenario space: the enumerating engine first (a share of the time, as
    # if it were the whole limit); not proven, the symbolic search goes on with the rest
    share_s = AUTO_ENUMERATE_SHARE * (search_end - start.start)
    share = Budget(start.start, share_s, start.start + share_s, work_limit)
    try:
        first: Answer | None = optimize_enumerated(problem, share, limits, backend, progress, threads, constrained, space)
    except LimitError as e:  # (its set-up stopped by its share of the time, or a limit of its own)
        first, why = None, f"the enumerating engine stopped: {e.message}"
    left = None if work_limit is None or first is None else work_limit - first.usage.work
    if first is None:
        if constrained:
            answer = _symbolic_with_vanilla(problem, start, search_end, work_limit, backend, progress, threads, limits, why)
        else:
            answer = _symbolic_answer(problem, start.until(search_end, work_limit), backend, progress, threads, limits,
                                      f"symbolic engine: no head tie-break ({why})")
    elif first.status not in ("optimal", "infeasible") and (left is None or left > 0) and time.perf_counter() < search_end:
        note = (f"the enumerating engine did not prove the optimum in {time.perf_counter() - start.start:.1f} s; the symbolic search "
                "went on (no head tie-break; the constrained-vanilla answer is the enumerating engine's)")
        answer = merge_answers(first, _symbolic_answer(problem, start.until(search_end, left), backend, progress, threads, limits, note))
    else:
        answer = first
    return finish(problem, answer, start.until(search_end, work_limit), backend, limits, numeric_check, objective)


def _symbolic_with_vanilla(
    problem: Problem, start: Budget, search_end: float, work_limit: int | None, backend: str, progress: Progress | None,
    threads: int | None, limits: ComputeLimits, why: str,
) -> Answer:
    """The symbolic search's optimum ("auto" chose it at atlas size, `why`), then the
    constrained-vanilla question by the same search within H heads of dim <= d
    (vanilla.py) with what is left of the time: the optimum first with VANILLA_SHARE kept."""
    main_end = search_end - VANILLA_SHARE * (search_end - start.start)
    answer = _symbolic_answer(problem, start.until(main_end, work_limit), backend, progress, threads, limits,
                              f"symbolic engine: no head tie-break ({why}); the constrained-vanilla question by the same search")
    cv_limits = vanilla_limits(problem)  # (whatever the caller's limits: the question is the same)
    if not limits.any and answer.design is not None and cv_limits.admits(answer.design):
        # the fewest-parameter design is within H heads of dim <= d: it is the cheapest there too
        return replace(answer, constrained=constrained_from(answer.status, answer.design))
    left = None if work_limit is None else work_limit - answer.usage.work
    if (left is not None and left <= 0) or time.perf_counter() >= search_end:
        return replace(answer, constrained=ConstrainedResult(None, None, "unknown"))
    cv = _symbolic_answer(problem, start.until(search_end, left), backend, None, threads, cv_limits)
    return replace(answer, constrained=constrained_from(cv.status, cv.design), usage=_usage_sum(answer.usage, cv.usage))


def optimize_report(problem: Problem, time_limit: float | None = None, **kw: object) -> dict:
    """The JSON of `eqattn optimize --json` and POST /api/optimize."""
    return optimize(problem, time_limit, **kw).to_json()  # type: ignore[arg-type]


__all__ = ["Design", "optimize", "optimize_report"]
