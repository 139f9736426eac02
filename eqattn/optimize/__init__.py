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
(seeding H heads by H / k). The derivation is docs/optimizer.md.
"""

from .optimizer import optimize, optimize_report
from .limits import ComputeLimits, attention_cost
from .result import ConstrainedResult, OptimizeResult
from .solver import BACKENDS, DEFAULT_BACKEND

__all__ = ["optimize", "optimize_report", "OptimizeResult", "ConstrainedResult", "ComputeLimits", "attention_cost", "BACKENDS", "DEFAULT_BACKEND"]
