"""A work limit makes answers reproducible (budget.py): it counts deterministic work (program
nodes and the LP bound's simplex iterations and pricing nodes), reports it, and under it no
step takes a share of the clock, so a run alone and two runs beside each other on the same
cores give the same bounds and designs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = """
import json, sys
from eqattn.attention import Problem
from eqattn.optimize import optimize
r = optimize(Problem.create("S4", "2xregular", 4, 12), 300, constrained=False, work_limit=8)
print(json.dumps([r.status, r.design_params, r.lower_bound, r.work, r.stopped_by, [(o.sub.id, o.W.mults) for o in r.design.orbits]]))
"""


def _start() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", RUN], cwd=ROOT, stdout=subprocess.PIPE, text=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})


def test_a_work_limit_gives_the_same_answer_alone_and_beside_another_run():
    """S4, 2×regular, H = 4, d = 12 (the LP bound and restricted rounds first): the limit
    stops it (not the clock), it says so, and every run agrees."""
    alone = _start()
    first = json.loads(alone.communicate(timeout=600)[0])
    pair = [_start(), _start()]
    both = [json.loads(p.communicate(timeout=600)[0]) for p in pair]
    assert first[4] == "work_limit" and first[3] >= 8 and first[0] == "feasible"
    assert both == [first, first]
