"""Optimal designs with a proof (SPEC §5.5).

The question. Among all designs `[(K'_i, W_i)]` that cover every clustering of
`(G, V, H, d)`, find one with the fewest parameters `P_design`; prove it optimal.

The integer program. Only `W ≤ V|K'` matter (SPEC §5.5), and costs are additive, so a design
is a vector of counts `n_t` of orbit *types* `t = (K', W)`. For every scenario key s (a
multiset of demands, see separation.py) there is one assignment block: integer
`y[s, j, t, a] ≥ 0` = how many copies of type t host demand j of s through the double coset
a (copies are interchangeable, so counting them replaces one binary per copy and needs no
symmetry breaking), with

    Σ_{j, a} y[s, j, t, a] ≤ n_t                       (each copy used at most once per scenario)
    Σ_{t, a} min(S_{t,a,σ}, D_{j,σ}) y[s, j, t, a] ≥ D_{j,σ}   for every irrep σ of K̄_j   (demand met)

and the objective `Σ_t P_t n_t`. This is SPEC §4.5's criterion exactly: the copies that
host demand j are distinct design orbits, each through one double coset, whose supplies sum
to at least D_j. So a vector n is feasible for all blocks iff its design covers.

Laziness. The program starts with one scenario per clustering (every orbit at its largest
option), is solved, and its optimum is checked against every scenario (separation.py: the
scenarios left after a design-specific reduction, which imply the others); violated ones
are added and it is solved again. A program over a subset of the scenarios is a
relaxation, so its optimum (or, when a time limit stops the solver, its proven bound) is a
lower bound of the true optimum; when the optimum of a relaxation covers every scenario it
is optimal for the full problem. The regular design (H copies of `(C1, min(d, dim V)·trivial)`,
cost ≤ P_vanilla; capped as below) covers every clustering (SPEC §3): it is the first
incumbent and upper bound, and the warm start (CP-SAT gets it, with its assignments, as a
hint; HiGHS does not: see ilp.py). When the time limit stops a program whose answer does
not cover, the answer is repaired (re-solved with its counts as lower bounds over the
scenarios it misses) to improve the incumbent.

Orbit types. For each K' and irrep τ of K', `m_τ(W)` is capped at the largest of
(i) `m_τ(P^a)` over every demand value and double coset (more never helps hosting) and
(ii) `ceil(D_σ / m_σ(Ind τ^{a⁻¹}))` over every demand value (the zero pool counted with
its largest value, D = V), coset and irrep σ the unit supply reaches (a larger multiplicity
already saturates every σ that τ feeds). Replacing W by `min(W, cap)` keeps every hosting
relation and every supply capped at its demand, so it keeps coverage and lowers the cost:
capped types suffice. Types that host nothing, and types dearer than the incumbent, are
dropped. The copies of a type are bounded by `incumbent / P_t` and by the most copies one
scenario can use: a minimal cover of a demand D uses at most `Σ_σ D_σ` copies, so per
clustering at most the sum over its orbits of that count for the largest option the type
can host, plus the largest zero pool.

Ties. Among optimal designs the optimiser prefers fewer heads, then a smaller largest head
dimension. The objective is `P_t/4 · w + heads_t` per copy with `w` larger than any head
count the program allows (exact integers, so cost first, then heads); then the types of the
largest head dimension used are removed and the program is solved again with the objective
capped at the optimum, until that is infeasible (proven) or the time runs out.

Constrained vanilla. Can the vanilla layer just be constrained: is there a covering design
with exactly H heads, all of dimension d? Here W need not be `≤ V|K'` (the vanilla heads
have dimension d), but the answer is the same as over the types `pad(W')`, `W' ≤ V|K'`,
`dim W' ≤ d`, padded to dimension d by the cheapest irreps (those absent from V|K' cost
nothing). For any W let `W' = min(W, V|K')`:
* W' hosts what W hosts: every image `P^a` lies in `V|K'` (P ≤ V|K̄, and ρ(a) carries
  `(V|K̄)^a` to V), so `P^a ≤ W` iff `P^a ≤ W'`;
* W' supplies what W supplies, capped at V (the demands are ≤ V|K̄, and a sum of supplies
  meets a demand iff the sum of the supplies capped at V does): if τ is in excess in W,
  `m_τ(W') = m_τ(V|L)`, and σ occurs in `Ind_L^{K̄} τ`, then by Frobenius reciprocity τ occurs
  in `σ|L`, so `m_σ(Ind W') ≥ m_τ(V|L) m_σ(Ind τ) ≥ m_σ(V|K̄) m_τ(σ|L) m_σ(Ind τ) ≥ m_σ(V|K̄)`:
  every σ the excess feeds is already saturated (L = aK'a⁻¹, W conjugated by a, as in §4.4).
So W covers exactly what W' covers, and `pad(W') ≥ W'` (hosting and supply only grow with W) covers
at least as much, with no more parameters than W. The program adds `Σ_t [G:K'_t] n_t = H`
and minimises the parameters; an infeasible relaxation proves "no".

Every returned design is re-checked with `coverage.check_coverage` and, for small problems,
by the numerical weight construction (`eqattn.numeric.verify_design`).
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import product
from typing import Callable

import numpy as np

from ..errors import InputError, LimitError
from ..reps import Rep, irreps_of
from . import ilp
from .coverage import check_coverage
from .design import Design, DesignOrbit
from .problem import Problem
from .separation import AssignmentCheck, HostTables, ScenarioSpace

MAX_TYPES = 10000  # orbit types (K', W) in one program
SETUP_SHARE = 0.5  # of the time limit for building the types' host tables (LimitError past it)
SETUP_MIN_S = 10.0
MAX_TIME_LIMIT = 3600.0
DEFAULT_TIME_LIMIT = 60.0
ROUND_ADD = 40  # violated scenarios added per round
SEPARATION_COLLECT = 400  # stop scanning for violated scenarios after this many
NUMERIC_MAX_SCENARIOS = 300  # numeric re-check (weight construction) up to this many witnesses
NUMERIC_MAX_DIM_V = 12  # ... and this dim V
REPAIR_ROUNDS = 8  # programs per repair of a non-covering answer
REPAIR_AFTER_S = math.inf  # also repair answers of programs that took longer than this (measured: no gain)
REPAIR_SHARE = 0.25  # of the remaining time a repair may take
REPAIR_GRACE_S = 5.0  # past the deadline (at most 20% of the limit), to repair the answer the limit stopped
NEIGHBOURS = False  # vary violated scenarios one orbit at a time (measured: slower, bigger programs)
CUTOFF = False  # programs must beat the incumbent (objective <= incumbent - 1); measured: slower
TIES_SHARE = 0.5  # of the optimum's remaining time for the head-dimension tie-break
MAIN_SHARE = 0.75  # of the search time for the optimum; the rest (and what is left) for the constrained question
REPAIR_SHARE_END = 0.1  # of the search time kept for repairing the answer a limit stopped (without the constrained question)
RECHECK_SHARE = 0.15  # of the time limit kept for the final re-checks (the limit bounds the whole call)

Progress = Callable[[dict], None]


# ----- orbit types --------------------------------------------------------------------------
@dataclass(frozen=True)
class OrbitType:
    sub: int  # subgroup class id of K'
    W: tuple[int, ...]  # multiplicities over K''s irreps
    cost: int  # P_t = 4 dim Hom_K'(V, W)
    heads: int  # [G : K']
    dim: int  # dim W

    @property
    def units(self) -> int:
        return self.cost // 4


class TypeTable:
    """The orbit types of one program and their hosts for every demand value.

    Per subgroup K' and demand value, one vectorised pass over all types on K' gives the
    (type, double coset) pairs that host the demand and supply part of it; the supplies
    themselves are computed when a type's hosts are asked for."""

    def __init__(self, problem: Problem, space: ScenarioSpace, tables: HostTables, types: list[OrbitType]) -> None:
        self.problem = problem
        self.space = space
        self.tables = tables
        self.types = types
        self.arrays = [(t.sub, np.array(t.W, dtype=np.int64)) for t in types]
        self._hosts: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}
        self._good: dict[tuple[int, int], np.ndarray] = {}  # (sub, value) -> (types on sub, cosets)
        self._by_sub: dict[int, list[int]] = defaultdict(list)
        self._row: list[int] = []
        for i, t in enumerate(types):
            self._row.append(len(self._by_sub[t.sub]))
            self._by_sub[t.sub].append(i)
        self._Wm = {sub: np.array([self.arrays[t][1] for t in ids]) for sub, ids in self._by_sub.items()}
        self._hostable: np.ndarray | None = None
        self._columns: dict[int, list] = {}
        self.setup_deadline: float | None = None  # LimitError when hostable() runs past it

    def __len__(self) -> int:
        return len(self.types)

    def good(self, sub: int, value: int) -> np.ndarray:
        """(types on K', cosets) boolean: hosts through a and supplies part of the demand."""
        key = (sub, value)
        g = self._good.get(key)
        if g is None:
            v = self.space.values[value]
            cos = self.tables.cosets(sub, v.kbar)
            Wm = self._Wm[sub]
            if not cos:
                g = np.zeros((len(Wm), 0), dtype=bool)
            else:
                img = self.tables.image(sub, value)  # (A, nK)
                ok = (img[None, :, :] <= Wm[:, None, :]).all(axis=2)  # (nW, A)
                need = np.array(v.D.mults, dtype=np.int64) > 0
                unit = self.tables.unit_supply(sub, v.kbar)[:, :, need]  # (A, nK, |supp D|)
                feeds = (unit > 0).any(axis=2)  # (A, nK): irrep τ reaches supp D through a
                g = ok & ((Wm[:, None, :] > 0) & feeds[None, :, :]).any(axis=2)
            self._good[key] = g
        return g

    def hosts(self, t: int, value: int) -> list[tuple[int, np.ndarray]]:
        """[(a, supply capped at D)] for the double cosets through which type t hosts the
        demand value and supplies part of it (as `coverage` counts hosts)."""
        key = (t, value)
        out = self._hosts.get(key)
        if out is None:
            sub, W = self.arrays[t]
            row = self.good(sub, value)[self._row[t]]
            out = []
            if row.any():
                v = self.space.values[value]
                cos = self.tables.cosets(sub, v.kbar)
                unit = self.tables.unit_supply(sub, v.kbar)
                D = np.array(v.D.mults, dtype=np.int64)
                for ai in np.nonzero(row)[0]:
                    out.append((cos[ai], np.minimum(W @ unit[ai], D)))
            self._hosts[key] = out
        return out

    def columns(self, value: int) -> list[tuple[int, int, int, tuple[int, ...], tuple[int, ...]]]:
        """The program's columns for one demand: (type, a, most copies useful, irreps σ the
        supply reaches, capped supply on them), for every type and coset hosting it."""
        out = self._columns.get(value)
        if out is None:
            D = self.space.values[value].D.mults
            out = []
            for t in range(len(self.types)):
                for a, s in self.hosts(t, value):
                    sig = tuple(i for i, x in enumerate(s) if x > 0)
                    coef = tuple(int(s[i]) for i in sig)
                    need = max(-(-D[i] // x) for i, x in zip(sig, coef))
                    out.append((t, a, need, sig, coef))
            self._columns[value] = out
        return out

    def subset(self, keep: list[int]) -> "TypeTable":
        """The table of the types `keep` (in that order), sharing what was computed so far."""
        out = TypeTable(self.problem, self.space, self.tables, [self.types[i] for i in keep])
        new = {old: i for i, old in enumerate(keep)}
        for (t, v), h in self._hosts.items():
            if t in new:
                out._hosts[(new[t], v)] = h
        for sub, ids in out._by_sub.items():
            rows = np.array([self._row[keep[i]] for i in ids], dtype=np.int64)
            for (s2, v), g in self._good.items():
                if s2 == sub:
                    out._good[(sub, v)] = g[rows]
        return out

    def hostable(self) -> np.ndarray:
        """(values, types) boolean: type t hosts demand value v through some coset."""
        nv = len(self.space.values)
        if self._hostable is not None and self._hostable.shape[0] == nv:
            return self._hostable
        out = np.zeros((nv, len(self.types)), dtype=bool)
        for v in range(nv):
            if self.setup_deadline is not None and time.perf_counter() > self.setup_deadline:
                raise LimitError(
                    "heads",
                    f"setting up the program ({len(self.types)} head representations x {nv} demand values) "
                    "takes longer than the time limit allows (use fewer heads, a smaller head dimension or a smaller V)",
                )
            for sub, ids in self._by_sub.items():
                out[v, ids] = self.good(sub, v).any(axis=1)
        self._hostable = out
        return out

    def checker(self, counts: dict[int, int]) -> AssignmentCheck:
        return AssignmentCheck(self.space, self.hosts, counts)


def _caps(problem: Problem, space: ScenarioSpace, tables: HostTables, sub: int) -> np.ndarray | None:
    """Per irrep τ of K', the largest useful m_τ(W) (see the module docstring); None when
    K' cannot host any demand."""
    K = problem.group.subgroup_classes[sub]
    VK = np.array(problem.restrict(K).mults, dtype=np.int64)
    cap = np.zeros(len(VK), dtype=np.int64)
    any_host = False
    for v in space.values:
        cos = tables.cosets(sub, v.kbar)
        if not cos:
            continue
        any_host = True
        img = tables.image(sub, v.id)  # (A, nK)
        cap = np.maximum(cap, img.max(axis=0))
        unit = tables.unit_supply(sub, v.kbar)  # (A, nK, nB)
        D = np.array(v.D.mults, dtype=np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            need = np.where((unit > 0) & (D[None, None, :] > 0), -(-D[None, None, :] // np.maximum(unit, 1)), 0)
        cap = np.maximum(cap, need.max(axis=(0, 2)))
    if not any_host:
        return None
    return np.minimum(cap, VK)


def design_types(
    problem: Problem,
    space: ScenarioSpace,
    tables: HostTables,
    max_cost: float,
    setup_deadline: float | None = None,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
) -> TypeTable:
    """Capped types (K', W), 0 < W ≤ V|K', with cost ≤ max_cost, [G:K'] ≤ max_heads and
    dim W ≤ max_head_dim that host some demand. (Capping lowers dim W and keeps [G:K'], so
    the capped types still suffice under the two compute constraints.)"""
    types: list[OrbitType] = []
    for K in problem.group.subgroup_classes:
        if max_heads is not None and K.index > max_heads:
            continue
        cap = _caps(problem, space, tables, K.id)
        if cap is None:
            continue
        irr = irreps_of(K)
        VK = np.array(problem.restrict(K).mults, dtype=np.int64)
        unit_cost = 4 * VK * irr.es
        count = math.prod(int(c) + 1 for c in cap)
        if count > 50 * MAX_TYPES:
            raise LimitError("rep", f"V restricted to {K.name} allows about {count} head representations; at most {MAX_TYPES} are optimised over")
        for W in product(*(range(int(c) + 1) for c in cap)):
            if not any(W):
                continue
            cost = int(np.dot(unit_cost, W))
            if cost > max_cost or cost == 0:
                continue
            dim = int(np.dot(irr.dims, W))
            if max_head_dim is not None and dim > max_head_dim:
                continue
            types.append(OrbitType(K.id, tuple(int(x) for x in W), cost, K.index, dim))
    if len(types) > 3 * MAX_TYPES:
        raise LimitError("rep", f"this problem has {len(types)} head representations (K', W) to consider; at most {MAX_TYPES} useful ones are optimised over")
    table = TypeTable(problem, space, tables, types)
    table.setup_deadline = setup_deadline
    useful = table.hostable().any(axis=0) if space.values else np.zeros(len(types), dtype=bool)
    keep = [i for i, u in enumerate(useful) if u]
    if len(keep) > MAX_TYPES:
        raise LimitError("rep", f"this problem has {len(keep)} useful head representations (K', W); at most {MAX_TYPES} are optimised over")
    return table.subset(keep)


def _min_fill(K, VK: np.ndarray, r: int) -> tuple[int, ...]:  # noqa: ANN001
    """The cheapest multiset of irreps of K of total dimension exactly r (cost 4 m_τ(V|K) e_τ
    per copy of τ; irreps absent from V|K are free). Ties: lower irrep index first."""
    irr = irreps_of(K)
    dims = [int(x) for x in irr.dims]
    unit = [int(v * e) for v, e in zip(VK, irr.es)]
    best: list[tuple[int, tuple[int, ...]] | None] = [None] * (r + 1)
    best[0] = (0, (0,) * len(dims))
    for s in range(1, r + 1):
        for i, dm in enumerate(dims):
            if dm <= s and best[s - dm] is not None:
                c, m = best[s - dm]
                cand = (c + unit[i], tuple(x + (j == i) for j, x in enumerate(m)))
                if best[s] is None or cand[0] < best[s][0]:
                    best[s] = cand
    assert best[r] is not None  # the trivial irrep has dimension 1
    return best[r][1]


def constrained_types(problem: Problem, space: ScenarioSpace, tables: HostTables) -> TypeTable:
    """Types pad(W') of dimension exactly d, W' ≤ min(V|K', cap), dim W' ≤ d (see docstring)."""
    d = problem.head_dim
    seen: set[tuple[int, tuple[int, ...]]] = set()
    types: list[OrbitType] = []
    for K in problem.group.subgroup_classes:
        if K.index > problem.heads:
            continue
        irr = irreps_of(K)
        VK = np.array(problem.restrict(K).mults, dtype=np.int64)
        cap = _caps(problem, space, tables, K.id)
        if cap is None:
            cap = np.zeros(len(VK), dtype=np.int64)
        dims = irr.dims
        fills: dict[int, tuple[int, ...]] = {}
        count = math.prod(int(c) + 1 for c in cap)
        if count > 50 * MAX_TYPES:
            raise LimitError("rep", f"V restricted to {K.name} allows about {count} head representations; at most {MAX_TYPES} are optimised over")
        for Wp in product(*(range(int(c) + 1) for c in cap)):
            dim = int(np.dot(dims, Wp))
            if dim > d:
                continue
            if d - dim not in fills:
                fills[d - dim] = _min_fill(K, VK, d - dim)
            W = tuple(int(a + b) for a, b in zip(Wp, fills[d - dim]))
            if (K.id, W) in seen:
                continue
            seen.add((K.id, W))
            cost = 4 * int(np.dot(VK * irr.es, W))
            types.append(OrbitType(K.id, W, cost, K.index, d))
    if len(types) > MAX_TYPES:
        raise LimitError("rep", f"this problem has {len(types)} head representations of dimension d; at most {MAX_TYPES} are optimised over")
    return TypeTable(problem, space, tables, types)


# ----- the integer program ------------------------------------------------------------------
@dataclass
class _Program:
    model: ilp.Model
    n: list[int]  # variable of n_t
    y: dict[tuple[int, int, int, int], int]  # (key position, demand position, type, a) -> var


@dataclass(frozen=True)
class _Objective:
    """Objective coefficient per type: `units * weight + heads` (weight > any head count
    makes it lexicographic: cost first, then heads), or the cost alone (weight 0 = cost)."""

    weight: int  # 0: cost only

    def coef(self, t: OrbitType) -> int:
        return t.units if self.weight == 0 else t.units * self.weight + t.heads

    def units(self, value: float) -> float:
        """A lower bound on the cost (in units) from a bound on the objective."""
        if self.weight == 0 or not math.isfinite(value):
            return value
        return math.floor(math.ceil(value - 1e-6) / self.weight)


def _build(
    table: TypeTable,
    U: list[int],
    keys: list[tuple[int, ...]],
    objective: _Objective,
    heads_eq: int | None = None,
    cutoff: int | None = None,
    lower: dict[int, int] | None = None,
    heads_max: int | None = None,
) -> _Program:
    m = ilp.Model()
    types = table.types
    values = table.space.values
    lo = lower or {}
    n = [m.add_var(lo.get(t, 0), max(U[t], lo.get(t, 0)), objective.coef(types[t])) for t in range(len(types))]
    prog = _Program(m, n, {})
    if heads_eq is not None:
        m.add_row(n, [t.heads for t in types], lo=heads_eq, hi=heads_eq)
    if heads_max is not None:
        m.add_row(n, [t.heads for t in types], hi=heads_max)
    if cutoff is not None:
        m.add_row(n, [objective.coef(t) for t in types], hi=cutoff)
    for si, key in enumerate(keys):
        use: dict[int, list[int]] = defaultdict(list)
        for j, v in enumerate(key):
            D = values[v].D.mults
            rows: dict[int, tuple[list[int], list[int]]] = {s: ([], []) for s, x in enumerate(D) if x > 0}
            for t, a, need, sig, coef in table.columns(v):
                ub = max(U[t], lo.get(t, 0))
                if ub == 0:
                    continue
                y = m.add_var(0, min(ub, need))
                prog.y[(si, j, t, a)] = y
                use[t].append(y)
                for i, x in zip(sig, coef):
                    rows[i][0].append(y)
                    rows[i][1].append(x)
            for i, (idx, coef) in rows.items():
                m.add_row(idx, coef, lo=D[i])
        for t, ys in use.items():
            m.add_row(ys + [n[t]], [1] * len(ys) + [-1], hi=0)
    return prog


def _hint(prog: _Program, table: TypeTable, keys: list[tuple[int, ...]], counts: dict[int, int]) -> np.ndarray | None:
    """A full solution of the program from a covering design (its assignments)."""
    x = np.zeros(prog.model.num_vars, dtype=np.int64)
    for t, c in counts.items():
        if c > prog.model.ub[prog.n[t]]:
            return None
        x[prog.n[t]] = c
    chk = table.checker(counts)
    for si, key in enumerate(keys):
        plan = chk.solve(key)
        if plan is None:
            return None
        for j, picks in enumerate(plan):
            for t, a in picks:
                var = prog.y.get((si, j, t, a))
                if var is None:
                    return None
                x[var] += 1
    return x


# ----- the lazy loop ------------------------------------------------------------------------
@dataclass
class _Stage:
    status: str  # optimal | feasible | infeasible | unknown
    counts: dict[int, int] | None  # best covering design found
    objective: int | None  # its objective
    bound: float  # proven lower bound of the objective
    rounds: int
    stopped: str | None = None  # what stopped the stage before a proof: time_limit | work_limit | scenario_limit


class _Context:
    def __init__(self, problem: Problem, backend: str, progress: Progress | None, threads: int | None) -> None:
        self.problem = problem
        self.backend = backend
        self.progress = progress
        self.threads = threads
        self.t0 = time.perf_counter()
        self.space = ScenarioSpace(problem)
        self.tables = HostTables(problem, self.space)
        self.raw_scenarios = self.space.raw_count()
        self.solver_time = 0.0
        self.separation_time = 0.0
        self.solves = 0
        self.checked = 0  # scenarios examined by the last separation that found none violated
        self.work_limit: int | None = None  # solver nodes for the whole call (None: no work limit)
        self.work = 0  # solver nodes used so far
        self.time_limit = DEFAULT_TIME_LIMIT
        self.hard_end = math.inf  # no program or repair runs past this
        self.unchecked = False

    def work_left(self) -> int | None:
        return None if self.work_limit is None else self.work_limit - self.work

    def solve(self, model: ilp.Model, deadline: float, hint: np.ndarray | None = None) -> ilp.Solution:
        """One program, within the deadline and what is left of the work limit."""
        left = self.work_left()
        sol = ilp.solve(
            model, self.backend, time_limit=max(deadline - time.perf_counter(), 0.05), hint=hint, threads=self.threads,
            node_limit=None if left is None else max(left, 1),
        )
        self.solver_time += sol.time_s
        self.solves += 1
        self.work += sol.nodes
        return sol

    def out_of_work(self) -> bool:
        left = self.work_left()
        return left is not None and left <= 0

    def report(self, **kw: object) -> None:
        if self.progress is not None:
            self.progress({"elapsed": time.perf_counter() - self.t0, "total_scenarios": self.raw_scenarios, **kw})

    def separate(self, table: TypeTable, counts: dict[int, int], limit: int = SEPARATION_COLLECT) -> list[tuple[int, ...]]:
        """Scenario keys the design `counts` does not meet (up to `limit`); [] if it covers."""
        t = time.perf_counter()
        chk = table.checker(counts)
        try:
            return chk.violated(limit, neighbours=NEIGHBOURS)
        finally:
            self.separation_time += time.perf_counter() - t


def _pick(violated: list[tuple[int, ...]], values, k: int) -> list[tuple[int, ...]]:  # noqa: ANN001
    """Up to k violated keys: new demand values first, then the largest demands."""
    order = sorted(violated, key=lambda key: (-sum(values[v].size for v in key), key))
    chosen, seen_vals = [], set()
    for key in order:
        if set(key) - seen_vals:
            chosen.append(key)
            seen_vals |= set(key)
            if len(chosen) >= k:
                return chosen
    for key in order:
        if key not in chosen:
            chosen.append(key)
            if len(chosen) >= k:
                break
    return chosen


def _repair(
    ctx: _Context,
    table: TypeTable,
    U: list[int],
    counts: dict[int, int],
    active: list[tuple[int, ...]],
    objective: _Objective,
    deadline: float,
    heads_max: int | None = None,
) -> dict[int, int] | None:
    """A covering design containing `counts`: add the scenarios it misses and re-solve with
    `counts` as lower bounds (a small program), until it covers. Improves the incumbent
    while the exact program is still far from a covering answer."""
    X = dict(counts)
    keys = list(active)
    seen = set(keys)
    for _ in range(REPAIR_ROUNDS):
        if time.perf_counter() >= deadline or ctx.out_of_work():
            return None
        try:
            viol = ctx.separate(table, X, ROUND_ADD)
        except LimitError:
            return None
        if not viol:
            return X
        for key in _pick(viol, ctx.space.values, ROUND_ADD):
            if key not in seen:
                seen.add(key)
                keys.append(key)
        prog = _build(table, U, keys, objective, lower=X, heads_max=heads_max)
        sol = ctx.solve(prog.model, deadline)
        if sol.values is None:
            return None
        X = {t: int(sol.values[prog.n[t]]) for t in range(len(table.types)) if sol.values[prog.n[t]] > 0}
    return None


def _lazy(
    ctx: _Context,
    table: TypeTable,
    U: list[int],
    active: list[tuple[int, ...]],
    objective: _Objective,
    deadline: float,
    warm: dict[int, int] | None,
    stage: str,
    heads_eq: int | None = None,
    cutoff: int | None = None,
    repair: bool = False,
    heads_max: int | None = None,
) -> _Stage:
    """Solve, separate, add violated scenarios to `active` (in place), repeat."""

    def value(counts: dict[int, int]) -> int:
        return sum(objective.coef(table.types[t]) * c for t, c in counts.items())

    def params(v: float | None) -> float | None:
        return None if v is None else 4 * objective.units(v)

    best = warm
    best_obj = value(warm) if warm is not None else None
    bound = -math.inf
    rounds = 0
    candidate: dict[int, int] | None = None
    active_set = set(active)
    stopped: str | None = None
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0.05:
            stopped = "time_limit"
            break
        if ctx.out_of_work():
            stopped = "work_limit"
            break
        rounds += 1
        cut = cutoff
        if CUTOFF and best_obj is not None:
            cut = best_obj - 1 if cut is None else min(cut, best_obj - 1)
        prog = _build(table, U, active, objective, heads_eq, cut, heads_max=heads_max)
        hint = _hint(prog, table, active, best) if best is not None else None
        ctx.report(stage=stage, round=rounds, scenarios=len(active), bound=params(bound), incumbent=params(best_obj))
        sol = ctx.solve(prog.model, deadline, hint)
        if sol.stopped is not None:
            stopped = {"time": "time_limit", "work": "work_limit"}[sol.stopped]
        if sol.status == "infeasible":
            if best is not None and (cutoff is None or best_obj <= cutoff):
                # nothing beats the incumbent on these scenarios: it is optimal
                return _Stage("optimal", best, best_obj, float(best_obj), rounds)
            return _Stage("infeasible", None, None, math.inf, rounds)
        if math.isfinite(sol.bound):
            bound = max(bound, math.ceil(sol.bound - 1e-6))
        if sol.values is None:
            break
        counts = {t: int(sol.values[prog.n[t]]) for t in range(len(table.types)) if sol.values[prog.n[t]] > 0}
        try:
            violated = ctx.separate(table, counts)
        except LimitError:
            # this candidate cannot be checked: keep the bound, stop with the incumbent
            ctx.unchecked = True
            stopped = "scenario_limit"
            break
        if not violated:
            if best_obj is None or sol.objective < best_obj:
                best, best_obj = counts, sol.objective
            if sol.status == "optimal":
                ctx.report(stage=stage, round=rounds, scenarios=len(active), bound=params(bound), incumbent=params(best_obj), done=True)
                return _Stage("optimal", best, best_obj, float(best_obj), rounds)
            break
        if sol.status == "optimal":
            candidate = counts  # the relaxation's optimum: the repair's starting point
        if repair and sol.status == "optimal" and sol.time_s > REPAIR_AFTER_S:
            # a hard program: turn its answer into a covering design for a better incumbent
            now = time.perf_counter()
            fixed = _repair(ctx, table, U, counts, active, objective, min(deadline, now + REPAIR_SHARE * max(0.0, deadline - now)), heads_max)
            if fixed is not None and (best_obj is None or value(fixed) < best_obj):
                best, best_obj = fixed, value(fixed)
                if bound >= best_obj:
                    return _Stage("optimal", best, best_obj, float(best_obj), rounds)
        if sol.status != "optimal":
            break
        for key in _pick(violated, ctx.space.values, ROUND_ADD):
            if key not in active_set:
                active_set.add(key)
                active.append(key)
    if repair and candidate is not None and (best_obj is None or value(candidate) < best_obj) and bound < (best_obj or math.inf):
        # the time limit stopped the search: repair the last relaxation's optimum into a
        # covering design (a few small programs, at most REPAIR_GRACE_S past the deadline)
        ctx.report(stage="repair", round=rounds, scenarios=len(active), bound=params(bound), incumbent=params(best_obj))
        grace = min(REPAIR_GRACE_S, 0.2 * ctx.time_limit)
        fixed = _repair(ctx, table, U, candidate, active, objective, min(max(deadline, time.perf_counter()) + grace, ctx.hard_end), heads_max)
        if fixed is not None and (best_obj is None or value(fixed) < best_obj):
            best, best_obj = fixed, value(fixed)
    if best is None:
        return _Stage("unknown", None, None, bound, rounds, stopped)
    if best_obj is not None and bound >= best_obj:
        return _Stage("optimal", best, best_obj, float(best_obj), rounds)
    return _Stage("feasible", best, best_obj, bound, rounds, stopped)


# ----- results ------------------------------------------------------------------------------
@dataclass
class ConstrainedResult:
    """Is there a covering design with exactly H heads, all of dimension d?"""

    possible: bool | None  # None: the time limit stopped the search
    design: Design | None
    status: str  # optimal (cheapest such design) | feasible | infeasible (proven "no") | unknown

    def to_json(self) -> dict | None:
        if self.design is None:
            return None
        return {"status": self.status, **_design_json(self.design)}


@dataclass
class OptimizeResult:
    problem: Problem
    design: Design | None  # None: no design meets the compute constraints (infeasible) or none found (unknown)
    design_params: int | None
    lower_bound: int
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
    stopped_by: str | None = None  # time_limit | work_limit | scenario_limit when the search stopped before a proof
    work: int = 0  # solver nodes used (what --work-limit counts)
    max_heads: int | None = None
    max_head_dim: int | None = None

    @property
    def gap(self) -> float | None:
        """(P - bound) / P; None without a design."""
        if self.design_params is None:
            return None
        if self.design_params <= 0:
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
        dj = _design_json(self.design) if self.design is not None else {"orbits": []}
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
            "constraints": {"max_heads": self.max_heads, "max_head_dim": self.max_head_dim},
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
                "numeric_worst_rel_error": self.numeric_rel_error,
            },
        }


def attention_cost(design: Design) -> int:
    """Σ_i [G:K_i] dim W_i: the heads times their dimension, the size of the attention
    computation (score and mixing work per token pair; the vanilla layer has H d).
    Example: the regular design (H orbits (C1, d trivial)) has cost |G| H d."""
    return sum(o.heads * o.head_dim for o in design.orbits)


def _design_json(design: Design) -> dict:
    problem = design.problem
    return {
        "params": design.params,
        "heads": design.heads,
        "orbits": [
            {
                "subgroup": o.sub.id,
                "name": o.sub.name,
                "rep": str(o.W),
                "heads": o.heads,
                "head_dim": o.head_dim,
                "params": o.params(problem),
            }
            for o in design.orbits
        ],
    }


def _to_design(problem: Problem, table: TypeTable, counts: dict[int, int]) -> Design:
    G = problem.group
    items = sorted(((table.types[t], c) for t, c in counts.items() if c > 0), key=lambda tc: (-G.subgroup_classes[tc[0].sub].order, tc[0].sub, tc[0].W))
    orbits = []
    for t, c in items:
        K = G.subgroup_classes[t.sub]
        orbits.extend([DesignOrbit(K, Rep(K, t.W))] * c)
    return Design(problem, tuple(orbits))


def _recheck(problem: Problem, design: Design, what: str):  # noqa: ANN202 - tuple of Verdict
    """The coverage checker's verdicts; every clustering must be covered."""
    try:
        verdicts = check_coverage(problem, design)
    except LimitError as e:
        raise LimitError(e.field, f"the {what} design cannot be re-checked by the coverage checker: {e.message}") from e
    bad = [v.clustering.id for v in verdicts if not v.covered]
    if bad:
        raise RuntimeError(f"internal error: the {what} design does not cover clusterings {bad}")
    return verdicts


def _numeric(problem: Problem, design: Design, verdicts, what: str) -> float:  # noqa: ANN001
    """The weight construction for every witness; the relative error must be <= 1e-8."""
    from ..numeric import verify_design

    err = verify_design(problem, design, seed=0, verdicts=verdicts).worst_rel_error
    if not err <= 1e-8:
        raise RuntimeError(f"internal error: weight construction for the {what} design has relative error {err:.2e}")
    return err


def _copy_bounds(table: TypeTable, max_units: int | None, max_heads: int | None = None) -> list[int]:
    """U_t = min(max_units // units_t, most copies any scenario can use): a minimal cover of a
    demand D uses at most Σ_σ D_σ copies, so per clustering at most the sum over its orbits
    of the largest such count among the orbit's options the type can host, plus the largest
    possible zero pool (V). Without an incumbent (`max_units` None) the cost gives no bound;
    with `max_heads`, also U_t ≤ max_heads // [G:K'_t]."""
    space = table.space
    T = len(table.types)
    if T == 0:
        return []
    host = table.hostable()  # (values, types)
    size = np.array([v.size for v in space.values], dtype=np.int64)
    per_orbit: dict[tuple[int, int], np.ndarray] = {}
    for orbit, contrib in space.contrib.items():
        best = np.zeros(T, dtype=np.int64)
        for d, _ in contrib:
            if d is not None:
                best = np.maximum(best, host[d] * size[d])
        per_orbit[orbit] = best
    pool = host[space.pool_bound] * size[space.pool_bound] if space.pool_bound is not None else np.zeros(T, dtype=np.int64)
    use = np.zeros(T, dtype=np.int64)
    for c in space.clusterings:
        tot = sum((k * per_orbit[o] for o, k in c.orbits), np.zeros(T, dtype=np.int64))
        if any(p is not None for o, _ in c.orbits for _, p in space.contrib[o]):
            tot = tot + pool
        use = np.maximum(use, tot)
    out = []
    for i, t in enumerate(table.types):
        u = int(use[i])
        if max_units is not None:
            u = min(u, max_units // t.units if t.units else 0)
        if max_heads is not None:
            u = min(u, max_heads // t.heads)
        out.append(u)
    return out


def _check_bound(value: object, field: str) -> int | None:
    """A compute constraint: None or a whole number >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)):
        raise InputError(field, f"must be a whole number >= 1, got {value!r}")
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise InputError(field, f"must be a whole number >= 1, got {value!r}") from None
    if v < 1:
        raise InputError(field, f"must be at least 1, got {v}")
    return v


def _check_time_limit(time_limit: float | None) -> float:
    if time_limit is None:
        return DEFAULT_TIME_LIMIT
    try:
        tl = float(time_limit)
    except (TypeError, ValueError):
        raise InputError("time_limit", f"must be a number of seconds, got {time_limit!r}") from None
    if not math.isfinite(tl) or tl <= 0:
        raise InputError("time_limit", f"must be a positive number of seconds, got {time_limit!r}")
    if tl > MAX_TIME_LIMIT:
        raise LimitError("time_limit", f"at most {MAX_TIME_LIMIT:g} seconds, got {tl:g}")
    return tl


def optimize(
    problem: Problem,
    time_limit: float | None = None,
    *,
    constrained: bool = True,
    backend: str = ilp.DEFAULT_BACKEND,
    progress: Progress | None = None,
    numeric_check: bool | None = None,
    threads: int | None = None,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    work_limit: int | None = None,
) -> OptimizeResult:
    """The covering design with the fewest parameters (ties: fewer heads, then a smaller
    largest head dimension), with the solver's lower bound; and the constrained-vanilla
    answer.

    `time_limit` (seconds, default 60) bounds the whole call: the search stops at
    (1 - RECHECK_SHARE) of it, leaving the rest for the re-checks (the exact coverage
    checker; a large re-check can still run past it). `work_limit` (solver branch-and-bound
    nodes, summed over every program of the call) is a deterministic limit: with it, two
    runs that are not stopped by the clock give the same answer. `max_heads` (total heads
    Σ [G:K_i]) and `max_head_dim` (every dim W_i) restrict the designs (compute-aware
    designs); the answer is then the cheapest design within them, `infeasible` when none
    covers (proven), and the constrained-vanilla question is unchanged.

    Example: `optimize(Problem.create("C4", "E1", 2, 1)).design_params == 8` (SPEC §6.2)."""
    tl = _check_time_limit(time_limit)
    if backend not in ilp.BACKENDS:
        raise InputError("solver", f"one of {', '.join(ilp.BACKENDS)}")
    max_heads = _check_bound(max_heads, "max_heads")
    max_head_dim = _check_bound(max_head_dim, "max_head_dim")
    work_limit = _check_bound(work_limit, "work_limit")
    ctx = _Context(problem, backend, progress, threads)
    ctx.unchecked = False
    ctx.time_limit = tl
    ctx.work_limit = work_limit
    t_end = ctx.t0 + (1.0 - RECHECK_SHARE) * tl
    ctx.hard_end = t_end
    main_deadline = ctx.t0 + (1.0 - RECHECK_SHARE) * tl * (MAIN_SHARE if constrained else 1.0 - REPAIR_SHARE_END)
    space = ctx.space

    # warm start: H copies of the regular orbit (C1, min(d, dim V) trivial), capped; checking
    # it is the up-front size test (LimitError when its scenarios are too many to check).
    # It is the incumbent only when it meets the compute constraints.
    triv = problem.group.subgroup_classes[0]
    reg_W = min(problem.head_dim, problem.dim_v)
    reg_cost = 4 * problem.heads * reg_W * problem.dim_v
    w = reg_W
    if space.values:
        cap = _caps(problem, space, ctx.tables, triv.id)
        w = min(reg_W, int(cap[0])) if cap is not None else 0
    warm_ok = (max_heads is None or problem.heads * triv.index <= max_heads) and (max_head_dim is None or w <= max_head_dim)
    table = design_types(
        problem, space, ctx.tables, reg_cost if warm_ok else math.inf, ctx.t0 + max(SETUP_MIN_S, SETUP_SHARE * tl),
        max_heads=max_heads, max_head_dim=max_head_dim,
    )
    warm: dict[int, int] | None = {}
    if space.values:
        warm = {i: problem.heads for i, t in enumerate(table.types) if t.sub == triv.id and t.W == (w,)}
        if warm_ok and (not warm or ctx.separate(table, warm, 1)):
            raise RuntimeError("internal error: the (capped) regular design does not cover every scenario")
        if not warm_ok:
            warm = None
    warm_units = None if warm is None else sum(table.types[t].units * c for t, c in warm.items())
    U = _copy_bounds(table, warm_units, max_heads)
    # lexicographic objective: cost, then heads (weight > any head count a program allows)
    lex = _Objective(sum(u * t.heads for u, t in zip(U, table.types)) + 1)
    active = space.initial_keys()
    st1 = _lazy(ctx, table, U, active, lex, main_deadline, warm, "optimum", repair=True, heads_max=max_heads)
    rounds = st1.rounds
    stopped_by = st1.stopped if st1.status != "optimal" else None
    counts = st1.counts
    status = st1.status
    ties_proven = False
    if counts is None:
        cost_units = None
        lower = 0 if status != "infeasible" else 0
        if status == "infeasible":
            stopped_by = None
    else:
        best_obj = st1.objective
        assert best_obj is not None
        cost_units = sum(table.types[t].units * c for t, c in counts.items())
        lower = cost_units if status == "optimal" else int(max(0, lex.units(st1.bound)))
        if lower >= cost_units:
            status, lower, stopped_by = "optimal", cost_units, None
        ties_proven = st1.status == "optimal"
    if ties_proven and counts:
        # then the smallest largest head dimension at the same cost and head count
        now = time.perf_counter()
        ties_deadline = now + TIES_SHARE * max(0.0, main_deadline - now)
        while True:
            dmax = max(table.types[t].dim for t in counts)
            keep = [i for i, t in enumerate(table.types) if t.dim < dmax and lex.coef(t) <= best_obj]
            if not keep:
                break
            sub = table.subset(keep)
            U2 = _copy_bounds(sub, cost_units, max_heads)
            st2 = _lazy(ctx, sub, U2, active, lex, ties_deadline, None, "ties", cutoff=best_obj, heads_max=max_heads)
            rounds += st2.rounds
            if st2.status == "optimal" and st2.counts is not None and st2.objective == best_obj:
                counts = {keep[t]: c for t, c in st2.counts.items()}
                continue
            if st2.status != "infeasible":
                ties_proven = False
            break
    design = _to_design(problem, table, counts) if counts is not None else None

    cres = None
    if constrained:
        ctab = constrained_types(problem, space, ctx.tables)
        Uc = [problem.heads // t.heads for t in ctab.types]
        c_deadline = max(t_end, time.perf_counter() + min(1.0, tl))
        st3 = _lazy(ctx, ctab, Uc, list(active), _Objective(0), c_deadline, None, "constrained", heads_eq=problem.heads)
        rounds += st3.rounds
        if st3.status == "infeasible":
            cres = ConstrainedResult(False, None, "infeasible")
        elif st3.counts is None:
            cres = ConstrainedResult(None, None, "unknown")
        else:
            cres = ConstrainedResult(True, _to_design(problem, ctab, st3.counts), st3.status)

    ctx.report(stage="recheck", scenarios=len(active), bound=4 * lower, incumbent=None if cost_units is None else 4 * cost_units)
    verdicts: tuple = ()
    err = None
    if design is not None:
        verdicts = _recheck(problem, design, "optimal")
        if max_heads is not None and design.heads > max_heads:
            raise RuntimeError("internal error: the design has more heads than max_heads")
        if max_head_dim is not None and any(o.head_dim > max_head_dim for o in design.orbits):
            raise RuntimeError("internal error: the design has a head dimension above max_head_dim")
    witnesses = sum(len(v.witnesses) for v in verdicts)
    if numeric_check is None:
        numeric_check = witnesses <= NUMERIC_MAX_SCENARIOS and problem.dim_v <= NUMERIC_MAX_DIM_V
    if design is not None and numeric_check:
        err = _numeric(problem, design, verdicts, "optimal")
    if cres is not None and cres.design is not None:
        cv = _recheck(problem, cres.design, "constrained-vanilla")
        if numeric_check and sum(len(v.witnesses) for v in cv) <= NUMERIC_MAX_SCENARIOS:
            _numeric(problem, cres.design, cv, "constrained-vanilla")
    if design is not None and design.params != 4 * cost_units:
        raise RuntimeError("internal error: design cost differs from the program's objective")
    notes = []
    if ctx.unchecked:
        notes.append("a candidate design left too many scenarios to check; the search kept the best design it could check")
    if status == "infeasible":
        notes.append("no design within the compute constraints (max_heads, max_head_dim) covers every clustering (proven)")
    if status == "unknown":
        notes.append("no covering design within the compute constraints was found before the limit")
    if status == "optimal" and not ties_proven:
        notes.append("the tie-break (fewer heads, then a smaller largest head dimension) did not finish within the limits")
    if cres is not None and cres.possible is None:
        notes.append("the constrained-vanilla question was not decided within the limits")
    elif cres is not None and cres.possible and cres.status != "optimal":
        notes.append("the constrained-vanilla design found is not proven the cheapest")
    return OptimizeResult(
        problem=problem,
        design=design,
        design_params=None if design is None else design.params,
        lower_bound=4 * lower,
        status=status,
        time_s=time.perf_counter() - ctx.t0,
        constrained=cres,
        scenarios_total=ctx.raw_scenarios,
        scenarios_checked=witnesses,
        scenarios_used=len(active),
        rounds=rounds,
        solver=backend,
        solver_time_s=ctx.solver_time,
        verified_clusterings=len(verdicts),
        numeric_rel_error=err,
        types=len(table),
        ties_proven=ties_proven,
        notes=notes,
        stopped_by=stopped_by,
        work=ctx.work,
        max_heads=max_heads,
        max_head_dim=max_head_dim,
    )


def optimize_report(problem: Problem, time_limit: float | None = None, **kw: object) -> dict:
    """The JSON of `eqattn optimize --json` and POST /api/optimize."""
    return optimize(problem, time_limit, **kw).to_json()  # type: ignore[arg-type]
