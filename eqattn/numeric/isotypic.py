"""The isotypic (Schur) block structure of equivariant maps (SPEC §0, §3).

A real representation V of a finite group K splits as ``V ≅ ⊕_τ R^{m_τ} ⊗ D_τ`` over K's real
irreps ``D_τ`` (dimension ``d_τ``, commutant ``End_K(D_τ)`` of dimension ``e_τ`` = 1, 2 or 4
for real, complex, quaternionic type). An :class:`Isotypic` is an orthogonal ``Q (n, n)`` with

    rho(k) Q = Q (⊕_τ I_{m_τ} ⊗ D_τ(k))   for every k in K,

its columns ordered by irrep τ (K's display order), then copy ``j < m_τ``, then component
``a < d_τ``. A representation in block form (``Rep.matrices()``) is already isotypic (``Q = I``).

Schur's lemma then gives every K-map V -> W as a block matrix, with no dense operator on
Hom(V, W) anywhere:

    Hom_K(V, W) = ⊕_τ Mat(m_τ(W) x m_τ(V)) ⊗ End_K(D_τ),
    A = Q_W · blockdiag_τ( Σ_E Θ_τ[:, :, E] ⊗ E_τ ) · Q_V^T,

``Θ_τ (m_τ(W), m_τ(V), e_τ)`` and ``E_τ`` the Frobenius-orthonormal commutant basis. The
``p = Σ_τ m_τ(W) m_τ(V) e_τ`` coordinates ``θ`` (τ, then W copy, then V copy, then E) are
orthonormal coordinates: ``<A, A'> = θ · θ'``. :class:`HomBlocks` builds ``A`` from ``θ`` in
O(dim W · dim V) memory and reads ``θ`` back from ``A``; ``dense_basis()`` materialises the
``(p, dim W, dim V)`` basis for small cases only.

Two routes to ``Q_V``: :func:`isotypic_of_rep` for a representation ``V`` of a group H in
block form restricted to a subgroup K ⊂ H (each copy of an H-irrep is split alone: Q is
block-sparse with blocks of size ``d_σ`` and costs nothing), and :func:`isotypic_basis` for
explicit matrices (one averaged map per irrep, orthonormalised by a QR that keeps the
intertwiner property; O(|K| n^3)). For band irreps (Lemma 8, docs/theory-continuous.md §8) an
average over the finite stand-in would find F's intertwiners, not K's: there the matrices must
be in band block form and Q is a permutation of the blocks.

>>> from eqattn.attention import Problem
>>> p = Problem.create("D4", "2xregular", 4, 2)
>>> K = p.group.subgroup_classes[1]           # a subgroup of order 2
>>> iso_v = isotypic_of_rep(p.V, K)           # V|K = 8xA + 8xB
>>> W = p.restrict(K).min(p.restrict(K))      # any K-representation in block form
>>> hom = HomBlocks(iso_v, Isotypic.standard(p.restrict(K)))
>>> hom.dim == p.restrict(K).hom_dim(p.restrict(K))
True
>>> A = hom.compose(np.arange(hom.dim, dtype=float))
>>> bool(np.allclose(p.rho[K.elements] @ A.T, A.T @ p.rho[K.elements]))   # K-equivariant
True
>>> bool(np.allclose(hom.coordinates(A), np.arange(hom.dim)))
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..memo import Memo, memoized
from ..reps import Rep, decompose, irreps_of

if TYPE_CHECKING:
    from ..groups import SubgroupClass

__all__ = ["Isotypic", "HomBlocks", "isotypic_basis", "isotypic_of_rep", "ISOTYPIC_TOL"]

#: the largest |rho(k) Q - Q D(k)| accepted for a computed isotypic basis
ISOTYPIC_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class Isotypic:
    """An orthogonal change of basis ``Q`` of a K-representation to ``⊕_τ R^{m_τ} ⊗ D_τ``.

    ``sub`` is K, ``mults`` the multiplicities ``m_τ`` over ``irreps_of(sub)``; ``Q (n, n)``
    (``None`` means the identity: the representation is in block form). ``sparse()`` gives
    Q's nonzeros, which are few for :func:`isotypic_of_rep`.
    """

    sub: "SubgroupClass"
    mults: tuple[int, ...]
    Q: np.ndarray | None = None
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    @classmethod
    def standard(cls, W: Rep) -> "Isotypic":
        """A representation in block form (``W.matrices()``): ``Q = I``."""
        return cls(W.sub, tuple(W.mults), None)

    @property
    def dim(self) -> int:
        return int(np.dot(self.mults, irreps_of(self.sub).dims))

    @memoized
    def offsets(self) -> np.ndarray:
        """Column offset of each irrep's block (length r + 1)."""
        dims = irreps_of(self.sub).dims
        return np.concatenate([[0], np.cumsum(np.array(self.mults) * dims)]).astype(np.int64)

    def matrix(self) -> np.ndarray:
        """Q as a dense ``(n, n)`` array."""
        return np.eye(self.dim) if self.Q is None else self.Q

    def sparse(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, cols, values)`` of Q's nonzeros."""
        if self.Q is None:
            i = np.arange(self.dim)
            return i, i, np.ones(self.dim)
        rows, cols = np.nonzero(self.Q)
        return rows, cols, self.Q[rows, cols]

    def in_basis(self, U: np.ndarray) -> "Isotypic":
        """The same structure for ``rho'(k) = U rho(k) U^T`` (U orthogonal): ``Q' = U Q``."""
        return Isotypic(self.sub, self.mults, np.asarray(U, dtype=np.float64) @ self.matrix())


def isotypic_basis(sub: "SubgroupClass", rho_k: np.ndarray, mults: tuple[int, ...] | None = None, seed: int = 0) -> Isotypic:
    """The isotypic basis of the representation with matrices ``rho_k (|K|, n, n)`` (in the
    order of ``sub.elements``; orthogonal). ``mults`` default to the character's decomposition.

    Per irrep τ, ``T = mean_k rho(k) Y (I_m ⊗ D_τ(k))^T`` for a random ``Y (n, m_τ d_τ)`` is m_τ
    intertwiners D_τ -> V; Gram–Schmidt (a QR with signs fixed) keeps them intertwiners,
    because ``T_i^T T_j`` lies in ``End_K(D_τ)`` and a symmetric element of it is a multiple
    of I. Raises ``ValueError`` when the result fails the check (not an orthogonal representation).

    >>> from eqattn.groups import get_group
    >>> C2 = get_group("C2").subgroup_classes[-1]
    >>> iso = isotypic_basis(C2, np.array([np.eye(2), [[0.0, 1.0], [1.0, 0.0]]]))
    >>> iso.mults, np.abs(iso.Q).round(3).tolist()
    ((1, 1), [[0.707, 0.707], [0.707, 0.707]])
    """
    rho_k = np.asarray(rho_k, dtype=np.float64)
    irr = irreps_of(sub)
    n = rho_k.shape[1]
    if mults is None:
        chi = np.zeros(sub.group.order)
        chi[sub.elements] = np.trace(rho_k, axis1=1, axis2=2)
        mults = decompose(sub, chi).mults
    mults = tuple(int(m) for m in mults)
    if sub.order == 1 or n == 0:
        return Isotypic(sub, mults, None)
    if irr.band:
        return _band_isotypic(sub, rho_k, mults)
    rng = np.random.default_rng(seed)
    cols = []
    for s, m in enumerate(mults):
        if m:
            cols.append(_copies(rho_k, irr.matrices[s], m, rng))
    Q = np.concatenate(cols, axis=1) if cols else np.zeros((n, 0))
    if Q.shape != (n, n):
        raise ValueError(f"the multiplicities give dimension {Q.shape[1]}, the matrices {n}")
    return Isotypic(sub, mults, Q)


def _band_isotypic(sub: "SubgroupClass", rho_k: np.ndarray, mults: tuple[int, ...]) -> Isotypic:
    """Band irreps (Lemma 8, docs/theory-continuous.md §8): an average over the finite K_F would
    give intertwiners of F, not of K, so the matrices must already be in band block form (each
    diagonal block one of K's band irreps, exactly): Q is the permutation that sorts the blocks
    by irrep. ValueError otherwise."""
    irr = irreps_of(sub)
    n = rho_k.shape[1]
    found: list[tuple[int, int]] = []  # (irrep, offset) per block
    pos = 0
    while pos < n:
        hit = None
        for s, sigma in enumerate(irr.matrices):
            d = sigma.shape[1]
            if pos + d <= n and np.abs(rho_k[:, pos : pos + d, pos : pos + d] - sigma).max() <= ISOTYPIC_TOL:
                hit = s
                break
        if hit is None:
            raise ValueError(f"band irreps of {sub.name}: the matrices are not in band block form at row {pos}")
        found.append((hit, pos))
        pos += int(irr.dims[hit])
    block = np.zeros_like(rho_k)
    for s, o in found:
        d = int(irr.dims[s])
        block[:, o : o + d, o : o + d] = irr.matrices[s]
    if np.abs(block - rho_k).max() > ISOTYPIC_TOL:
        raise ValueError(f"band irreps of {sub.name}: the matrices are not block-diagonal")
    counts = np.bincount([s for s, _ in found], minlength=len(irr))
    if tuple(int(c) for c in counts) != tuple(mults):
        raise ValueError(f"the blocks give multiplicities {counts.tolist()}, expected {list(mults)}")
    Q = np.zeros((n, n))
    col = 0
    for s in range(len(irr)):
        d = int(irr.dims[s])
        for t, o in found:
            if t == s:
                Q[o : o + d, col : col + d] = np.eye(d)
                col += d
    return Isotypic(sub, tuple(mults), None if np.array_equal(Q, np.eye(n)) else Q)


def _copies(rho_k: np.ndarray, sigma: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, m d)``: m orthonormal intertwiners D -> V side by side (see isotypic_basis)."""
    n, d = rho_k.shape[1], sigma.shape[1]
    for _ in range(4):
        Y = rng.normal(size=(n, m, d))
        T = np.zeros((n, m * d))
        for r, s in zip(rho_k, sigma):
            T += r @ (Y @ s.T).reshape(n, m * d)
        q, R = np.linalg.qr(T / len(rho_k))
        diag = np.diag(R)
        if np.abs(diag).min() < 1e-6 * np.abs(diag).max():
            continue  # (nearly) dependent random draw: draw again
        q = q * np.sign(diag)
        blocks = q.reshape(n, m, d)
        err = max(float(np.abs(r @ q - (blocks @ s).reshape(n, m * d)).max()) for r, s in zip(rho_k, sigma))
        if err <= ISOTYPIC_TOL:
            return q
    raise ValueError("no isotypic basis found: are the matrices an orthogonal representation with these multiplicities?")


def isotypic_of_rep(V: Rep, sub: "SubgroupClass", seed: int = 0) -> Isotypic:
    """The isotypic basis of ``V|K`` for ``V`` (a representation of H ⊇ K) in block form.

    Each H-irrep σ of V is split over K once (:func:`isotypic_basis` on ``d_σ x d_σ``
    matrices) and the copies of σ in V reuse it, so Q has at most ``max d_σ`` nonzeros per
    column and costs ``O(Σ_σ |K| d_σ^3 + n max d_σ)``.

    >>> from eqattn.groups import get_group
    >>> G = get_group("C4"); K = G.subgroup_classes[1]          # C2 in C4
    >>> from eqattn.reps import parse_rep
    >>> iso = isotypic_of_rep(parse_rep("2xE1 + A", G.subgroup_classes[-1]), K)
    >>> iso.mults, iso.dim
    ((1, 4), 5)
    """
    H = V.sub
    if not H.mask[sub.elements].all():
        raise ValueError(f"{sub.name} is not contained in {H.name}")
    if sub is H:
        return Isotypic.standard(V)
    irr_h = irreps_of(H)
    irr_k = irreps_of(sub)
    where = H.local_index[sub.elements]  # positions of K's elements in H's element order
    n = V.dim
    dims_k = irr_k.dims
    # per σ: its split over K, and where each (τ, copy) of it lands
    split = {}
    for s, m in enumerate(V.mults):
        if m:
            split[s] = isotypic_basis(sub, irr_h.matrices[s][where], seed=seed + 31 * s)
    mults_k = np.zeros(len(irr_k), dtype=np.int64)
    for s, iso in split.items():
        mults_k += V.mults[s] * np.array(iso.mults)
    offsets = np.concatenate([[0], np.cumsum(mults_k * dims_k)])
    fill = offsets[:-1].copy()  # next free column per τ
    Q = np.zeros((n, n))
    pos = 0
    for s, m in enumerate(V.mults):
        d = int(irr_h.dims[s])
        if not m:
            continue
        iso = split[s]
        q = iso.matrix()
        off = iso.offsets
        for _ in range(m):
            for t, mt in enumerate(iso.mults):
                width = mt * int(dims_k[t])
                if width:
                    Q[pos : pos + d, fill[t] : fill[t] + width] = q[:, off[t] : off[t] + width]
                    fill[t] += width
            pos += d
    ident = bool(np.array_equal(Q, np.eye(n)))
    return Isotypic(sub, tuple(int(x) for x in mults_k), None if ident else Q)


@dataclass(frozen=True, eq=False)
class HomBlocks:
    """``Hom_K(V, W) = ⊕_τ Mat(m_τ(W) x m_τ(V)) ⊗ End_K(D_τ)`` (see the module docstring).

    ``source`` and ``target`` are the :class:`Isotypic` bases of V and W over the same K.
    ``Hom_K(W, V)`` needs no second object: the same θ gives ``compose(θ).T`` (the basis of
    transposes, also orthonormal). ``dim`` is ``p``; ``shapes`` the per-irrep ``(m_τ(W), m_τ(V), e_τ)``; ``slices`` where each
    irrep's coordinates sit in θ; ``commutants[τ]`` the ``(e_τ, d_τ, d_τ)`` basis E_τ.
    """

    source: Isotypic
    target: Isotypic
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.source.sub is not self.target.sub:
            raise ValueError("source and target are representations of different subgroups")

    @memoized
    def shapes(self) -> tuple[tuple[int, int, int], ...]:
        es = irreps_of(self.source.sub).es
        return tuple((int(w), int(v), int(e)) for w, v, e in zip(self.target.mults, self.source.mults, es))

    @memoized
    def slices(self) -> tuple[slice, ...]:
        out, pos = [], 0
        for w, v, e in self.shapes:
            out.append(slice(pos, pos + w * v * e))
            pos += w * v * e
        return tuple(out)

    @property
    def dim(self) -> int:
        return sum(w * v * e for w, v, e in self.shapes)

    @property
    def commutants(self) -> tuple[np.ndarray, ...]:
        return irreps_of(self.source.sub).commutants

    def blocks(self, theta: np.ndarray) -> np.ndarray:
        """``(..., dim W, dim V)``: the block-diagonal map in isotypic coordinates."""
        theta = np.asarray(theta, dtype=np.float64)
        lead = theta.shape[:-1]
        dims = irreps_of(self.source.sub).dims
        out = np.zeros(lead + (self.target.dim, self.source.dim))
        ow, ov = self.target.offsets, self.source.offsets
        for t, ((w, v, e), sl) in enumerate(zip(self.shapes, self.slices)):
            if w * v == 0:
                continue
            d = int(dims[t])
            th = theta[..., sl].reshape(lead + (w, v, e))
            blk = np.einsum("...ije,eab->...iajb", th, self.commutants[t]).reshape(lead + (w * d, v * d))
            out[..., ow[t] : ow[t + 1], ov[t] : ov[t + 1]] = blk
        return out

    def compose(self, theta: np.ndarray) -> np.ndarray:
        """``A = Q_W B(θ) Q_V^T`` of shape ``(..., dim W, dim V)`` for ``θ (..., p)``."""
        B = self.blocks(theta)
        if self.target.Q is not None:
            B = self.target.Q @ B
        if self.source.Q is not None:
            B = B @ self.source.Q.T
        return B

    def coordinates(self, A: np.ndarray) -> np.ndarray:
        """The orthogonal projection of ``A (..., dim W, dim V)`` onto Hom_K(V, W), as θ."""
        A = np.asarray(A, dtype=np.float64)
        if self.target.Q is not None:
            A = self.target.Q.T @ A
        if self.source.Q is not None:
            A = A @ self.source.Q
        lead = A.shape[:-2]
        dims = irreps_of(self.source.sub).dims
        ow, ov = self.target.offsets, self.source.offsets
        out = np.zeros(lead + (self.dim,))
        for t, ((w, v, e), sl) in enumerate(zip(self.shapes, self.slices)):
            if w * v == 0:
                continue
            d = int(dims[t])
            blk = A[..., ow[t] : ow[t + 1], ov[t] : ov[t + 1]].reshape(lead + (w, d, v, d))
            out[..., sl] = np.einsum("...iajb,eab->...ije", blk, self.commutants[t]).reshape(lead + (w * v * e,))
        return out

    def dense_basis(self) -> np.ndarray:
        """The orthonormal basis ``(p, dim W, dim V)`` (p dim W dim V floats: small cases only)."""
        return self.compose(np.eye(self.dim))
