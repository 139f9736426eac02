"""Reduced-cost fixing: the only types a design cheaper than the incumbent can use
(docs/theory-scale.md O13).

An LP certificate `(μ, λ, θ)` (lp_bound.py, Lemma O11) gives every type `t = (K', W)` a
reduced cost `r_t = θ c_t − π(t) + [G:K'] λ ≥ 0`, and every design meeting the certificate's
scenarios satisfies `θ · cost ≥ V + Σ_t r_t n_t` (`V = Σ D μ − max_heads λ`). So a design
of cost at most `C` uses only types with `r_t ≤ θ C − V` (the *slack*), at most
`⌊slack / r_t⌋` copies of each. `fixed_types` lists those types — every capped `W` on every
subgroup — by a branch and bound over the multiplicities of `W` (π is monotone in `W`), so
the program over them with the cutoff `C` is exact: its optimum is the optimum over the
scenarios when that is at most `C`, and "infeasible" proves that nothing costs `C` or less.

    >>> from eqattn.attention import Problem
    >>> from eqattn.attention.hosting import hosting
    >>> from eqattn.optimize.separation import ScenarioSpace
    >>> from eqattn.optimize.lp_bound import lp_bound
    >>> p = Problem.create("C4", "E1", 2, 1)   # SPEC §6.2: the optimum is 8 parameters (2 units)
    >>> space = ScenarioSpace(p); h = hosting(p); keys = space.initial_keys()
    >>> cert = lp_bound(p, h, space.values, keys, start=()).certificate
    >>> fixed = fixed_types(p, space, h, keys, cert, cutoff=1)   # a design of one unit?
    >>> len(fixed[0])   # no type can be in it: the LP bound (2 units) already exceeds 1
    0
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..attention import Problem
from ..attention.hosting import Hosting
from .lp_duals import Certificate, Slots, pi_values
from .head_types import MAX_TYPES, HeadType, TypeTable
from .type_sets import capped_subgroups

MAX_NODES = 2_000_000  # partial W's the branch and bound may hold over all subgroups
TOL = 1e-6  # relative: the certificate is floating point (HiGHS tolerances ~1e-7)


def slack(cert: Certificate, values: Sequence, keys: Sequence[tuple[int, ...]], max_heads: int | None, cutoff: int) -> float:
    """`θ C − V`: the largest reduced cost a type of a design of cost ≤ C can have."""
    raw = cert.value(values, keys, max_heads) * cert.theta
    return cert.theta * cutoff - raw


def fixed_types(
    problem: Problem,
    space,  # noqa: ANN001 - ScenarioSpace or DemandValues (`.values`): the caps are over its demand values
    h: Hosting,
    keys: Sequence[tuple[int, ...]],
    cert: Certificate,
    cutoff: int,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    max_nodes: int = MAX_NODES,
    max_types: int = MAX_TYPES,
) -> tuple[TypeTable, list[int | None]] | None:
    """(table, copy bounds) of every capped type with reduced cost ≤ the slack at `cutoff`
    (units) that hosts some demand of `space`; copy bound None = no bound from the fixing.
    None when the branch and bound holds more than `max_nodes` partial W's or the types that
    host some demand are more than `max_types` (nothing is fixed then). The types that host
    nothing are dropped as they come, `max_types` at a time (`_hosting`): a program never
    uses them, and there are often far more of them (Oh, 64×(vector + trivial), H8 d32 under
    head dim ≤ 32, at the cost 12287: 54 822 types within the slack, 93 that host a demand)."""
    values = space.values
    room = slack(cert, values, keys, max_heads, cutoff)
    tol = TOL * max(1.0, abs(cert.theta * cutoff))
    ckeys = sorted({s for s, _, _, _ in cert.mu})
    pos = {s: w for w, s in enumerate(ckeys)}
    wkeys = [tuple(keys[s]) for s in ckeys]
    mu = {(pos[s], j, g): m for s, j, g, m in cert.mu}
    slots = Slots(problem, h, values, wkeys, max_heads)
    kept: list[tuple[HeadType, int | None]] = []  # (type, copy bound) of the types that host a demand
    pending: list[tuple[HeadType, int | None]] = []  # ... and of those not yet tested for it
    nodes = 0
    if room < -tol:
        return TypeTable(problem, space, h, []), []
    for K, cap, units, dims in capped_subgroups(problem, space, h, max_heads):
        uc = units.astype(float)  # units per copy of τ
        fixed_cost = K.index * cert.lam
        # level k: the rows hold W's first k multiplicities; the rest range over [0, cap]
        part = np.zeros((1, 0), dtype=np.int64)
        n = len(cap)
        for k in range(n):
            # each row's next multiplicity: 0..cap[k], and no further than the head-dim limit allows
            top = np.full(len(part), int(cap[k]), dtype=np.int64)
            if max_head_dim is not None:
                top = np.minimum(top, (max_head_dim - part @ dims[:k]) // int(dims[k]))
            reps = top + 1
            total = int(reps.sum())
            nodes += total
            if nodes > max_nodes:
                return None
            starts = np.repeat(np.cumsum(reps) - reps, reps)
            part = np.hstack([np.repeat(part, reps, axis=0), (np.arange(total, dtype=np.int64) - starts)[:, None]])
            lo = np.hstack([part, np.zeros((len(part), n - k - 1), dtype=np.int64)])
            hi = np.hstack([part, np.tile(cap[k + 1:], (len(part), 1))])
            # r(W) ≥ θ c(lo) − π(hi) + [G:K'] λ for every W in the box [lo, hi] (π is monotone)
            low = cert.theta * (lo @ uc) - pi_values(K.id, hi, slots, values, wkeys, mu) + fixed_cost
            part = part[low <= room + tol]  # (within the head-dim limit by construction)
            if not len(part):
                break
        for W, r in zip(part, cert.theta * (part @ uc) - pi_values(K.id, part, slots, values, wkeys, mu) + fixed_cost):
            if not W.any():
                continue
            pending.append((HeadType(K.id, tuple(int(x) for x in W), int(4 * (W @ uc)), K.index, int(W @ dims)),
                            None if r <= tol else int(math.floor((room + tol) / r))))
            if len(pending) >= max_types:
                kept += _hosting(problem, space, h, pending)
                pending = []
                if len(kept) > max_types:
                    return None
    kept += _hosting(problem, space, h, pending)
    if len(kept) > max_types:
        return None
    return TypeTable(problem, space, h, [t for t, _ in kept]), [b for _, b in kept]


def _hosting(problem: Problem, space, h: Hosting, pairs: list[tuple[HeadType, int | None]]) -> list[tuple[HeadType, int | None]]:  # noqa: ANN001
    """The (type, copy bound) pairs whose type hosts some demand value of `space`."""
    if not pairs or not space.values:
        return []
    useful = TypeTable(problem, space, h, [t for t, _ in pairs]).hostable().any(axis=0)
    return [pair for pair, u in zip(pairs, useful) if u]
