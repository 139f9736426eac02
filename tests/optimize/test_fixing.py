"""Reduced-cost fixing (eqattn/optimize/fixing.py, theory-scale O13).

Independent routes: the fixed types are compared with every capped type (design_types)
whose reduced cost, computed by enumeration in test_lp_bound.profit_table (numpy from the
hosting data, not the branch and bound), is within the slack; and the program over the
fixed types with the cutoff is compared with the program over every capped type: the same
optimum when that is within the cutoff, infeasible when it is not."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_lp_bound import LARGER, SAMPLE, _keys, profit_table

from eqattn.attention import Problem
from eqattn.attention.hosting import hosting
from eqattn.optimize import solver
from eqattn.optimize.fixing import TOL, fixed_types, slack
from eqattn.optimize.lp_bound import lp_bound
from eqattn.optimize.program import Objective, build
from eqattn.optimize.separation import ScenarioSpace
from eqattn.optimize.types import copy_bounds, design_types

ROWS = (SAMPLE + LARGER)[::2]


def _program_optimum(table, U, keys, cutoff):  # noqa: ANN001, ANN202
    prog = build(table, U, keys, Objective(0), cutoff=cutoff)
    sol = solver.solve(prog.model, time_limit=60)
    assert sol.status in ("optimal", "infeasible")
    return None if sol.status == "infeasible" else round(sol.objective)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['group']}-{r['V']}-{r['H']}-{r['d']}")
def test_fixed_types_are_exactly_the_types_within_the_slack_and_keep_the_optimum(row):
    p = Problem.create(row["group"], row["V"], int(row["H"]), int(row["d"]))
    space = ScenarioSpace(p)
    h = hosting(p)
    keys = _keys(space, random.Random(2))
    cert = lp_bound(p, h, space.values, keys, start=()).certificate
    every = design_types(p, space, h, np.inf)
    full = _program_optimum(every, copy_bounds(every, None), keys, None)
    assert full is not None
    prof = profit_table(p, space.values, keys, cert)
    for cutoff in sorted({full - 1, full, full + 2, int(row["P_opt"]) // 4}):
        if cutoff < 0:
            continue
        fixed = fixed_types(p, space, h, keys, cert, cutoff)
        assert fixed is not None
        table, bounds = fixed
        room = slack(cert, space.values, keys, None, cutoff)
        tol = TOL * max(1.0, cert.theta * cutoff)
        # the independent list: every capped type hosting a demand, reduced cost θ(c - profit) ≤ slack
        want = set()
        for t in every.types:
            Ws, pr = prof[t.sub]
            i = int(np.nonzero((Ws == np.array(t.W)).all(axis=1))[0][0])
            if -cert.theta * pr[i] <= room + tol:
                want.add((t.sub, t.W))
        assert {(t.sub, t.W) for t in table.types} == want, cutoff
        U = [u if b is None else min(u, b) for u, b in zip(copy_bounds(table, None), bounds)]
        got = _program_optimum(table, U, keys, cutoff)
        if full <= cutoff:
            assert got == full, (cutoff, got, full)
        else:
            assert got is None, (cutoff, got, full)


def test_a_cutoff_below_the_lp_bound_leaves_no_type():
    p = Problem.create("C4", "E1", 2, 1)  # SPEC §6.2: 8 parameters = 2 units
    space = ScenarioSpace(p)
    h = hosting(p)
    keys = space.initial_keys()
    cert = lp_bound(p, h, space.values, keys, start=()).certificate
    assert len(fixed_types(p, space, h, keys, cert, 1)[0]) == 0
    assert len(fixed_types(p, space, h, keys, cert, 2)[0]) > 0


def test_node_limit_gives_up():
    p = Problem.create("D4", "2xregular", 2, 4)
    space = ScenarioSpace(p)
    h = hosting(p)
    keys = space.initial_keys()
    cert = lp_bound(p, h, space.values, keys, start=()).certificate
    assert fixed_types(p, space, h, keys, cert, 10**6, max_nodes=10) is None
    assert fixed_types(p, space, h, keys, cert, 10**6) is not None
