"""One benchmark case in a forked child process of its own (the answers are time-limited and a
case must not inherit another's caches or memory): `in_child(work, args, wait_s, failed)` runs
`work(*args)` there and returns the row it returns; a case that raised, was killed after
`wait_s` seconds or died is the row `failed(status, message, seconds)`.

    from child import in_child        # benchmarks/ is the script's directory
    row = in_child(_run, (spec, tl), 2 * tl + 60, lambda st, msg, s: (st, None, s, msg))
"""

from __future__ import annotations

import multiprocessing as mp
import time
from typing import Any, Callable


def _child(work: Callable[..., Any], args: tuple, failed: Callable[[str, str, float], Any], out: Any) -> None:
    t0 = time.perf_counter()
    try:
        out.put(work(*args))
    except Exception as e:  # noqa: BLE001 - reported as a row
        out.put(failed("error", f"{type(e).__name__}: {str(e)[:120]}", time.perf_counter() - t0))


def in_child(work: Callable[..., Any], args: tuple, wait_s: float, failed: Callable[[str, str, float], Any]) -> Any:
    """The row `work(*args)` returns in a forked child, or `failed(...)` (module docstring)."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    proc = ctx.Process(target=_child, args=(work, args, failed, q))
    proc.start()
    proc.join(wait_s)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return failed("killed", "killed", wait_s)
    try:
        return q.get(timeout=5)
    except Exception:  # noqa: BLE001 - the child died before it answered
        return failed("error", f"exit code {proc.exitcode}", 0.0)
