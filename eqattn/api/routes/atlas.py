"""GET /api/atlas: the rows of an atlas store (eqattn.atlas), for the page static/atlas.html.

The store is the SQLite file written by `eqattn atlas` (table `results`); the server reads the
one given by `eqattn serve --atlas DIR/atlas.sqlite` (the environment variable EQATTN_ATLAS),
read-only. Each row carries the problem, the status, P_vanilla, P_opt, the bound and the
optimal design's orbits [{"subgroup", "rep"}] that the designer page loads from its URL
(`o=<subgroup id>:<rep>`, one per orbit). At most MAX_ROWS rows are sent (`truncated` says so).
Include with `app.include_router(router)`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fastapi import APIRouter, Request
from pydantic import BaseModel

from ...errors import InputError
from ..errors import ErrorOut

ENV = "EQATTN_ATLAS"
MAX_ROWS = 20_000
router = APIRouter(tags=["atlas"])


class AtlasOrbit(BaseModel):
    subgroup: int
    name: str
    rep: str


class AtlasRow(BaseModel):
    key: str
    group: str
    label: str
    rep_input: str
    rep: str
    dim_v: int
    heads: int
    head_dim: int
    status: str
    p_vanilla: int
    p_opt: int | None
    bound: int | None
    gap: float | None
    heads_total: int | None
    constrained_vanilla: str | None
    constrained_params: int | None
    time_s: float
    time_limit: float
    detail: str
    orbits: list[AtlasOrbit] | None


class AtlasOut(BaseModel):
    store: str
    total: int
    truncated: bool
    rows: list[AtlasRow]


def store_path(request: Request) -> Path:
    """The store this server shows; InputError when none is configured."""
    path = getattr(request.app.state, "atlas_store", None) or os.environ.get(ENV)
    if not path:
        raise InputError("atlas", f"no atlas store is served: start the server with eqattn serve --atlas DIR/atlas.sqlite (or set {ENV})")
    return Path(path)


def read_rows(path: Path, limit: int = MAX_ROWS) -> dict:
    """The store's rows in grid order, at most `limit`."""
    from ...atlas.store import open_readonly

    db = open_readonly(path)
    try:
        total = int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
        cur = db.execute(
            "SELECT key, group_name, rep_input, rep, dim_v, heads, head_dim, status, p_vanilla, p_opt, bound, gap, "
            "heads_total, constrained_vanilla, constrained_params, time_s, time_limit, detail, design, label "
            "FROM results ORDER BY position, key LIMIT ?",
            (limit,),
        )
        names = [c[0] for c in cur.description]
        rows = []
        for values in cur:
            r = dict(zip(names, values))
            design = r.pop("design")
            r["group"] = r.pop("group_name")
            r["label"] = r["label"] or r["group"]
            r["orbits"] = None if design is None else [
                {"subgroup": o["subgroup"], "name": o["name"], "rep": o["rep"]} for o in json.loads(design)["orbits"]
            ]
            rows.append(r)
    finally:
        db.close()
    return {"store": path.name, "total": total, "truncated": total > len(rows), "rows": rows}


@router.get("/api/atlas", response_model=AtlasOut, responses={422: {"model": ErrorOut, "description": "no store served"}})
def atlas(request: Request) -> dict:
    """Every problem of the served atlas store with its optimal design."""
    return read_rows(store_path(request))
