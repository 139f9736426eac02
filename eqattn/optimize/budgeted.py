"""The budget program: designs within a compute budget, by a lazy integer program with
counterexample cuts (docs/theory-scale.md B3, B4).

Variables: the count `n_t` of each orbit type `t = (K, W)` (`0 < W ≤ V|K`, SPEC §5.5) within
the budget, as unary binaries `z_{t,k} = [n_t ≥ k]` (k = 1..U_t, U_t ≤ H: an assignment uses
distinct orbits, one per demand, and a scenario has at most H demands, so copies past H are
never used); one indicator `y_c` per clustering (fixed to 1 when every clustering must be
covered). Budget rows: `Σ [G:K_t] n_t ≤ max_heads`, `Σ [G:K_t] dim W_t n_t ≤ max_cost`;
`dim W_t ≤ max_head_dim` by the choice of types.

Cuts: when the solver's design `x` does not cover a clustering `c` with `y_c = 1`, `x` is
first enlarged to `x⁺ ≥ x` that still does not cover `c`, then
`Σ_t z_{t, x⁺_t + 1} ≥ y_c` is added: every design that covers `c` has some count above
`x⁺` (coverage is monotone in the design, theory-scale B3), so the cut is valid and the
program stays a relaxation; its bound is a valid bound and a solution whose design covers
every clustering it claims is optimal.

    >>> from eqattn.attention import Problem
    >>> from eqattn.optimize.limits import ComputeLimits
    >>> r = BudgetProgram(Problem.create("C4", "E1", 2, 1), ComputeLimits(max_heads=1)).solve("params", partial=True)
    >>> r.status, r.covered, r.of, r.design.params
    ('optimal', 2, 3, 8)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ..attention import Design, DesignOrbit, Problem, check_clustering, check_coverage, clusterings
from ..attention.coverage import SMALL_DIM_V, SMALL_HEAD_DIM, SMALL_HEADS, uses_symbolic
from ..errors import LimitError
from ..reps import Rep, irreps_of
from . import solver
from .limits import ComputeLimits, attention_cost

MAX_TYPES = 4000  # orbit types in one budget program (LimitError past it)
MAX_ROUNDS = 400  # programs per solve


@dataclass(frozen=True)
class Outcome:
    """What a budget program proved. `status`: optimal | infeasible (proven: nothing within
    the budget covers every clustering) | feasible (a design, not proven best) | unknown."""

    status: str
    design: Design | None
    value: int | None  # the objective's value of `design` (params, cost or heads)
    bound: int  # a valid lower bound of the objective (full coverage) over designs within the budget
    covered: int  # clusterings the design covers
    of: int
    upper_bound: int  # most clusterings any design within the budget covers (proven bound)
    uncovered: tuple[int, ...]
    rounds: int
    time_s: float
    stopped_by: str | None = None
    notes: tuple[str, ...] = field(default=())


class BudgetProgram:
    """The lazy program over the orbit types within `limits` (module docstring).
    `maximal`: only types whose W is maximal under the head-dim bound (enough when the
    objective ignores W: the covered count, the head count, feasibility)."""

    def __init__(self, problem: Problem, limits: ComputeLimits, maximal: bool = False) -> None:
        if uses_symbolic(problem):
            raise LimitError("partial", "the budget program checks a design per round with the enumerating checker, "
                             f"up to dim V {SMALL_DIM_V}, H {SMALL_HEADS}, d {SMALL_HEAD_DIM}; this problem is larger")
        self.problem = problem
        self.limits = limits
        self.types = _types(problem, limits, maximal)
        H = problem.heads
        self.U = []
        for o in self.types:
            u = H
            if limits.max_heads is not None:
                u = min(u, limits.max_heads // o.heads)
            if limits.max_cost is not None:
                u = min(u, limits.max_cost // (o.heads * o.head_dim))
            self.U.append(u)
        self.params = [o.params(problem) for o in self.types]
        self.clusterings = clusterings(problem)

    def design(self, counts: list[int]) -> Design:
        orbits = [o for o, c in zip(self.types, counts) for _ in range(c)]
        return Design(self.problem, tuple(sorted(orbits, key=lambda o: (-o.sub.order, o.sub.id, o.W.mults))))

    @property
    def _big(self) -> int:
        """More than the parameters of any design in the program (the tie-break weight)."""
        return sum(u * p for u, p in zip(self.U, self.params)) + 1

    def _coef(self, objective: str) -> list[int]:
        big = self._big
        if objective == "params":
            return list(self.params)
        if objective == "attention_cost":
            return [o.heads * o.head_dim * big + p for o, p in zip(self.types, self.params)]
        if objective == "heads":
            return [o.heads * big + p for o, p in zip(self.types, self.params)]
        raise ValueError(objective)

    def _value(self, objective: str, design: Design) -> int:
        return {"params": design.params, "attention_cost": attention_cost(design), "heads": design.heads}[objective]

    def solve(self, objective: str = "params", partial: bool = False, time_limit: float = 60.0,
              max_params: int | None = None) -> Outcome:
        """Least `objective` ("params", "attention_cost" or "heads"; ties: fewer params) over
        designs within the limits that cover every clustering; with `partial`, the most
        clusterings covered, then the least objective. `max_params`: only designs with at most
        this many parameters (the front's next point)."""
        t0 = time.perf_counter()
        deadline = t0 + time_limit
        N = len(self.clusterings)
        m = solver.Model()
        coef = self._coef(objective)
        cmax = sum(u * c for u, c in zip(self.U, coef)) + 1
        z: list[list[int]] = []
        for t, o in enumerate(self.types):
            zs = [m.add_var(0, 1, coef[t]) for _ in range(self.U[t])]
            for a, b in zip(zs, zs[1:]):
                m.add_row([a, b], [1, -1], lo=0)
            z.append(zs)
        flat = [(t, v) for t, zs in enumerate(z) for v in zs]
        if self.limits.max_heads is not None:
            m.add_row([v for _, v in flat], [self.types[t].heads for t, _ in flat], hi=self.limits.max_heads)
        if self.limits.max_cost is not None:
            m.add_row([v for _, v in flat], [self.types[t].heads * self.types[t].head_dim for t, _ in flat], hi=self.limits.max_cost)
        if max_params is not None:
            m.add_row([v for _, v in flat], [self.params[t] for t, _ in flat], hi=max_params)
        y = [m.add_var(0 if partial else 1, 1, -cmax if partial else 0) for _ in range(N)]
        best: tuple[tuple[int, int], list[int], frozenset[int]] | None = None
        bound = -math.inf
        rounds = 0
        stopped = None
        status = "unknown"
        while True:
            left = deadline - time.perf_counter()
            if left <= 0 or rounds >= MAX_ROUNDS:
                stopped = "time_limit" if left <= 0 else "round_limit"
                break
            rounds += 1
            sol = solver.solve(m, time_limit=left)
            if sol.status == "infeasible":
                status = "infeasible" if best is None else "optimal"
                break
            if sol.values is None:
                stopped = "time_limit"
                break
            bound = max(bound, sol.bound)
            x = sol.values
            counts = [int(round(sum(x[v] for v in zs))) for zs in z]
            design = self.design(counts)
            covered = _covered(self.problem, design)
            claimed = [c for c in range(N) if x[y[c]] > 0.5]
            score = (len(covered), -coef_value(coef, counts))
            if (partial or len(covered) == N) and (best is None or score > best[0]):
                best = (score, counts, covered)
            missing = [c for c in claimed if c not in covered]
            if not missing:
                status = "optimal" if sol.status == "optimal" else "feasible"
                if sol.status != "optimal":
                    stopped = "time_limit"
                break
            for c in missing:
                up = self._enlarge(counts, self.clusterings[c], deadline)
                idx = [z[t][up[t]] for t in range(len(self.types)) if up[t] < self.U[t]]
                m.add_row(idx + [y[c]], [1] * len(idx) + [-1], lo=0)
        return self._outcome(objective, partial, status, best, bound, cmax, rounds, time.perf_counter() - t0, stopped)

    def _enlarge(self, counts: list[int], c, deadline: float) -> list[int]:  # noqa: ANN001 - Clustering
        """A design x⁺ ≥ counts (within the type bounds) that still does not cover `c`
        (greedy, one type at a time)."""
        up = list(counts)
        for t in sorted(range(len(self.types)), key=lambda t: -self.types[t].head_dim):
            if up[t] >= self.U[t] or time.perf_counter() > deadline:
                continue
            trial = list(up)
            trial[t] = self.U[t]
            if not check_clustering(self.problem, self.design(trial), c).covered:
                up = trial
        return up

    def _units(self, objective: str, bound: float) -> int:
        """A lower bound of the objective itself from a bound of the weighted objective
        (cost × big + params >= bound with params < big gives cost >= floor(bound / big))."""
        if not math.isfinite(bound) or bound <= 0:
            return 0
        b = math.ceil(bound - 1e-6)
        return b if objective == "params" else b // self._big

    def _outcome(self, objective, partial, status, best, bound, cmax, rounds, secs, stopped) -> Outcome:  # noqa: ANN001
        N = len(self.clusterings)
        if best is None:
            ub = 0 if status == "infeasible" else N
            return Outcome(status if status == "infeasible" else "unknown", None, None,
                           0 if partial else self._units(objective, bound), 0, N, ub, (), rounds, secs, stopped)
        _, counts, covered = best
        design = self.design(counts)
        value = self._value(objective, design)
        if partial:
            # every design covering k clusterings is a solution of value -cmax k + obj >= bound
            # with 0 <= obj < cmax, so k <= (cmax - 1 - bound) / cmax
            ub = N if not math.isfinite(bound) else min(N, math.floor((cmax - 1 - math.ceil(bound - 1e-6)) / cmax))
            ub = max(ub, len(covered))
            if status == "optimal":
                ub = len(covered)
            lb = value if status == "optimal" else 0
        else:
            ub = N
            lb = value if status == "optimal" else self._units(objective, bound)
        if status == "infeasible":
            status = "optimal"
        return Outcome(status, design, value, lb, len(covered), N, ub,
                       tuple(c for c in range(N) if c not in covered), rounds, secs, stopped)


def coef_value(coef: list[int], counts: list[int]) -> int:
    return sum(c * n for c, n in zip(coef, counts))


def _covered(problem: Problem, design: Design) -> frozenset[int]:
    return frozenset(v.clustering.id for v in check_coverage(problem, design) if v.covered)


def _types(problem: Problem, limits: ComputeLimits, maximal: bool) -> list[DesignOrbit]:
    """Every (K, W) with 0 < W ≤ V|K within the limits (only W maximal under the head-dim
    bound when `maximal`: no irrep of V|K can be added within it). LimitError past MAX_TYPES,
    found while listing (the listing stops there)."""
    out: list[DesignOrbit] = []
    for K in problem.group.subgroup_classes:
        if limits.max_heads is not None and K.index > limits.max_heads:
            continue
        top = problem.restrict(K).mults
        dims = irreps_of(K).dims
        cap = sum(m * int(x) for m, x in zip(top, dims))
        if limits.max_head_dim is not None:
            cap = min(cap, limits.max_head_dim)
        if limits.max_cost is not None:
            cap = min(cap, limits.max_cost // K.index)
        for mults in _reps_within(top, [int(x) for x in dims], cap, maximal):
            out.append(DesignOrbit(K, Rep(K, mults)))
            if len(out) > MAX_TYPES:
                raise LimitError("max_head_dim", f"more than {MAX_TYPES} head representations (K, W) fit the budget "
                                 f"(dim V = {problem.dim_v}); the budget program lists them all: give a smaller max_head_dim "
                                 "or a smaller problem")
    return out


def _reps_within(top, dims: list[int], cap: int, maximal: bool):  # noqa: ANN001, ANN202 - Iterator[tuple[int, ...]]
    """Multiplicity vectors 0 < w ≤ top with Σ w_τ dim τ ≤ cap (maximal ones only: every
    τ with w_τ < top_τ has dim τ above what is left)."""
    n = len(top)

    def rec(i: int, left: int, acc: list[int]):  # noqa: ANN202
        if i == n:
            if any(acc) and (not maximal or all(w == t or d > left for w, t, d in zip(acc, top, dims))):
                yield tuple(acc)
            return
        for w in range(min(top[i], left // dims[i]) + 1):
            acc.append(w)
            yield from rec(i + 1, left - w * dims[i], acc)
            acc.pop()

    yield from rec(0, cap, [])
