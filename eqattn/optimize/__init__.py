"""The optimiser (SPEC §5.5): the covering design with the fewest parameters, with a proof.

Above `attention` (coverage, hosting) and `numeric` (the weight re-check). Modules:
`types` (orbit types and their host tables), `separation` (scenario keys and the violated
scenarios of a design), `program` (the integer program), `solver` (HiGHS), `lazy` (the
scenario loop), `result` (the result and its JSON), `optimizer` (`optimize`). At real sizes
(docs/theory-scale.md): `symbolic_search` (the counterexample loop), `lp_bound` (the LP bound
by column generation), `bounds` (scenario bounds), `fixing` (reduced-cost fixing), `coarsen`
(designs above a design), `multiples` (seeding H heads by H / k). The derivation is
docs/optimizer.md.
"""

from .optimizer import optimize, optimize_report
from .result import ConstrainedResult, OptimizeResult, attention_cost
from .solver import BACKENDS, DEFAULT_BACKEND

__all__ = ["optimize", "optimize_report", "OptimizeResult", "ConstrainedResult", "attention_cost", "BACKENDS", "DEFAULT_BACKEND"]
