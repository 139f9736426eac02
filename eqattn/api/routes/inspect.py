"""The page's explanations: the subgroup inspector, the character table of G,
every witness of a clustering (paged) and "Verify numerically" for one clustering.

  GET  /api/subgroup?group=NAME&id=N      eqattn.reps.group_views.subgroup_inspector_json
  GET  /api/character-table?group=NAME    eqattn.reps.group_views.character_table_json (of G)
  GET  /api/restrictions?group=NAME&rep=V eqattn.reps.group_views.restrictions_json (V|K per class K)
  POST /api/witnesses   WitnessesIn       eqattn.attention.views.witnesses_page
  POST /api/verify      VerifyIn          eqattn.numeric.verify.verify_clustering

No theory here: each endpoint runs one function of eqattn/api/work.py in the engine's worker
pools (the group lookups in the pool of the group, witnesses and verify in "heavy"), with the
server's deadline and cancellation when the client leaves. Bad input raises the core's
`InputError(field, message)`, answered as `{field, message}` (eqattn/api/errors.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from ...errors import InputError
from .. import work
from ..deps import EngineDep
from ..errors import ERRORS
from ..models import MAX_TEXT, DesignIn
from .designs import orbits

router = APIRouter(tags=["inspect"])


# ----------------------------------------------------------------------------- models
class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ElementOut(_Open):
    index: int = Field(description="the element's number g<index> (g0 is the identity)")
    word: str = Field(description="a word in G's generators a, b, c, ...; e is the identity")
    order: int
    cycles: str | None = Field(default=None, description="disjoint cycles, when G is a permutation group")


class ClassOut(_Open):
    size: int
    order: int
    rep: ElementOut


class CharacterRowOut(_Open):
    label: str
    dim: int
    type: str
    character: list[float]


class CharacterTableOut(_Open):
    classes: list[ClassOut]
    irreps: list[CharacterRowOut]


class SubgroupOut(_Open):
    """The subgroup inspector: K's generators, elements (or size), normaliser, isomorphism, irreps."""

    group: str
    id: int
    name: str
    type: str
    order: int
    index: int
    conjugates: int
    normal: bool
    is_whole_group: bool
    generators: list[ElementOut]
    elements: list[ElementOut] | None = Field(description="null when K is too large to list")
    normalizer: dict[str, Any]
    isomorphism: dict[str, Any]
    character_table: CharacterTableOut


class RestrictionIrrepOut(_Open):
    label: str
    dim: int
    multiplicity: int = Field(description="m_τ(V|K)")
    params_per_copy: int = Field(description="4 · m_τ(V|K) · e_τ: the parameters one copy of τ in W adds")


class RestrictionOut(_Open):
    id: int
    name: str
    text: str = Field(description="V|K in the rep notation")
    irreps: list[RestrictionIrrepOut]


class RestrictionsOut(_Open):
    group: str
    rep: str
    subgroups: list[RestrictionOut]


class WitnessesIn(DesignIn):
    clustering: int = Field(ge=0, description="clustering id (from /api/clusterings)")
    offset: int = Field(default=0, ge=0, le=1_000_000)
    limit: int = Field(default=10, ge=1, le=50)


class WitnessPageOut(_Open):
    clustering: int
    total: int = Field(description="all scenarios of the clustering")
    offset: int
    limit: int
    witnesses: list[dict[str, Any]]


class VerifyIn(DesignIn):
    clustering: int = Field(ge=0, description="clustering id (from /api/clusterings)")
    seed: int = Field(default=0, ge=0, le=2**32 - 1)


class VerifyOut(_Open):
    clustering: int
    covered: bool
    scenarios_verified: int
    worst_rel_error: float
    worst_equivariance_error: float
    tolerance: float
    ok: bool
    haar_samples: int = Field(default=0, description="a compact group: equivariance of both layers was checked under the "
                                                     "stand-in's generators and this many Haar-random elements of G; "
                                                     "0 for a finite group (its generators)")


def _group_field(e: InputError) -> InputError:
    return InputError("group", e.message) if e.field in ("name", "spec") else e


# ----------------------------------------------------------------------------- routes
@router.get("/api/subgroup", response_model=SubgroupOut, responses=ERRORS)
async def subgroup(
    engine: EngineDep,
    request: Request,
    group: str = Query(min_length=1, max_length=MAX_TEXT, examples=["D4"]),
    id: int = Query(ge=0, le=100_000, description="subgroup class id (from /api/group)"),  # noqa: A002
    rep: str | None = Query(default=None, min_length=1, max_length=MAX_TEXT,
                            description="V: a compact group at the band V names, as /api/group"),
) -> dict:
    """The subgroup inspector of class `id` of G."""
    name = group.strip()
    try:
        return await engine.run(engine.pool_for(name), work.subgroup, name, id, None if rep is None else rep.strip(),
                                request=request, key=name)
    except InputError as e:
        raise _group_field(e) from e


@router.get("/api/character-table", response_model=CharacterTableOut, responses=ERRORS)
async def character_table(
    engine: EngineDep, request: Request, group: str = Query(min_length=1, max_length=MAX_TEXT, examples=["D3"])
) -> dict:
    """The real character table of G: conjugacy classes as columns, real irreps as rows."""
    name = group.strip()
    try:
        return await engine.run(engine.pool_for(name), work.character_table, name, request=request, key=name)
    except InputError as e:
        raise _group_field(e) from e


@router.get("/api/restrictions", response_model=RestrictionsOut, responses=ERRORS)
async def restrictions(
    engine: EngineDep,
    request: Request,
    group: str = Query(min_length=1, max_length=MAX_TEXT, examples=["C4"]),
    rep: str = Query(min_length=1, max_length=MAX_TEXT, examples=["E1"]),
) -> dict:
    """V restricted to every subgroup class K, with what one copy of each irrep of K costs in a head."""
    name = group.strip()
    try:
        return await engine.run(engine.pool_for(name), work.restrictions, name, rep, request=request, key=name)
    except InputError as e:
        raise _group_field(e) from e


@router.post("/api/witnesses", response_model=WitnessPageOut, responses=ERRORS)
async def witnesses(body: WitnessesIn, engine: EngineDep, request: Request) -> dict:
    """A page of every scenario of one clustering with the design's witness (or shortfall)."""
    return await engine.run("heavy", work.witnesses, body.group, body.rep, body.heads, body.head_dim, orbits(body),
                            body.clustering, body.offset, body.limit, request=request, key=body.group)


@router.post("/api/verify", response_model=VerifyOut, responses=ERRORS)
async def verify(body: VerifyIn, engine: EngineDep, request: Request) -> dict:
    """Build the weights for one clustering's witnesses and report the worst numerical error."""
    return await engine.run("heavy", work.verify_clustering, body.group, body.rep, body.heads, body.head_dim, orbits(body),
                            body.clustering, body.seed, request=request, key=body.group)
