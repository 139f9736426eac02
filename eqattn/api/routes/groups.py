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
) -> dict:
    """eqattn.reps.group_views.group_json of the group (built in a worker, with the server's deadline)."""
    try:
        return await engine.group(name.strip(), request=request)
    except InputError as e:
        if e.field in ("group", "name"):
            raise InputError("name", e.message) from e
        raise
