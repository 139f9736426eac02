"""Sets of head types the programs run over (SPEC §5.5; docs/optimizer.md, theory-scale O2,
O10): the capped types over the demand values (`design_types`), the types of dimension
exactly d (`constrained_types`), the most copies of each a program needs (`copy_bounds`),
and the restricted set for problems whose capped types are too many to list
(`generated_types`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from itertools import combinations, islice, product

import numpy as np

from ..attention import Design, Problem
from ..attention.hosting import Hosting
from ..errors import LimitError
from ..reps import irreps_of
from .separation import ScenarioSpace
from .head_types import MAX_TYPES, HeadType, TypeTable, hosting_mask
from .hosts import box, cheapest_hosts

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
        yield K, cap, problem.unit_costs(K), np.asarray(irr.dims, dtype=np.int64)


def design_types(
    problem: Problem,
    space: ScenarioSpace,
    h: Hosting,
    max_cost: float,
    setup_deadline: float | None = None,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    max_types: int | None = None,
) -> TypeTable:
    """Capped types (K', W), 0 < W ≤ V|K', with cost ≤ max_cost, [G:K'] ≤ max_heads and
    dim W ≤ max_head_dim that host some demand. (Capping lowers dim W and keeps [G:K'], so
    the capped types still suffice under the two compute constraints: docs/theory-scale.md O2.)
    A LimitError past the type limits (MAX_TYPES), past `max_types` types (the caller's own
    limit), or past `setup_deadline`; the types are counted and their hosts masked on arrays,
    and made only once every limit has passed."""
    chosen: list[tuple[int, np.ndarray, np.ndarray, int, np.ndarray]] = []  # (K', W's, costs, [G:K'], dims) per subgroup
    total = 0  # (the types are made once every limit has passed: a search past them only counts)
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
        if total + len(idx) > 3 * MAX_TYPES:
            raise LimitError(
                "rep", f"this problem has over {3 * MAX_TYPES} head representations (K', W) to consider; at most {MAX_TYPES} useful ones are optimised over"
            )
        total += len(idx)
        chosen.append((K.id, Ws[idx], costs[idx], K.index, dims[idx]))
    # the types hosting some demand of S, from the masks of each subgroup's W's (`hosting_mask`, kept for the table)
    nv = len(space.values)
    kept = []
    useful = 0
    for k, Ws, costs, index, dims in chosen:
        masks = []
        hosts = np.zeros(len(Ws), dtype=bool)
        for v in range(nv):
            if setup_deadline is not None and time.perf_counter() > setup_deadline:
                raise LimitError(
                    "heads",
                    f"setting up the program ({total} head representations x {nv} demand values) "
                    "takes longer than the time limit allows (use fewer heads, a smaller head dimension or a smaller V)",
                )
            g = hosting_mask(h, space, k, v, Ws)
            masks.append(g)
            hosts |= g.any(axis=1)
        rows = np.nonzero(hosts)[0]
        useful += len(rows)
        kept.append((k, Ws[rows], costs[rows], index, dims[rows], [g[rows] for g in masks]))
    if useful > MAX_TYPES:
        raise LimitError("rep", f"this problem has {useful} useful head representations (K', W); at most {MAX_TYPES} are optimised over")
    if max_types is not None and useful > max_types:
        raise LimitError("rep", f"{useful} capped types: more than {max_types}")
    types = [
        HeadType(k, tuple(int(x) for x in W), int(c), index, int(dm))
        for k, Ws, costs, index, dims, _ in kept for W, c, dm in zip(Ws, costs, dims)
    ]
    return TypeTable(problem, space, h, types, {(k, v): g for k, _, _, _, _, masks in kept for v, g in enumerate(masks)})


def min_fill(problem: Problem, K, r: int) -> tuple[int, ...]:  # noqa: ANN001
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
    types: list[HeadType] = []
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
                fills[d - dim] = min_fill(problem, K, d - dim)
            W = tuple(int(a + b) for a, b in zip(Wp, fills[d - dim]))
            if (K.id, W) in seen:
                continue
            seen.add((K.id, W))
            cost = 4 * int(np.dot(problem.unit_costs(K), W))
            types.append(HeadType(K.id, W, cost, K.index, d))
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
    """A restricted type set for problems whose capped types are too many to list (theory-scale O10).

    Per demand value v and slot (K', a) that can host it: `cheapest_host`; then the joins
    W ∨ W' of two such types on the same K' (an orbit serving different demands in different
    scenarios), and the regular type (`Design.regular`). Programs over these types give
    covering designs once checked, but their bounds are NOT lower bounds of the optimum (the
    type set is not complete; docs/theory-scale.md O10). `memo` keeps the cheapest hosts
    between calls (the search calls this once per round with more demand values); `extra`
    (subgroup id, W) are added as they are (the LP bound's columns, lp_bound.py); `hosts=False`
    leaves the cheapest hosts out.
    Test: tests/optimize/test_lp_bound.py (C8, 8xregular, H = 4, d = 16)."""
    memo = {} if memo is None else memo
    seen: set[tuple[int, tuple[int, ...]]] = set()
    types: list[HeadType] = []

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
        types.append(HeadType(sub.id, key[1], cost, sub.index, dim))

    regular = Design.regular(problem, trimmed=True).orbits[0]  # the regular type
    if max_heads is None or regular.heads <= max_heads:
        add(regular.sub, np.array(regular.W.mults))
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

