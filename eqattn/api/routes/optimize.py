"""POST /api/optimize: the "Find optimal design" button (eqattn.optimize).

The body is the problem and an optional `time_limit` (seconds, default 30): it bounds the
whole call — search, constrained-vanilla question and re-checks — and the worker is killed
when it passes (then a 422 on `time_limit`). The answer is `OptimizeResult.to_json()`, the
JSON `eqattn optimize --json` prints.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import Field

from ..deps import EngineDep
from ..engine import MAX_TIME_LIMIT
from ..errors import ERRORS
from ..models import OptimizeOut, ProblemIn

router = APIRouter(tags=["optimize"])


class OptimizeIn(ProblemIn):
    """The problem, and how long the whole call may run."""

    time_limit: float | None = Field(default=None, gt=0, le=MAX_TIME_LIMIT, description="seconds (default 30)")
    max_heads: int | None = Field(default=None, ge=1, le=4096, description="at most this many heads in all")
    max_head_dim: int | None = Field(default=None, ge=1, le=4096, description="every head of at most this dimension")
    max_cost: int | None = Field(default=None, ge=1, le=10**9, description="attention cost (Σ heads × head dim) at most this")
    work_limit: int | None = Field(default=None, ge=1, le=10**9, description="solver nodes (deterministic limit)")


@router.post("/api/optimize", response_model=OptimizeOut, responses=ERRORS)
async def optimize(body: OptimizeIn, engine: EngineDep, request: Request) -> dict:
    """The covering design with the fewest parameters, proven optimal or with its gap."""
    return await engine.optimize(
        body.group, body.rep, body.heads, body.head_dim, body.time_limit, request=request,
        max_heads=body.max_heads, max_head_dim=body.max_head_dim, work_limit=body.work_limit, max_cost=body.max_cost,
    )
