"""The optimiser always answers: a solver failure is a status with a reason, never an
exception; without compute limits there is always a design (the regular design covers,
SPEC §3); a compute-limited problem that cannot be met is `infeasible` with a one-line
certificate (theory-scale O19)."""

from __future__ import annotations

import re

import highspy

from eqattn.attention import Design, Problem
from eqattn.optimize import optimize, solver


def test_a_solver_failure_is_a_status_with_a_reason(monkeypatch):
    m = solver.Model()
    x = m.add_var(0, 5, 1)
    m.add_row([x], [2], lo=3)
    monkeypatch.setattr(highspy.Highs, "run", lambda self: highspy.HighsStatus.kError)
    sol = solver.solve(m)
    assert (sol.status, sol.stopped, sol.values) == ("unknown", "error", None) and "HiGHS failed" in sol.reason
    lin = solver.solve_linear([1.0], [0.0], [5.0], [([0], [2.0], 3.0, float("inf"))])
    assert lin.status == "unknown" and lin.values is None and "HiGHS failed" in lin.reason
    for engine in ("enumerate", "symbolic"):
        r = optimize(Problem.create("C4", "E1", 2, 1), 10, engine=engine)
        assert r.design is not None and r.status == "feasible" and r.stopped_by == "solver_error", engine
        assert r.reason and "HiGHS failed" in r.reason and any("HiGHS failed" in n for n in r.notes)


def test_without_limits_there_is_always_a_design():
    """-G D4 -V 96xregular -H 12 -d 64 -t 1: the search has no time to check anything; the
    answer is the regular design (the vanilla count), feasible, with a valid bound."""
    p = Problem.create("D4", "96xregular", 12, 64)
    r = optimize(p, 1)
    assert r.design == Design.regular(p) and r.design_params == p.vanilla_params
    assert r.status == "feasible" and r.stopped_by == "time_limit" and 0 <= r.lower_bound <= r.design_params
    assert r.to_json()["orbits"]


def test_the_d4_96_regular_limited_problem_answers_infeasible():
    """D4, 96×regular, H = 12, d = 64 with at most 12 heads of dimension at most 64 (the
    layer's own width): HiGHS failed on one of its programs (a traceback); now the cost
    certificate proves that no design within the limits covers."""
    p = Problem.create("D4", "96xregular", 12, 64)
    r = optimize(p, 60, max_heads=12, max_head_dim=64)
    assert r.status == "infeasible" and r.design is None and r.stopped_by is None
    # the reason carries the figure that exceeds a limit; no bound is reported beside it
    heads, cost = re.search(r"at least (\d+) heads", r.reason), re.search(r"attention cost at least (\d+)", r.reason)
    assert heads is not None or cost is not None, r.reason
    assert int(heads.group(1)) > 12 if heads is not None else int(cost.group(1)) > 12 * 64
    assert r.lower_bound is None and r.attention_cost_lower_bound is None and r.to_json()["lower_bound"] is None


def test_a_time_limit_never_leaves_an_unlimited_problem_without_a_design():
    """D3, E1, H = 23, d = 1 with a short limit (the API gave status unknown, no design): a
    design is always returned when the regular design is within the limits."""
    r = optimize(Problem.create("D3", "E1", 23, 1), 0.5)
    assert r.design is not None and r.status in ("feasible", "optimal")
