"""Equivariant linear maps with explicit matrices: bases of Hom_K(V, W) (SPEC §3) for small
spaces (random elements by blocks: :mod:`eqattn.numeric.action`)."""

from __future__ import annotations

import numpy as np

from ..groups import SubgroupClass
from ..reps import Rep, block_matrices


def hom_basis(sub: SubgroupClass, rho_k: np.ndarray, V: Rep, W: Rep, seed: int = 0) -> np.ndarray:
    """Frobenius-orthonormal basis (p, dim W, n_V) of Hom_K(V, W); W is block-diagonal in
    the irreps' standard matrices. p = sum m_s(V) m_s(W) e_s. The dense form of
    :class:`eqattn.numeric.isotypic.HomBlocks` (p dim W n_V floats: for small spaces; the layer
    uses the blocks themselves)."""
    from .isotypic import HomBlocks, Isotypic, isotypic_basis

    return HomBlocks(isotypic_basis(sub, rho_k, V.mults, seed=seed), Isotypic.standard(W)).dense_basis()


def check_equivariant(rho_in: np.ndarray, rho_out: np.ndarray, T: np.ndarray) -> float:
    """max_k |rho_out(k) T - T rho_in(k)| relative to |T|."""
    err = np.abs(np.matmul(rho_out, T) - np.matmul(T, rho_in)).max()
    return float(err / max(np.abs(T).max(), 1e-300))


def standard_matrices(W: Rep) -> np.ndarray:
    return block_matrices(W.irreps, W.mults)


def averaged_hom_basis(sigma: np.ndarray, rho: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Orthonormal basis ``(p, dim W, n)`` of ``{A : sigma(k) A rho(k)^T = A for all k}`` from
    explicit orthogonal matrices ``sigma (|K|, w, w)``, ``rho (|K|, n, n)`` listing every element
    of K (aligned): the image of the averaging projector ``A -> mean_k sigma(k) A rho(k)^T``
    (SPEC §3, Hom_K(V, W) without irrep labels).

    >>> averaged_hom_basis(np.array([[[1.0]], [[-1.0]]]), np.array([np.eye(2), -np.eye(2)])).shape
    (2, 1, 2)
    """
    sigma = np.asarray(sigma, dtype=np.float64)
    rho = np.asarray(rho, dtype=np.float64)
    w, n = sigma.shape[1], rho.shape[1]
    if w == 0 or n == 0:
        return np.zeros((0, w, n))
    # row-major vec: vec(S A R^T) = kron(S, R) vec(A)
    proj = sum(np.kron(s, r) for s, r in zip(sigma, rho)) / len(rho)
    proj = (proj + proj.T) / 2
    vals, vecs = np.linalg.eigh(proj)
    if np.any((vals > tol) & (vals < 1 - tol)):
        raise ValueError("the averaging operator is not a projector: are the matrices orthogonal representations?")
    return vecs[:, vals > 0.5].T.reshape(-1, w, n).copy()


def fixed_vectors(mats: np.ndarray) -> np.ndarray:
    """Orthonormal basis ``(b, w)`` of the vectors fixed by every matrix of ``mats (|K|, w, w)``
    (a group's orthogonal representation): ``W^K``, of dimension the multiplicity of the trivial
    irrep. These are the biases equivariance allows (SPEC §1 has none).

    >>> fixed_vectors(np.array([np.eye(2), np.diag([1.0, -1.0])])).round(6).tolist()
    [[1.0, 0.0]]
    """
    mats = np.asarray(mats, dtype=np.float64)
    w = mats.shape[1]
    if w == 0:
        return np.zeros((0, 0))
    return averaged_hom_basis(mats, np.ones((len(mats), 1, 1))).reshape(-1, w)
