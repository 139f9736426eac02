"""Running a grid: the problems not yet in the store, on Dask distributed, stored as they finish.

By default a local Dask cluster of `workers` processes (one thread each) is started for the
run; with `cluster="tcp://host:8786"` the problems go to an existing Dask scheduler (its
workers need eqattn installed), so the same command runs on a laptop or a cluster. Each
result is written to the store by this process as soon as it arrives. A worker that dies
(killed, out of memory) loses only the problem it was running: the scheduler reruns it on
another worker (a problem that kills 3 workers in a row — Dask's `allowed-failures` — is
stored as an `error`). An interrupted run keeps everything stored; the next run skips it.
A run owns its store (a second run on the same folder stops at once; store.py), and a store
it cannot write stops it before the first problem. A `--cluster` address is probed first with
a bound (`CONNECT_TIMEOUT`): a port that accepts but never answers, or answers in something other
than Dask's protocol (an `eqattn serve` port, another service), is one line on `cluster`.
`workers=0` runs the problems one by one in this process (no Dask), for debugging and as the
single-process reference.

    >>> from eqattn.atlas.grid import parse_grid
    >>> import tempfile
    >>> g = parse_grid({"group": [{"name": "C2", "reps": ["A + B"]}], "heads": [1], "head_dims": [1, 2]})
    >>> s = run_grid(g, tempfile.mkdtemp(), workers=0, quiet=True)
    >>> s.computed, s.skipped, s.counts["optimal"]
    (2, 0, 2)
"""

from __future__ import annotations

import socket
import sqlite3
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError, whole_number
from .engine import solve
from .grid import Grid
from .progress import Progress
from .store import Store

STORE_NAME = "atlas.sqlite"
MAX_WORKERS = 256
RETRY_STATUSES = ("feasible", "refused", "error")
CONNECT_TIMEOUT = "10s"  # to reach a --cluster scheduler and read its greeting (Dask's notation)
MAX_GREETING_BYTES = 1 << 24  # a Dask handshake is a few hundred bytes
OnResult = Callable[[dict[str, Any], dict[str, Any]], None]


@dataclass(frozen=True)
class RunSummary:
    """What a run did: problems in the grid, already stored, computed now, and the tally."""

    store: str
    total: int
    skipped: int
    computed: int
    counts: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0
    engine: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "total": self.total,
            "skipped": self.skipped,
            "computed": self.computed,
            "counts": dict(self.counts),
            "wall_s": round(self.wall_s, 3),
            "engine": self.engine,
        }


def _killed_row(problem: dict[str, Any], exc: BaseException) -> dict[str, Any]:
    return {
        "key": problem["key"], "status": "error", "p_vanilla": 4 * problem["heads"] * problem["head_dim"] * problem["dim_v"],
        "p_opt": None, "bound": None, "gap": None, "heads_total": None, "constrained_vanilla": None,
        "constrained_params": None, "design": None, "result": None,
        "detail": f"the problem's worker died repeatedly ({type(exc).__name__}: {exc})"[:500], "time_s": 0.0, "worker": "",
    }


def _check_workers(workers: int) -> int:
    whole_number(workers, "workers", 0)  # 0: in this process
    if workers > MAX_WORKERS:
        raise InputError("workers", f"at most {MAX_WORKERS} local workers; use --cluster for more")
    return workers


def require_dask() -> None:
    """InputError naming the extra when dask.distributed is not installed."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError as e:
        raise InputError("atlas", f"needs the optional dependencies: pip install 'eqattn[atlas]' ({e.name or e} is missing)") from None


def run_grid(
    grid: Grid,
    out: str | Path,
    *,
    workers: int = 2,
    cluster: str | None = None,
    quiet: bool = False,
    on_result: OnResult | None = None,
    stream: Any = None,
    retry: tuple[str, ...] = (),
) -> RunSummary:
    """Solve every problem of `grid` not yet in `out/atlas.sqlite`, storing each as it finishes;
    stored problems whose status is in `retry` (e.g. `feasible`: stopped by the time limit on a
    busy machine) are solved again and their rows replaced."""
    workers = _check_workers(workers)
    bad = [s for s in retry if s not in RETRY_STATUSES]
    if bad:
        raise InputError("retry", f"one of {', '.join(RETRY_STATUSES)}, got {bad[0]!r}")
    path = Path(out) / STORE_NAME
    t0 = time.perf_counter()
    started = time.time()
    with Store(path, readonly_ok=True) as store:
        store.claim()
        finished = store.finished_keys(tuple(retry))
        todo = [p.to_json() for p in grid.problems if p.key not in finished]
        if todo:
            store.refuse_writes()  # a read-only store holding every row still reports
            store.begin_run(started, "starting", len(grid.problems), len(grid.problems) - len(todo))
        progress = Progress(len(grid.problems), len(grid.problems) - len(todo), stream=stream, quiet=quiet)

        def done(problem: dict[str, Any], row: dict[str, Any]) -> None:
            store.insert(problem, row)
            progress.update(problem, row)
            if on_result is not None:
                on_result(problem, row)

        if not todo:
            engine = "none (everything was stored)"
        elif workers == 0 and cluster is None:
            engine = "this process"
        else:
            engine = f"dask scheduler {cluster}" if cluster else f"dask local cluster, {max(1, workers)} process{'es' if max(1, workers) > 1 else ''}"
        finished_ok = False
        try:
            if todo and engine == "this process":
                for problem in todo:
                    done(problem, solve(problem))
            elif todo:
                _run_dask(todo, done, workers, cluster)
            finished_ok = True
        finally:
            progress.close()
            wall = time.perf_counter() - t0
            try:
                store.record_run(started, wall, engine if finished_ok else f"{engine} (stopped early)", progress.total,
                                 progress.skipped, progress.computed)
            except sqlite3.Error:
                pass  # a read-only store holding every row, or the write error already raised
        return RunSummary(str(path), progress.total, progress.skipped, progress.computed, dict(progress.counts), wall, engine)


def _connect_s() -> float:
    return float(CONNECT_TIMEOUT.rstrip("s"))


def probe_scheduler(address: str, timeout: float | None = None) -> None:
    """InputError on `cluster` unless a Dask scheduler answers at `tcp://host:port` within
    `timeout` s: a Dask server greets first, with an 8-byte frame length and a small message."""
    timeout = _connect_s() if timeout is None else timeout
    scheme, _, rest = address.partition("://")
    if not rest:
        scheme, rest = "tcp", address
    if scheme != "tcp":
        return  # tls://, inproc://...: left to Dask (connect bounds it)
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise InputError("cluster", f"a Dask scheduler address is tcp://HOST:PORT, got {address!r}")
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as s:
            s.settimeout(timeout)
            head = b""
            while len(head) < 8:
                chunk = s.recv(8 - len(head))
                if not chunk:
                    raise InputError("cluster", f"{address} closed the connection without a greeting: not a Dask scheduler")
                head += chunk
    except socket.timeout:
        raise InputError("cluster", f"{address} accepts connections but did not answer within {timeout:g} s: "
                                    "not a Dask scheduler (an eqattn serve port or another service?)") from None
    except OSError as e:
        raise InputError("cluster", f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None
    (size,) = struct.unpack("<Q", head)
    if not 0 < size <= MAX_GREETING_BYTES:
        raise InputError("cluster", f"{address} answered, but not in Dask's protocol (a first frame of {size} bytes): not a Dask scheduler")


def connect(address: str, timeout: float | None = None) -> Any:
    """A dask.distributed Client of the scheduler at `address`, within `timeout` s of probing and
    connecting; every failure is one InputError on `cluster`."""
    from dask.distributed import Client

    timeout = _connect_s() if timeout is None else timeout
    probe_scheduler(address, timeout)
    box: dict[str, Any] = {}

    def make() -> None:
        try:
            box["client"] = Client(address, timeout=f"{timeout:g}s")
        except BaseException as e:  # noqa: BLE001 - reported below, in the user's terms
            box["error"] = e

    t = threading.Thread(target=make, daemon=True, name="atlas-connect")
    t.start()
    t.join(2 * timeout)
    if "client" in box:
        return box["client"]
    e = box.get("error")
    if e is None:
        raise InputError("cluster", f"the Dask scheduler at {address} did not complete the connection within {2 * timeout:g} s")
    if isinstance(e, (OSError, TimeoutError)):
        raise InputError("cluster", f"cannot reach the Dask scheduler at {address}: {e}")
    raise InputError("cluster", f"{address} answered, but not as a Dask scheduler ({type(e).__name__}: {str(e)[:120]})")


def _run_dask(todo: list[dict[str, Any]], done: Callable[[dict[str, Any], dict[str, Any]], None], workers: int, cluster: str | None) -> None:
    """Submit every problem to a Dask scheduler and store the results as they complete."""
    require_dask()
    import logging

    from dask.distributed import Client, LocalCluster, as_completed

    local = None
    try:
        if cluster is not None:
            client = connect(cluster)
        else:
            local = LocalCluster(
                n_workers=max(1, workers), threads_per_worker=1, processes=True, dashboard_address=":0",
                silence_logs=logging.ERROR,
            )
            client = Client(local)
    except BaseException:
        if local is not None:
            local.close()
        raise
    by_key: dict[str, dict[str, Any]] = {}
    futures = []
    try:
        for problem in todo:
            fut = client.submit(solve, problem, key=f"atlas-{problem['key']}", pure=False)
            by_key[fut.key] = problem
            futures.append(fut)
        for fut in as_completed(futures):
            problem = by_key[fut.key]
            try:
                row = fut.result()
            except Exception as e:  # noqa: BLE001 - KilledWorker after repeated worker deaths
                row = _killed_row(problem, e)
            done(problem, row)
            fut.release()
    finally:
        if futures:
            client.cancel([f for f in futures if not f.done()])
        client.close()
        if local is not None:
            local.close()
