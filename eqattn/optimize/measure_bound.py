"""Lower bounds on the heads and the attention cost of every covering design (docs/theory-scale.md
O11, O19d), for the least-widening questions at sizes past the budget program.

The counterexamples of the empty design (one scenario key per clustering with a demand, at
most `ROUND_KEYS`) are scenarios every covering design meets (Lemma O1), so the LP bound of
lp_bound.py over them, with a type's cost taken as its heads [G:K'] or its attention cost
[G:K'] dim W, bounds the heads or the attention cost of every covering design whose heads
all have dimension at most `max_head_dim`. A bound stopped by the clock is still valid
(Farley's scaling); 0 when the clock stops the counterexample search first.

    >>> from eqattn.attention import Problem
    >>> p = Problem.create("C4", "E1", 2, 1)   # SPEC §6.2: the optimum, (C2, 1), has 2 heads of cost 2
    >>> measure_bound(p, "heads", 10), measure_bound(p, "attention_cost", 10)
    (2, 2)
"""

from __future__ import annotations

import math
import time
from typing import Sequence

from ..attention import Design, Problem
from ..attention.assignment import Demand
from .budget import Budget
from .lp_bound import LPBound, lp_bound, measured
from .oracle import ROUND_KEYS

MEASURES = ("heads", "attention_cost")


def measure_bound(
    problem: Problem, measure: str, time_limit: float, max_head_dim: int | None = None, extra: Sequence[tuple[Demand, ...]] = (),
) -> int:
    """⌈the LP bound in `measure` ("heads" or "attention_cost")⌉ over the empty design's
    counterexamples and the keys `extra` (scenario keys as demand tuples that every covering
    design meets, e.g. those an optimiser's search met: `OptimizeResult.scenario_keys`), for
    designs whose heads have dimension at most `max_head_dim`."""
    from .search import new_state

    if measure not in MEASURES:
        raise ValueError(f"measure: heads or attention_cost, got {measure!r}")
    problem, objective = measured(problem, measure)
    end = time.perf_counter() + max(time_limit, 0.0)
    state = new_state(problem, Budget.starting(max(time_limit, 0.01)))
    first = list(state.oracle.keys(Design(problem, ()), end, ROUND_KEYS) or [])
    more = [tuple(sorted(state.catalogue.intern(d) for d in dems)) for dems in extra]
    keys = list(dict.fromkeys(first + more))
    if not keys:
        return 0
    values = state.catalogue.values
    # over the first keys alone (quick), then over all of them from its columns and duals'
    # keys: the larger of the two (an LP over more keys the clock stops may certify less)
    res = lp_bound(problem, state.h, values, first, (), end, None, max_head_dim, objective=objective) if first else None
    best = _units(res)
    if len(keys) > len(first) and time.perf_counter() < end:
        res = lp_bound(problem, state.h, values, keys, () if res is None else res.columns, end, None, max_head_dim,
                       active=() if res is None else res.active, objective=objective)
        best = max(best, _units(res))
    return best


def _units(res: LPBound | None) -> int:
    return 0 if res is None or res.certificate is None else max(0, int(math.ceil(res.value - 1e-6)))
