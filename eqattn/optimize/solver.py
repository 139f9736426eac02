"""A small integer linear program with integer data, and the solver adapter: HiGHS (highspy).

The optimiser (program.py) builds one `Model` per solve: every variable of a `Model` is
integer with finite bounds and every coefficient an integer; `solve` returns the status,
the objective of the best solution, the solver's proven bound and the solution. The LP
bound (lp_bound.py) needs real data and continuous variables: `solve_linear`. A solver
failure is an answer too (status "unknown", no bound, `reason` says what failed), never an
exception.

    >>> m = Model(); x = m.add_var(0, 5, 1); m.add_row([x], [2], lo=3)
    >>> solve(m).objective
    2
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..memo import PROCESS

BACKENDS = ("highs",)
DEFAULT_BACKEND = "highs"


@dataclass
class Model:
    """min c.x subject to lo <= A x <= hi, lb <= x <= ub, x integer."""

    lb: list[int] = field(default_factory=list)
    ub: list[int] = field(default_factory=list)
    cost: list[int] = field(default_factory=list)
    rows: list[tuple[list[int], list[int], float, float]] = field(default_factory=list)

    @property
    def num_vars(self) -> int:
        return len(self.lb)

    def add_var(self, lb: int, ub: int, cost: int = 0) -> int:
        self.lb.append(int(lb))
        self.ub.append(int(ub))
        self.cost.append(int(cost))
        return len(self.lb) - 1

    def add_row(self, idx: list[int], coef: list[int], lo: float = -np.inf, hi: float = np.inf) -> None:
        self.rows.append((list(idx), [int(c) for c in coef], lo, hi))

    def value(self, x: np.ndarray) -> int:
        return int(round(float(np.dot(self.cost, x))))

    def satisfied(self, x: np.ndarray) -> bool:
        """Whether x (integer) satisfies every bound and row (warm starts, solver answers)."""
        x = np.asarray(x)
        if x.shape != (self.num_vars,):
            return False
        if (x < np.array(self.lb)).any() or (x > np.array(self.ub)).any():
            return False
        if not self.rows:
            return True
        sizes = np.array([len(r[0]) for r in self.rows])
        idx = np.fromiter((i for r in self.rows for i in r[0]), dtype=np.int64, count=int(sizes.sum()))
        coef = np.fromiter((c for r in self.rows for c in r[1]), dtype=np.float64, count=int(sizes.sum()))
        row_of = np.repeat(np.arange(len(self.rows)), sizes)
        act = np.bincount(row_of, weights=coef * x[idx], minlength=len(self.rows))
        lo = np.array([r[2] for r in self.rows], dtype=float)
        hi = np.array([r[3] for r in self.rows], dtype=float)
        return bool((act >= lo - 1e-9).all() and (act <= hi + 1e-9).all())


@dataclass(frozen=True)
class Solution:
    status: str  # "optimal" | "feasible" (stopped with a solution) | "infeasible" | "unknown"
    objective: int | None  # objective of the best solution found
    bound: float  # proven lower bound (+inf when infeasible)
    values: np.ndarray | None
    time_s: float
    backend: str
    nodes: int = 0  # branch-and-bound nodes the solver explored (the work a work limit counts)
    stopped: str | None = None  # "time" | "work" when that limit stopped the solver before a proof; "error": the solver failed
    reason: str | None = None  # one line when the solver failed (status "unknown", no bound)
    work: int = 0  # simplex iterations plus branch-and-bound nodes (deterministic)


# ----- HiGHS ---------------------------------------------------------------------------------
_HIGHS_LOCK = threading.Lock()


def _new_highs():  # noqa: ANN202
    """A silent Highs object. HiGHS prints a banner to fd 1 when the first one is built;
    that would corrupt `--json` output, so the first construction runs with fd 1 muted
    (recorded in `memo.PROCESS`)."""
    import highspy

    with _HIGHS_LOCK:
        if PROCESS.find("highs_banner_done") is None:
            try:
                sys.stdout.flush()
            except Exception:  # noqa: BLE001 - stdout may be closed or replaced
                pass
            saved = os.dup(1)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            try:
                h = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
                os.close(null)
            PROCESS.get("highs_banner_done", lambda: True)
        else:
            h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def _pool_threads(threads: int | None) -> int:
    """The `threads` option to pass: HiGHS starts one scheduler per process at its first run
    and refuses (run status error) a later run asking for another count, so the first count
    asked for is kept in `memo.PROCESS` (a thread count is a speed setting, not part of the
    answer; 0: HiGHS' default)."""
    with _HIGHS_LOCK:
        return PROCESS.get("highs_pool_threads", lambda: int(threads or 0))


NO_HEURISTICS = (  # HiGHS's MIP options that turn its primal heuristics off (`solve_linear(heuristics=False)`)
    ("mip_heuristic_effort", 0.0),
    ("mip_heuristic_run_feasibility_jump", False),
    ("mip_heuristic_run_rins", False),
    ("mip_heuristic_run_rens", False),
    ("mip_heuristic_run_root_reduced_cost", False),
)
SIMPLEX_DUAL, SIMPLEX_PRIMAL = 1, 4  # HiGHS's simplex_strategy values
PRIMAL_WARM = True  # `GrowingLP.solve` from a basis still primal feasible by the primal simplex (a switch for the benchmarks)
FEASIBLE_TOL = 1e-9  # a row joining a GrowingLP keeps its last optimum feasible when that optimum meets it within this
_REUSED = threading.local()  # one Highs object per thread for the one-shot solves (`_configured_highs(reuse=True)`)


def _configured_highs(threads: int | None, time_limit: float | None, reuse: bool = False, mip: bool = False):  # noqa: ANN202 - highspy.Highs
    """A silent Highs object with a fixed seed, the process's thread count and the time
    limit. `reuse`: the calling thread's one object, its model cleared and every option reset
    (a one-shot solve that reads its answer before the next solve on the thread; building a
    Highs object costs ~35 µs, a tenth of a small pricing program's solve). `mip`: the
    program has integer variables (HiGHS 1.16 times a MIP from the start of its solve, and
    an LP off the object's run clock, which no clear resets: a reused object's LP limit
    starts where that clock is; both tested in tests/optimize/test_solver.py)."""
    h = getattr(_REUSED, "h", None) if reuse else None
    if h is None:
        h = _new_highs()
        if reuse:
            _REUSED.h = h
    else:
        h.clear()  # (the model, the solver's data and any user solution)
        h.resetOptions()
        h.setOptionValue("output_flag", False)
    h.setOptionValue("random_seed", 0)
    threads = _pool_threads(threads)
    if threads:
        h.setOptionValue("threads", threads)
    if time_limit is not None:
        h.setOptionValue("time_limit", (0.0 if mip else h.getRunTime()) + max(float(time_limit), 0.01))
    return h


def _highs_lp(cost, lb, ub, rows, integer: list[bool], maximize: bool = False):  # noqa: ANN001, ANN202 - sequences -> highspy.HighsLp
    """The HighsLp of `min/max cost.x, lo <= A x <= hi (rows as (idx, coef, lo, hi)), lb <= x <= ub`."""
    import highspy

    n = len(cost)
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = len(rows)
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_ = np.asarray(lb, dtype=float)
    inf = highspy.kHighsInf
    lp.col_upper_ = np.minimum(np.asarray(ub, dtype=float), inf)
    lp.row_lower_ = np.array([max(lo, -inf) for _, _, lo, _ in rows], dtype=float)
    lp.row_upper_ = np.array([min(hi, inf) for _, _, _, hi in rows], dtype=float)
    starts, index, value = [0], [], []
    for idx, coef, _, _ in rows:
        index.extend(idx)
        value.extend(coef)
        starts.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = n
    lp.a_matrix_.num_row_ = len(rows)
    lp.a_matrix_.start_ = np.asarray(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.asarray(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.asarray(value, dtype=float)
    if maximize:
        lp.sense_ = highspy.ObjSense.kMaximize
    if any(integer):
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous for i in integer]
    return lp


def _failed(reason: str, t0: float) -> Solution:
    """A solver failure as an answer: status unknown, no bound, no solution, and the reason."""
    return Solution("unknown", None, -float("inf"), None, time.perf_counter() - t0, "highs", 1, "error", reason)


def _solve_highs(
    m: Model, time_limit: float | None, hint: np.ndarray | None, threads: int | None, node_limit: int | None = None
) -> Solution:
    """HiGHS branch and cut with presolve off, and the warm start (`hint`) passed as a user
    solution: HiGHS 1.16 with presolve on and a user solution can stop at once and report
    that solution as optimal (with objective 0) although better ones exist. (Without
    presolve the optimiser's programs also solve about 20% faster.)"""
    import highspy

    t0 = time.perf_counter()
    h = _configured_highs(threads, time_limit, reuse=True, mip=True)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)  # the objective is integer
    if node_limit is not None:
        h.setOptionValue("mip_max_nodes", max(int(node_limit), 1))
    n = m.num_vars
    lp = _highs_lp(m.cost, m.lb, m.ub, m.rows, [True] * n)
    h.passModel(lp)
    if hint is not None:
        h.setSolution(n, np.arange(n, dtype=np.int32), np.asarray(hint, dtype=float))
    h.setOptionValue("presolve", "off")
    if h.run() == highspy.HighsStatus.kError:
        return _failed(f"HiGHS failed on a program of {n} variables and {len(m.rows)} rows ({h.modelStatusToString(h.getModelStatus())})", t0)
    st = h.getModelStatus()
    info = h.getInfo()
    S = highspy.HighsModelStatus
    has_sol = info.primal_solution_status == 2  # kSolutionStatusFeasible
    values = np.rint(np.asarray(h.getSolution().col_value, dtype=float)).astype(np.int64) if has_sol else None
    obj = m.value(values) if values is not None else None
    if values is not None and (abs(obj - info.objective_function_value) > 1e-6 * max(1.0, abs(obj)) or not m.satisfied(values)):
        # (seen with presolve on and a user solution in 1.16: status optimal, objective 0)
        return _failed(f"HiGHS returned a solution inconsistent with a program of {n} variables and {len(m.rows)} rows", t0)
    if st == S.kOptimal:
        status, bound = "optimal", float(obj)
    elif st == S.kInfeasible:
        status, bound, values, obj = "infeasible", float("inf"), None, None
    else:
        bound = float(info.mip_dual_bound)
        if not np.isfinite(bound):
            bound = -float("inf")
        status = "feasible" if values is not None else "unknown"
    nodes = max(1, int(info.mip_node_count))
    stopped = None
    if status in ("feasible", "unknown"):
        stopped = "work" if st in (S.kSolutionLimit, S.kIterationLimit) else "time"
    return Solution(status, obj, bound, values, time.perf_counter() - t0, "highs", nodes, stopped)


def solve(
    m: Model,
    backend: str = DEFAULT_BACKEND,
    time_limit: float | None = None,
    hint: np.ndarray | None = None,
    threads: int | None = None,
    node_limit: int | None = None,
) -> Solution:
    """Solve `m` to optimality (or until `time_limit` seconds, or `node_limit` HiGHS
    branch-and-bound nodes — a deterministic budget).
    `hint`: a feasible solution."""
    if hint is not None and not m.satisfied(hint):
        hint = None
    if m.num_vars == 0:
        # nothing to choose (solvers report an empty model as unknown): x = () decides it
        x = np.zeros(0, dtype=np.int64)
        if m.satisfied(x):
            return Solution("optimal", 0, 0.0, x, 0.0, backend, 1)
        return Solution("infeasible", None, float("inf"), None, 0.0, backend, 1)
    if backend == "highs":
        return _solve_highs(m, time_limit, hint, threads, node_limit=node_limit)
    raise ValueError(f"unknown solver backend {backend!r}; one of {BACKENDS}")


@dataclass(frozen=True)
class LinearSolution:
    """The answer of `solve_linear`: `bound` is the solver's proven bound on the optimum (a
    lower bound when minimising, an upper bound when maximising; ±inf when there is none);
    `row_duals` the dual value of each row (linear programs only: `y` with
    `cost - Aᵀy` the reduced costs, so ≥ 0 on a binding `≥` row of a minimisation)."""

    status: str  # "optimal" | "feasible" | "infeasible" | "unknown"
    objective: float | None
    bound: float
    values: np.ndarray | None
    row_duals: np.ndarray | None
    reason: str | None = None  # one line when the solver failed (status "unknown", no bound)
    work: int = 0  # simplex iterations plus branch-and-bound nodes (deterministic)


def solve_linear(
    cost: list[float],
    lb: list[float],
    ub: list[float],
    rows: list[tuple[list[int], list[float], float, float]],
    integer: list[bool] | None = None,
    maximize: bool = False,
    time_limit: float | None = None,
    threads: int | None = None,
    node_limit: int | None = None,
    heuristics: bool = True,
) -> LinearSolution:
    """A linear (or mixed-integer, where `integer` says) program with real data, by HiGHS:
    the LP bound of the optimiser (lp_bound.py) needs row duals and real coefficients.
    `heuristics=False`: a MIP without HiGHS's primal heuristics (`NO_HEURISTICS`: RINS,
    RENS, feasibility jump, the root's reduced-cost heuristic). They only look for good
    solutions; the optimum and its proven bound are the tree search's either way. The
    pricing programs, whose optimum is mostly W = 0 or found at the root, solve in half the
    time without them (theory-scale O11).

        >>> s = solve_linear([1.0, 1.0], [0, 0], [np.inf, np.inf], [([0, 1], [1.0, 2.0], 2.0, np.inf)])
        >>> round(s.objective, 6), [round(float(y), 6) for y in s.row_duals]
        (1.0, [0.5])
    """
    import highspy

    n = len(cost)
    integer = [False] * n if integer is None else list(integer)
    h = _configured_highs(threads, time_limit, reuse=True, mip=any(integer))
    if any(integer):  # the proven bound is what callers use: no relative gap tolerance
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 1e-7)
        if node_limit is not None:
            h.setOptionValue("mip_max_nodes", max(int(node_limit), 1))
        if not heuristics:
            for name, value in NO_HEURISTICS:
                h.setOptionValue(name, value)
    h.passModel(_highs_lp(cost, lb, ub, rows, integer, maximize))
    worst = float("inf") if maximize else -float("inf")
    if h.run() == highspy.HighsStatus.kError:
        return LinearSolution("unknown", None, worst, None, None, f"HiGHS failed on a program of {n} variables and {len(rows)} rows")
    st = h.getModelStatus()
    info = h.getInfo()
    S = highspy.HighsModelStatus
    sol = h.getSolution()
    has_sol = info.primal_solution_status == 2
    values = np.asarray(sol.col_value, dtype=float) if has_sol else None
    obj = float(info.objective_function_value) if has_sol else None
    mip = any(integer)
    if st == S.kOptimal:
        status, bound = "optimal", obj
        if mip and np.isfinite(info.mip_dual_bound):
            bound = float(info.mip_dual_bound)
    elif st == S.kInfeasible:
        status, bound, values, obj = "infeasible", -worst, None, None
    else:
        status = "feasible" if values is not None else "unknown"
        bound = float(info.mip_dual_bound) if mip and np.isfinite(info.mip_dual_bound) else worst
    duals = np.asarray(sol.row_dual, dtype=float) if (not mip and status == "optimal" and sol.dual_valid) else None
    work = max(0, int(info.simplex_iteration_count)) + (max(0, int(info.mip_node_count)) if mip else 0)
    return LinearSolution(status, obj, bound, values, duals, None, work)


class GrowingLP:
    """A linear program `min cost·x, lo ≤ A x ≤ hi, lb ≤ x ≤ ub` kept in one HiGHS model and
    grown between solves by rows (`add_rows`, over the columns so far) and columns
    (`add_cols`, over the rows so far); each `solve` starts from the last optimal basis (new
    columns nonbasic at their bound, new rows basic), so a column or row generation loop
    pays a few simplex pivots per round where a fresh solve pays them all. While the last
    optimum stays feasible (columns joined, at 0, and rows it meets: a column generation
    round) the next solve runs the primal simplex from that basis, else the dual simplex
    (rows it violates joined: a row generation round). The answer is the LP's optimum either
    way; a degenerate LP may give other optimal duals than a fresh solve.

        >>> lp = GrowingLP()
        >>> lp.add_rows([2.0], [np.inf], [([], [])])             # x0 + 2 x1 >= 2, no column yet
        [0]
        >>> lp.add_cols([1.0, 1.0], [0.0, 0.0], [np.inf, np.inf], [([0], [1.0]), ([0], [2.0])])
        [0, 1]
        >>> s = lp.solve(); round(s.objective, 6), [round(float(y), 6) for y in s.row_duals]
        (1.0, [0.5])
        >>> lp.add_cols([0.25], [0.0], [np.inf], [([0], [1.0])]); round(lp.solve().objective, 6)
        [2]
        0.5
    """

    def __init__(self, threads: int | None = None) -> None:
        self._h = _configured_highs(threads, None)
        # (the dual simplex perturbs the costs at each solve and removes the perturbation
        # after: from a warm basis that costs thousands of pivots, as many as a fresh solve;
        # unperturbed, a round of column generation takes tens to hundreds)
        self._h.setOptionValue("dual_simplex_cost_perturbation_multiplier", 0.0)
        self.num_rows = 0
        self.num_cols = 0
        self.fresh_solves = 0  # solves that fell back to a fresh start (a failure from the last basis)
        self._x: np.ndarray | None = None  # the last optimum's values while it is still feasible (then the next solve is primal)

    @staticmethod
    def _packed(entries: list[tuple[list[int], list[float]]]) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        starts = np.zeros(len(entries), dtype=np.int32)
        index: list[int] = []
        value: list[float] = []
        for i, (idx, coef) in enumerate(entries):
            starts[i] = len(index)
            index.extend(idx)
            value.extend(coef)
        return len(index), starts, np.asarray(index, dtype=np.int32), np.asarray(value, dtype=float)

    def add_rows(self, lo: list[float], hi: list[float], entries: list[tuple[list[int], list[float]]]) -> list[int]:
        """Rows `lo ≤ Σ coef·x[idx] ≤ hi` (±inf allowed) over existing columns; their indices."""
        import highspy

        if not lo:
            return []
        inf = highspy.kHighsInf
        nnz, starts, index, value = self._packed(entries)
        lo_a, hi_a = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        if self._h.addRows(len(lo), np.maximum(lo_a, -inf), np.minimum(hi_a, inf), nnz, starts, index, value) == highspy.HighsStatus.kError:
            raise RuntimeError(f"internal error: HiGHS refused {len(lo)} rows over {self.num_cols} columns")
        if self._x is not None:  # (the rows' activities at the last optimum, from the packed entries)
            act = np.bincount(np.repeat(np.arange(len(lo)), np.diff(np.append(starts, nnz))), self._x[index] * value, len(lo))
            if not ((act >= lo_a - FEASIBLE_TOL).all() and (act <= hi_a + FEASIBLE_TOL).all()):
                self._x = None
        first, self.num_rows = self.num_rows, self.num_rows + len(lo)
        return list(range(first, self.num_rows))

    def add_cols(self, cost: list[float], lb: list[float], ub: list[float], entries: list[tuple[list[int], list[float]]]) -> list[int]:
        """Columns with their coefficients in existing rows (`entries`: row indices, values); their indices."""
        import highspy

        if not cost:
            return []
        inf = highspy.kHighsInf
        nnz, starts, index, value = self._packed(entries)
        lb_a = np.asarray(lb, dtype=float)
        if self._h.addCols(len(cost), np.asarray(cost, dtype=float), np.maximum(lb_a, -inf),
                           np.minimum(np.asarray(ub, dtype=float), inf), nnz, starts, index, value) == highspy.HighsStatus.kError:
            raise RuntimeError(f"internal error: HiGHS refused {len(cost)} columns over {self.num_rows} rows")
        if self._x is not None:  # (a new column starts nonbasic at its lower bound: the rows' activities stay as they were at 0)
            self._x = np.concatenate([self._x, np.zeros(len(cost))]) if (lb_a == 0.0).all() else None
        first, self.num_cols = self.num_cols, self.num_cols + len(cost)
        return list(range(first, self.num_cols))

    def solve(self, time_limit: float | None = None) -> LinearSolution:
        """The optimum from the last basis, within `time_limit` seconds of this solve (HiGHS
        counts its limit over the model's whole life: the limit is set past its run time).
        A solve that fails from the last basis is repeated once from none (`fresh_solves`);
        `work` counts the simplex iterations of both."""
        import highspy

        h = self._h
        S = highspy.HighsModelStatus
        t0 = time.perf_counter()
        work = 0
        # from a basis still primal feasible (only columns, and rows the last optimum meets,
        # joined since), the primal simplex: the dual simplex would first have to repair the
        # dual infeasibility the new columns bring, which cost it thousands of pivots a round
        h.setOptionValue("simplex_strategy", SIMPLEX_PRIMAL if self._x is not None and PRIMAL_WARM else SIMPLEX_DUAL)
        self._x = None
        for fresh in (False, True):
            left = None if time_limit is None else float(time_limit) - (time.perf_counter() - t0)
            h.setOptionValue("time_limit", max(float(h.getRunTime()) + left, 0.01) if left is not None else highspy.kHighsInf)
            if fresh:  # (the dual simplex can fail from a basis that badly scaled costs make hard: solve afresh)
                self.fresh_solves += 1
                h.clearSolver()
                h.setOptionValue("simplex_strategy", SIMPLEX_DUAL)
            ran = h.run()
            work += max(0, int(h.getInfo().simplex_iteration_count))
            if ran != highspy.HighsStatus.kError and h.getModelStatus() in (S.kOptimal, S.kInfeasible, S.kTimeLimit):
                break
        if ran == highspy.HighsStatus.kError:
            return LinearSolution("unknown", None, -float("inf"), None, None,
                                  f"HiGHS failed on a program of {self.num_cols} variables and {self.num_rows} rows", work)
        st = h.getModelStatus()
        info = h.getInfo()
        sol = h.getSolution()
        if st == S.kOptimal and info.primal_solution_status == 2:
            obj = float(info.objective_function_value)
            duals = np.asarray(sol.row_dual, dtype=float) if sol.dual_valid else None
            self._x = np.asarray(sol.col_value, dtype=float)  # (never changed in place: joining columns makes a new array)
            return LinearSolution("optimal", obj, obj, self._x, duals, None, work)
        if st == S.kInfeasible:
            return LinearSolution("infeasible", None, float("inf"), None, None, None, work)
        return LinearSolution("unknown", None, -float("inf"), None, None, None, work)
