"""From a design's coordinates to its per-head weights in two structured steps (SPEC §3).

Every head of an orbit ``(K, W)`` at a coset ``a`` has ``W_Q = Wq rho(a)^T`` and
``W_O = rho(a) Wo``, with ``Wq = B(θ) Q_V^T`` (:class:`HomBlocks`: W in block form, Q_V the
isotypic basis of V|K) and ``Wo = Q_V B(θ_o)^T``. So ``W_O^{(a)} = (B(θ_o) Q_V^T rho(a)^T)^T``
and all four weights take the same two steps:

1. ``θ -> Wq_i = B(θ) Q_V^T`` for every orbit i at once: ONE fixed sparse linear map, stored as
   triplets ``(param, position, value)`` (:func:`base_expansion`). ``B_t`` has ``nnz(E_τ) <= d_τ^2``
   entries (``E ∈ End_K(D_τ)``) and each column of Q_V at most ``d_σ`` (V is in block form over
   G's irreps σ and Q_V splits each copy of σ alone), so there are at most
   ``Σ_i Σ_τ m_τ(W_i) m_τ(V) nnz(E_τ) d_σ`` triplets: O(dim V · Σ_i dim W_i).
2. ``Wq_i -> Wq_i rho(a)^T`` for the cosets a: rho is block diagonal over the copies of the
   irreps σ, so this is one small batched product per σ (``O(index · dim W · dim V · d_σ)``
   flops, no stored operator; done by the torch layer).

Never a ``(p, dim W, dim V)`` basis nor a dense operator on Hom(V, W). The weights are laid out
by head-dimension buckets (:class:`HeadLayout`): the heads of one bucket run in one batched
attention call, padded to the bucket's widest head. :func:`layer_memory` estimates the
memory of the layer before anything is built.

>>> from eqattn.attention import Problem, Design
>>> from eqattn.numeric import realize_design
>>> p = Problem.create("C4", "E1", 2, 1)
>>> r = realize_design(p, Design.create(p, [("C2", "B")]))
>>> ex = base_expansion(r)
>>> ex.nnz <= expansion_bound(r.orbits, sigma_dim=2), HeadLayout.of([1, 1]).total
(True, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

from ..reps import irreps_of

__all__ = [
    "HeadLayout", "Expansion", "base_expansion", "hom_triplets", "coset_groups", "group_head_order", "expansion_bound", "LayerMemory", "layer_memory",
    "BUCKET_CALL_COST",
]

#: a separate attention call costs about as much as this many extra (head x dim) units of
#: padded work; buckets of uneven head dims are merged while padding costs less
BUCKET_CALL_COST = 32
#: the per-head overhead of one head's scores (softmax, in units of head dims)
HEAD_SCORE_COST = 4


@dataclass(frozen=True)
class HeadLayout:
    """Where each head's rows sit in the stacked projection ``(total, dim V)``.

    ``widths[h]`` is head h's dimension (orbit order, then coset order); ``buckets`` lists
    ``(offset, heads, dim)`` (rows ``offset .. offset + heads*dim``, each head padded to
    ``dim``); ``row[h]`` the first row of head h. Heads of width 0 take no rows.
    """

    widths: tuple[int, ...]
    buckets: tuple[tuple[int, int, int], ...]
    row: tuple[int, ...]
    total: int

    @classmethod
    def of(
        cls, widths: Sequence[int], call_cost: int = BUCKET_CALL_COST, order: Sequence[int] | None = None
    ) -> "HeadLayout":
        """Group equal widths; merge neighbouring widths (padding to the larger) when the
        padded work ``Σ heads (dim + HEAD_SCORE_COST)`` grows by less than one call's cost.
        Within a bucket the heads follow ``order`` (default: head order).

        >>> HeadLayout.of([4, 4, 2, 64]).buckets
        ((0, 3, 4), (12, 1, 64))
        """
        widths = tuple(int(w) for w in widths)
        rank = {h: k for k, h in enumerate(order if order is not None else range(len(widths)))}
        dims = sorted({w for w in widths if w > 0})
        count = {d: sum(1 for w in widths if w == d) for d in dims}
        # optimal partition of the sorted dims into contiguous groups (dynamic programme)
        best = [0.0] + [float("inf")] * len(dims)
        cut = [0] * (len(dims) + 1)
        for j in range(1, len(dims) + 1):
            for i in range(j):
                heads = sum(count[d] for d in dims[i:j])
                cost = best[i] + heads * (dims[j - 1] + HEAD_SCORE_COST) + call_cost
                if cost < best[j]:
                    best[j], cut[j] = cost, i
        groups, j = [], len(dims)
        while j > 0:
            groups.append(dims[cut[j] : j])
            j = cut[j]
        groups.reverse()
        row = [0] * len(widths)
        buckets, offset = [], 0
        for g in groups:
            dim = g[-1]
            members = sorted((h for h, w in enumerate(widths) if w in g), key=lambda h: rank[h])
            for k, h in enumerate(members):
                row[h] = offset + k * dim
            buckets.append((offset, len(members), dim))
            offset += len(members) * dim
        return cls(widths, tuple(buckets), tuple(row), offset)

    def padded_rows(self, pad_to: int) -> np.ndarray:
        """For each row of the layout, its row in the orbit-order layout ``(H, pad_to)``
        flattened (``h * pad_to + r``), or -1 for padding rows."""
        out = np.full(self.total, -1, dtype=np.int64)
        for h, w in enumerate(self.widths):
            if w:
                out[self.row[h] : self.row[h] + w] = h * pad_to + np.arange(w)
        return out


@dataclass(frozen=True)
class Expansion:
    """The sparse map θ -> base weights: ``base.flat[pos] += θ[param] * vals``, with θ every
    orbit's coordinates concatenated and ``base`` the ``(Σ_i dim W_i, dim V)`` stack of the
    orbits' ``Wq_i`` (sorted by position)."""

    param: np.ndarray
    pos: np.ndarray
    vals: np.ndarray

    @property
    def nnz(self) -> int:
        return int(self.vals.size)


def _block_pattern(hom: Any) -> sp.csr_matrix:
    """``(p * dim W, n)``: row ``t * dim W + r`` is row r of the basis element B_t, in V's
    isotypic coordinates (before Q_V)."""
    irr = irreps_of(hom.source.sub)
    w_dim, n = hom.target.dim, hom.source.dim
    ow, ov = hom.target.offsets, hom.source.offsets
    rows, cols, vals = [], [], []
    for tau, ((mw, mv, e), sl) in enumerate(zip(hom.shapes, hom.slices)):
        if mw * mv == 0:
            continue
        d = int(irr.dims[tau])
        E = hom.commutants[tau]
        eps, al, be = np.nonzero(np.abs(E) > 1e-15)
        ev = E[eps, al, be]
        i, j = np.meshgrid(np.arange(mw), np.arange(mv), indexing="ij")
        i, j = i.reshape(-1, 1), j.reshape(-1, 1)
        t = sl.start + (i * mv + j) * e + eps  # (mw*mv, z)
        rows.append((t * w_dim + ow[tau] + i * d + al).ravel())
        cols.append((ov[tau] + j * d + be).ravel())
        vals.append(np.broadcast_to(ev, t.shape).ravel())
    p = hom.dim
    if not rows:
        return sp.csr_matrix((p * w_dim, n))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(p * w_dim, n))


def base_expansion(realized: Any) -> Expansion:
    """The triplets of ``θ -> (Wq_i)_i``: every orbit's ``Wq = B(θ) Q_V^T`` (design
    coordinates, W in block form) stacked by rows, ``(Σ_i dim W_i, dim V)`` flattened. The
    same map gives Wk, Wv and ``Wo^T`` from their coordinates.
    At most ``Σ_i Σ_τ m_τ(W) m_τ(V) nnz(E_τ) d_σ`` triplets (Q_V's columns have ``d_σ`` entries)."""
    n = int(realized.dim_v)
    params, pos, vals = [], [], []
    first_param, first_row = 0, 0
    for o in realized.orbits:
        w, p = int(o.head_dim), int(o.hom.dim)
        if p and w:
            rows, cols, qv = o.hom.source.sparse()
            Q = sp.csr_matrix((qv, (rows, cols)), shape=(n, n))
            M = (_block_pattern(o.hom) @ Q.T).tocoo()  # row t*w + r, col c
            t, r = np.divmod(M.row.astype(np.int64), w)
            params.append(first_param + t)
            pos.append((first_row + r) * n + M.col.astype(np.int64))
            vals.append(M.data)
        first_param += p
        first_row += w
    if not params:
        z = np.zeros(0, dtype=np.int64)
        return Expansion(z, z, np.zeros(0))
    flat = np.concatenate(pos)
    order = np.argsort(flat, kind="stable")
    return Expansion(np.concatenate(params)[order], flat[order], np.concatenate(vals)[order])


def hom_triplets(hom: Any) -> Expansion:
    """The triplets of ``θ -> A = Q_W B(θ) Q_V^T`` for one :class:`HomBlocks` (positions in the
    flattened ``(dim W, dim V)``), the sparse form of ``HomBlocks.compose``.

    >>> from eqattn.reps import parse_rep
    >>> from eqattn.groups import get_group
    >>> from eqattn.numeric.isotypic import HomBlocks, Isotypic
    >>> K = get_group("C4").subgroup_classes[-1]
    >>> hom = HomBlocks(Isotypic.standard(parse_rep("A + E1", K)), Isotypic.standard(parse_rep("E1", K)))
    >>> ex = hom_triplets(hom); A = np.zeros(2 * 3); np.add.at(A, ex.pos, np.array([1.0, 2.0])[ex.param] * ex.vals)
    >>> bool(np.allclose(A.reshape(2, 3), hom.compose(np.array([1.0, 2.0]))))
    True
    """
    w, n, p = hom.target.dim, hom.source.dim, hom.dim
    M = _block_pattern(hom)
    if hom.target.Q is not None:
        M = sp.kron(sp.identity(p, format="csr"), sp.csr_matrix(hom.target.Q), format="csr") @ M
    if hom.source.Q is not None:
        rows, cols, qv = hom.source.sparse()
        M = M @ sp.csr_matrix((qv, (rows, cols)), shape=(n, n)).T
    M = sp.coo_matrix(M)
    t, r = np.divmod(M.row.astype(np.int64), max(w, 1))
    pos = r * n + M.col.astype(np.int64)
    order = np.argsort(pos, kind="stable")
    return Expansion(t[order], pos[order], M.data[order])


def coset_groups(realized: Any) -> list[tuple[tuple[int, ...], list[tuple[int, int, int]]]]:
    """The orbits with parameters grouped by their coset representatives:
    ``[(coset_reps, [(first base row, dim W, first head), ...]), ...]`` (step 2 runs once per
    group). Heads of orbits without parameters compute 0 and are left out."""
    groups: dict[tuple[int, ...], list[tuple[int, int, int]]] = {}
    first_row, head = 0, 0
    for o in realized.orbits:
        w = int(o.head_dim)
        if w and o.hom.dim:
            groups.setdefault(tuple(int(a) for a in o.coset_reps), []).append((first_row, w, head))
        first_row += w
        head += len(o.coset_reps)
    return list(groups.items())


def group_head_order(groups: list[tuple[tuple[int, ...], list[tuple[int, int, int]]]]) -> list[int]:
    """The heads in step 2's output order: per group, per coset, per member orbit."""
    return [h + a for reps, members in groups for a in range(len(reps)) for _, _, h in members]


def expansion_bound(orbits: Sequence[Any], sigma_dim: int) -> int:
    """An upper bound on the triplets of :func:`base_expansion`:
    ``Σ_i Σ_τ m_τ(W_i) m_τ(V) · nnz(E_τ) · d_σ`` (``sigma_dim`` = d_σ, the largest dimension of
    an irrep of G in V; 1 when V|K needs no change of basis)."""
    total = 0
    for o in orbits:
        hom = o.hom
        z = [int(np.count_nonzero(np.abs(E) > 1e-15)) for E in hom.commutants]
        total += sum(mw * mv * zz for (mw, mv, _), zz in zip(hom.shapes, z)) * sigma_dim
    return total


@dataclass(frozen=True)
class LayerMemory:
    """Estimated bytes of an :class:`eqattn.torch.EquivariantAttention` of a design.

    ``build``: the peak while constructing it (the triplets and their sparse products);
    ``resident``: what the layer holds (group matrices, triplets, float64 masters);
    ``forward``: one forward + backward's weight tensors (independent of the batch; the
    activations are those of ``nn.MultiheadAttention`` with ``total`` head rows).
    """

    nnz: int
    build: int
    resident: int
    forward: int
    total_rows: int

    @property
    def peak(self) -> int:
        return max(self.build, self.resident + self.forward)

    def to_json(self) -> dict:
        return {"nnz": self.nnz, "build_bytes": self.build, "resident_bytes": self.resident,
                "forward_bytes": self.forward, "peak_bytes": self.peak, "head_rows": self.total_rows}


def layer_memory(problem: Any, design: Any, itemsize: int = 4) -> LayerMemory:
    """Estimate the layer's memory from the design alone (nothing is built): the triplet
    bound of :func:`expansion_bound` with the multiplicities of V|K and W, the group matrices
    ``|G| n^2``, the expanded weights ``4 · rows · n`` (forward and backward).
    ``itemsize``: 4 for float32, 8 for float64.

    >>> from eqattn.attention import Problem, Design
    >>> p = Problem.create("D4", "96xregular", 12, 64)
    >>> m = layer_memory(p, Design.create(p, [("C1", "64xA")] * 12))
    >>> m.nnz, m.total_rows, m.peak < 2**30
    (589824, 6144, True)
    """
    from .isotypic import HomBlocks, Isotypic

    n = problem.dim_v
    V = problem.V
    ds = int(max((d for d, m in zip(V.irreps.dims, V.mults) if m), default=1))
    nnz = 0
    widths = []
    for o in design.orbits:
        hom = HomBlocks(Isotypic(o.sub, problem.restrict(o.sub).mults), Isotypic.standard(o.W))
        nnz += expansion_bound([_Shape(hom)], sigma_dim=ds if o.sub.order > 1 else 1)
        widths += [o.head_dim] * o.heads
    rows = HeadLayout.of(widths).total
    base_rows = sum(o.head_dim for o in design.orbits)
    group = problem.group.order * n * n * (8 + itemsize)
    triplets = nnz * (8 * 2 + 8 + itemsize)
    resident = group + triplets
    # building: scipy's COO/CSR copies of the pattern and its product (about 3 x 16 bytes each)
    build = resident + nnz * 48
    # per forward+backward: theta gathered (4 nnz), the base and head weights and their grads
    forward = 2 * itemsize * (4 * nnz + 4 * base_rows * n + 2 * 4 * rows * n)
    return LayerMemory(nnz, build, resident, forward, rows)


@dataclass(frozen=True)
class _Shape:
    """An orbit's Hom structure (what the bound needs)."""

    hom: Any
