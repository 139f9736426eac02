"""The round program (eqattn/optimize/program.py): the `multisets` row keeps designs within the
symbolic checker's limit on orbit multisets (Π_t (n_t + 1)), and costs no more than needed."""

from __future__ import annotations

import math

from eqattn.attention import Problem
from eqattn.attention.hosting import hosting
from eqattn.optimize import solver
from eqattn.optimize.program import Objective, build
from eqattn.optimize.separation import ScenarioSpace
from eqattn.optimize.type_sets import copy_bounds, design_types


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


def test_max_vars_refuses_a_program_over_the_limit_and_only_then():
    from eqattn.errors import LimitError

    p = Problem.create("C4", "2xregular", 4, 2)
    space = ScenarioSpace(p)
    table = design_types(p, space, hosting(p), p.vanilla_params)
    keys = space.initial_keys()
    U = copy_bounds(table, p.vanilla_params // 4)
    n = build(table, U, keys, Objective(0)).model.num_vars
    assert build(table, U, keys, Objective(0), max_vars=n).model.num_vars == n
    try:
        build(table, U, keys, Objective(0), max_vars=n - 1)
    except LimitError as e:
        assert e.field == "program" and str(n - 1) in e.message
    else:
        raise AssertionError("a program over max_vars was built")


def test_search_with_programs_refused_stays_correct(monkeypatch):
    """With every program over the variable limit the symbolic search falls back (restricted
    rounds, then scenario_limit): its design still covers, and it claims optimality only at
    the proven optimum (224, SPEC-checked in the atlas reference)."""
    import time

    from eqattn.attention import check_coverage
    from eqattn.optimize.budget import Budget
    from eqattn.optimize.rounds import program
    from eqattn.optimize.search import search

    p = Problem.create("C4", "2xregular", 4, 2)
    free = search(p, Budget.starting(60))
    assert (free.status, free.design.params) == ("optimal", 224)
    monkeypatch.setattr(program, "MAX_PROGRAM_VARS", 5)
    res = search(p, Budget.starting(60))
    assert res.design is not None and all(v.covered for v in check_coverage(p, res.design))
    assert res.status in ("optimal", "feasible")
    if res.status == "optimal":
        assert res.design.params == 224
    else:
        assert res.stopped == "scenario_limit" and 4 * res.lower_units <= 224 <= res.design.params
