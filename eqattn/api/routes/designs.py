"""POST /api/design (live parameter counts, SPEC §3), POST /api/coverage (SPEC §4) and
POST /api/coverage/detail (one clustering's witnesses or counterexample).

A coverage answer carries every witness while their JSON stays under
`work.COVERAGE_DETAIL_BYTES`; past it (e.g. Oh, regular, H = 16, d = 48: 23,147 clusterings,
190 MB with detail) it has the verdicts only, `detail_omitted: true` at the top and on each
clustering, and the page fetches a clustering's detail with POST /api/coverage/detail.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from pydantic import Field

from ..deps import EngineDep
from ..errors import ERRORS
from ..models import CoverageClusteringOut, CoverageOut, DesignIn, DesignOut

router = APIRouter(tags=["designs"])


def orbits(body: DesignIn) -> list[tuple[int | str, str]]:
    return [(o.subgroup, o.rep) for o in body.orbits]


@router.post("/api/design", response_model=DesignOut, responses=ERRORS)
async def design(body: DesignIn, engine: EngineDep, request: Request) -> dict:
    """Parameter counts of the design (fast; the page calls it on every keystroke)."""
    return await engine.design(body.group, body.rep, body.heads, body.head_dim, orbits(body), request=request)


class CoverageDetailIn(DesignIn):
    clustering: int = Field(ge=0, le=10**7, description="clustering id (from /api/clusterings)")


@router.post("/api/coverage", response_model=CoverageOut, responses=ERRORS)
async def coverage(body: DesignIn, engine: EngineDep, request: Request) -> Response:
    """eqattn.attention.check_report: each clustering covered (witness) or not (counterexample);
    a large answer comes without the detail (`detail_omitted`), see /api/coverage/detail."""
    data = await engine.coverage(body.group, body.rep, body.heads, body.head_dim, orbits(body), request=request)
    return Response(content=data, media_type="application/json")


@router.post("/api/coverage/detail", response_model=CoverageClusteringOut, response_model_exclude_unset=True, responses=ERRORS)
async def coverage_detail(body: CoverageDetailIn, engine: EngineDep, request: Request) -> dict:
    """One clustering's verdict with all its detail: the witnesses, or the counterexample."""
    return await engine.coverage_detail(body.group, body.rep, body.heads, body.head_dim, orbits(body), body.clustering, request=request)
