"""Process helpers for the API tests (from /proc: Linux)."""

from __future__ import annotations

import time


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before the open, or between open and read
        return False


def wait_gone(pid: int, within: float) -> float:
    t0 = time.monotonic()
    while alive(pid):
        assert time.monotonic() - t0 < within, f"worker {pid} still alive after {within} s"
        time.sleep(0.01)
    return time.monotonic() - t0
