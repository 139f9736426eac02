"""The API's routers, one module per resource; app.py includes every router of `ROUTERS`.

To add endpoints: write `routes/<resource>.py` with `router = APIRouter(tags=["<resource>"])`,
give each endpoint `response_model=...` and `responses=ERRORS` (eqattn.api.errors), take the
engine as `engine: EngineDep` (eqattn.api.deps), and add one line below.
"""

from __future__ import annotations

from fastapi import APIRouter

from . import atlas, budget, catalog, clusterings, designs, groups, inspect, optimize, page

ROUTERS: list[APIRouter] = [
    catalog.router,
    groups.router,
    clusterings.router,
    designs.router,
    optimize.router,
    budget.router,  # POST /api/front, /api/widening, /api/partial (designs within a compute budget)
    inspect.router,  # subgroup inspector, character table, witnesses, verify
    atlas.router,  # GET /api/atlas for static/atlas.html
    page.router,
]
