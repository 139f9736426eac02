"""The master LP of the LP bound (lp_bound.py, docs/theory-scale.md O11), round by round
(`MasterRounds`): built at once and solved afresh (`_fresh_master`), or kept in one HiGHS
model and warm-started across the rounds (`_Master`, once a fresh solve is slow); and the
cost of its slacks (`_slack_cost`, Lemma O11s).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ..attention.assignment import Demand
from . import solver
from .lp_duals import Column, Slots


class _Master:
    """The master LP of one `lp_bound` call (module docstring), kept in one `solver.GrowingLP`
    across its rounds: the types (columns) and the working keys join it as the column and
    row generation find them, and each solve starts from the last basis. Per working key s,
    demand j and irrep σ with D_σ > 0 a supply row `Σ_{t, slot} S_σ y + slack ≥ D_σ` (a
    costly slack: always feasible); per type t and key s a link row `n_t - Σ_{j, slot} y ≥ 0`;
    `-Σ [G:K'] n_t ≥ -max_heads` when there is a head limit. `work` lists the working keys
    (positions into `keys`) in the order they joined; the duals `mu` are keyed by the
    position in `work`."""

    def __init__(self, slots: Slots, values: Sequence[Demand], keys: Sequence[tuple[int, ...]], entries, big: float,  # noqa: ANN001
                 max_heads: int | None, threads: int | None) -> None:
        self.lp = solver.GrowingLP(threads)
        self.slots, self.values, self.keys, self.entries, self.big = slots, values, keys, entries, big
        self.cols: list[Column] = []
        self.nvar: list[int] = []  # the column index of n_t, per type
        self.work: list[int] = []
        self.supply: list[tuple[int, tuple[int, int, int]]] = []  # (row index, (position in work, j, σ)) of the supply rows
        self._row_of: dict[tuple[int, int, int], int] = {}  # (key position, j, σ) -> supply row
        self.heads_row = self.lp.add_rows([-float(max_heads)], [np.inf], [([], [])])[0] if max_heads is not None else None

    def add_keys(self, new: Iterable[int]) -> None:
        """The keys at positions `new` (not yet working) join: their supply rows and slacks,
        and their link rows with every type so far."""
        have = set(self.work)
        new = [s for s in dict.fromkeys(new) if s not in have]
        if not new:
            return
        names = []
        lo = []
        for s in new:
            w = len(self.work)
            self.work.append(s)
            for j, vi in enumerate(self.keys[s]):
                for g, x in enumerate(self.values[vi].D.mults):
                    if x > 0:
                        names.append((s, (w, j, g)))
                        lo.append(float(x))
        rows = self.lp.add_rows(lo, [np.inf] * len(lo), [([], [])] * len(lo))
        for r, (s, name) in zip(rows, names):
            self._row_of[(s, name[1], name[2])] = r
            self.supply.append((r, name))
        self.lp.add_cols([self.big] * len(rows), [0.0] * len(rows), [np.inf] * len(rows), [([r], [1.0]) for r in rows])
        self._link(range(len(self.cols)), new)

    def add_cols(self, cols: Sequence[Column]) -> None:
        """The types `cols` join: their n_t, and their link rows with every working key."""
        if not cols:
            return
        first = len(self.cols)
        hr = self.heads_row
        self.nvar.extend(self.lp.add_cols(
            [self.slots.cost(c[0], c[1]) for c in cols], [0.0] * len(cols), [np.inf] * len(cols),
            [([hr], [-float(self.slots.subs[c[0]].K.index)]) if hr is not None else ([], []) for c in cols],
        ))
        self.cols.extend(cols)
        self._link(range(first, len(self.cols)), self.work)

    def _link(self, cis: Iterable[int], ss: Iterable[int]) -> None:
        """The link rows and supply variables y of the types at `cis` and the keys `ss`."""
        ss = list(ss)
        links: list[tuple[int, int, list]] = []
        for ci in cis:
            for s in ss:
                e = self.entries(self.cols[ci], s)
                if e:
                    links.append((ci, s, e))
        rows = self.lp.add_rows([0.0] * len(links), [np.inf] * len(links), [([self.nvar[ci]], [1.0]) for ci, _, _ in links])
        ys: list[tuple[list[int], list[float]]] = []
        for r, (_, s, e) in zip(rows, links):
            for j, sup in e:
                idx, coef = [r], [-1.0]
                for g in np.nonzero(sup)[0]:
                    sr = self._row_of.get((s, j, int(g)))
                    if sr is not None:
                        idx.append(sr)
                        coef.append(float(sup[g]))
                ys.append((idx, coef))
        self.lp.add_cols([0.0] * len(ys), [0.0] * len(ys), [np.inf] * len(ys), ys)

    def solve(self, time_limit: float) -> tuple[solver.LinearSolution, dict, float]:
        """The master's optimum from the last basis, its supply duals `mu` ((position in work,
        j, σ) -> μ > 0) and λ."""
        sol = self.lp.solve(time_limit)
        if sol.status != "optimal" or sol.row_duals is None:
            return sol, {}, 0.0
        duals = sol.row_duals
        mu = {name: float(duals[r]) for r, name in self.supply if duals[r] > 0}
        lam = float(max(0.0, duals[self.heads_row])) if self.heads_row is not None else 0.0
        return sol, mu, lam


class MasterRounds:
    """The master LP of each round of one `lp_bound` call: built at once and solved afresh
    (`_fresh_master`) until a fresh solve took `warm_after` simplex iterations, from then on
    kept in one model and warm-started from the last round's basis (`_Master`). `warm` says
    which; `work` lists the working keys (positions into `keys`) of the last solve, the
    order its duals `mu` are keyed by. `limited`: the call has compute limits (the slack
    costs, `_slack_cost`: a fresh master keeps the huge one, a warm one needs the small one
    where there are no limits)."""

    def __init__(self, slots: Slots, values: Sequence[Demand], keys: Sequence[tuple[int, ...]], entries, limited: bool,  # noqa: ANN001
                 max_heads: int | None, threads: int | None, warm_after: int) -> None:
        self.slots, self.values, self.keys, self.entries, self.max_heads, self.threads = slots, values, keys, entries, max_heads, threads
        self.fresh_slack = _slack_cost(slots, values, keys, True)
        warm_slack = self.fresh_slack if limited else _slack_cost(slots, values, keys, False)
        self.model = _Master(slots, values, keys, entries, warm_slack, max_heads, threads)  # (filled once warm)
        self.warm_after = warm_after
        self.warm = False
        self.work: list[int] = []
        self._fresh_work = 0  # simplex iterations of the last master solved afresh

    def solve(self, cols: Sequence[Column], working: Iterable[int], time_limit: float) -> tuple[solver.LinearSolution, dict, float, list[int]]:
        """The master over the types `cols` and the keys `working`: `(solution, mu, lam,
        nvar)` (`nvar`: the column of each type's n_t)."""
        self.warm = self.warm or self._fresh_work >= self.warm_after
        if self.warm:
            m = self.model
            m.add_keys(working)
            m.add_cols(cols[len(m.cols):])
            self.work = m.work
            sol, mu, lam = m.solve(time_limit)
            return sol, mu, lam, m.nvar
        self.work = sorted(working)
        sol, mu, lam, nvar = _fresh_master(cols, self.slots, self.values, self.keys, self.work, self.entries, self.fresh_slack, self.max_heads,
                                           time_limit, self.threads)
        self._fresh_work = sol.work
        return sol, mu, lam, nvar

    def fresh_solution(self, time_limit: float) -> tuple[solver.LinearSolution, tuple[tuple[Column, float], ...] | None]:
        """The warm model's last master built at once and solved afresh: `(solution, (type,
        n_t > 0) of its optimum or None)`. The warm starts end at other optimal vertices,
        spread over more types, whose rounded designs are worse or past the checker's limits
        (the rounding, O14, and the restricted programs over the support were made on these)."""
        m = self.model
        sol, _, _, nvar = _fresh_master(m.cols, self.slots, self.values, self.keys, sorted(m.work), self.entries, self.fresh_slack, self.max_heads,
                                        time_limit, self.threads)
        if sol.status != "optimal":
            return sol, None
        return sol, tuple((c, float(sol.values[n])) for c, n in zip(m.cols, nvar) if sol.values[n] > 1e-9)


def _master_program(cols, slots, values, wkeys, work, entries, big, max_heads):  # noqa: ANN001, ANN202
    """The master LP over the columns `cols` and the working keys `work` (positions into the
    keys; `wkeys` those keys) built at once, for one fresh solve: `(cost, rows, supply_rows,
    nvar)` ((position in work, j, σ) of the first rows; the column of each type's n_t): a costly slack per supply row, then per type its n_t and y's
    and its link rows `n_t - Σ y >= 0`, and the `max_heads` row last when there is one."""
    supply_rows = [(w, j, g) for w, key in enumerate(wkeys) for j, vi in enumerate(key) for g, x in enumerate(values[vi].D.mults) if x > 0]
    row_of = {r: i for i, r in enumerate(supply_rows)}
    cost: list[float] = [big] * len(supply_rows)
    rows: list[tuple[list[int], list[float], float, float]] = [
        ([i], [1.0], float(values[wkeys[w][j]].D.mults[g]), np.inf) for i, (w, j, g) in enumerate(supply_rows)
    ]
    nvar: list[int] = []
    heads_row = ([], [], -float(max_heads), np.inf) if max_heads is not None else None
    for c in cols:
        ref = slots.subs[c[0]]
        n = len(cost)
        nvar.append(n)
        cost.append(slots.cost(c[0], c[1]))
        if heads_row is not None:
            heads_row[0].append(n)
            heads_row[1].append(-float(ref.K.index))
        for w, s in enumerate(work):
            link = ([n], [1.0], 0.0, np.inf)  # n_t - Σ y ≥ 0
            for j, sup in entries(c, s):
                y = len(cost)
                cost.append(0.0)
                link[0].append(y)
                link[1].append(-1.0)
                for g in np.nonzero(sup)[0]:
                    r = row_of.get((w, j, int(g)))
                    if r is not None:
                        rows[r][0].append(y)
                        rows[r][1].append(float(sup[g]))
            if len(link[0]) > 1:
                rows.append(link)
    if heads_row is not None:
        rows.append(heads_row)
    return cost, rows, supply_rows, nvar


def _fresh_master(cols, slots, values, keys, work, entries, big, max_heads, time_limit, threads):  # noqa: ANN001, ANN202
    """The master over `cols` and the working keys `work` built at once (`_master_program`,
    with the slack cost `big`: the one that holds under limits too) and solved afresh:
    `(solution, mu, lam, nvar)` as `_Master.solve`, `mu` keyed by the position in `work`."""
    cost, rows, supply_rows, nvar = _master_program(cols, slots, values, [keys[s] for s in work], work, entries, big, max_heads)
    sol = solver.solve_linear(cost, [0.0] * len(cost), [np.inf] * len(cost), rows, time_limit=time_limit, threads=threads)
    if sol.status != "optimal" or sol.row_duals is None:
        return sol, {}, 0.0, nvar
    duals = sol.row_duals
    mu = {r: float(duals[i]) for i, r in enumerate(supply_rows) if duals[i] > 0}
    lam = float(max(0.0, duals[-1])) if max_heads is not None else 0.0
    return sol, mu, lam, nvar


def _slack_cost(slots: Slots, values: Sequence[Demand], keys: Sequence[tuple[int, ...]], limited: bool) -> float:
    """The cost of a unit of a supply row's slack in the master (1 under "shortfall", whose
    objective the slacks are). Without compute limits: twice the dearest type's cost, plus 1.
    That is enough for the master's optimum over every type to use no slack on a row some
    type can supply: a slack in use has dual μ = its cost, and a type t supplying a unit of
    that row would then have π(t) ≥ μ > c_t, a type that prices out (so not the optimum).
    Small slack costs keep the costs' range small, which the warm-started dual simplex needs.
    With limits a row may be unsuppliable within them, and the slack's cost is then what the
    bound proves: more than any design of the largest types over every demanded irrep costs
    (the bound then exceeds every cost cap: infeasible)."""
    if slots.objective == "shortfall":
        return 1.0
    if not limited:
        return 1.0 + 2.0 * max((slots.cost(sub, sl.VK) for sub, sl in slots.subs.items()), default=0.0)
    demanded = sum(1 for key in keys for vi in key for x in values[vi].D.mults if x > 0)
    return 1.0 + sum(slots.cost(sub, sl.VK) for sub, sl in slots.subs.items()) * max(1, demanded)
