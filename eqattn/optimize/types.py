"""Orbit types `t = (K', W)` of the integer program and their host tables (SPEC §5.5).

A design is a vector of counts `n_t` of capped types; `design_types` lists the types worth
optimising over, `constrained_types` the types of dimension exactly d, `copy_bounds` the most
copies of each type a program needs. The derivation of the caps is in docs/optimizer.md.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations, islice, product

import numpy as np

from ..attention import Problem
from ..attention.hosting import Hosting
from ..errors import LimitError
from ..reps import irreps_of
from . import solver
from .separation import ScenarioSpace, Separation

MAX_TYPES = 10000  # orbit types (K', W) in one program


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

    def __init__(self, problem: Problem, space: ScenarioSpace, h: Hosting, types: list[OrbitType]) -> None:
        self.problem = problem
        self.space = space
        self.h = h
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
            cos = self.h.cosets(v.kbar, sub)
            Wm = self._Wm[sub]
            if not cos:
                g = np.zeros((len(Wm), 0), dtype=bool)
            else:
                img = self.h.image_matrix(v.kbar, sub, v.P)  # (A, nK)
                ok = (img[None, :, :] <= Wm[:, None, :]).all(axis=2)  # (nW, A)
                need = np.array(v.D.mults, dtype=np.int64) > 0
                unit = self.h.unit_supply(v.kbar, sub)[:, :, need]  # (A, nK, |supp D|)
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

    def checker(self, counts: dict[int, int]) -> Separation:
        return Separation(self.space, self.hosts, counts)


def caps(problem: Problem, space: ScenarioSpace, h: Hosting, sub: int) -> np.ndarray | None:
    """Per irrep τ of K', the largest useful m_τ(W) (see the module docstring); None when
    K' cannot host any demand."""
    K = problem.group.subgroup_classes[sub]
    VK = np.array(problem.restrict(K).mults, dtype=np.int64)
    cap = np.zeros(len(VK), dtype=np.int64)
    any_host = False
    for v in space.values:
        cos = h.cosets(v.kbar, sub)
        if not cos:
            continue
        any_host = True
        img = h.image_matrix(v.kbar, sub, v.P)  # (A, nK)
        cap = np.maximum(cap, img.max(axis=0))
        unit = h.unit_supply(v.kbar, sub)  # (A, nK, nB)
        D = np.array(v.D.mults, dtype=np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            need = np.where((unit > 0) & (D[None, None, :] > 0), -(-D[None, None, :] // np.maximum(unit, 1)), 0)
        cap = np.maximum(cap, need.max(axis=(0, 2)))
    if not any_host:
        return None
    return np.minimum(cap, VK)


def capped_subgroups(problem: Problem, space: ScenarioSpace, h: Hosting, max_heads: int | None = None):  # noqa: ANN201 - Iterator
    """(K', cap, units per copy of each irrep τ = m_τ(V|K') e_τ, dim τ) for every subgroup
    class with [G:K'] ≤ max_heads that can host some demand of `space` (`caps`)."""
    for K in problem.group.subgroup_classes:
        if max_heads is not None and K.index > max_heads:
            continue
        cap = caps(problem, space, h, K.id)
        if cap is None:
            continue
        irr = irreps_of(K)
        VK = np.array(problem.restrict(K).mults, dtype=np.int64)
        yield K, cap, problem.unit_costs(K), np.asarray(irr.dims, dtype=np.int64)


def design_types(
    problem: Problem,
    space: ScenarioSpace,
    h: Hosting,
    max_cost: float,
    setup_deadline: float | None = None,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
) -> TypeTable:
    """Capped types (K', W), 0 < W ≤ V|K', with cost ≤ max_cost, [G:K'] ≤ max_heads and
    dim W ≤ max_head_dim that host some demand. (Capping lowers dim W and keeps [G:K'], so
    the capped types still suffice under the two compute constraints: docs/theory-scale.md O2.)"""
    types: list[OrbitType] = []
    for K, cap, units, irrep_dims in capped_subgroups(problem, space, h, max_heads):
        unit_cost = 4 * units
        count = math.prod(int(c) + 1 for c in cap)
        if count > 50 * MAX_TYPES:
            raise LimitError("rep", f"V restricted to {K.name} allows about {count} head representations; at most {MAX_TYPES} are optimised over")
        Ws = box(np.zeros(len(cap), dtype=np.int64), cap)
        costs = Ws @ unit_cost
        dims = Ws @ irrep_dims
        ok = (costs > 0) & (costs <= max_cost)
        if max_head_dim is not None:
            ok &= dims <= max_head_dim
        idx = np.nonzero(ok)[0]
        if len(types) + len(idx) > 3 * MAX_TYPES:
            raise LimitError(
                "rep", f"this problem has over {3 * MAX_TYPES} head representations (K', W) to consider; at most {MAX_TYPES} useful ones are optimised over"
            )
        for i in idx:
            types.append(OrbitType(K.id, tuple(int(x) for x in Ws[i]), int(costs[i]), K.index, int(dims[i])))
    if len(types) > 3 * MAX_TYPES:
        raise LimitError("rep", f"this problem has {len(types)} head representations (K', W) to consider; at most {MAX_TYPES} useful ones are optimised over")
    table = TypeTable(problem, space, h, types)
    table.setup_deadline = setup_deadline
    useful = table.hostable().any(axis=0) if space.values else np.zeros(len(types), dtype=bool)
    keep = [i for i, u in enumerate(useful) if u]
    if len(keep) > MAX_TYPES:
        raise LimitError("rep", f"this problem has {len(keep)} useful head representations (K', W); at most {MAX_TYPES} are optimised over")
    return table.subset(keep)


def _min_fill(problem: Problem, K, r: int) -> tuple[int, ...]:  # noqa: ANN001
    """The cheapest multiset of irreps of K of total dimension exactly r (cost 4 m_τ(V|K) e_τ
    per copy of τ; irreps absent from V|K are free). Ties: lower irrep index first."""
    irr = irreps_of(K)
    dims = [int(x) for x in irr.dims]
    unit = [int(u) for u in problem.unit_costs(K)]
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


def constrained_types(problem: Problem, space: ScenarioSpace, h: Hosting) -> TypeTable:
    """Types pad(W') of dimension exactly d, W' ≤ min(V|K', cap), dim W' ≤ d (see docstring)."""
    d = problem.head_dim
    seen: set[tuple[int, tuple[int, ...]]] = set()
    types: list[OrbitType] = []
    for K in problem.group.subgroup_classes:
        if K.index > problem.heads:
            continue
        irr = irreps_of(K)
        VK = np.array(problem.restrict(K).mults, dtype=np.int64)
        cap = caps(problem, space, h, K.id)
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
                fills[d - dim] = _min_fill(problem, K, d - dim)
            W = tuple(int(a + b) for a, b in zip(Wp, fills[d - dim]))
            if (K.id, W) in seen:
                continue
            seen.add((K.id, W))
            cost = 4 * int(np.dot(problem.unit_costs(K), W))
            types.append(OrbitType(K.id, W, cost, K.index, d))
    if len(types) > MAX_TYPES:
        raise LimitError("rep", f"this problem has {len(types)} head representations of dimension d; at most {MAX_TYPES} are optimised over")
    return TypeTable(problem, space, h, types)



def copy_bounds(table: TypeTable, max_units: int | None, max_heads: int | None = None) -> list[int]:
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



MAX_JOINS = 4000  # pairwise joins W ∨ W' of the generated types (per subgroup, cheapest first)


@dataclass(frozen=True)
class Slot:
    """Subgroup K' and double coset a through which an orbit (K', W ≤ V|K') can host a demand
    (P^a ≤ V|K'): `img` = P^a over K''s irreps, `unit[τ, σ]` the supply of τ to σ of K̄_0,
    `unit_cost[τ]` = dim Hom_K'(V, τ) (units, P/4), `dims[τ]` = dim τ (SPEC §4.4)."""

    K: object  # SubgroupClass
    a: int
    VK: np.ndarray
    unit_cost: np.ndarray
    dims: np.ndarray
    img: np.ndarray
    unit: np.ndarray


def host_slots(problem: Problem, h: Hosting, v, max_heads: int | None = None):  # noqa: ANN001, ANN201 - Demand -> Iterator[Slot]
    """Every slot that can host the demand value v, over subgroups with at most `max_heads`
    heads (used by `generated_types` and `bounds.demand_bound`)."""
    for K in problem.group.subgroup_classes:
        if max_heads is not None and K.index > max_heads:
            continue
        cos = h.cosets(v.kbar, K.id)
        if not cos:
            continue
        irr = irreps_of(K)
        VK = np.array(problem.restrict(K).mults, dtype=np.int64)
        unit_cost = problem.unit_costs(K)
        dims = np.asarray(irr.dims, dtype=np.int64)
        img = h.image_matrix(v.kbar, K.id, v.P)
        unit = h.unit_supply(v.kbar, K.id)
        for ai, a in enumerate(cos):
            if not (img[ai] > VK).any():  # else P^a does not fit in V|K' (W ≤ V|K' suffices, SPEC §5.5)
                yield Slot(K, a, VK, unit_cost, dims, img[ai], unit[ai])


def cheapest_host(slot: Slot, D: np.ndarray, max_head_dim: int | None = None, threads: int | None = None) -> np.ndarray | None:
    """The cheapest W ≤ V|K' with P^a ≤ W whose supply through the slot alone meets D (a
    small integer program, memoised by the slot's data; W = P^a when that meets D already:
    every W hosting is ≥ P^a and costs are ≥ 0), or None when there is none."""
    D = np.asarray(D, dtype=np.int64)
    if max_head_dim is not None and int(slot.dims @ slot.img) > max_head_dim:
        return None
    if (slot.img @ slot.unit >= D).all():  # W = P^a, the least W hosting, meets D already
        return slot.img.astype(np.int64).copy()
    key = (slot.K.id, slot.img.tobytes(), slot.unit.tobytes(), slot.VK.tobytes(), D.tobytes(), max_head_dim)
    known = slot.K.group.memo.get("cheapest_host", dict)  # by the slot's data: shared by every problem over the group
    if key not in known:
        known[key] = _cheapest_host_program(slot, D, max_head_dim, threads)
        if len(known) > HOSTS_MAX:
            known.pop(next(iter(known)))
    out = known[key]
    return None if out is None else out.copy()


HOSTS_MAX = 100000  # cheapest hosts kept per group (oldest out first)


def box(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Every integer vector W with lo ≤ W ≤ hi, one per row, in the order of
    itertools.product (vectorised).

        >>> box(np.array([0, 1]), np.array([1, 2])).tolist()
        [[0, 1], [0, 2], [1, 1], [1, 2]]
    """
    lo = np.asarray(lo, dtype=np.int64)
    span = tuple(int(h) - int(a) + 1 for a, h in zip(lo, hi))
    return lo + np.indices(span).reshape(len(span), -1).T


ENUMERATE_HOSTS = 20000  # W's between P^a and V|K' past which cheapest_host solves a program


def _cheapest_host_program(slot: Slot, D: np.ndarray, max_head_dim: int | None, threads: int | None) -> np.ndarray | None:
    span = slot.VK - slot.img + 1
    if math.prod(int(x) for x in span) <= ENUMERATE_HOSTS:  # every W of the box, the cheapest (then least) first
        Ws = box(slot.img, slot.VK)
        ok = (Ws @ slot.unit >= D).all(axis=1)
        if max_head_dim is not None:
            ok &= Ws @ slot.dims <= max_head_dim
        if not ok.any():
            return None
        Ws = Ws[ok]
        order = np.lexsort(Ws.T[::-1])  # a fixed tie-break: the lexicographically least of the cheapest
        Ws = Ws[order]
        return Ws[int(np.argmin(Ws @ slot.unit_cost))].astype(np.int64)
    m = solver.Model()
    n = len(slot.VK)
    w = [m.add_var(int(slot.img[t]), int(slot.VK[t]), int(slot.unit_cost[t])) for t in range(n)]
    for s in np.nonzero(D)[0]:
        m.add_row(w, [int(slot.unit[t, s]) for t in range(n)], lo=int(D[s]))
    if max_head_dim is not None:
        m.add_row(w, [int(x) for x in slot.dims], hi=max_head_dim)
    sol = solver.solve(m, threads=threads)
    return None if sol.values is None else np.asarray(sol.values, dtype=np.int64)


def cheapest_hosts(
    problem: Problem,
    space: ScenarioSpace,
    h: Hosting,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    deadline: float = math.inf,
    memo: dict | None = None,
    threads: int | None = None,
) -> list[tuple[object, np.ndarray]]:
    """(K', W): per demand value and slot that can host it, `cheapest_host` (memoised in
    `memo` by value, subgroup, coset and head-dimension cap; past the deadline, the ones
    computed so far)."""
    memo = {} if memo is None else memo
    out = []
    for vi, v in enumerate(space.values):
        D = np.array(v.D.mults, dtype=np.int64)
        for slot in host_slots(problem, h, v, max_heads):
            key = (vi, slot.K.id, slot.a, max_head_dim)
            if key not in memo:
                if time.perf_counter() > deadline:
                    continue
                memo[key] = cheapest_host(slot, D, max_head_dim, threads)
            if memo[key] is not None:
                out.append((slot.K, memo[key]))
    return out


def generated_types(
    problem: Problem,
    space: ScenarioSpace,
    h: Hosting,
    max_cost: float,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    deadline: float = math.inf,
    memo: dict | None = None,
    threads: int | None = None,
    extra: Iterable[tuple[int, tuple[int, ...]]] = (),
    joins: bool = True,
    hosts: bool = True,
) -> TypeTable:
    """A restricted type set for problems whose capped types are too many to list (issue 9).

    Per demand value v and slot (K', a) that can host it: `cheapest_host`; then the joins
    W ∨ W' of two such types on the same K' (an orbit serving different demands in different
    scenarios), and the regular type (C1, min(d, dim V)). Programs over these types give
    covering designs once checked, but their bounds are NOT lower bounds of the optimum (the
    type set is not complete; docs/theory-scale.md O10). `memo` keeps the cheapest hosts
    between calls (the search calls this once per round with more demand values); `extra`
    (subgroup id, W) are added as they are (the LP bound's columns, lp_bound.py); `hosts=False`
    leaves the cheapest hosts out.
    Test: tests/optimize/test_lp_bound.py (C8, 8xregular, H = 4, d = 16)."""
    memo = {} if memo is None else memo
    seen: set[tuple[int, tuple[int, ...]]] = set()
    types: list[OrbitType] = []

    prices: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # sub -> (cost per copy of τ, dim τ)

    def add(sub, W: np.ndarray) -> None:  # noqa: ANN001 - SubgroupClass
        key = (sub.id, tuple(int(x) for x in W))
        if sub.id not in prices:
            irr = irreps_of(sub)
            prices[sub.id] = (4 * problem.unit_costs(sub), np.asarray(irr.dims))
        unit_cost, dims = prices[sub.id]
        cost = int(W @ unit_cost)
        if key in seen or cost <= 0 or cost > max_cost:
            return
        dim = int(W @ dims)
        if max_head_dim is not None and dim > max_head_dim:
            return
        seen.add(key)
        types.append(OrbitType(sub.id, key[1], cost, sub.index, dim))

    triv = problem.group.subgroup_classes[0]
    if max_heads is None or triv.index <= max_heads:  # the regular type
        add(triv, np.array([min(problem.head_dim, problem.dim_v)]))
    for sub, W in cheapest_hosts(problem, space, h, max_heads, max_head_dim, deadline, memo, threads) if hosts else ():
        add(sub, W)
    for sid, W in extra:
        add(problem.group.subgroup_classes[sid], np.asarray(W, dtype=np.int64))
    for sub in problem.group.subgroup_classes:
        mine = sorted((t for t in types if t.sub == sub.id), key=lambda t: t.cost)
        for a, b in islice(combinations(mine, 2), MAX_JOINS if joins else 0):
            add(sub, np.maximum(np.array(a.W), np.array(b.W)))
    table = TypeTable(problem, space, h, types)
    useful = table.hostable().any(axis=0) if space.values else np.zeros(len(types), dtype=bool)
    keep = [i for i, u in enumerate(useful) if u]
    if len(keep) > MAX_TYPES:  # the cheapest ones
        keep = sorted(keep, key=lambda i: types[i].cost)[:MAX_TYPES]
    return table.subset(keep)
