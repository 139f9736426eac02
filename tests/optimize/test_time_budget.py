"""How the symbolic engine spends its time limit (rounds.state.lp_reserve, the re-check
reserve in optimizer._optimize_symbolic): the limit bounds the whole call, re-check included,
and the loop keeps for the final LP bound only what that bound needs."""

from __future__ import annotations

import math
import time

import pytest

from eqattn.attention import Problem
from eqattn.optimize import optimize
from eqattn.attention import Design
from eqattn.optimize import search as ss
from eqattn.optimize.budget import Budget
from eqattn.optimize.oracle import CounterexampleOracle
from eqattn.optimize.rounds import state as st
from eqattn.optimize.rounds.state import lp_reserve
from eqattn.optimize.search import search


def test_lp_reserve_is_a_share_until_an_lp_bound_is_timed():
    assert lp_reserve(50.0, None) == pytest.approx((1 - st.LOOP_SHARE) * 50.0)
    assert lp_reserve(math.inf, None) == 0.0
    assert lp_reserve(-3.0, None) == 0.0


@pytest.mark.parametrize("lp_s", [0.0, 0.1, 0.7, 1.0, 4.9, 5.0, 30.0])
def test_lp_reserve_follows_the_last_lp_bound(lp_s):
    share = (1 - st.LOOP_SHARE) * 50.0
    r = lp_reserve(50.0, lp_s)
    assert r == pytest.approx(min(share, max(st.LP_RESERVE_MIN, st.LP_RESERVE * lp_s)))
    assert r <= share + 1e-12
    # a slower LP bound never gets less time
    assert lp_reserve(50.0, lp_s + 1.0) >= r


def test_search_keeps_the_recheck_reserve():
    # H = 16: the search runs to its time limit (not proven within it); with a re-check factor
    # it must return by `deadline - factor * (its check of the incumbent)`
    p = Problem.create("C8", "8xregular", 16, 4)
    factor = 5.0
    deadline = time.perf_counter() + 12.0
    res = search(p, Budget.starting(hard_end=deadline), threads=1, recheck_factor=factor)
    done = time.perf_counter()
    assert res.design is not None and res.best_check_s > 0
    assert res.status in ("feasible", "optimal")
    assert done <= deadline - factor * res.best_check_s + 1.0  # one step's overrun at most


def test_the_time_limit_bounds_the_whole_call():
    # S4, 4xregular, H = 16, d = 4: far from proven in 8 s (feasible, bound 10368 of 24576 at
    # 20 s); D4, 8xregular, H = 16, d = 4, used before, is now proven in about 5 s
    p = Problem.create("S4", "4xregular", 16, 4)
    t0 = time.perf_counter()
    r = optimize(p, 8, constrained=False, threads=1)
    wall = time.perf_counter() - t0
    assert r.status == "feasible" and r.stopped_by == "time_limit"
    assert r.lower_bound < r.design_params
    assert r.time_s <= 8.0 and wall <= 8.0 + 1.0  # the result is built within the limit (+ returning it)


def test_first_check_counts_a_third_towards_the_recheck_reserve(monkeypatch):
    """The regular design's check is the problem's first (it builds the demand spaces the
    re-check reuses): it stands for FIRST_CHECK_SHARE of itself in the re-check reserve.
    C2, 32xregular, H = 4, d = 16: the regular design stays the answer (proven optimal)."""
    checks = []
    real = CounterexampleOracle.keys

    def spy(oracle, design, *a, **kw):
        out = real(oracle, design, *a, **kw)
        checks.append((design == Design.regular(oracle.problem), oracle.last_check_s))
        return out

    monkeypatch.setattr(CounterexampleOracle, "keys", spy)
    p = Problem.create("C2", "32xregular", 4, 16)
    res = search(p, Budget.starting(60), threads=1, recheck_factor=3.0)
    assert res.status == "optimal" and res.design == Design.regular(p)
    assert checks[0][0]  # the regular design is checked first
    assert ss.FIRST_CHECK_SHARE == pytest.approx(1 / 3)
    assert res.best_check_s == pytest.approx(checks[0][1] * ss.FIRST_CHECK_SHARE)


def test_no_reserve_when_the_final_lp_bound_would_change_nothing():
    """The final LP bound is skipped when the last one converged over the current keys
    (price.lp_lower), so the loop keeps no reserve for it then: the LP's rounded design can
    still be checked (S5, 4×regular, H = 8, d = 60: proven in 50 s, theory-scale O5). A key
    more (or an LP that did not converge) and the reserve is back."""
    p = Problem.create("C4", "regular", 2, 1)
    state = ss.new_state(p, Budget.starting(50.0))
    state.keys = [(0,), (1,)]
    state.lp_s = 4.0
    reserve = lp_reserve(state.end - state.start, 4.0)
    assert reserve == pytest.approx(4.0)
    state.lp_done = (2, True)
    assert state.loop_end() == state.final_end()
    state.lp_done = (2, False)
    assert state.loop_end() == pytest.approx(state.final_end() - reserve)
    state.lp_done = (2, True)
    state.keys.append((2,))
    assert state.loop_end() == pytest.approx(state.final_end() - reserve)
    state.lp_done = None
    assert state.loop_end() == pytest.approx(state.final_end() - reserve)
