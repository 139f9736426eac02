"""Killable worker processes for the API's expensive calls (a thread cannot be killed).

A `WorkerPool` keeps up to `size` worker processes (forked from a preloaded forkserver, so a
new one starts in milliseconds). `await pool.run(fn, *args, deadline=s, cancelled=check)`
sends `fn(*args)` (a top-level function: it is pickled by name) to an idle worker and waits.
The `deadline` counts from the call, so time spent waiting for a free worker is part of it
(a call that waits its whole deadline is refused on `limit_field` without starting);
`args_for(seconds_left)` builds the arguments once a worker is free, for a function whose own
time limit must shrink by the wait. The worker is killed (SIGKILL) and later replaced when

* the wall-clock `deadline` passes (it covers every phase of the call, the wait included),
* `cancelled()` says so (the client disconnected; checked every `POLL_S` seconds; then
  `ClientDisconnected` is raised),
* the awaiting task is cancelled (server shutdown),
* the call ran out of memory (each worker has RLIMIT_AS = `memory_bytes`).

So the work stops within about `POLL_S` + the kill, and its memory goes back to the system.
Results and errors come back as values: `InputError`/`LimitError` raised in the worker are
raised again here with the same field and message; anything else becomes a `WorkerError`.

Example::

    pool = WorkerPool("heavy", size=2)
    value = await pool.run(math.factorial, 10, deadline=5.0)   # 3628800
    pool.close()
"""

from __future__ import annotations

import asyncio
import atexit
import multiprocessing as mp
import os
import signal
import threading
import time
import weakref
from collections import OrderedDict, deque
from typing import Any, Awaitable, Callable

from ..errors import InputError, LimitError

POLL_S = 0.2  # how often a running call checks for a client disconnect
DEFAULT_MEMORY_BYTES = 3 << 29  # 1.5 GiB of address space per worker: peak RSS stays below 2 GB
AFFINITY_KEYS = 16  # per worker, the most recent keys (group names) it has served: caches are warm
PRELOAD = ["eqattn.api.work"]

_LIVE: "weakref.WeakSet[WorkerPool]" = weakref.WeakSet()


class ClientDisconnected(Exception):
    """The client went away; its computation was stopped (nothing is sent back)."""


class WorkerError(RuntimeError):
    """The call failed in the worker with an unexpected error (a bug): the one-line cause."""


def _context() -> Any:
    """forkserver (fork is unsafe from a threaded server; spawn re-imports everything)."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # one BLAS thread per worker: the pool is the parallelism
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent (the forkserver) exits."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pipe's EOF ends the worker instead
        pass


def _worker_main(conn: Any, memory_bytes: int, nice: int = 0) -> None:
    """The worker loop: receive (fn, args), send back ("ok", value) or an error tuple."""
    _die_with_parent()
    if nice:
        os.nice(nice)  # below the server and the light workers: cheap requests stay fast
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the server, which kills us
    if memory_bytes:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple = ("ok", fn(*args))
        except LimitError as e:
            reply = ("limit", e.field, e.message)
        except InputError as e:
            reply = ("input", e.field, e.message)
        except MemoryError:
            reply = ("memory",)
        except RecursionError:
            reply = ("memory",)
        except Exception as e:  # noqa: BLE001 - a bug: reported to the server, which logs it
            reply = ("error", f"{type(e).__name__}: {e}")
        try:
            conn.send(reply)
        except MemoryError:
            conn.send(("memory",))
        if reply[0] == "memory":
            return  # leave with the memory; the pool starts a fresh worker


class _Worker:
    def __init__(self, ctx: Any, memory_bytes: int, nice: int = 0) -> None:
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, memory_bytes, nice), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent
        self.keys: OrderedDict[str, None] = OrderedDict()

    @property
    def pid(self) -> int:
        return int(self.proc.pid or 0)

    def note(self, key: str | None) -> None:
        if key is not None:
            self.keys[key] = None
            self.keys.move_to_end(key)
            while len(self.keys) > AFFINITY_KEYS:
                self.keys.popitem(last=False)

    def kill(self) -> None:
        """SIGKILL now (the memory goes back at once); the exit status is collected in the
        background, so a request never waits for it."""
        try:
            self.proc.kill()
        except (OSError, ValueError, AttributeError):
            pass
        try:
            threading.Thread(target=self._reap, daemon=True).start()
        except RuntimeError:  # interpreter shutting down: the forkserver reaps it
            pass

    def _reap(self) -> None:
        try:
            self.proc.join(timeout=10.0)
        except (OSError, ValueError, AssertionError):
            pass
        try:
            self.conn.close()
        except OSError:
            pass


class WorkerPool:
    """At most `size` worker processes; calls beyond that wait for a free one."""

    def __init__(self, name: str, size: int = 2, memory_bytes: int = DEFAULT_MEMORY_BYTES, nice: int = 0) -> None:
        self.name = name
        self.nice = int(nice)
        self.size = max(1, int(size))
        self.memory_bytes = int(memory_bytes)
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._starting = 0
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = deque()
        self._lock = threading.Lock()
        self._ctx: Any = None
        _LIVE.add(self)
        weakref.finalize(self, _kill_all, self._idle, self._busy)  # a dropped pool leaves no workers

    # ------------------------------------------------------------------ introspection
    def pids(self) -> list[int]:
        """Process ids of the live workers (idle and busy)."""
        with self._lock:
            return [w.pid for w in [*self._idle, *self._busy]]

    def busy_pids(self) -> list[int]:
        with self._lock:
            return [w.pid for w in self._busy]

    # ------------------------------------------------------------------ workers
    def _take(self, key: str | None) -> _Worker | None:
        """An idle worker (one that served `key` before, if any), or None; under the lock."""
        if not self._idle:
            return None
        pick = next((w for w in reversed(self._idle) if key is not None and key in w.keys), None)
        if pick is None:
            pick = next((w for w in self._idle if not w.keys), None) or self._idle[0]
        self._idle.remove(pick)
        self._busy.add(pick)
        return pick

    async def _acquire(self, key: str | None, wait_s: float) -> _Worker:
        """A worker for this call: an idle one, a new one (below `size`), or the next one
        released (first come, first served), waiting at most `wait_s` seconds."""
        end = time.monotonic() + wait_s
        while True:
            start = False
            fut: asyncio.Future | None = None
            with self._lock:
                w = self._take(key)
                if w is None and len(self._idle) + len(self._busy) + self._starting < self.size:
                    self._starting += 1
                    start = True
                elif w is None:
                    loop = asyncio.get_running_loop()
                    fut = loop.create_future()
                    self._waiters.append((loop, fut))
            if w is not None:
                return w
            if start:
                try:
                    if self._ctx is None:
                        self._ctx = _context()
                    w = await asyncio.to_thread(_Worker, self._ctx, self.memory_bytes, self.nice)
                finally:
                    with self._lock:
                        self._starting -= 1
                with self._lock:
                    self._busy.add(w)
                return w
            assert fut is not None
            try:
                done, _ = await asyncio.wait([fut], timeout=max(0.0, end - time.monotonic()))
            except BaseException:
                self._forget(fut)
                raise
            if not done:
                self._forget(fut)
                raise LimitError("request", f"the server is busy ({self.size} {self.name} computations running); try again")
            got = fut.result()
            if got is not None:
                return got  # handed over by _release, already counted as busy
            # None: a worker was killed, so one may be started; go round again

    def _forget(self, fut: asyncio.Future) -> None:
        with self._lock:
            self._waiters = deque((lp, f) for lp, f in self._waiters if f is not fut)
        fut.cancel()

    def _hand_over(self, w: _Worker | None) -> bool:
        """Give `w` (or a 'start one' token, None) to the oldest waiter; under the lock."""
        while self._waiters:
            loop, fut = self._waiters.popleft()
            if fut.done():
                continue

            def deliver(fut: asyncio.Future = fut) -> None:
                if not fut.done():
                    fut.set_result(w)
                elif w is not None:  # the waiter gave up meanwhile: pass the worker on
                    self._release(w, None)

            try:
                loop.call_soon_threadsafe(deliver)
            except RuntimeError:  # that event loop is closed
                continue
            return True
        return False

    def _release(self, w: _Worker, key: str | None) -> None:
        with self._lock:
            if not w.proc.is_alive():
                self._busy.discard(w)
                w.kill()
                self._hand_over(None)
                return
            w.note(key)
            if self._hand_over(w):
                return  # stays busy, now for the waiter
            self._busy.discard(w)
            self._idle.append(w)

    def _discard(self, w: _Worker) -> None:
        with self._lock:
            self._busy.discard(w)
            self._hand_over(None)
        w.kill()

    def close(self) -> None:
        """Kill every worker now (server shutdown); a later call starts fresh ones."""
        with self._lock:
            workers = [*self._idle, *self._busy]
            self._idle.clear()
            self._busy.clear()
            while self._hand_over(None):  # waiters start fresh workers
                pass
        for w in workers:
            w.kill()

    # ------------------------------------------------------------------ calls
    async def run(
        self,
        fn: Callable[..., Any],
        *args: Any,
        deadline: float,
        key: str | None = None,
        cancelled: Callable[[], Awaitable[bool]] | None = None,
        limit_field: str = "request",
        limit_text: str | None = None,
        args_for: Callable[[float], tuple] | None = None,
    ) -> Any:
        """fn(*args) (or fn(*args_for(seconds left))) in a worker, stopped `deadline` seconds
        after this call began, the wait for a worker included (LimitError on `limit_field`)."""
        end = time.monotonic() + deadline
        try:
            w = await self._acquire(key, deadline)
        except LimitError:
            raise LimitError(
                limit_field,
                f"waited the whole limit of {deadline:g} s for a free worker ({self.size} {self.name} computations "
                "are running); try again shortly" + ("" if limit_field == "request" else " or give a larger limit"),
            ) from None
        if args_for is not None:
            try:
                args = args_for(end - time.monotonic())
            except BaseException:
                self._release(w, None)
                raise
        loop = asyncio.get_running_loop()
        ready: asyncio.Future = loop.create_future()
        fd = w.conn.fileno()
        try:
            loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
            w.conn.send((fn, args))
            while not ready.done():
                left = end - time.monotonic()
                if left <= 0:
                    raise LimitError(limit_field, limit_text or f"took longer than the limit of {deadline:g} s; try a smaller problem")
                await asyncio.wait([ready], timeout=min(POLL_S, left))
                if not ready.done() and cancelled is not None and await cancelled():
                    raise ClientDisconnected()
            loop.remove_reader(fd)
            try:
                reply = w.conn.recv()
            except (EOFError, OSError):
                w.proc.join(timeout=1.0)
                code = w.proc.exitcode
                raise LimitError(
                    "request",
                    f"the computation stopped (worker exit code {code}); it probably needed more than "
                    f"the memory budget of {self.memory_bytes / 2**30:.1f} GiB; try a smaller problem",
                ) from None
        except BaseException:
            loop.remove_reader(fd)
            self._discard(w)
            raise
        kind = reply[0]
        if kind == "memory":
            self._discard(w)
            raise LimitError(
                "request", f"needs more than the memory budget of {self.memory_bytes / 2**30:.1f} GiB; try a smaller problem"
            )
        self._release(w, key)
        if kind == "ok":
            return reply[1]
        if kind == "limit":
            raise LimitError(reply[1], reply[2])
        if kind == "input":
            raise InputError(reply[1], reply[2])
        raise WorkerError(str(reply[1]))


def _kill_all(idle: list[_Worker], busy: set[_Worker]) -> None:
    for w in [*idle, *busy]:
        w.kill()


def close_all() -> None:
    """Kill the workers of every pool (at interpreter exit)."""
    for pool in list(_LIVE):
        pool.close()


atexit.register(close_all)
