"""POST /api/front, /api/widening, /api/partial: designs within a compute budget
(eqattn.optimize.reports), on the optimiser's job machinery (the heavy worker pool, killed
past the request's `time_limit`).

Bodies: the problem, `time_limit` (seconds, default 30) and, for /api/partial, the budget
`max_heads` / `max_head_dim` / `max_cost` (at least one), `curve` (also the covered
clusterings as the cost budget grows to the least widening), `engine` and `work_limit` (the
names of `eqattn.partial_coverage`'s keywords and of the CLI's `--work-limit`). Answers: `front_report`,
`widening_report`, `partial_report` (the JSON `eqattn front / widening / optimize
--partial --json` print).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from ...optimize.partial import ENGINES as PARTIAL_ENGINES
from ..deps import EngineDep
from ..engine import DEFAULT_TIME_LIMIT, KILL_MARGIN_S, MAX_TIME_LIMIT, SEARCH_SHARE
from ..errors import ERRORS
from ..models import ProblemIn
from ..work import problem as _problem

router = APIRouter(tags=["budget"])


class BudgetIn(ProblemIn):
    """The problem and how long the whole call may run."""

    time_limit: float | None = Field(default=None, gt=0, le=MAX_TIME_LIMIT, description="seconds (default 30)")


class PartialIn(BudgetIn):
    """The problem, the budget (at least one bound) and the time limit."""

    max_heads: int | None = Field(default=None, ge=1, le=4096, description="at most this many heads in all")
    max_head_dim: int | None = Field(default=None, ge=1, le=4096, description="every head of at most this dimension")
    max_cost: int | None = Field(default=None, ge=1, le=10**7, description="attention cost (Σ heads × head dim) at most this")
    curve: bool = Field(default=False, description="also the covered clusterings as the cost budget grows to the least widening")
    engine: Literal[PARTIAL_ENGINES] = Field(  # type: ignore[valid-type]  # partial_coverage's engines
        default="auto", description="the budget program over every orbit type, the search over subsets of the clusterings, or auto")
    work_limit: int | None = Field(default=None, ge=1, le=10**9,
                                   description="a deterministic limit (solver nodes over the whole call): the same answer on any machine")


class BudgetOut(BaseModel):
    """The report's JSON (see eqattn.optimize.reports)."""

    model_config = ConfigDict(extra="allow")


def front_work(group: str, rep: str, heads: int, head_dim: int, search_limit: float) -> dict:
    from ...optimize.reports import front_report

    return front_report(_problem(group, rep, heads, head_dim), search_limit)


def widening_work(group: str, rep: str, heads: int, head_dim: int, search_limit: float) -> dict:
    from ...optimize.reports import widening_report

    return widening_report(_problem(group, rep, heads, head_dim), search_limit)


def partial_work(group: str, rep: str, heads: int, head_dim: int, search_limit: float, max_heads: int | None,
                 max_head_dim: int | None, max_cost: int | None, curve: bool, engine: str = "auto",
                 work_limit: int | None = None) -> dict:
    from ...optimize.reports import partial_report
    from ...optimize.widening import least_widening

    p = _problem(group, rep, heads, head_dim)
    curve_to = least_widening(p, search_limit / 3).min_attention_cost.value if curve else None
    return partial_report(p, search_limit * (2 / 3 if curve else 1), max_heads=max_heads, max_head_dim=max_head_dim,
                          max_cost=max_cost, curve_to=curve_to, engine=engine, work_limit=work_limit)


async def _run(engine: Any, request: Request, body: BudgetIn, fn: Any, *extra: Any) -> dict:
    tl = DEFAULT_TIME_LIMIT if body.time_limit is None else float(body.time_limit)
    return await engine.run(
        "heavy", fn, body.group, body.rep, body.heads, body.head_dim, SEARCH_SHARE * tl, *extra,
        request=request, deadline=tl + KILL_MARGIN_S, key=body.group, limit_field="time_limit",
        limit_text=f"the search did not finish within the time limit of {tl:g} s; give a larger time_limit (at most {MAX_TIME_LIMIT:g})",
    )


@router.post("/api/front", response_model=BudgetOut, responses=ERRORS)
async def front(body: BudgetIn, engine: EngineDep, request: Request) -> dict:
    """The Pareto front of (attention cost, parameters) over covering designs."""
    return await _run(engine, request, body, front_work)


@router.post("/api/widening", response_model=BudgetOut, responses=ERRORS)
async def widening(body: BudgetIn, engine: EngineDep, request: Request) -> dict:
    """The least attention cost, fewest heads (head dim <= d) and least head dim (<= H heads) of a covering design."""
    return await _run(engine, request, body, widening_work)


@router.post("/api/partial", response_model=BudgetOut, responses=ERRORS)
async def partial(body: PartialIn, engine: EngineDep, request: Request) -> dict:
    """The design within the budget that covers the most clusterings, then has the fewest parameters."""
    return await _run(engine, request, body, partial_work, body.max_heads, body.max_head_dim, body.max_cost, body.curve,
                      body.engine, body.work_limit)
