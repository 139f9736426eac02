"""The FastAPI app: the JSON API of docs/contracts.md and the static page.

Endpoints (all JSON; one router module per resource in eqattn/api/routes/):
  GET  /api/catalog                   eqattn.groups.catalog_entries()
  GET  /api/group?name=NAME[&rep=V]   eqattn.reps.group_views.group_json(get_group(NAME)); a compact
                                      group with V at V's band (catalog.group_for_rep(NAME, V))
  POST /api/clusterings  ProblemIn    eqattn.attention.clusterings_report(problem)
  POST /api/design       DesignIn     parameter counts (fast; called on every keystroke)
  POST /api/coverage     DesignIn     eqattn.attention.check_report(problem, design), lean when large
  POST /api/coverage/detail           one clustering's witnesses or counterexample
  POST /api/optimize     OptimizeIn   eqattn.optimize.optimize(problem).to_json()
  GET  /                              the page (eqattn/api/static/index.html)

Every 4xx/5xx is `{"field", "message"}` (eqattn.api.errors.ErrorOut). The computations run in
killable worker processes with deadlines and memory caps (engine.py, jobs.py); requests from a
Host outside the allow-list and bodies over 1 MiB are refused before any work (errors.RequestGuard).
No theory lives here: every number comes from the core.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator, Iterable

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .engine import Engine
from .errors import LOCAL_HOSTS, RequestGuard, field_name, install_error_handlers
from .routes import ROUTERS
from .routes.page import STATIC

__all__ = ["create_app", "field_name", "app"]


def create_app(engine: Engine | None = None, allow_hosts: Iterable[str] = ()) -> FastAPI:
    """The app. `engine` defaults to a new `Engine()` (its workers start on first use);
    `allow_hosts` adds Host names to the localhost ones (`eqattn serve --allow-host`)."""
    engine = engine if engine is not None else Engine()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            app.state.engine.close()  # kill the workers: shutdown never waits for a computation

    app = FastAPI(
        title="eqattn designer",
        description="Design G-equivariant multi-head self-attention with minimal parameters. "
        "Every error is {field, message}.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.engine = engine
    install_error_handlers(app)
    app.add_middleware(RequestGuard, allowed_hosts=(*LOCAL_HOSTS, *allow_hosts))
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


# `uvicorn eqattn.api.app:app`; the workers start on the first computation.
app = create_app()
