"""Endpoints of the page's explanations: the subgroup inspector, the character table,
every witness of a clustering (paged) and "Verify numerically" (issue 12).

  GET  /api/subgroup?group=NAME&id=N      eqattn.reps.group_views.subgroup_inspector_json
  GET  /api/character-table?group=NAME    eqattn.reps.group_views.character_table_json (of G)
  POST /api/witnesses   WitnessesIn       eqattn.attention.views.witnesses_page
  POST /api/verify      VerifyIn          eqattn.numeric.verify.verify_clustering

No theory here: each endpoint calls one engine view. The work functions below are plain
top-level functions of JSON-able arguments (so a worker process can run them). Bad input
raises the core's `InputError(field, message)`, which the app turns into a 422 naming the
field. Problems are built through the app's backend (its per-problem cache) when it has one.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from ..models import MAX_TEXT, DesignIn, ErrorOut

router = APIRouter(tags=["inspect"])
ERRORS: dict[int | str, dict[str, Any]] = {422: {"model": ErrorOut, "description": "bad input"}}


# ----------------------------------------------------------------------------- models
class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ElementOut(_Open):
    index: int
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
    generators: list[ElementOut]
    elements: list[ElementOut] | None = Field(description="null when K is too large to list")
    normalizer: dict[str, Any]
    isomorphism: dict[str, Any]
    character_table: CharacterTableOut


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
    seed: int = Field(default=0, ge=0, le=2**31 - 1)


class VerifyOut(_Open):
    clustering: int
    covered: bool
    scenarios_verified: int
    worst_rel_error: float
    worst_equivariance_error: float
    tolerance: float
    ok: bool


# ----------------------------------------------------------------------------- work
def subgroup_view(group: str, cid: int) -> dict:
    from eqattn.groups import get_group
    from eqattn.reps.group_views import subgroup_inspector_json

    return subgroup_inspector_json(get_group(group), cid)


def character_table_view(group: str) -> dict:
    from eqattn.groups import get_group
    from eqattn.reps.group_views import character_table_json

    G = get_group(group)
    return {"group": G.name, **character_table_json(G.subgroup_classes[-1])}


def _problem_design(backend: Any, body: DesignIn) -> tuple[Any, Any]:
    from eqattn.attention import Design, Problem

    make = getattr(backend, "problem", None)
    args = (body.group, body.rep, body.heads, body.head_dim)
    problem = make(*args) if callable(make) else Problem.create(*args)
    return problem, Design.create(problem, [(o.subgroup, o.rep) for o in body.orbits])


def _renamed(e: Exception, old: tuple[str, ...], new: str) -> Exception:
    from eqattn.errors import InputError

    if isinstance(e, InputError) and e.field in old:
        return InputError(new, e.message)
    return e


# ----------------------------------------------------------------------------- routes
@router.get("/api/subgroup", response_model=SubgroupOut, responses=ERRORS)
def subgroup(group: str = Query(min_length=1, max_length=MAX_TEXT), id: int = Query(ge=0, le=100_000)) -> dict:  # noqa: A002
    """The subgroup inspector of class `id` of G."""
    try:
        return subgroup_view(group.strip(), id)
    except Exception as e:
        raise _renamed(e, ("name", "spec"), "group") from e


@router.get("/api/character-table", response_model=CharacterTableOut, responses=ERRORS)
def character_table(group: str = Query(min_length=1, max_length=MAX_TEXT)) -> dict:
    """The real character table of G: conjugacy classes as columns, real irreps as rows."""
    try:
        return character_table_view(group.strip())
    except Exception as e:
        raise _renamed(e, ("name", "spec"), "group") from e


@router.post("/api/witnesses", response_model=WitnessPageOut, responses=ERRORS)
def witnesses(body: WitnessesIn, request: Request) -> dict:
    """A page of every scenario of one clustering with the design's witness (or shortfall)."""
    from eqattn.attention.views import witnesses_page

    problem, design = _problem_design(getattr(request.app.state, "backend", None), body)
    return witnesses_page(problem, design, body.clustering, body.offset, body.limit)


@router.post("/api/verify", response_model=VerifyOut, responses=ERRORS)
def verify(body: VerifyIn, request: Request) -> dict:
    """Build the weights for one clustering's witnesses and report the worst numerical error."""
    from eqattn.numeric.verify import verify_clustering

    problem, design = _problem_design(getattr(request.app.state, "backend", None), body)
    return verify_clustering(problem, design, body.clustering, body.seed)
