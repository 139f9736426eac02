"""One finish for both engines: re-check the answer with the coverage checker (and the
weight construction where it is small enough), say what is not proven in plain words, and
build the `OptimizeResult` (SPEC §5.5; docs/optimizer.md).

Every design the optimiser returns covers every clustering by the coverage checker (past
MAX_CLUSTERINGS: every representative clustering, theory-scale C7) and is within the
compute limits; a violation is an internal error, never an answer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..attention import Design, Problem, check_coverage
from ..attention.clusterings import MAX_CLUSTERINGS, count_clusterings
from ..attention.symbolic import representative_coverage
from ..errors import LimitError
from ..numeric import verify_design
from ..numeric.verify import MAX_VERIFY_BYTES, verify_memory
from .budget import Budget, Usage
from .limits import ComputeLimits, cost_lower_bound
from .result import ConstrainedResult, OptimizeResult

NUMERIC_MAX_SCENARIOS = 300  # numeric re-check (weight construction) up to this many witnesses
NUMERIC_MAX_DIM_V = 12  # ... and this dim V


@dataclass
class Answer:
    """What an engine hands to `finish`: its design (None: none found or none exists), status,
    bound (units, P/4), what stopped it and its counts."""

    design: Design | None
    status: str  # optimal | feasible | infeasible | unknown
    lower_units: int
    stopped: str | None
    rounds: int
    types: int
    scenarios_used: int
    usage: Usage
    scenarios_total: int = 0
    ties_proven: bool = False
    constrained: ConstrainedResult | None = None
    unchecked: bool = False
    reason: str | None = None  # one line: why it stopped short of a proof, or the certificate of infeasibility
    notes: list[str] = field(default_factory=list)
    keys: tuple = ()  # the scenario keys the search met, as demand tuples: every covering design meets each (Lemma O1)


def recheck(problem: Problem, design: Design, what: str):  # noqa: ANN201 - tuple of Verdict
    """The coverage checker's verdicts; every clustering must be covered."""
    try:
        if count_clusterings(problem) > MAX_CLUSTERINGS:  # not listed: the representatives (theory-scale C7)
            verdicts = representative_coverage(problem, design)
        else:
            verdicts = check_coverage(problem, design)
    except LimitError as e:
        raise LimitError(e.field, f"the {what} design cannot be re-checked by the coverage checker: {e.message}") from e
    bad = [v.clustering.id for v in verdicts if not v.covered]
    if bad:
        raise RuntimeError(f"internal error: the {what} design does not cover clusterings {bad}")
    return verdicts


def numeric(problem: Problem, design: Design, verdicts, what: str) -> float:  # noqa: ANN001
    """The weight construction for every witness; the relative error must be <= 1e-8."""
    err = verify_design(problem, design, seed=0, verdicts=verdicts).worst_rel_error
    if not err <= 1e-8:
        raise RuntimeError(f"internal error: weight construction for the {what} design has relative error {err:.2e}")
    return err


def _numeric_ok(problem: Problem, design: Design, verdicts) -> bool:  # noqa: ANN001
    witnesses = sum(len(v.witnesses) for v in verdicts)
    return witnesses <= NUMERIC_MAX_SCENARIOS and problem.dim_v <= NUMERIC_MAX_DIM_V and verify_memory(problem, design)[0] <= MAX_VERIFY_BYTES


def _status_notes(a: Answer, limits: ComputeLimits, total: int, verdicts: tuple) -> list[str]:
    notes = []
    if total > MAX_CLUSTERINGS and verdicts:
        notes.append(f"re-checked over {len(verdicts)} representative clusterings of the {total} (theory-scale C7: covering them covers every clustering)")
    if a.unchecked:
        notes.append("a candidate design could not be checked within the coverage checker's limits; the search kept the best design it could check")
    if a.status == "infeasible":
        notes.append(f"infeasible (proven): {a.reason}")
    elif a.status == "unknown":
        notes.append("no covering design within the compute limits was found before the limit")
    if a.status in ("feasible", "unknown") and a.stopped == "solver_error" and not a.reason:
        notes.append("the solver failed; the answer is the best design found before")
    if a.status in ("feasible", "unknown") and a.reason:
        notes.append(a.reason)
    return notes


def finish(
    problem: Problem, a: Answer, budget: Budget, backend: str, limits: ComputeLimits, numeric_check: bool | None = False, objective: str = "params",
) -> OptimizeResult:
    """The result of an engine's answer, re-checked (`numeric_check` None: by size). When a
    limit stopped the engine before it found a design and the regular design is within the
    compute limits, that design is the answer (status feasible): it covers every clustering
    (SPEC §3), so without limits there is always a design."""
    verdicts: tuple = ()
    err = None
    if a.status == "infeasible" and not a.reason:
        a.reason = (
            f"no design within the limits serves all of the {a.scenarios_used} scenarios met (the program over them has no "
            "solution), so none covers every clustering"
        )
    regular = Design.regular(problem, trimmed=True)
    if a.design is None and a.status == "unknown" and limits.admits(regular):
        a.design, a.status = regular, "feasible"
        a.notes.append("the regular design (it covers every clustering, SPEC §3): the search found no cheaper one within the limits")
    elif a.design is not None:
        verdicts = recheck(problem, a.design, "optimal")
        if not limits.admits(a.design):
            raise RuntimeError("internal error: the design is outside the compute limits")
        check = _numeric_ok(problem, a.design, verdicts) if numeric_check is None else numeric_check
        err = numeric(problem, a.design, verdicts, "optimal") if check else None
    c = a.constrained
    if c is not None and c.design is not None:
        cv = recheck(problem, c.design, "constrained-vanilla")
        if (numeric_check is None or numeric_check) and _numeric_ok(problem, c.design, cv):
            numeric(problem, c.design, cv, "constrained-vanilla")
    total = count_clusterings(problem)
    return OptimizeResult(
        problem=problem,
        design=a.design,
        design_params=None if a.design is None else a.design.params,
        lower_bound=None if a.status == "infeasible" else 4 * a.lower_units,
        status=a.status,
        time_s=time.perf_counter() - budget.start,
        constrained=c,
        scenarios_total=a.scenarios_total,
        scenarios_checked=sum(len(v.witnesses) for v in verdicts),
        scenarios_used=a.scenarios_used,
        rounds=a.rounds,
        solver=backend,
        solver_time_s=a.usage.solver_time,
        verified_clusterings=len(verdicts),
        numeric_rel_error=err,
        types=a.types,
        ties_proven=a.ties_proven,
        notes=a.notes + _status_notes(a, limits, total, verdicts),
        stopped_by=None if a.status in ("optimal", "infeasible") else a.stopped,
        work=a.usage.work,
        max_heads=limits.max_heads,
        max_head_dim=limits.max_head_dim,
        max_cost=limits.max_cost,
        objective=objective,
        reason=a.reason if a.status != "optimal" else None,
        attention_cost_lower_bound=None if a.status == "infeasible" else cost_lower_bound(problem, 4 * a.lower_units),
        scenario_keys=a.keys,
    )
