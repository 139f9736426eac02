"""The round program (eqattn/optimize/program.py): the `multisets` row keeps designs within the
symbolic checker's limit on orbit multisets (Π_t (n_t + 1)), and costs no more than needed."""

from __future__ import annotations

import math

from eqattn.attention import Problem
from eqattn.attention.hosting import hosting
from eqattn.optimize import solver
from eqattn.optimize.program import Objective, build
from eqattn.optimize.separation import ScenarioSpace
from eqattn.optimize.types import copy_bounds, design_types


def _counts(sol: solver.Solution, prog) -> list[int]:  # noqa: ANN001
    return [int(sol.values[v]) for v in prog.n]


def test_multisets_row_bounds_the_designs_orbit_multisets():
    p = Problem.create("C4", "2xregular", 4, 2)  # optimum 224 with several orbit types
    space = ScenarioSpace(p)
    table = design_types(p, space, hosting(p), p.vanilla_params)
    keys = space.initial_keys()
    U = copy_bounds(table, p.vanilla_params // 4)
    free_prog = build(table, U, keys, Objective(0))
    free = solver.solve(free_prog.model)
    assert free.status == "optimal"
    free_ms = math.prod(c + 1 for c in _counts(free, free_prog))
    costs = {}
    for budget in (2, 3, 4, 8, 2 * free_ms):
        prog = build(table, U, keys, Objective(0), multisets=budget)
        sol = solver.solve(prog.model)
        if sol.status == "infeasible":
            costs[budget] = math.inf
            continue
        assert sol.status == "optimal"
        assert math.prod(c + 1 for c in _counts(sol, prog)) <= budget
        costs[budget] = sol.objective
    assert costs[2 * free_ms] == free.objective  # the row does not cut the free optimum
    assert costs[2] > free.objective  # and it binds: one orbit alone costs more
    assert all(costs[a] >= costs[b] for a, b in ((2, 3), (3, 4), (4, 8), (8, 2 * free_ms)))
