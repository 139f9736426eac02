"""POST /api/design (live parameter counts, SPEC §3) and POST /api/coverage (SPEC §4)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from ..deps import EngineDep
from ..errors import ERRORS
from ..models import CoverageOut, DesignIn, DesignOut

router = APIRouter(tags=["designs"])


def orbits(body: DesignIn) -> list[tuple[int | str, str]]:
    return [(o.subgroup, o.rep) for o in body.orbits]


@router.post("/api/design", response_model=DesignOut, responses=ERRORS)
async def design(body: DesignIn, engine: EngineDep, request: Request) -> dict:
    """Parameter counts of the design (fast; the page calls it on every keystroke)."""
    return await engine.design(body.group, body.rep, body.heads, body.head_dim, orbits(body), request=request)


@router.post("/api/coverage", response_model=CoverageOut, responses=ERRORS)
async def coverage(body: DesignIn, engine: EngineDep, request: Request) -> dict:
    """eqattn.attention.check_report: each clustering covered (witness) or not (counterexample)."""
    return await engine.coverage(body.group, body.rep, body.heads, body.head_dim, orbits(body), request=request)
