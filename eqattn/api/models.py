"""Typed request / response models of the JSON API (docs/contracts.md).

Requests are validated here (types and ranges); everything about the theory (is this a
group, is this a representation, is the problem too large) is validated by the core,
which raises `eqattn.errors.InputError(field, message)`; the app turns both into
422 responses naming the field.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

# Bounds of the request models: generous, the core enforces its own (LimitError).
MAX_HEADS = 512
MAX_HEAD_DIM = 4096
MAX_ORBITS = 512
MAX_TEXT = 2000


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ProblemIn(_Strict):
    """The vanilla layer: group G, token representation V, H heads of dimension d."""

    group: str = Field(min_length=1, max_length=MAX_TEXT, description="catalog name or perm:(1,2),(..)")
    rep: str = Field(min_length=1, max_length=MAX_TEXT, description="representation text, e.g. 2xA1 + E")
    heads: int = Field(ge=1, le=MAX_HEADS, description="head count H")
    head_dim: int = Field(ge=1, le=MAX_HEAD_DIM, description="head dimension d")


class OrbitIn(_Strict):
    """One orbit of a design: a subgroup class (id or name) and a representation of it."""

    subgroup: int | str = Field(description="subgroup id (from /api/group) or name")
    rep: str = Field(max_length=MAX_TEXT, description="representation of the subgroup, e.g. 2xA + B")

    @field_validator("subgroup", mode="before")
    @classmethod
    def _id_or_name(cls, v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise ValueError("must be a subgroup id (a whole number) or a subgroup name such as C2")
        return v


class DesignIn(ProblemIn):
    orbits: list[OrbitIn] = Field(default_factory=list, max_length=MAX_ORBITS)


# ----------------------------------------------------------------------------- responses
class CatalogEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    order: int
    family: str | None = None


class RepOut(BaseModel):
    """A representation as the page shows it: its text and its multiplicity per irrep."""

    text: str
    dim: int
    multiplicities: dict[str, int]


class DesignOrbitOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    subgroup: int
    name: str
    rep: str
    multiplicities: dict[str, int] = Field(default_factory=dict)
    heads: int
    head_dim: int
    params: int


class DesignOut(BaseModel):
    """Parameter counts of a design, for live updates (POST /api/design)."""

    model_config = ConfigDict(extra="allow")
    group: str
    dim_v: int
    heads: int
    head_dim: int
    vanilla_params: int
    rep: RepOut
    design_params: int
    design_heads: int
    ratio: float | None = Field(description="design_params / vanilla_params")
    orbits: list[DesignOrbitOut]


class Features(BaseModel):
    optimize: bool = False


class ErrorItem(BaseModel):
    loc: list[Any]
    msg: str
    type: str = "value_error"
    field: str = Field(description="the input, e.g. heads or orbits[2].rep")


class ErrorOut(BaseModel):
    detail: list[ErrorItem] | str
