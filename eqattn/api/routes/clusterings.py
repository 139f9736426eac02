"""POST /api/clusterings: the vanilla parameter count and the G-clusterings (SPEC §2)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from ..deps import EngineDep
from ..errors import ERRORS
from ..models import ClusteringsOut, ProblemIn

router = APIRouter(tags=["clusterings"])


@router.post("/api/clusterings", response_model=ClusteringsOut, responses=ERRORS)
async def clusterings(body: ProblemIn, engine: EngineDep, request: Request) -> dict:
    """eqattn.attention.clusterings_report of the problem."""
    return await engine.clusterings(body.group, body.rep, body.heads, body.head_dim, request=request)
