"""`optimize`: optimal designs with a proof (SPEC §5.5; the derivation is docs/optimizer.md).

Among all designs that cover every clustering of (G, V, H, d), the one with the fewest
parameters (ties: fewer heads, then a smaller largest head dimension), with the solver's
lower bound, and the constrained-vanilla answer (exactly H heads of dimension d).

    >>> optimize(Problem.create("C2", "A + B", 2, 2)).status
    'optimal'
"""

from __future__ import annotations

import math
import time

from ..attention import Design, Problem, check_coverage
from ..errors import InputError, LimitError
from ..numeric import verify_design
from . import solver
from .lazy import Context, Progress, lazy
from .program import Objective
from .result import ConstrainedResult, OptimizeResult, to_design
from .types import caps, constrained_types, copy_bounds, design_types

SETUP_SHARE = 0.5  # of the time limit for building the types' host tables (LimitError past it)
SETUP_MIN_S = 10.0
MAX_TIME_LIMIT = 3600.0
DEFAULT_TIME_LIMIT = 60.0
NUMERIC_MAX_SCENARIOS = 300  # numeric re-check (weight construction) up to this many witnesses
NUMERIC_MAX_DIM_V = 12  # ... and this dim V
TIES_SHARE = 0.5  # of the optimum's remaining time for the head-dimension tie-break
MAIN_SHARE = 0.75  # of the time limit for the optimum; the rest (and what is left) for the constrained question


def _recheck(problem: Problem, design: Design, what: str):  # noqa: ANN202 - tuple of Verdict
    """The coverage checker's verdicts; every clustering must be covered."""
    try:
        verdicts = check_coverage(problem, design)
    except LimitError as e:
        raise LimitError(e.field, f"the {what} design cannot be re-checked by the coverage checker: {e.message}") from e
    bad = [v.clustering.id for v in verdicts if not v.covered]
    if bad:
        raise RuntimeError(f"internal error: the {what} design does not cover clusterings {bad}")
    return verdicts


def _numeric(problem: Problem, design: Design, verdicts, what: str) -> float:  # noqa: ANN001
    """The weight construction for every witness; the relative error must be <= 1e-8."""
    err = verify_design(problem, design, seed=0, verdicts=verdicts).worst_rel_error
    if not err <= 1e-8:
        raise RuntimeError(f"internal error: weight construction for the {what} design has relative error {err:.2e}")
    return err



def _check_time_limit(time_limit: float | None) -> float:
    if time_limit is None:
        return DEFAULT_TIME_LIMIT
    try:
        tl = float(time_limit)
    except (TypeError, ValueError):
        raise InputError("time_limit", f"must be a number of seconds, got {time_limit!r}") from None
    if not math.isfinite(tl) or tl <= 0:
        raise InputError("time_limit", f"must be a positive number of seconds, got {time_limit!r}")
    if tl > MAX_TIME_LIMIT:
        raise LimitError("time_limit", f"at most {MAX_TIME_LIMIT:g} seconds, got {tl:g}")
    return tl


def optimize(
    problem: Problem,
    time_limit: float | None = None,
    *,
    constrained: bool = True,
    backend: str = solver.DEFAULT_BACKEND,
    progress: Progress | None = None,
    numeric_check: bool | None = None,
    threads: int | None = None,
) -> OptimizeResult:
    """The covering design with the fewest parameters (ties: fewer heads, then a smaller
    largest head dimension), with the solver's lower bound; and the constrained-vanilla
    answer. `time_limit` (seconds) bounds the search; the final re-checks come on top."""
    tl = _check_time_limit(time_limit)
    if backend not in solver.BACKENDS:
        raise InputError("solver", f"one of {', '.join(solver.BACKENDS)}")
    ctx = Context(problem, backend, progress, threads)
    ctx.unchecked = False
    ctx.time_limit = tl
    t_end = ctx.t0 + tl
    main_deadline = ctx.t0 + (MAIN_SHARE * tl if constrained else tl)
    space = ctx.space

    # warm start: H copies of the regular orbit (C1, min(d, dim V) trivial), capped; checking
    # it is the up-front size test (LimitError when its scenarios are too many to check)
    triv = problem.group.subgroup_classes[0]
    reg_W = min(problem.head_dim, problem.dim_v)
    reg_cost = 4 * problem.heads * reg_W * problem.dim_v
    table = design_types(problem, space, ctx.h, reg_cost, ctx.t0 + max(SETUP_MIN_S, SETUP_SHARE * tl))
    warm: dict[int, int] = {}
    if space.values:
        cap = caps(problem, space, ctx.h, triv.id)
        w = min(reg_W, int(cap[0])) if cap is not None else 0
        warm = {i: problem.heads for i, t in enumerate(table.types) if t.sub == triv.id and t.W == (w,)}
        if not warm or ctx.separate(table, warm, 1):
            raise RuntimeError("internal error: the (capped) regular design does not cover every scenario")
    warm_units = sum(table.types[t].units * c for t, c in warm.items())
    U = copy_bounds(table, warm_units)
    # lexicographic objective: cost, then heads (weight > any head count a program allows)
    lex = Objective(sum(u * t.heads for u, t in zip(U, table.types)) + 1)
    active = space.initial_keys()
    st1 = lazy(ctx, table, U, active, lex, main_deadline, warm, "optimum", repair=True)
    assert st1.counts is not None and st1.objective is not None  # the warm start covers
    counts, best_obj = st1.counts, st1.objective
    cost_units = sum(table.types[t].units * c for t, c in counts.items())
    status = st1.status
    lower = cost_units if status == "optimal" else int(max(0, lex.units(st1.bound)))
    if lower >= cost_units:
        status, lower = "optimal", cost_units
    rounds = st1.rounds
    ties_proven = st1.status == "optimal"
    if ties_proven and counts:
        # then the smallest largest head dimension at the same cost and head count
        now = time.perf_counter()
        ties_deadline = now + TIES_SHARE * max(0.0, main_deadline - now)
        while True:
            dmax = max(table.types[t].dim for t in counts)
            keep = [i for i, t in enumerate(table.types) if t.dim < dmax and lex.coef(t) <= best_obj]
            if not keep:
                break
            sub = table.subset(keep)
            U2 = copy_bounds(sub, cost_units)
            st2 = lazy(ctx, sub, U2, active, lex, ties_deadline, None, "ties", cutoff=best_obj)
            rounds += st2.rounds
            if st2.status == "optimal" and st2.counts is not None and st2.objective == best_obj:
                counts = {keep[t]: c for t, c in st2.counts.items()}
                continue
            if st2.status != "infeasible":
                ties_proven = False
            break
    design = to_design(problem, table, counts)

    cres = None
    if constrained:
        ctab = constrained_types(problem, space, ctx.h)
        Uc = [problem.heads // t.heads for t in ctab.types]
        c_deadline = max(t_end, time.perf_counter() + min(1.0, tl))
        st3 = lazy(ctx, ctab, Uc, list(active), Objective(0), c_deadline, None, "constrained", heads_eq=problem.heads)
        rounds += st3.rounds
        if st3.status == "infeasible":
            cres = ConstrainedResult(False, None, "infeasible")
        elif st3.counts is None:
            cres = ConstrainedResult(None, None, "unknown")
        else:
            cres = ConstrainedResult(True, to_design(problem, ctab, st3.counts), st3.status)

    ctx.report(stage="recheck", scenarios=len(active), bound=4 * lower, incumbent=4 * cost_units)
    verdicts = _recheck(problem, design, "optimal")
    witnesses = sum(len(v.witnesses) for v in verdicts)
    if numeric_check is None:
        numeric_check = witnesses <= NUMERIC_MAX_SCENARIOS and problem.dim_v <= NUMERIC_MAX_DIM_V
    err = _numeric(problem, design, verdicts, "optimal") if numeric_check else None
    if cres is not None and cres.design is not None:
        cv = _recheck(problem, cres.design, "constrained-vanilla")
        if numeric_check and sum(len(v.witnesses) for v in cv) <= NUMERIC_MAX_SCENARIOS:
            _numeric(problem, cres.design, cv, "constrained-vanilla")
    if design.params != 4 * cost_units:
        raise RuntimeError("internal error: design cost differs from the program's objective")
    notes = []
    if ctx.unchecked:
        notes.append("a candidate design left too many scenarios to check; the search kept the best design it could check")
    if status == "optimal" and not ties_proven:
        notes.append("the tie-break (fewer heads, then a smaller largest head dimension) did not finish within the time limit")
    if cres is not None and cres.possible is None:
        notes.append("the constrained-vanilla question was not decided within the time limit")
    elif cres is not None and cres.possible and cres.status != "optimal":
        notes.append("the constrained-vanilla design found is not proven the cheapest")
    return OptimizeResult(
        problem=problem,
        design=design,
        design_params=design.params,
        lower_bound=4 * lower,
        status=status,
        time_s=time.perf_counter() - ctx.t0,
        constrained=cres,
        scenarios_total=ctx.raw_scenarios,
        scenarios_checked=witnesses,
        scenarios_used=len(active),
        rounds=rounds,
        solver=backend,
        solver_time_s=ctx.solver_time,
        verified_clusterings=len(verdicts),
        numeric_rel_error=err,
        types=len(table),
        ties_proven=ties_proven,
        notes=notes,
    )


def optimize_report(problem: Problem, time_limit: float | None = None, **kw: object) -> dict:
    """The JSON of `eqattn optimize --json` and POST /api/optimize."""
    return optimize(problem, time_limit, **kw).to_json()  # type: ignore[arg-type]
