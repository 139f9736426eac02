"""The cheapest host of a demand through one slot (SPEC §4.4, §5.5): for a demand value
`(K̄_0, P, D)` and a subgroup class K' with a double coset a through which P^a fits in V|K',
the cheapest W ≤ V|K' with P^a ≤ W whose supply alone meets D. The restricted type sets
(type_sets.generated_types) and the LP bound's quick pricing use them.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..attention import Problem
from ..attention.hosting import Hosting
from ..memo import Memo
from ..reps import irreps_of
from . import solver
from .separation import ScenarioSpace

HOST_SLOT_VALUES = 4096  # (K̄, P) values whose host slots a problem keeps (`host_slots`)


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


def host_slots(problem: Problem, h: Hosting, v, max_heads: int | None = None) -> tuple[Slot, ...]:  # noqa: ANN001 - v: Demand
    """Every slot that can host the demand value v, over subgroups with at most `max_heads`
    heads (used by `generated_types`, `bounds.demand_bound` and the LP bound's `Slots`).
    They depend on v's K̄ and P only, so they are kept per problem (the partial coverage's
    searches ask for the same values in every LP bound)."""
    memo = problem.cached("host_slots", lambda: Memo(HOST_SLOT_VALUES))  # (a memo of its own: not to crowd out the problem's tables)
    key = (problem.price, id(h), v.kbar, tuple(int(x) for x in v.P.mults), max_heads)  # (a priced problem shares the problem's memo)
    return memo.get(key, lambda: tuple(_host_slots(problem, h, v, max_heads)))


def _host_slots(problem: Problem, h: Hosting, v, max_heads: int | None):  # noqa: ANN001, ANN202 - Iterator[Slot]
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
    key = (slot.K.id, slot.img.tobytes(), slot.unit.tobytes(), slot.VK.tobytes(), slot.unit_cost.tobytes(), D.tobytes(), max_head_dim)
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


ENUMERATE_HOSTS = 20000  # W's between P^a and the box's top past which cheapest_host solves a program
CUT_HOST_BOX = True  # the box's top at what a coordinate can still add (a switch for the tests)


def saturating(slot: Slot, D: np.ndarray) -> np.ndarray:
    """Per irrep τ of K', the multiplicity past which W_τ adds nothing to what the slot
    hosts and supplies of D: `min(V|K'_τ, M_τ)`, `M_τ = max(P^a_τ, max_σ ⌈D_σ / unit_τσ⌉)` over
    the σ with `D_σ > 0` that τ supplies (just P^a_τ when it supplies none). A W with `W_τ ≥
    M_τ` hosts and meets every σ that τ supplies through the slot by τ alone, so
    `min(W, saturating)` hosts as W does and supplies `min(S, D)` as W does (the cheapest
    host's box, `host_box_top`; the pricing program's per-slot copies of W, lp_bound.py).

        >>> from types import SimpleNamespace
        >>> slot = SimpleNamespace(img=np.array([1, 0]), VK=np.array([40, 40]), unit=np.array([[1, 0], [0, 3]]))
        >>> saturating(slot, np.array([5, 7])).tolist()
        [5, 3]
    """
    D = np.asarray(D, dtype=np.int64)
    unit = np.asarray(slot.unit, dtype=np.int64)
    need = np.where((unit > 0) & (D[None, :] > 0), -(-D[None, :] // np.maximum(unit, 1)), 0)
    return np.minimum(np.asarray(slot.VK, dtype=np.int64), np.maximum(np.asarray(slot.img, dtype=np.int64), need.max(axis=1, initial=0)))


def host_box_top(slot: Slot, D: np.ndarray) -> np.ndarray:
    """The top of the box a cheapest host is searched in: `saturating(slot, D)`. A covering W
    with `W_τ` above it still covers with `W_τ` there and costs no more, so a cheapest host
    lies in the box; the enumeration takes far more slots (on S4xC2 10×regular H = 4 d = 60,
    1008 of 1137 programs, against 26 within V|K'). V|K' with `CUT_HOST_BOX` off."""
    return saturating(slot, D) if CUT_HOST_BOX else np.asarray(slot.VK, dtype=np.int64)


def _cheapest_host_program(slot: Slot, D: np.ndarray, max_head_dim: int | None, threads: int | None) -> np.ndarray | None:
    top = host_box_top(slot, D)
    span = top - slot.img + 1
    if math.prod(int(x) for x in span) <= ENUMERATE_HOSTS:  # every W of the box, the cheapest (then least) first
        Ws = box(slot.img, top)
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
    w = [m.add_var(int(slot.img[t]), int(top[t]), int(slot.unit_cost[t])) for t in range(n)]
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


