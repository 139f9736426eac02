"""The optimiser (SPEC §5.5): the covering design with the fewest parameters within the
compute limits, with a proof.

Above `attention` (coverage, hosting) and `numeric` (the weight re-check). Modules, by
concept: `head_types` (head types (K', W) and their host tables), `hosts` (the cheapest
host of a demand through one slot), `type_sets` (the sets of head types programs run over),
`separation` (scenario keys and the violated scenarios of a design), `program` (the integer
program), `solver` (HiGHS), `budget` (time and work), `limits` (compute limits, attention
cost), `catalogue` (demand values), `oracle` (counterexamples), `result` (the result and
its JSON), `finish` (the re-check and the result of both engines), `optimizer`
(`optimize`). The enumerating engine: `enumerated` with `lazy` (the scenario loop). The
symbolic search (docs/theory-scale.md): `search` with the rounds of `rounds/`, `lp_bound`
(the LP bound by column generation), `bounds` (scenario bounds), `fixing` (reduced-cost
fixing), `coarsen` (designs above a design), `repair` (greedy raises), `multiples`
(seeding H heads by H / k). Within a compute budget (theory-scale B): `budgeted` (the
budget program: counterexample cuts), `widening` (the least widening), `front` (the Pareto
front of cost and parameters), `partial` (the best partial coverage), `within` (the
cheapest design within a budget), `reports` (their JSON). The derivation is
docs/optimizer.md.
"""

from .front import Front, front
from .optimizer import optimize, optimize_report
from .partial import PartialResult, coverage_curve, partial_coverage
from .widening import Widening, least_widening
from .within import Within, optimize_within
from .limits import ComputeLimits, attention_cost
from .result import ConstrainedResult, OptimizeResult
from .solver import BACKENDS, DEFAULT_BACKEND

__all__ = ["front", "Front", "least_widening", "Widening", "partial_coverage", "PartialResult", "coverage_curve",
           "optimize_within", "Within", "optimize", "optimize_report", "OptimizeResult", "ConstrainedResult",
           "ComputeLimits", "attention_cost", "BACKENDS", "DEFAULT_BACKEND"]
