"""Typed request / response models of the JSON API (docs/contracts.md).

Requests are validated here (types and ranges); everything about the theory (is this a
group, is this a representation, is the problem too large) is validated by the core,
which raises `eqattn.errors.InputError(field, message)`; the app turns both into
422 responses naming the field.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..attention.design import MAX_DESIGN_ORBITS

# Bounds of the request models: generous, the core enforces its own (LimitError).
MAX_HEADS = 512
MAX_HEAD_DIM = 4096
MAX_TEXT = 2000


class _Strict(BaseModel):
    """Request bodies: unknown fields refused, and strict JSON types (no coercion of `true` to 1,
    `"2"` to 2 or `false` to 0: the schema's types are what is accepted; a whole number is
    accepted where a number is)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)


class ProblemIn(_Strict):
    """The vanilla layer: group G, token representation V, H heads of dimension d."""

    group: str = Field(
        min_length=1, max_length=MAX_TEXT, description="catalog name or perm:(1,2),(..)", examples=["C4", "D3", "perm:(1,2,3),(1,2)"]
    )
    rep: str = Field(min_length=1, max_length=MAX_TEXT, description="representation text, e.g. 2xA1 + E", examples=["E1", "regular"])
    heads: int = Field(ge=1, le=MAX_HEADS, description="head count H", examples=[2])
    head_dim: int = Field(ge=1, le=MAX_HEAD_DIM, description="head dimension d", examples=[1])


class OrbitIn(_Strict):
    """One orbit of a design: a subgroup class (id or name) and a representation of it."""

    subgroup: int | str = Field(description="subgroup id (from /api/group) or name", examples=[1, "C2"])
    rep: str = Field(max_length=MAX_TEXT, description="representation of the subgroup, e.g. 2xA + B", examples=["B", "A + B"])

    @field_validator("subgroup", mode="before")
    @classmethod
    def _id_or_name(cls, v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise ValueError("must be a subgroup id (a whole number) or a subgroup name such as C2")
        return v


class DesignIn(ProblemIn):
    orbits: list[OrbitIn] = Field(default_factory=list, max_length=MAX_DESIGN_ORBITS)


# ----------------------------------------------------------------------------- responses
# Responses keep the core's JSON as it is (`extra="allow"`: the core may add keys); the
# fields declared here are the ones the page and docs/contracts.md rely on.
class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class CatalogEntry(_Out):
    name: str
    order: int
    family: str | None = None


class ClassOut(_Out):
    size: int
    order: int


class IrrepOut(_Out):
    label: str
    dim: int
    type: str
    character: list[float] = Field(default_factory=list)


class SubgroupOut(_Out):
    id: int
    name: str
    order: int
    index: int
    conjugates: int
    normal: bool | None = None
    irreps: list[IrrepOut] = Field(default_factory=list)


class CompactOut(_Out):
    """What a compact group is computed on (docs/theory-continuous.md §5, §8): its band and the
    finite stand-in that detects it."""

    kind: str = Field(description="SO2 | O2 | SO3 | O3")
    band: int = Field(description="the largest degree l (SO3/O3) or frequency k (SO2/O2) of its irreps here")
    band_text: str = Field(examples=["degrees l <= 2"])
    stand_in: str = Field(description="the finite subgroup the group is computed on", examples=["Ih"])
    labels: list[str] = Field(description="the irreps of G inside the band")
    route: str = Field("irreps", description="irreps: the stand-in keeps the band's irreps irreducible "
                       "(docs/theory-continuous.md §5); characters: only their characters are independent on it, "
                       "and the band irreps themselves are computed with (§8)")
    stand_in_role: str = Field("", description="what the stand-in does for the band, in words")


class GroupOut(_Out):
    """A group: conjugacy classes, real irreps (characters by class), subgroup classes, presets."""

    name: str
    order: int
    classes: list[ClassOut]
    irreps: list[IrrepOut]
    presets: list[str]
    subgroups: list[SubgroupOut]
    compact: CompactOut | None = Field(default=None, description="a compact group's band and stand-in; null for a finite group")


class ClusterOrbitOut(_Out):
    subgroup: int
    name: str
    order: int
    index: int
    cluster_size: int
    count: int


class ClusteringOut(_Out):
    id: int
    heads: int
    degenerate: bool
    orbits: list[ClusterOrbitOut]
    text: str


class ProblemOut(_Out):
    group: str
    rep: str
    dim_v: int
    heads: int
    head_dim: int
    vanilla_params: int


class ClusteringsOut(ProblemOut):
    """The G-clusterings of the problem (SPEC §2)."""

    order: int
    count: int
    clusterings: list[ClusteringOut]


class CoverageClusteringOut(ClusteringOut):
    covered: bool
    witness: list[dict[str, Any]] | None = None
    counterexample: dict[str, Any] | None = None
    detail_omitted: bool | None = Field(default=None, description="true: witness / counterexample left out (POST /api/coverage/detail)")


class CoverageOut(ProblemOut):
    """Which clusterings a design covers, each with a witness or a counterexample (SPEC §4)."""

    design_params: int
    covered: int
    total: int
    clusterings: list[CoverageClusteringOut]
    detail_omitted: bool | None = Field(default=None, description="true: the answer passed the size limit; no clustering has its detail")


class RepOut(BaseModel):
    """A representation as the page shows it: its text and its multiplicity per irrep."""

    text: str
    dim: int
    multiplicities: dict[str, int]


class DesignOrbitOut(_Out):
    subgroup: int
    name: str
    rep: str
    multiplicities: dict[str, int] = Field(default_factory=dict)
    heads: int
    head_dim: int
    params: int


class DesignOut(_Out):
    """Parameter counts of a design, for live updates (POST /api/design)."""

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
    layer_memory: dict[str, int] = Field(
        default_factory=dict,
        description="estimated bytes of the PyTorch layer (float32): build, resident, forward, peak (numeric.expansion.layer_memory)",
    )


class OptimizeOrbitOut(_Out):
    subgroup: int
    name: str
    rep: str
    heads: int
    head_dim: int
    params: int


class OptimizeOut(ProblemOut):
    """The covering design with the fewest parameters, proven optimal or with its gap (SPEC §5.5)."""

    status: str
    design_params: int | None = None  # None: infeasible under the compute constraints, or none found in time
    lower_bound: int | float | None = None
    gap: float | None = None
    stopped_by: str | None = None
    work: int = 0
    attention_cost: int | None = None
    vanilla_attention_cost: int | None = None
    orbits: list[OptimizeOrbitOut]
    constrained_vanilla_possible: bool | None = None
