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


def _random_step(rng, lp, rows, cols):  # noqa: ANN001
    """Grow `lp` and the plain copy (`rows`: (idx, coef, lo, hi); `cols`: costs) alike: a few
    covering rows over the columns so far, or a few columns with entries in the rows so far."""
    import numpy as np

    if rng.random() < 0.4 or not rows:
        new = []
        for _ in range(rng.randint(1, 4)):
            idx = sorted(rng.sample(range(len(cols)), min(len(cols), rng.randint(0, 3))))
            coef = [float(rng.randint(1, 4)) for _ in idx]
            new.append((idx, coef, float(rng.randint(1, 6)), np.inf))
        lp.add_rows([r[2] for r in new], [r[3] for r in new], [(r[0], r[1]) for r in new])
        rows.extend(new)
    else:
        k = rng.randint(1, 5)
        entries = []
        for _ in range(k):
            idx = sorted(rng.sample(range(len(rows)), min(len(rows), rng.randint(1, 4))))
            entries.append((idx, [float(rng.randint(1, 5)) for _ in idx]))
        cost = [float(rng.randint(1, 9)) for _ in range(k)]
        first = len(cols)
        lp.add_cols(cost, [0.0] * k, [np.inf] * k, entries)
        cols.extend(cost)
        for c, (idx, coef) in enumerate(entries):
            for r, a in zip(idx, coef):
                rows[r][0].append(first + c)
                rows[r][1].append(a)


def test_a_grown_program_has_the_optimum_of_the_same_program_built_at_once():
    """`GrowingLP` (the LP bound's master): after every step of rows or columns added, its
    warm-started optimum is that of `solve_linear` on the whole program built afresh (and it
    is infeasible exactly when that is), and its duals are optimal: `cost - Aᵀy ≥ 0`, `y ≥ 0`
    on the covering rows, `b·y` the optimum."""
    import random

    import numpy as np

    for seed in range(12):
        rng = random.Random(seed)
        lp, rows, cols = solver.GrowingLP(), [], []
        lp.add_cols([1000.0] * 3, [0.0] * 3, [np.inf] * 3, [([], [])] * 3)  # (costly columns: a start that may cover nothing)
        cols.extend([1000.0] * 3)
        for _ in range(10):
            _random_step(rng, lp, rows, cols)
            grown = lp.solve()
            whole = solver.solve_linear(cols, [0.0] * len(cols), [np.inf] * len(cols), [(list(i), list(c), lo, hi) for i, c, lo, hi in rows])
            assert grown.status == whole.status, (seed, grown, whole)
            if whole.status != "optimal":
                continue
            assert abs(grown.objective - whole.objective) <= 1e-6 * max(1.0, abs(whole.objective)), seed
            y = grown.row_duals
            assert (y >= -1e-9).all()
            reduced = np.array(cols, dtype=float)
            for (idx, coef, _, _), yr in zip(rows, y):
                for i, a in zip(idx, coef):
                    reduced[i] -= a * yr
            assert (reduced >= -1e-6).all(), seed
            assert abs(sum(r[2] * yr for r, yr in zip(rows, y)) - whole.objective) <= 1e-6 * max(1.0, whole.objective)


def test_a_grown_program_is_solved_by_the_primal_simplex_while_its_last_optimum_stays_feasible():
    """`GrowingLP.solve` runs the primal simplex from the last basis exactly when the last
    solve was optimal and what joined since keeps its optimum feasible: columns at 0, and
    rows that optimum meets (a column generation round); the dual simplex when a row it
    violates joined (a row generation round) or there is no optimum to start from. The
    master of the LP bound adds a type's link rows (met at 0) with each type: with the dual
    simplex those rounds cost thousands of pivots each (S4xC2 10×regular H8 d60)."""
    import random

    import numpy as np

    chosen = {solver.SIMPLEX_PRIMAL: 0, solver.SIMPLEX_DUAL: 0}
    for seed in range(12):
        rng = random.Random(seed)
        lp, rows, cols = solver.GrowingLP(), [], []
        lp.add_cols([1000.0] * 3, [0.0] * 3, [np.inf] * 3, [([], [])] * 3)
        cols.extend([1000.0] * 3)
        x = None  # the last optimum, extended by 0 for the columns that joined since
        for _ in range(12):
            n_rows, n_cols = len(rows), len(cols)
            if x is not None and rng.random() < 0.3:  # rows the last optimum meets
                idx = sorted(rng.sample(range(len(cols)), min(len(cols), 2)))
                coef = [1.0] * len(idx)
                act = float(sum(x[i] for i in idx))
                lp.add_rows([act - 1.0], [act + 1.0], [(idx, coef)])
                rows.append((idx, coef, act - 1.0, act + 1.0))
            else:
                _random_step(rng, lp, rows, cols)
            if x is not None:
                x = np.concatenate([x, np.zeros(len(cols) - n_cols)])
                met = all(r[2] - 1e-9 <= float(sum(x[i] * a for i, a in zip(r[0], r[1]))) <= r[3] + 1e-9 for r in rows[n_rows:])
            want = solver.SIMPLEX_PRIMAL if x is not None and met else solver.SIMPLEX_DUAL
            s = lp.solve()
            assert lp._h.getOptionValue("simplex_strategy")[1] == want, seed
            chosen[want] += 1
            x = np.array(s.values) if s.status == "optimal" else None
    assert min(chosen.values()) >= 10  # (both kinds of round occur)


def test_a_mip_without_primal_heuristics_has_the_same_optimum_and_bound():
    """`solve_linear(..., heuristics=False)` (the LP bound's pricing programs) sets
    `NO_HEURISTICS` on the solve and nothing else: the optimum and the proven bound are
    those with HiGHS's heuristics, and the next solve on the reused object has them again."""
    import numpy as np

    for n in (6, 11, 14):
        cost = [float(i + 1) for i in range(n)]
        rows = [(list(range(n)), [float(2 * i + 3) for i in range(n)], -np.inf, float(4 * n))]
        args = (cost, [0.0] * n, [1.0] * n, rows, [True] * n)
        on = solver.solve_linear(*args, maximize=True)
        off = solver.solve_linear(*args, maximize=True, heuristics=False)
        h = solver._REUSED.h
        assert all(h.getOptionValue(name)[1] == value for name, value in solver.NO_HEURISTICS)
        assert (off.status, round(off.objective, 9), round(off.bound, 9)) == (on.status, round(on.objective, 9), round(on.bound, 9)) == (
            "optimal", round(on.objective, 9), round(on.objective, 9))
        solver.solve_linear(*args, maximize=True)
        assert h.getOptionValue("mip_heuristic_run_rins")[1] is True
    assert {name for name, value in solver.NO_HEURISTICS if value in (False, 0.0)} >= {
        "mip_heuristic_run_rins", "mip_heuristic_run_rens", "mip_heuristic_run_feasibility_jump"}


def test_the_pricing_programs_run_without_primal_heuristics(monkeypatch):
    """The LP bound's pricing programs (past `PRICE_ENUMERATE` types on a subgroup) are the
    MIPs solved without HiGHS's primal heuristics (`PRICE_HEURISTICS`)."""
    from eqattn.attention import Problem
    from eqattn.attention.hosting import hosting
    from eqattn.optimize import lp_bound as L
    from eqattn.optimize.separation import ScenarioSpace

    seen = []
    plain = solver.solve_linear

    def spy(*a, **k):  # noqa: ANN002, ANN003, ANN202
        if len(a) > 4 and a[4] is not None and any(a[4]):
            seen.append(k.get("heuristics", True))
        return plain(*a, **k)

    monkeypatch.setattr(L.solver, "solve_linear", spy)
    p = Problem.create("C4", "32xregular", 2, 8)
    space = ScenarioSpace(p)
    res = L.lp_bound(p, hosting(p), space.values, space.initial_keys(), start=())
    assert res.converged and seen and not any(seen)


def test_a_failed_warm_solve_is_solved_afresh():
    """When HiGHS fails from the last basis (seen: the dual simplex's ratio test with costs
    from 2e3 to 2e9), `GrowingLP.solve` solves once more from no basis and counts it."""
    import highspy
    import numpy as np

    lp = solver.GrowingLP()
    lp.add_rows([2.0], [np.inf], [([], [])])
    lp.add_cols([1.0, 1.0], [0.0, 0.0], [np.inf, np.inf], [([0], [1.0]), ([0], [2.0])])
    assert lp.solve().objective == 1.0 and lp.fresh_solves == 0

    class FailsOnce:
        def __init__(self, h):  # noqa: ANN001
            self.h, self.failed = h, False

        def run(self):  # noqa: ANN202
            if not self.failed:  # (it pivots from the last basis, then fails)
                self.failed = True
                self.h.run()
                self.pivots = int(self.h.getInfo().simplex_iteration_count)
                return highspy.HighsStatus.kError
            return self.h.run()

        def __getattr__(self, name):  # noqa: ANN001, ANN204
            return getattr(self.h, name)

    lp._h = FailsOnce(lp._h)
    lp.add_cols([0.25], [0.0], [np.inf], [([0], [1.0])])
    s = lp.solve()
    assert (s.status, round(s.objective, 9), lp.fresh_solves) == ("optimal", 0.5, 1)
    assert lp._h.pivots > 0 and s.work >= lp._h.pivots  # (the failed try's iterations are counted with the fresh one's)


def _knapsack(n: int) -> solver.Model:
    """max Σ (i + 1) x_i (as min of the negation), Σ (2i + 3) x_i ≤ 4n, x binary: a few
    branch-and-bound nodes."""
    m = solver.Model()
    xs = [m.add_var(0, 1, -(i + 1)) for i in range(n)]
    m.add_row(xs, [2 * i + 3 for i in range(n)], hi=4 * n)
    return m


def test_one_shot_solves_reuse_a_highs_object_without_carrying_its_options_or_model():
    """The one-shot solves of a thread reuse one Highs object (`_configured_highs(reuse=True)`:
    its model cleared and every option reset): a node limit, a time limit, a maximisation
    or the last model does not reach the next solve, and the answers are those of a fresh
    object. Another thread has its own object."""
    import threading

    fresh = solver.solve(_knapsack(14))
    assert fresh.status == "optimal"
    limited = solver.solve(_knapsack(14), node_limit=1)
    assert limited.status in ("optimal", "feasible")
    again = solver.solve(_knapsack(14))  # no node limit left over
    assert (again.status, again.objective, list(again.values)) == (fresh.status, fresh.objective, list(fresh.values))
    assert solver.solve_linear([1.0, 2.0], [0.0, 0.0], [10.0, 10.0], [([0, 1], [1.0, 1.0], 3.0, float("inf"))], maximize=False).objective == 3.0
    top = solver.solve_linear([1.0, 2.0], [0.0, 0.0], [10.0, 10.0], [([0, 1], [1.0, 1.0], -float("inf"), 4.0)], maximize=True)
    assert top.objective == 8.0
    low = solver.solve_linear([1.0, 2.0], [0.0, 0.0], [10.0, 10.0], [([0, 1], [1.0, 1.0], 3.0, float("inf"))])
    assert low.objective == 3.0  # minimised again: the sense was not carried over
    h = solver._configured_highs(None, 1.0, reuse=True)
    assert solver._configured_highs(None, None, reuse=True) is h and h.getOptionValue("time_limit")[1] == float("inf")
    seen = []
    t = threading.Thread(target=lambda: seen.append(solver._configured_highs(None, None, reuse=True)))
    t.start()
    t.join()
    assert seen[0] is not h


def test_a_reused_highs_object_times_each_solve_from_its_start():
    """HiGHS reads `time_limit` off the object's run clock, which no clear resets: once a
    reused object had run for longer than the next solve's limit, that solve stopped at once
    with "time limit reached" (a 2-variable LP of the limits bound, after the budget tests).
    Each solve's limit counts from its own start."""
    import time

    import numpy as np

    rng = np.random.default_rng(0)
    n = 200
    rows = [(list(map(int, np.flatnonzero(rng.random(n) < 0.05))) or [i], None, 1.0, float("inf")) for i in range(n)]
    rows = [(idx, [1.0] * len(idx), lo, hi) for idx, _, lo, hi in rows]
    h = solver._configured_highs(None, None, reuse=True)
    for _ in range(200):
        assert solver.solve_linear(list(rng.random(n)), [0.0] * n, [10.0] * n, rows).status == "optimal"
        if h.getRunTime() > 0.1:
            break
    assert h.getRunTime() > 0.1
    quick = solver.solve_linear([1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [([0, 1], [1.0, 1.0], 1.0, float("inf"))], time_limit=0.05)
    assert (quick.status, quick.objective) == ("optimal", 1.0)
    # ... while a MIP is timed from the start of its own solve: no more than its limit however
    # long the object has run (a cost search at head dim <= 32 on Oh ran 42 s on a 19 s limit)
    m = 60
    cost = list(rng.integers(50, 100, m).astype(float))
    hard = []
    for _ in range(40):
        idx = list(map(int, rng.choice(m, 15, replace=False)))
        hard.append((idx, list(map(float, rng.integers(20, 60, 15))), float(rng.integers(300, 500)), float("inf")))
    while h.getRunTime() < 1.5:
        solver.solve_linear(list(rng.random(n)), [0.0] * n, [10.0] * n, rows)
    t = time.perf_counter()
    stopped = solver.solve_linear(cost, [0.0] * m, [20.0] * m, hard, [True] * m, time_limit=0.2)
    assert time.perf_counter() - t < 1.0 and stopped.status in ("feasible", "unknown", "optimal")
    t = time.perf_counter()
    model = solver.Model()
    xs = [model.add_var(0, 20, int(c)) for c in cost]
    for idx, coef, lo, _ in hard:
        model.add_row([xs[i] for i in idx], [int(c) for c in coef], lo=int(lo))
    solver.solve(model, time_limit=0.2)
    assert time.perf_counter() - t < 1.0
