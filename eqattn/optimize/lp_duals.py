"""The dual side of the LP bound (lp_bound.py, docs/theory-scale.md O11): the host slots of
the keys' demands and the cost of a type under an objective (`Slots`), the supplies a type
brings to a key (`supply_entries`), the dual value π(t) of a type and its profit π(t) - c_t - [G:K'] λ
(`pi_values`, `profits`), and the certificate that proves a bound (`Certificate`). Reduced-cost
fixing (fixing.py) prices types with the same functions.

    >>> from eqattn.attention import Problem
    >>> from eqattn.attention.hosting import hosting
    >>> from eqattn.optimize.separation import ScenarioSpace
    >>> p = Problem.create("C4", "E1", 2, 1)
    >>> space = ScenarioSpace(p)
    >>> keys = space.initial_keys()
    >>> slots = Slots(p, hosting(p), space.values, keys, None)
    >>> sorted(slots.subs) == sorted({sl.K.id for v in slots.by_value.values() for sl in v})
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..attention import Problem
from ..attention.assignment import Demand
from ..attention.hosting import Hosting
from .hosts import Slot, host_slots

Column = tuple[int, tuple[int, ...]]  # (subgroup class id of K', multiplicities of W)


@dataclass(frozen=True)
class Certificate:
    """Dual values proving an LP bound: `mu[(s, j, σ)]` for the irreps σ of demand j of the
    scenario at position s, `lam` for the `max_heads` row, scaled by `1/theta` (module
    docstring). `check_certificate` verifies one against an explicit list of types."""

    mu: tuple[tuple[int, int, int, float], ...]
    lam: float
    theta: float

    def value(self, values: Sequence[Demand], keys: Sequence[tuple[int, ...]], max_heads: int | None) -> float:
        """`(Σ D μ - max_heads λ) / θ`, the bound (units) this certificate proves."""
        tot = sum(m * values[keys[s][j]].D.mults[g] for s, j, g, m in self.mu)
        if max_heads is not None:
            tot -= max_heads * self.lam
        return tot / self.theta


OBJECTIVES = ("params", "heads", "shortfall")  # (attention cost: "params" on the problem priced by it, Problem.priced)


def unit_cost(slot: Slot) -> np.ndarray:
    return np.asarray(slot.unit_cost, dtype=np.int64)


class Slots:
    """The host slots of every demand value of the keys, grouped by subgroup, and the cost of
    a type under the objective: `linear(sub) @ W + fixed(sub)` for W ≠ 0 — the problem's unit
    costs per copy of τ ("params": m_τ(V|K') e_τ, P/4; [G:K'] dim τ on a problem priced by
    attention cost), [G:K'] ("heads"), or nothing ("shortfall": the master's slacks, at cost 1
    per unit of demand not met, are the whole objective; phase one of the simplex method)."""

    def __init__(
        self, problem: Problem, h: Hosting, values: Sequence[Demand], keys: Sequence[tuple[int, ...]], max_heads: int | None,
        objective: str = "params",
    ) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"objective: one of {', '.join(OBJECTIVES)}, got {objective!r}")
        self.objective = objective
        self._least: dict[int, float] = {}  # sub -> `least`, asked once per pricing program
        self.by_value: dict[int, list[Slot]] = {}
        self.subs: dict[int, Slot] = {}  # one slot per subgroup (its costs, dims, V|K')
        for key in keys:
            for vi in key:
                if vi not in self.by_value:
                    self.by_value[vi] = list(host_slots(problem, h, values[vi], max_heads))
                    for sl in self.by_value[vi]:
                        self.subs.setdefault(sl.K.id, sl)

    def linear(self, sub: int) -> np.ndarray:
        ref = self.subs[sub]
        if self.objective == "params":
            return unit_cost(ref)
        return np.zeros(len(ref.VK), dtype=np.int64)  # heads, shortfall

    def fixed(self, sub: int) -> float:
        return float(self.subs[sub].K.index) if self.objective == "heads" else 0.0

    def cost(self, sub: int, W: Sequence[int]) -> float:
        return float(self.linear(sub) @ np.asarray(W, dtype=np.int64)) + self.fixed(sub)

    def least(self, sub: int) -> float:
        """The least cost of a type on K' (W ≠ 0, W ≤ V|K'): > 0, Farley's c_min."""
        got = self._least.get(sub)
        if got is None:
            ref = self.subs[sub]
            got = self._least[sub] = float(self.linear(sub)[np.asarray(ref.VK) > 0].min()) + self.fixed(sub)
        return got


def supply_entries(col: Column, slots: Slots, values: Sequence[Demand], key: tuple[int, ...]) -> list[tuple[int, np.ndarray]]:
    """(demand position, capped supply) for every slot through which the type hosts a demand
    of the key and supplies part of it; of equal supplies of one demand only one is kept
    (they are interchangeable in the LP)."""
    sub, Wt = col
    W = np.asarray(Wt, dtype=np.int64)
    out = []
    for j, vi in enumerate(key):
        D = np.asarray(values[vi].D.mults, dtype=np.int64)
        seen: set[bytes] = set()
        for sl in slots.by_value[vi]:
            if sl.K.id != sub or (sl.img > W).any():
                continue
            sup = np.minimum(W @ sl.unit, D)
            if (sup[D > 0] > 0).any() and sup.tobytes() not in seen:
                seen.add(sup.tobytes())
                out.append((j, sup))
    return out


def profits(
    sub: int, Ws: np.ndarray, slots: Slots, values: Sequence[Demand], keys: Sequence[tuple[int, ...]], mu: dict, lam: float
) -> np.ndarray:
    """π(W) - c(W) - [G:K'] λ for each row W of Ws (types on K'), vectorised."""
    ref = slots.subs[sub]
    return pi_values(sub, Ws, slots, values, keys, mu) - Ws @ slots.linear(sub) - slots.fixed(sub) - ref.K.index * lam


def pi_values(sub: int, Ws: np.ndarray, slots: Slots, values: Sequence[Demand], keys: Sequence[tuple[int, ...]], mu: dict) -> np.ndarray:
    """π(W) = Σ_s max(0, max_{j, slot hosting} μ_{s,j} · min(S, D)) for each row W of Ws
    (types on K'; 0 where K' hosts no demand of the keys), vectorised. Monotone in W."""
    pi = np.zeros(len(Ws))
    duals: dict[int, dict[int, dict[int, float]]] = {}  # s -> j -> σ -> μ ≠ 0 (most keys have none)
    for (s, j, g), v in mu.items():
        if v:
            duals.setdefault(s, {}).setdefault(j, {})[g] = v
    for s in sorted(duals):  # (in key order: the same sums as a loop over every key)
        key = keys[s]
        best = None
        for j in sorted(duals[s]):
            vi = key[j]
            D = np.asarray(values[vi].D.mults, dtype=np.int64)
            w = np.zeros(len(D))
            for g, v in duals[s][j].items():
                w[g] = v
            for sl in slots.by_value[vi]:
                if sl.K.id != sub:
                    continue
                val = np.where((Ws >= sl.img).all(axis=1), np.minimum(Ws @ sl.unit, D) @ w, 0.0)
                best = val if best is None else np.maximum(best, val)
        if best is not None:
            pi += best
    return pi
