"""POST /api/optimize: the "Find optimal design" button (eqattn.optimize).

Include with `app.include_router(router)` inside `create_app`. The body is the problem
(`group`, `rep`, `heads`, `head_dim`) and an optional `time_limit` in seconds; the answer is
`eqattn.optimize.OptimizeResult.to_json()` — the JSON `eqattn optimize --json`
prints: `{"status", "design_params", "lower_bound", "gap", "vanilla_params", "orbits":
[{"subgroup", "name", "rep", "heads", "head_dim", "params"}], "constrained_vanilla_possible",
...}`. Bad input raises `InputError` (too large: `LimitError`), which the app's handler turns
into a 422 naming the field, as for every other endpoint.

When the app's backend has an `optimize(group, rep, heads, head_dim, time_limit)` method
(a test double), it answers; otherwise the core does, with the backend's cached problem.
The endpoint is a plain `def`, so FastAPI runs it in its threadpool.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from .models import ErrorOut, ProblemIn

DEFAULT_TIME_LIMIT = 30.0  # seconds, when the request gives none
MAX_TIME_LIMIT = 300.0

router = APIRouter()


class OptimizeIn(ProblemIn):
    """The problem, and how long the search may run (the final re-checks come on top)."""

    time_limit: float | None = Field(default=None, gt=0, le=MAX_TIME_LIMIT, description="seconds (default 30)")


def optimize_json(backend: Any, group: str, rep: str, heads: int, head_dim: int, time_limit: float) -> dict:
    """The optimiser's JSON for one problem (the core's, unless the backend answers itself)."""
    custom = getattr(backend, "optimize", None)
    if callable(custom):
        return custom(group, rep, heads, head_dim, time_limit)
    from eqattn.attention import Problem
    from eqattn.optimize import optimize

    make = getattr(backend, "problem", None)
    problem = make(group, rep, heads, head_dim) if callable(make) else Problem.create(group, rep, heads, head_dim)
    return optimize(problem, time_limit).to_json()


@router.post("/api/optimize", responses={422: {"model": ErrorOut, "description": "bad input or a problem too large"}})
def optimize_route(body: OptimizeIn, request: Request) -> dict:
    """The covering design with the fewest parameters, proven optimal or with its gap."""
    backend = getattr(request.app.state, "backend", None)
    tl = body.time_limit if body.time_limit is not None else DEFAULT_TIME_LIMIT
    return optimize_json(backend, body.group, body.rep, body.heads, body.head_dim, tl)
