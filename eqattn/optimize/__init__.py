"""The optimiser (SPEC §5.5): the covering design with the fewest parameters, with a proof.

Above `attention` (coverage, hosting) and `numeric` (the weight re-check). Modules:
`types` (orbit types and their host tables), `separation` (scenario keys and the violated
scenarios of a design), `program` (the integer program), `solver` (HiGHS), `lazy` (the
scenario loop), `result` (the result and its JSON), `optimizer` (`optimize`). At real sizes
(docs/theory-scale.md): `symbolic_search` (the counterexample loop), `lp_bound` (the LP bound
by column generation), `bounds` (scenario bounds), `fixing` (reduced-cost fixing), `coarsen`
(designs above a design), `multiples` (seeding H heads by H / k). Within a compute budget (theory-scale B1-B5):
`budgeted` (the budget program: counterexample cuts), `widening` (the least widening),
`front` (the Pareto front of cost and parameters), `partial` (the best partial coverage),
`within` (the cheapest design within a budget), `reports` (their JSON). The derivation is
docs/optimizer.md.
"""

from .front import Front, front
from .optimizer import optimize, optimize_report
from .partial import PartialResult, coverage_curve, partial_coverage
from .widening import Widening, least_widening
from .within import Within, optimize_within
from .result import ConstrainedResult, OptimizeResult, attention_cost
from .solver import BACKENDS, DEFAULT_BACKEND

__all__ = ["front", "Front", "least_widening", "Widening", "partial_coverage", "PartialResult", "coverage_curve",
           "optimize_within", "Within", "optimize", "optimize_report", "OptimizeResult", "ConstrainedResult", "attention_cost", "BACKENDS", "DEFAULT_BACKEND"]
