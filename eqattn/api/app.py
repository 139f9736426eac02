"""The FastAPI app: the JSON API of docs/contracts.md and the static page.

Endpoints (all JSON):
  GET  /api/features                  which optional features exist ({"optimize": bool})
  GET  /api/catalog                   eqattn.groups.catalog_entries()
  GET  /api/group?name=NAME           eqattn.reps.group_views.group_json(get_group(NAME))
  POST /api/clusterings  ProblemIn    eqattn.attention.clusterings_report(problem)
  POST /api/design       DesignIn     parameter counts (fast; called on every keystroke)
  POST /api/coverage     DesignIn     eqattn.attention.check_report(problem, design)
  GET  /                              the page (eqattn/api/static/index.html)

Bad input is a 422 `{"detail": [{"loc": [...], "msg": ..., "type": ..., "field": ...}]}`,
`field` naming the input as the core does (`heads`, `orbits[2].rep`); unexpected errors are
a 500 with a one-line `detail`, logged with the traceback. No theory lives here: every
number comes from the core. Endpoints are plain `def`s, so FastAPI runs them in its
threadpool and the server stays responsive during long computations.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from ..errors import InputError
from .models import MAX_TEXT, CatalogEntry, DesignIn, DesignOut, ErrorOut, Features, ProblemIn

log = logging.getLogger("eqattn.api")
STATIC = Path(__file__).resolve().parent / "static"
_ERRORS: dict[int | str, dict[str, Any]] = {422: {"model": ErrorOut, "description": "bad input"}}


def field_name(loc: list[Any] | tuple[Any, ...]) -> str:
    """`["body", "orbits", 2, "rep"]` -> `orbits[2].rep` (the core's way of naming inputs)."""
    out = ""
    for part in list(loc)[1:] if loc and loc[0] in ("body", "query", "path") else list(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "request"


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line[:300]


def create_app(backend: Any = None) -> FastAPI:
    """The app. `backend` defaults to the real core (eqattn.api.backend.RealBackend)."""
    if backend is None:
        from .backend import RealBackend

        backend = RealBackend()

    app = FastAPI(
        title="eqattn designer",
        description="Design G-equivariant multi-head self-attention with minimal parameters.",
        version="0.1.0",
    )
    app.state.backend = backend

    # ------------------------------------------------------------------ error handling
    @app.exception_handler(InputError)
    async def _input_error(request: Request, exc: InputError) -> JSONResponse:
        where = "query" if request.method == "GET" else "body"
        item = {"loc": [where, exc.field], "msg": exc.message, "type": "value_error", "field": exc.field}
        return JSONResponse({"detail": [item]}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        items = []
        for e in exc.errors():
            loc = list(e.get("loc", ()))
            msg = str(e.get("msg", "invalid value"))
            if msg.startswith("Value error, "):
                msg = msg[len("Value error, ") :]
            items.append({"loc": loc, "msg": msg, "type": str(e.get("type", "value_error")), "field": field_name(loc)})
        return JSONResponse({"detail": items}, status_code=422)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error in %s %s", request.method, request.url.path)
        return JSONResponse({"detail": _one_line(f"internal error: {type(exc).__name__}: {exc}")}, status_code=500)

    # ------------------------------------------------------------------ API
    @app.get("/api/features", response_model=Features)
    def features() -> dict:
        """Optional features the page may show."""
        return {"optimize": bool(getattr(app.state, "optimize", False))}

    @app.get("/api/catalog", response_model=list[CatalogEntry])
    def catalog() -> list[dict]:
        return backend.catalog()

    @app.get("/api/group", responses=_ERRORS)
    def group(name: str = Query(min_length=1, max_length=MAX_TEXT, description="catalog name or perm:(1,2),(..)")) -> dict:
        try:
            return backend.group(name.strip())
        except InputError as e:
            if e.field in ("group", "name"):
                raise InputError("name", e.message) from e
            raise

    @app.post("/api/clusterings", responses=_ERRORS)
    def clusterings(body: ProblemIn) -> dict:
        return backend.clusterings(body.group, body.rep, body.heads, body.head_dim)

    def _orbits(body: DesignIn) -> list[tuple[int | str, str]]:
        return [(o.subgroup, o.rep) for o in body.orbits]

    @app.post("/api/design", response_model=DesignOut, responses=_ERRORS)
    def design(body: DesignIn) -> dict:
        return backend.design(body.group, body.rep, body.heads, body.head_dim, _orbits(body))

    @app.post("/api/coverage", responses=_ERRORS)
    def coverage(body: DesignIn) -> dict:
        return backend.coverage(body.group, body.rep, body.heads, body.head_dim, _orbits(body))

    # ------------------------------------------------------------ the optimiser
    # POST /api/optimize ("Find optimal design"); /api/features then reports it.
    from .optimize_routes import router as optimize_router

    app.include_router(optimize_router)
    app.state.optimize = True
    from .atlas_routes import router as atlas_router  # GET /api/atlas (static/atlas.html)

    app.include_router(atlas_router)

    # ------------------------------------------------------------------ the page
    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


# `uvicorn eqattn.api.app:app`; the core is imported only when an endpoint runs.
app = create_app()
