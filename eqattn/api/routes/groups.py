"""GET /api/group?name=NAME: a group's classes, real irreps and subgroup classes."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from ...errors import InputError
from ..deps import EngineDep
from ..errors import ERRORS
from ..models import MAX_TEXT, GroupOut

router = APIRouter(tags=["groups"])


@router.get("/api/group", response_model=GroupOut, responses=ERRORS)
async def group(
    engine: EngineDep,
    request: Request,
    name: str = Query(min_length=1, max_length=MAX_TEXT, description="catalog name or perm:(1,2),(..)", examples=["C4"]),
    rep: str | None = Query(default=None, min_length=1, max_length=MAX_TEXT,
                            description="V: a compact group (SO2, O2, SO3, O3) is given at the band V names, "
                                        "as every problem of that V is computed (ignored for a finite group)",
                            examples=["16x0e + 8x1o + 4x2e"]),
) -> dict:
    """eqattn.reps.group_views.group_json of the group (built in a worker, with the server's deadline).
    Without `rep` a compact group has its default band (l <= 2, k <= 8)."""
    try:
        return await engine.group(name.strip(), request=request, rep=None if rep is None else rep.strip())
    except InputError as e:
        if e.field in ("group", "name"):
            raise InputError("name", e.message) from e
        raise
