"""The coverage criterion (SPEC §4.5): a design covers a clustering iff every scenario
(one option per orbit) has an assignment of distinct design orbits, each through a double
coset, to the scenario's demands — one per orbit with a != 0 and D != 0, plus the zero
pool — such that every assigned orbit hosts its demand and supplies sum to at least D.

`check_coverage` routes a problem to one of two exact checkers, the enumerating one
(enumerated.py, the reference at atlas sizes) or the symbolic one (symbolic.py): this
module imports both, and re-exports the enumerating checker's names.

    >>> from eqattn.attention import Design, Problem
    >>> p = Problem.create("C4", "E1", 2, 1)
    >>> all(v.covered for v in check_coverage(p, Design.regular(p))), uses_symbolic(p)
    (True, False)
"""

from __future__ import annotations

from ..errors import LimitError
from .design import Design
from .enumerated import (  # noqa: F401 - the coverage checker's names, re-exported
    MAX_SCENARIOS_PER_CLUSTERING, MAX_SCENARIOS_TOTAL, DesignSearch, ScenarioResult, Verdict, check_clustering, check_scenario,
    demands_of, enumerated_coverage, estimate_scenarios, scenario_count, scenarios,
)
from .problem import Problem
from .symbolic import symbolic_coverage

SMALL_DIM_V = 24  # the enumerating checker handles problems up to these sizes (atlas sizes)
SMALL_HEADS = 8
SMALL_HEAD_DIM = 8


def uses_symbolic(problem: Problem) -> bool:
    """Whether `check_coverage` routes this problem to the symbolic engine (symbolic.py):
    every problem past the atlas sizes; small ones stay on the enumerating reference."""
    return problem.dim_v > SMALL_DIM_V or problem.heads > SMALL_HEADS or problem.head_dim > SMALL_HEAD_DIM


def check_coverage(problem: Problem, design: Design, reduce: bool = True) -> tuple[Verdict, ...]:
    """A verdict per clustering, with witnesses or a counterexample (SPEC §4.5).
    Small problems: every (reduced) scenario enumerated; large ones (`uses_symbolic`), or
    small ones whose scenarios are too many to list: the symbolic engine, exact as well
    (docs/theory-scale.md). `reduce=False` checks every scenario (no design-specific
    dominance), for benchmarks; it never routes."""
    if reduce and uses_symbolic(problem):
        return symbolic_coverage(problem, design)
    try:
        return enumerated_coverage(problem, design, reduce)
    except LimitError:
        if not reduce:
            raise
        return symbolic_coverage(problem, design)


