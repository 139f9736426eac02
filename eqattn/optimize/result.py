"""The optimiser's result and its JSON (`eqattn optimize --json`, POST /api/optimize)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..attention import Design, DesignOrbit, Problem
from ..attention.clusterings import count_clusterings
from ..reps import Rep
from .limits import attention_cost
from .head_types import TypeTable


@dataclass
class ConstrainedResult:
    """Is there a covering design with exactly H heads, all of dimension d?"""

    possible: bool | None  # None: the time limit stopped the search
    design: Design | None
    status: str  # optimal (cheapest such design) | feasible | infeasible (proven "no") | unknown

    def to_json(self) -> dict | None:
        if self.design is None:
            return None
        return {"status": self.status, **self.design.to_json()}


@dataclass
class OptimizeResult:
    problem: Problem
    design: Design | None  # None: no design meets the compute constraints (infeasible) or none found (unknown)
    design_params: int | None
    lower_bound: int | None  # None when infeasible (no design within the limits: a bound on its parameters means nothing)
    status: str  # optimal | feasible (a limit stopped it) | infeasible (proven: no design meets the constraints) | unknown
    time_s: float
    constrained: ConstrainedResult | None
    scenarios_total: int  # all scenarios of all clusterings
    scenarios_checked: int  # scenarios the coverage checker examined for the design
    scenarios_used: int  # scenarios in the final program
    rounds: int
    solver: str
    solver_time_s: float
    verified_clusterings: int
    numeric_rel_error: float | None
    types: int
    ties_proven: bool
    notes: list[str] = field(default_factory=list)
    stopped_by: str | None = None  # time_limit | work_limit | scenario_limit | type_limit: what stopped the search before a proof
    work: int = 0  # solver nodes used (what the work limit counts)
    max_heads: int | None = None
    max_head_dim: int | None = None
    max_cost: int | None = None
    objective: str = "params"
    reason: str | None = None  # one plain line: why it is infeasible (the certificate) or what stopped it short of a proof
    attention_cost_lower_bound: int | None = 0  # every design within the limits has at least this attention cost (O19); None when infeasible
    # the scenario keys the symbolic search met (demand tuples; not in the JSON): every covering
    # design meets each, so an LP bound over them in another measure is valid (widening.py)
    scenario_keys: tuple = field(default=(), repr=False, compare=False)

    @property
    def gap(self) -> float | None:
        """(P - bound) / P; None without a design."""
        if self.design_params is None:
            return None
        if self.design_params <= 0 or self.lower_bound is None:
            return 0.0
        return max(0.0, (self.design_params - self.lower_bound) / self.design_params)

    @property
    def heads_total(self) -> int:
        return 0 if self.design is None else self.design.heads

    @property
    def head_dims(self) -> list[int]:
        return [] if self.design is None else sorted((o.head_dim for o in self.design.orbits), reverse=True)

    @property
    def attention_cost(self) -> int:
        """Σ over heads of the head dimension (the vanilla layer: H d); see `attention_cost`."""
        return 0 if self.design is None else attention_cost(self.design)

    def to_json(self) -> dict:
        p = self.problem
        c = self.constrained
        dj = self.design.to_json() if self.design is not None else {"orbits": []}
        gap = self.gap
        return {
            "group": p.group.name,
            "rep": str(p.V),
            "dim_v": p.dim_v,
            "heads": p.heads,
            "head_dim": p.head_dim,
            "vanilla_params": p.vanilla_params,
            "design_params": self.design_params,
            "lower_bound": self.lower_bound,
            "status": self.status,
            "gap": None if gap is None else round(gap, 6),
            "ratio": None if self.design_params is None else self.design_params / p.vanilla_params,
            "time_s": round(self.time_s, 3),
            "stopped_by": self.stopped_by,
            "work": self.work,
            "heads_total": self.heads_total,
            "max_head_dim": max(self.head_dims, default=0),
            "attention_cost": self.attention_cost,
            "vanilla_attention_cost": p.heads * p.head_dim,
            # (max_cost only when set: the two head limits are always there)
            "constraints": {"max_heads": self.max_heads, "max_head_dim": self.max_head_dim,
                            **({} if self.max_cost is None else {"max_cost": self.max_cost})},
            "objective": self.objective,
            "reason": self.reason,
            "attention_cost_lower_bound": self.attention_cost_lower_bound,
            "orbits": dj["orbits"],
            "constrained_vanilla_possible": None if c is None else c.possible,
            "constrained_vanilla_status": None if c is None else c.status,
            "constrained_vanilla_design": None if c is None else c.to_json(),
            "solver": self.solver,
            "ties_proven": self.ties_proven,
            "notes": list(self.notes),
            "scenarios": {"total": self.scenarios_total, "checked": self.scenarios_checked, "in_program": self.scenarios_used},
            "rounds": self.rounds,
            "types": self.types,
            "verified": {
                "coverage": self.design is not None,
                "clusterings": self.verified_clusterings,
                "of_clusterings": count_clusterings(p),  # more than "clusterings": representatives were checked (C7)
                "numeric_worst_rel_error": self.numeric_rel_error,
            },
        }


def to_design(problem: Problem, table: TypeTable, counts: dict[int, int]) -> Design:
    G = problem.group
    items = sorted(((table.types[t], c) for t, c in counts.items() if c > 0), key=lambda tc: (-G.subgroup_classes[tc[0].sub].order, tc[0].sub, tc[0].W))
    orbits = []
    for t, c in items:
        K = G.subgroup_classes[t.sub]
        orbits.extend([DesignOrbit(K, Rep(K, t.W))] * c)
    return Design(problem, tuple(orbits))

