"""The HiGHS adapter (eqattn/optimize/solver.py): answers, duals-free bounds, thread counts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from eqattn.optimize import solver

ROOT = Path(__file__).resolve().parents[2]


def test_small_program():
    m = solver.Model()
    x = m.add_var(0, 5, 1)
    y = m.add_var(0, 5, 3)
    m.add_row([x, y], [2, 1], lo=7)
    s = solver.solve(m)
    assert (s.status, s.objective, list(s.values)) == ("optimal", 4, [4, 0])  # min x + 3y, 2x + y >= 7
    m.add_row([x], [1], hi=0)
    m.add_row([y], [1], hi=2)
    assert solver.solve(m).status == "infeasible"


def test_a_second_thread_count_in_one_process_still_solves():
    """HiGHS keeps one scheduler per process and refuses a run asking for another thread
    count; that refusal once came back as status 'unknown' (stopped by 'time'), so the
    symbolic optimiser stopped at once when its bounds ran with the default count and its
    programs with threads=1. A fresh process, as the first solve must start the scheduler."""
    code = (
        "from eqattn.optimize import solver\n"
        "m = solver.Model(); x = m.add_var(0, 5, 1); m.add_row([x], [2], lo=3)\n"
        "print(*(solver.solve(m, threads=t).status for t in (None, 1, 2, None)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["optimal"] * 4
