"""`optimize`: optimal designs with a proof (SPEC §5.5; the derivation is docs/optimizer.md).

Among all designs that cover every clustering of (G, V, H, d), the one with the fewest
parameters (ties: fewer heads, then a smaller largest head dimension), with the solver's
lower bound, and the constrained-vanilla answer (exactly H heads of dimension d).

    >>> optimize(Problem.create("C2", "A + B", 2, 2)).status
    'optimal'
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np

from ..attention import Design, Problem, check_coverage
from ..attention.clusterings import MAX_CLUSTERINGS, count_clusterings, require_checkable
from ..attention.coverage import uses_symbolic
from ..attention.symbolic import representative_coverage
from ..errors import InputError, LimitError
from ..numeric import verify_design
from ..numeric.verify import MAX_VERIFY_BYTES, verify_memory
from . import solver
from .lazy import Context, Progress, lazy
from .program import Objective
from .result import ConstrainedResult, OptimizeResult, to_design
from .symbolic_search import SearchContext, search, seed_for
from .types import caps, constrained_types, copy_bounds, design_types

SETUP_SHARE = 0.5  # of the time limit for building the types' host tables (LimitError past it)
SETUP_MIN_S = 10.0
MAX_TIME_LIMIT = 3600.0
DEFAULT_TIME_LIMIT = 60.0
NUMERIC_MAX_SCENARIOS = 300  # numeric re-check (weight construction) up to this many witnesses
NUMERIC_MAX_DIM_V = 12  # ... and this dim V
TIES_SHARE = 0.5  # of the optimum's remaining time for the head-dimension tie-break
MAIN_SHARE = 0.75  # of the search time for the optimum; the rest (and what is left) for the constrained question
REPAIR_SHARE_END = 0.1  # of the search time kept for repairing the answer a limit stopped (without the constrained question)
ENGINES = ("auto", "enumerate", "symbolic")
RECHECK_SHARE = 0.15  # of the time limit kept for the final re-checks (the limit bounds the whole call)
RECHECK_FACTOR = 3.0  # symbolic engine, re-checked by the symbolic checker: this many times the search's check of its answer ...
RECHECK_MARGIN = 0.02  # ... plus this share of the time limit (and RECHECK_MARGIN_S) are kept for the re-check
RECHECK_MARGIN_S = 0.2

log = logging.getLogger("eqattn.optimize")


def _recheck(problem: Problem, design: Design, what: str):  # noqa: ANN202 - tuple of Verdict
    """The coverage checker's verdicts; every clustering must be covered."""
    try:
        if count_clusterings(problem) > MAX_CLUSTERINGS:  # not listed: the representatives (theory-scale C7)
            verdicts = representative_coverage(problem, design)
        else:
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



def _optimize_symbolic(
    problem: Problem,
    tl: float,
    backend: str,
    progress: Progress | None,
    threads: int | None,
    max_heads: int | None,
    max_head_dim: int | None,
    work_limit: int | None,
) -> OptimizeResult:
    """`optimize` by the counterexample loop (symbolic_search.py), then the re-check."""
    ctx = SearchContext(problem, backend, progress, threads)
    ctx.time_limit = tl
    ctx.work_limit = work_limit
    if uses_symbolic(problem):
        # the re-check runs the same checker over the same clusterings as the search's check
        # of its answer (measured: 0.25-1.1x that time): the search keeps a multiple of it
        deadline = ctx.t0 + (1.0 - RECHECK_MARGIN) * tl - RECHECK_MARGIN_S
        factor = RECHECK_FACTOR
    else:  # re-checked by the enumerating checker: a share of the limit
        deadline, factor = ctx.t0 + (1.0 - RECHECK_SHARE) * tl, 0.0
    ctx.hard_end = deadline
    require_checkable(problem)  # refused up front (LimitError) before the seed's search runs
    # the search of H / k heads (theory-scale O16), run once the regular design is checked
    res = search(
        ctx, deadline, max_heads, max_head_dim, recheck_factor=factor, seed=lambda end: seed_for(ctx, end, max_heads, max_head_dim),
        repair_always=True,
    )
    seed = ctx.seed
    ctx.report(stage="recheck", scenarios=res.scenarios, bound=4 * res.lower_units)
    verdicts: tuple = ()
    if res.design is not None:
        t_re = time.perf_counter()
        verdicts = _recheck(problem, res.design, "optimal")
        log.debug("re-check %.2fs (the search's check of the design %.2fs)", time.perf_counter() - t_re, ctx.best_check_s)
        if max_heads is not None and res.design.heads > max_heads:
            raise RuntimeError("internal error: the design has more heads than max_heads")
        if max_head_dim is not None and any(o.head_dim > max_head_dim for o in res.design.orbits):
            raise RuntimeError("internal error: the design has a head dimension above max_head_dim")
    notes = ["symbolic engine: no constrained-vanilla question and no head tie-break"]
    if seed is not None:
        h1 = problem.heads // seed.k
        notes.append(
            f"seeded by the search of H = {h1} heads (theory-scale O16): its {len(seed.keys)} scenario keys repeated {seed.k} times"
            + ("" if seed.design is None else f", its design ({seed.design.params} parameters) repeated {seed.k} times as a candidate")
        )
    total = count_clusterings(problem)
    if total > MAX_CLUSTERINGS and verdicts:
        notes.append(
            f"re-checked over {len(verdicts)} representative clusterings of the {total} (theory-scale C7: covering them covers every clustering)"
        )
    if ctx.unchecked:
        notes.append("a candidate design could not be checked within the symbolic checker's limits")
    if res.status == "infeasible":
        notes.append("no design within the compute constraints (max_heads, max_head_dim) covers every clustering (proven)")
    if res.status == "unknown":
        notes.append("no covering design within the compute constraints was found before the limit")
    return OptimizeResult(
        problem=problem,
        design=res.design,
        design_params=None if res.design is None else res.design.params,
        lower_bound=4 * res.lower_units,
        status=res.status,
        time_s=time.perf_counter() - ctx.t0,
        constrained=None,
        scenarios_total=0,
        scenarios_checked=sum(len(v.witnesses) for v in verdicts),
        scenarios_used=res.scenarios,
        rounds=res.rounds,
        solver=backend,
        solver_time_s=ctx.solver_time,
        verified_clusterings=len(verdicts),
        numeric_rel_error=None,
        types=res.types,
        ties_proven=False,
        notes=notes,
        stopped_by=res.stopped,
        work=ctx.work,
        max_heads=max_heads,
        max_head_dim=max_head_dim,
    )


def _check_bound(value: object, field: str) -> int | None:
    """A compute constraint or work limit: None or a whole number >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)):
        raise InputError(field, f"must be a whole number >= 1, got {value!r}")
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise InputError(field, f"must be a whole number >= 1, got {value!r}") from None
    if v < 1:
        raise InputError(field, f"must be at least 1, got {v}")
    return v


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
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    work_limit: int | None = None,
    engine: str = "auto",
) -> OptimizeResult:
    """The covering design with the fewest parameters (ties: fewer heads, then a smaller
    largest head dimension), with the solver's lower bound; and the constrained-vanilla
    answer.

    `time_limit` (seconds, default 60) bounds the whole call: the search stops at
    (1 - RECHECK_SHARE) of it, leaving the rest for the re-checks (the exact coverage
    checker; a large re-check can still run past it). `work_limit` (solver branch-and-bound
    nodes, summed over every program of the call) is a deterministic limit: with it, two
    runs that are not stopped by the clock give the same answer. `max_heads` (total heads
    Σ [G:K_i]) and `max_head_dim` (every dim W_i) restrict the designs (compute-aware
    designs); the answer is then the cheapest design within them, `infeasible` when none
    covers (proven), and the constrained-vanilla question is unchanged.

    `engine`: "enumerate" (scenarios and demand values listed up front, lazy scenario
    separation; the constrained-vanilla question and the head tie-break), "symbolic"
    (scenarios, demand values and types generated from the symbolic checker's
    counterexamples, symbolic_search.py; no constrained-vanilla question, no tie-break), or
    "auto" (symbolic exactly when `coverage.uses_symbolic`: past the atlas sizes).

    Example: `optimize(Problem.create("C4", "E1", 2, 1)).design_params == 8` (SPEC §6.2)."""
    tl = _check_time_limit(time_limit)
    if backend not in solver.BACKENDS:
        raise InputError("solver", f"one of {', '.join(solver.BACKENDS)}")
    max_heads = _check_bound(max_heads, "max_heads")
    max_head_dim = _check_bound(max_head_dim, "max_head_dim")
    work_limit = _check_bound(work_limit, "work_limit")
    if engine not in ENGINES:
        raise InputError("engine", f"one of {', '.join(ENGINES)}")
    if engine == "symbolic" or (engine == "auto" and uses_symbolic(problem)):
        return _optimize_symbolic(problem, tl, backend, progress, threads, max_heads, max_head_dim, work_limit)
    ctx = Context(problem, backend, progress, threads)
    ctx.unchecked = False
    ctx.time_limit = tl
    ctx.work_limit = work_limit
    t_end = ctx.t0 + (1.0 - RECHECK_SHARE) * tl
    ctx.hard_end = t_end
    main_deadline = ctx.t0 + (1.0 - RECHECK_SHARE) * tl * (MAIN_SHARE if constrained else 1.0 - REPAIR_SHARE_END)
    space = ctx.space

    # warm start: H copies of the regular orbit (C1, min(d, dim V) trivial), capped; checking
    # it is the up-front size test (LimitError when its scenarios are too many to check).
    # It is the incumbent only when it meets the compute constraints.
    triv = problem.group.subgroup_classes[0]
    reg_W = min(problem.head_dim, problem.dim_v)
    reg_cost = 4 * problem.heads * reg_W * problem.dim_v
    w = reg_W
    if space.values:
        cap = caps(problem, space, ctx.h, triv.id)
        w = min(reg_W, int(cap[0])) if cap is not None else 0
    warm_ok = (max_heads is None or problem.heads * triv.index <= max_heads) and (max_head_dim is None or w <= max_head_dim)
    table = design_types(
        problem, space, ctx.h, reg_cost if warm_ok else math.inf, ctx.t0 + max(SETUP_MIN_S, SETUP_SHARE * tl),
        max_heads=max_heads, max_head_dim=max_head_dim,
    )
    warm: dict[int, int] | None = {}
    if space.values:
        warm = {i: problem.heads for i, t in enumerate(table.types) if t.sub == triv.id and t.W == (w,)}
        if warm_ok and (not warm or ctx.separate(table, warm, 1)):
            raise RuntimeError("internal error: the (capped) regular design does not cover every scenario")
        if not warm_ok:
            warm = None
    warm_units = None if warm is None else sum(table.types[t].units * c for t, c in warm.items())
    U = copy_bounds(table, warm_units, max_heads)
    # lexicographic objective: cost, then heads (weight > any head count a program allows)
    lex = Objective(sum(u * t.heads for u, t in zip(U, table.types)) + 1)
    active = space.initial_keys()
    st1 = lazy(ctx, table, U, active, lex, main_deadline, warm, "optimum", repair=True, heads_max=max_heads)
    rounds = st1.rounds
    stopped_by = st1.stopped if st1.status != "optimal" else None
    counts = st1.counts
    status = st1.status
    ties_proven = False
    if counts is None:
        cost_units = None
        lower = 0 if status != "infeasible" else 0
        if status == "infeasible":
            stopped_by = None
    else:
        best_obj = st1.objective
        assert best_obj is not None
        cost_units = sum(table.types[t].units * c for t, c in counts.items())
        lower = cost_units if status == "optimal" else int(max(0, lex.units(st1.bound)))
        if lower >= cost_units:
            status, lower, stopped_by = "optimal", cost_units, None
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
            U2 = copy_bounds(sub, cost_units, max_heads)
            st2 = lazy(ctx, sub, U2, active, lex, ties_deadline, None, "ties", cutoff=best_obj, heads_max=max_heads)
            rounds += st2.rounds
            if st2.status == "optimal" and st2.counts is not None and st2.objective == best_obj:
                counts = {keep[t]: c for t, c in st2.counts.items()}
                continue
            if st2.status != "infeasible":
                ties_proven = False
            break
    design = to_design(problem, table, counts) if counts is not None else None

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

    ctx.report(stage="recheck", scenarios=len(active), bound=4 * lower, incumbent=None if cost_units is None else 4 * cost_units)
    verdicts: tuple = ()
    err = None
    if design is not None:
        verdicts = _recheck(problem, design, "optimal")
        if max_heads is not None and design.heads > max_heads:
            raise RuntimeError("internal error: the design has more heads than max_heads")
        if max_head_dim is not None and any(o.head_dim > max_head_dim for o in design.orbits):
            raise RuntimeError("internal error: the design has a head dimension above max_head_dim")
    witnesses = sum(len(v.witnesses) for v in verdicts)
    if numeric_check is None:
        numeric_check = witnesses <= NUMERIC_MAX_SCENARIOS and problem.dim_v <= NUMERIC_MAX_DIM_V
        numeric_check = numeric_check and (design is None or verify_memory(problem, design)[0] <= MAX_VERIFY_BYTES)
    err = _numeric(problem, design, verdicts, "optimal") if (design is not None and numeric_check) else None
    if cres is not None and cres.design is not None:
        cv = _recheck(problem, cres.design, "constrained-vanilla")
        if (numeric_check and sum(len(v.witnesses) for v in cv) <= NUMERIC_MAX_SCENARIOS
                and verify_memory(problem, cres.design)[0] <= MAX_VERIFY_BYTES):
            _numeric(problem, cres.design, cv, "constrained-vanilla")
    if design is not None and design.params != 4 * cost_units:
        raise RuntimeError("internal error: design cost differs from the program's objective")
    notes = []
    if ctx.unchecked:
        notes.append("a candidate design left too many scenarios to check; the search kept the best design it could check")
    if status == "infeasible":
        notes.append("no design within the compute constraints (max_heads, max_head_dim) covers every clustering (proven)")
    if status == "unknown":
        notes.append("no covering design within the compute constraints was found before the limit")
    if status == "optimal" and not ties_proven:
        notes.append("the tie-break (fewer heads, then a smaller largest head dimension) did not finish within the limits")
    if cres is not None and cres.possible is None:
        notes.append("the constrained-vanilla question was not decided within the limits")
    elif cres is not None and cres.possible and cres.status != "optimal":
        notes.append("the constrained-vanilla design found is not proven the cheapest")
    return OptimizeResult(
        problem=problem,
        design=design,
        design_params=None if design is None else design.params,
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
        stopped_by=stopped_by,
        work=ctx.work,
        max_heads=max_heads,
        max_head_dim=max_head_dim,
    )


def optimize_report(problem: Problem, time_limit: float | None = None, **kw: object) -> dict:
    """The JSON of `eqattn optimize --json` and POST /api/optimize."""
    return optimize(problem, time_limit, **kw).to_json()  # type: ignore[arg-type]
