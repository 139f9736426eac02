"""Head types `t = (K', W)` of the integer program and their host tables (SPEC §5.5).

A design is a vector of counts `n_t` of head types: `n_t` orbits `(K', W)`, each of
[G:K'] heads of dimension dim W and 4 dim Hom_K'(V, W) parameters. "Orbit type" means
`(K, n)`, the shape of a cluster of heads (clusterings.py); a head type is what the
optimiser chooses. `TypeTable` holds the hosts of every head type for every demand value.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..attention import Problem
from ..attention.hosting import Hosting
from .separation import ScenarioSpace, Separation

MAX_TYPES = 10000  # orbit types (K', W) in one program


@dataclass(frozen=True)
class HeadType:
    sub: int  # subgroup class id of K'
    W: tuple[int, ...]  # multiplicities over K''s irreps
    cost: int  # P_t = 4 dim Hom_K'(V, W)
    heads: int  # [G : K']
    dim: int  # dim W

    @property
    def units(self) -> int:
        return self.cost // 4


def hosting_mask(h: Hosting, space: ScenarioSpace, sub: int, value: int, Wm: np.ndarray) -> np.ndarray:
    """(W's, double cosets a) boolean for the types (K', W) of the rows of `Wm`: the type
    hosts demand value `value` through a (its image there fits in W) and supplies part of
    its demand (an irrep of W reaches the support of D through a), as `coverage` counts hosts."""
    v = space.values[value]
    cos = h.cosets(v.kbar, sub)
    if not cos:
        return np.zeros((len(Wm), 0), dtype=bool)
    img = h.image_matrix(v.kbar, sub, v.P)  # (A, nK)
    ok = (img[None, :, :] <= Wm[:, None, :]).all(axis=2)  # (nW, A)
    need = np.array(v.D.mults, dtype=np.int64) > 0
    unit = h.unit_supply(v.kbar, sub)[:, :, need]  # (A, nK, |supp D|)
    feeds = (unit > 0).any(axis=2)  # (A, nK): irrep τ reaches supp D through a
    return ok & ((Wm[:, None, :] > 0) & feeds[None, :, :]).any(axis=2)


class TypeTable:
    """The orbit types of one program and their hosts for every demand value.

    Per subgroup K' and demand value, one vectorised pass over all types on K' gives the
    (type, double coset) pairs that host the demand and supply part of it; the supplies
    themselves are computed when a type's hosts are asked for."""

    def __init__(
        self, problem: Problem, space: ScenarioSpace, h: Hosting, types: list[HeadType], good: dict[tuple[int, int], np.ndarray] | None = None,
    ) -> None:
        """`good`: `hosting_mask` of (K', demand value) over these types on K' (in order), where known."""
        self.problem = problem
        self.space = space
        self.h = h
        self.types = types
        self.arrays = [(t.sub, np.array(t.W, dtype=np.int64)) for t in types]
        self._hosts: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}
        self._good: dict[tuple[int, int], np.ndarray] = dict(good or {})  # (sub, value) -> (types on sub, cosets)
        self._by_sub: dict[int, list[int]] = defaultdict(list)
        self._row: list[int] = []
        for i, t in enumerate(types):
            self._row.append(len(self._by_sub[t.sub]))
            self._by_sub[t.sub].append(i)
        self._Wm = {sub: np.array([self.arrays[t][1] for t in ids]) for sub, ids in self._by_sub.items()}
        self._hostable: np.ndarray | None = None
        self._columns: dict[int, list] = {}

    def __len__(self) -> int:
        return len(self.types)

    def good(self, sub: int, value: int) -> np.ndarray:
        """(types on K', cosets) boolean: hosts through a and supplies part of the demand."""
        key = (sub, value)
        g = self._good.get(key)
        if g is None:
            g = self._good[key] = hosting_mask(self.h, self.space, sub, value, self._Wm[sub])
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
                cos = self.h.cosets(v.kbar, sub)
                unit = self.h.unit_supply(v.kbar, sub)
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
        out = TypeTable(self.problem, self.space, self.h, [self.types[i] for i in keep])
        new = {old: i for i, old in enumerate(keep)}
        for (t, v), hs in self._hosts.items():
            if t in new:
                out._hosts[(new[t], v)] = hs
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
            for sub, ids in self._by_sub.items():
                out[v, ids] = self.good(sub, v).any(axis=1)
        self._hostable = out
        return out

    def checker(self, counts: dict[int, int]) -> Separation:
        return Separation(self.space, self.hosts, counts)


