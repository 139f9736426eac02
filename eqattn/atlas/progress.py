"""Progress of a sweep on stderr: done / total, optimal / time-limited / refused / error, ETA.

On a terminal one line is rewritten in place; otherwise one line per finished problem; with
`quiet` (the CLI's --json) nothing. The ETA is the mean wall time per problem finished in this
run times the problems left (problems skipped as already stored do not count).

    >>> import io
    >>> p = Progress(total=2, skipped=0, stream=io.StringIO())
    >>> p.counts
    {'optimal': 0, 'feasible': 0, 'refused': 0, 'error': 0}
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

LABELS = {"optimal": "optimal", "feasible": "time-limited", "refused": "refused", "error": "error"}


class Progress:
    """Counts finished problems and prints the progress line."""

    def __init__(self, total: int, skipped: int, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.total = total
        self.skipped = skipped
        self.done = skipped
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.counts: dict[str, int] = {s: 0 for s in LABELS}
        self.t0 = time.perf_counter()
        self.width = 0

    @property
    def computed(self) -> int:
        return self.done - self.skipped

    def eta(self) -> float | None:
        """Seconds left at the mean pace of this run (None before the first result)."""
        if self.computed <= 0:
            return None
        return (time.perf_counter() - self.t0) / self.computed * (self.total - self.done)

    def line(self) -> str:
        eta = self.eta()
        tally = ", ".join(f"{LABELS[s]} {n}" for s, n in self.counts.items() if n or s == "optimal")
        eta_text = "-" if eta is None else _clock(eta)
        return f"{self.done}/{self.total} done ({self.skipped} stored before); {tally}; {_clock(time.perf_counter() - self.t0)} elapsed, ETA {eta_text}"

    def update(self, problem: dict[str, Any], row: dict[str, Any]) -> None:
        """One more problem finished (called after it is stored)."""
        self.done += 1
        self.counts[row["status"]] = self.counts.get(row["status"], 0) + 1
        if self.quiet:
            return
        if self.tty:
            text = self.line()
            self.stream.write("\r" + text + " " * max(0, self.width - len(text)))
            self.width = len(text)
        else:
            res = "" if row["p_opt"] is None else f" {row['p_opt']}/{row['p_vanilla']}"
            self.stream.write(
                f"[{self.done}/{self.total}] {problem['group']} {problem['rep']} H={problem['heads']} d={problem['head_dim']}: "
                f"{row['status']}{res} {row['time_s']:.2f}s\n"
            )
        self.stream.flush()

    def close(self) -> None:
        if not self.quiet and self.tty:
            self.stream.write("\r" + self.line() + " " * max(0, self.width - len(self.line())) + "\n")
            self.stream.flush()


def _clock(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
