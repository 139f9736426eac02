"""The engine behind the API: every computation, bounded in time and memory, cancellable.

`Engine` runs the functions of `work.py` in three pools of killable worker processes (jobs.py):
"light" for the keystroke calls (a group, live parameter counts), "heavy" for the bounded
interactive ones (clusterings, coverage, witnesses, verify, custom groups; at most `DEADLINE_S`
each) and "search" for the optimiser, whose calls run up to `MAX_TIME_LIMIT`: a queue of
optimizations never holds up a clusterings or a coverage call, and those never hold up a
keystroke. The search workers run at a lower priority than the heavy ones. Routers get it with `Depends(get_engine)` (deps.py); tests swap in a double via
`app.dependency_overrides[get_engine]`.

Limits (all in one place):
* every call has a wall-clock deadline covering all of its phases, the wait for a free worker
  included (`DEADLINE_S`; for optimize the request's `time_limit`, of which the search gets
  `SEARCH_SHARE` of what is left once a worker is free);
* every worker has an address-space cap (`jobs.DEFAULT_MEMORY_BYTES`), so no accepted request
  grows the server past 2 GB; the weight construction is refused up front by its estimate;
* a client that disconnects (or a server that shuts down) kills the worker within ~0.2 s.
"""

from __future__ import annotations

import asyncio
import os
from collections import OrderedDict
from typing import Any, Callable

from fastapi import Request

from ..errors import LimitError
from . import work
from .jobs import DEFAULT_MEMORY_BYTES, WorkerPool

DEADLINE_S = 60.0  # clusterings, coverage, verify, group, design
DEFAULT_TIME_LIMIT = 30.0  # optimize, when the request gives none
MAX_TIME_LIMIT = 300.0
SEARCH_SHARE = 0.8  # of an optimize time limit, for the search; the rest for its re-checks
KILL_MARGIN_S = 0.3  # an optimize is killed this long after its time limit
MIN_SEARCH_S = 0.05  # an optimize left with less search time after its wait is refused
LIGHT_WORKERS = 2
HEAVY_NICE = 5  # heavy workers yield the CPU to the server and the light workers
SEARCH_NICE = 10  # optimizer workers yield it to the interactive ones as well
GROUP_CACHE = 64  # group JSON kept in the server process (catalog groups only)
CUSTOM = ("perm:", "mat:")  # custom groups may take tens of seconds: always the heavy pool


def heavy_workers() -> int:
    """Concurrent expensive calls: the cores, at least 2 and at most 8."""
    return max(2, min(8, os.cpu_count() or 2))


class Engine:
    """The API's computations (docs/contracts.md). Each method returns the JSON of the core."""

    def __init__(
        self,
        heavy: int | None = None,
        light: int = LIGHT_WORKERS,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
        deadline_s: float = DEADLINE_S,
        search: int | None = None,
    ) -> None:
        self.heavy = WorkerPool("heavy", heavy or heavy_workers(), memory_bytes, nice=HEAVY_NICE)
        self.search = WorkerPool("search", search or heavy or heavy_workers(), memory_bytes, nice=SEARCH_NICE)
        self.light = WorkerPool("light", light, memory_bytes)
        self.deadline_s = float(deadline_s)
        self._catalog: list[dict] | None = None
        self._groups: OrderedDict[tuple[str, int | None], dict] = OrderedDict()

    @staticmethod
    def pool_for(group: str) -> str:
        """"light" for a catalog group, "heavy" for a custom one (its lattice may be slow)."""
        return "heavy" if group.replace(" ", "").startswith(CUSTOM) else "light"

    def close(self) -> None:
        """Kill every worker (server shutdown)."""
        self.heavy.close()
        self.search.close()
        self.light.close()

    async def run(
        self,
        pool: str,
        fn: Callable[..., Any],
        *args: Any,
        request: Request | None = None,
        deadline: float | None = None,
        key: str | None = None,
        limit_field: str = "request",
        limit_text: str | None = None,
        args_for: Callable[[float], tuple] | None = None,
    ) -> Any:
        """`fn(*args)` (a function of work.py) in the named pool, cancelled when the client leaves."""
        cancelled = request.is_disconnected if request is not None else None
        return await {"heavy": self.heavy, "search": self.search, "light": self.light}[pool].run(
            fn,
            *args,
            deadline=self.deadline_s if deadline is None else deadline,
            key=key,
            cancelled=cancelled,
            limit_field=limit_field,
            limit_text=limit_text,
            args_for=args_for,
        )

    # ------------------------------------------------------------------ groups
    async def catalog(self) -> list[dict]:
        if self._catalog is None:
            self._catalog = await asyncio.to_thread(work.catalog)
        return self._catalog

    async def group(self, name: str, request: Request | None = None, rep: str | None = None) -> dict:
        """The group's JSON; a compact group at the band `rep` names (work.group), kept under
        that band, so every V of one band shares one answer."""
        pool = self.pool_for(name)
        key = work.group_key(name, rep)
        if pool == "light" and key in self._groups:
            self._groups.move_to_end(key)
            return self._groups[key]
        out = await self.run(pool, work.group, name, rep, request=request, key=name)
        if pool == "light":
            self._groups[key] = out
            while len(self._groups) > GROUP_CACHE:
                self._groups.popitem(last=False)
        return out

    # ------------------------------------------------------------------ attention theory
    async def clusterings(self, group: str, rep: str, heads: int, head_dim: int, request: Request | None = None) -> dict:
        return await self.run("heavy", work.clusterings, group, rep, heads, head_dim, request=request, key=group)

    async def design(self, group: str, rep: str, heads: int, head_dim: int, orbits: work.Orbits, request: Request | None = None) -> dict:
        return await self.run(self.pool_for(group), work.design, group, rep, heads, head_dim, orbits, request=request, key=group)

    async def coverage(self, group: str, rep: str, heads: int, head_dim: int, orbits: work.Orbits, request: Request | None = None) -> bytes:
        """The coverage answer as JSON bytes (encoded in the worker; see work.coverage)."""
        return await self.run("heavy", work.coverage, group, rep, heads, head_dim, orbits, request=request, key=group)

    async def coverage_detail(
        self, group: str, rep: str, heads: int, head_dim: int, orbits: work.Orbits, clustering: int, request: Request | None = None
    ) -> dict:
        return await self.run("heavy", work.coverage_detail, group, rep, heads, head_dim, orbits, clustering, request=request, key=group)

    async def verify(
        self, group: str, rep: str, heads: int, head_dim: int, orbits: work.Orbits, seed: int = 0, request: Request | None = None
    ) -> dict:
        return await self.run("heavy", work.verify, group, rep, heads, head_dim, orbits, seed, request=request, key=group)

    async def optimize(
        self, group: str, rep: str, heads: int, head_dim: int, time_limit: float | None = None, request: Request | None = None,
        max_heads: int | None = None, max_head_dim: int | None = None, work_limit: int | None = None,
        max_cost: int | None = None,
    ) -> dict:
        """The optimiser's JSON, all of it (search, constrained vanilla, re-checks) within `time_limit` s."""
        tl = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
        text = (
            f"the search and its re-checks did not finish within the time limit of {tl:g} s "
            f"(the search had {SEARCH_SHARE * tl:.3g} s); give a larger time_limit (at most {MAX_TIME_LIMIT:g})"
        )

        def args_for(left: float) -> tuple:
            search_s = SEARCH_SHARE * (left - KILL_MARGIN_S)
            if search_s < MIN_SEARCH_S:
                raise LimitError("time_limit", f"the time limit of {tl:g} s passed while the request waited for a free worker "
                                 "(other optimizations are running); give a larger time_limit or try again shortly")
            return (group, rep, heads, head_dim, search_s, max_heads, max_head_dim, work_limit, max_cost)

        return await self.run(
            "search",
            work.optimize,
            request=request,
            deadline=tl + KILL_MARGIN_S,
            key=group,
            limit_field="time_limit",
            limit_text=text,
            args_for=args_for,
        )
