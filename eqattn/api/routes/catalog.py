"""GET /api/catalog: the group catalog (eqattn.groups.catalog_entries)."""

from __future__ import annotations

from fastapi import APIRouter

from ..deps import EngineDep
from ..errors import ERRORS
from ..models import CatalogEntry

router = APIRouter(tags=["catalog"])


@router.get("/api/catalog", response_model=list[CatalogEntry], responses=ERRORS)
async def catalog(engine: EngineDep) -> list[dict]:
    """Every catalog group: name, order, family."""
    return await engine.catalog()
