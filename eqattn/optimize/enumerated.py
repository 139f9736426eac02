"""The enumerating engine (SPEC §5.5; docs/optimizer.md): every scenario and demand value
listed up front (`separation.ScenarioSpace`), the capped types over them, and the lazy
scenario loop (lazy.py); then the head-dimension tie-break and the constrained-vanilla
question (exactly H heads of dimension d). Atlas sizes; `optimize` picks it where
`optimizer.auto_engine` says (below `coverage.uses_symbolic` and a small scenario space).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..attention import Design, Problem
from ..reps import irreps_of
from .budget import Budget
from .finish import Answer
from .lazy import Context, Progress, lazy
from .limits import ComputeLimits
from .program import Objective
from .result import ConstrainedResult, to_design
from .separation import ScenarioSpace
from .type_sets import caps, constrained_types, copy_bounds, design_types

SETUP_SHARE = 0.5  # of the time limit for building the types' host tables (LimitError past it)
SETUP_MIN_S = 10.0
TIES_SHARE = 0.5  # of the optimum's remaining time for the head-dimension tie-break
MAIN_SHARE = 0.75  # of the search time for the optimum; the rest (and what is left) for the constrained question
REPAIR_SHARE_END = 0.1  # of the search time kept for completing the answer a limit stopped (without the constrained question)


def _warm_start(problem: Problem, ctx: Context, limits: ComputeLimits):  # noqa: ANN202 - (table, warm counts or None)
    """The regular design, capped by the demand values (checking it is the up-front size test:
    LimitError when its scenarios are too many to check), and the type table; the warm start
    only when it is within the compute limits."""
    space = ctx.space
    regular = Design.regular(problem, trimmed=True)
    triv = regular.orbits[0].sub
    W = np.array(regular.orbits[0].W.mults, dtype=np.int64)  # C1: (w,); compact G: V|G° (Lemma 5)
    if space.values:
        cap = caps(problem, space, ctx.h, triv.id)
        W = np.minimum(W, cap) if cap is not None else 0 * W
    w = int(W @ np.asarray(irreps_of(triv).dims, dtype=np.int64))
    # (the capped width w, not min(d, dim V), is what the head-dimension limit sees)
    warm_ok = (
        (limits.max_heads is None or regular.heads <= limits.max_heads) and (limits.max_head_dim is None or w <= limits.max_head_dim)
        and (limits.max_cost is None or regular.heads * w <= limits.max_cost)
    )
    b = ctx.budget
    table = design_types(
        problem, space, ctx.h, regular.params if warm_ok else math.inf, b.start + max(SETUP_MIN_S, SETUP_SHARE * b.time_limit),
        max_heads=limits.max_heads, max_head_dim=limits.max_head_dim,
    )
    warm: dict[int, int] | None = {}
    if space.values:
        warm = {i: problem.heads for i, t in enumerate(table.types) if t.sub == triv.id and tuple(t.W) == tuple(W.tolist())}
        if warm_ok and (not warm or ctx.separate(table, warm, 1)):
            raise RuntimeError("internal error: the (capped) regular design does not cover every scenario")
        if not warm_ok:
            warm = None
    return table, warm


def _ties(ctx: Context, table, counts: dict[int, int], best_obj: int, cost_units: int, active: list, lex: Objective,  # noqa: ANN001
          deadline: float, limits: ComputeLimits) -> tuple[dict[int, int], bool, int]:
    """The smallest largest head dimension at the same cost and head count: (counts, proven, rounds)."""
    rounds = 0
    while True:
        dmax = max(table.types[t].dim for t in counts)
        keep = [i for i, t in enumerate(table.types) if t.dim < dmax and lex.coef(t) <= best_obj]
        if not keep:
            return counts, True, rounds
        sub = table.subset(keep)
        U2 = copy_bounds(sub, cost_units, limits.max_heads)
        st2 = lazy(ctx, sub, U2, active, lex, deadline, None, "ties", cutoff=best_obj, heads_max=limits.max_heads, cost_max=limits.max_cost)
        rounds += st2.rounds
        if st2.status == "optimal" and st2.counts is not None and st2.objective == best_obj:
            counts = {keep[t]: c for t, c in st2.counts.items()}
            continue
        return counts, st2.status == "infeasible", rounds


def _constrained(problem: Problem, ctx: Context, active: list, deadline: float) -> tuple[ConstrainedResult, int]:
    """Is there a covering design of exactly H heads of dimension d (and the cheapest)?"""
    ctab = constrained_types(problem, ctx.space, ctx.h)
    Uc = [problem.heads // t.heads for t in ctab.types]
    st3 = lazy(ctx, ctab, Uc, list(active), Objective(0), deadline, None, "constrained", heads_eq=problem.heads)
    if st3.status == "infeasible":
        return ConstrainedResult(False, None, "infeasible"), st3.rounds
    if st3.counts is None:
        return ConstrainedResult(None, None, "unknown"), st3.rounds
    return ConstrainedResult(True, to_design(problem, ctab, st3.counts), st3.status), st3.rounds


def optimize_enumerated(
    problem: Problem, budget: Budget, limits: ComputeLimits, backend: str, progress: Progress | None, threads: int | None, constrained: bool,
    space: ScenarioSpace | None = None,
) -> Answer:
    """The enumerating engine's answer (module docstring), for `finish`; `space`: the
    problem's scenario space when the caller built it already."""
    limits = limits.for_engines()
    ctx = Context(problem, budget, backend, progress, threads, space)
    t_end = budget.hard_end
    span = t_end - budget.start
    main_deadline = budget.start + span * (MAIN_SHARE if constrained else 1.0 - REPAIR_SHARE_END)
    table, warm = _warm_start(problem, ctx, limits)
    warm_units = None if warm is None else sum(table.types[t].units * c for t, c in warm.items())
    U = copy_bounds(table, warm_units, limits.max_heads)
    # lexicographic objective: cost, then heads (weight > any head count a program allows)
    lex = Objective(sum(u * t.heads for u, t in zip(U, table.types)) + 1)
    active = ctx.space.initial_keys()
    st1 = lazy(ctx, table, U, active, lex, main_deadline, warm, "optimum", complete=True, heads_max=limits.max_heads, cost_max=limits.max_cost)
    rounds, counts, status = st1.rounds, st1.counts, st1.status
    stopped = st1.stopped if status != "optimal" else None
    ties_proven = False
    cost_units = None
    lower = 0
    if counts is None:
        if status == "infeasible":
            stopped = None
    else:
        assert st1.objective is not None
        cost_units = sum(table.types[t].units * c for t, c in counts.items())
        lower = cost_units if status == "optimal" else int(max(0, lex.units(st1.bound)))
        if lower >= cost_units:
            status, lower, stopped = "optimal", cost_units, None
        ties_proven = st1.status == "optimal"
    if ties_proven and counts:
        now = time.perf_counter()
        counts, ties_proven, r2 = _ties(ctx, table, counts, st1.objective, cost_units, active, lex, now + TIES_SHARE * max(0.0, main_deadline - now), limits)
        rounds += r2
    design = to_design(problem, table, counts) if counts is not None else None
    cres = None
    if constrained:
        cres, r3 = _constrained(problem, ctx, active, max(t_end, time.perf_counter() + min(1.0, budget.time_limit)))
        rounds += r3
    ctx.report(stage="recheck", scenarios=len(active), bound=4 * lower, incumbent=None if cost_units is None else 4 * cost_units)
    if design is not None and design.params != 4 * cost_units:
        raise RuntimeError("internal error: design cost differs from the program's objective")
    notes = []
    if status == "optimal" and not ties_proven:
        notes.append("the tie-break (fewer heads, then a smaller largest head dimension) did not finish within the limits")
    if cres is not None and cres.possible is None:
        notes.append("the constrained-vanilla question was not decided within the limits")
    elif cres is not None and cres.possible and cres.status != "optimal":
        notes.append("the constrained-vanilla design found is not proven the cheapest")
    return Answer(
        design, status, lower, stopped, rounds, len(table), len(active), ctx.usage, scenarios_total=ctx.raw_scenarios,
        ties_proven=ties_proven, constrained=cres, unchecked=ctx.unchecked, reason=ctx.reason, notes=notes,
    )
