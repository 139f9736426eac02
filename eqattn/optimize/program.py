"""The integer program of one optimiser round (SPEC §5.5; derivation in docs/optimizer.md).

Per scenario key one assignment block: integer `y[s, j, t, a]` copies of type t host demand j
through the double coset a, at most `n_t` copies per type and scenario, supplies meeting each
demand irrep by irrep; the objective is `Σ_t coef_t n_t`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..errors import LimitError
from . import solver
from .head_types import HeadType, TypeTable


@dataclass
class Program:
    model: solver.Model
    n: list[int]  # variable of n_t
    y: dict[tuple[int, int, int, int], int]  # (key position, demand position, type, a) -> var


@dataclass(frozen=True)
class Objective:
    """Objective coefficient per type: `units * weight + heads` (weight > any head count
    makes it lexicographic: cost first, then heads), or the cost alone (weight 0 = cost)."""

    weight: int  # 0: cost only

    def coef(self, t: HeadType) -> int:
        return t.units if self.weight == 0 else t.units * self.weight + t.heads

    def units(self, value: float) -> float:
        """A lower bound on the cost (in units) from a bound on the objective."""
        if self.weight == 0 or not math.isfinite(value):
            return value
        return math.floor(math.ceil(value - 1e-6) / self.weight)


def build(
    table: TypeTable,
    U: list[int],
    keys: list[tuple[int, ...]],
    objective: Objective,
    heads_eq: int | None = None,
    cutoff: int | None = None,
    lower: dict[int, int] | None = None,
    heads_max: int | None = None,
    multisets: int | None = None,
    max_vars: int | None = None,
    cost_max: int | None = None,
) -> Program:
    """`max_vars`: a `LimitError` when the program would have more variables (a memory bound).
    `multisets`: only designs with `Π_t (n_t + 1) ≤ multisets` (the symbolic checker's
    limit on orbit multisets), through binaries `b_{t,c}` (n_t = c) and the row
    `Σ ⌈10⁶ log2(c+1)⌉ b_{t,c} ≤ ⌊10⁶ log2(multisets)⌋` (sufficient; exact up to a factor
    2^(10⁻⁶ · types))."""
    m = solver.Model()
    types = table.types
    values = table.space.values
    lo = lower or {}
    n = [m.add_var(lo.get(t, 0), max(U[t], lo.get(t, 0)), objective.coef(types[t])) for t in range(len(types))]
    prog = Program(m, n, {})
    if multisets is not None:
        idx: list[int] = []
        coef: list[int] = []
        for t, nv in enumerate(n):
            ub = max(U[t], lo.get(t, 0))
            if ub == 0:
                continue
            bs = [m.add_var(0, 1) for _ in range(ub)]
            m.add_row(bs + [nv], list(range(1, ub + 1)) + [-1], lo=0, hi=0)  # n_t = Σ c b_{t,c}
            m.add_row(bs, [1] * ub, hi=1)
            idx += bs
            coef += [math.ceil(10**6 * math.log2(c + 1)) for c in range(1, ub + 1)]
        if idx:
            m.add_row(idx, coef, hi=math.floor(10**6 * math.log2(multisets)))
    if heads_eq is not None:
        m.add_row(n, [t.heads for t in types], lo=heads_eq, hi=heads_eq)
    if heads_max is not None:
        m.add_row(n, [t.heads for t in types], hi=heads_max)
    if cost_max is not None:  # attention cost Σ n_t [G:K'_t] dim W_t (theory-scale O19)
        m.add_row(n, [t.heads * t.dim for t in types], hi=cost_max)
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
        if max_vars is not None and m.num_vars > max_vars:
            raise LimitError("program", f"the program over {len(keys)} scenarios and {len(types)} types has over {max_vars} variables")
    return prog


def hint(prog: Program, table: TypeTable, keys: list[tuple[int, ...]], counts: dict[int, int]) -> np.ndarray | None:
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

