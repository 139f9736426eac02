"""FastAPI dependencies: the engine (`EngineDep`), swappable in tests.

    @router.get("/api/thing", response_model=ThingOut, responses=ERRORS)
    async def thing(engine: EngineDep, request: Request) -> dict: ...

Tests: `app.dependency_overrides[get_engine] = lambda: MyDouble()`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .engine import Engine


def get_engine(request: Request) -> Engine:
    """The app's engine (created by create_app, closed when the app shuts down)."""
    return request.app.state.engine


EngineDep = Annotated[Engine, Depends(get_engine)]
