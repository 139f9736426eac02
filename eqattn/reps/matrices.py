"""Explicit orthogonal matrices of real irreps, and equivariant linear algebra (SPEC §0, §4.1).

An irrep with real character chi is cut out of the real regular representation: the
isotypic projector P = (dim/(e |G|)) sum_g chi(g) R(g) applied to a random vector spans a
cyclic submodule (some copies of the irrep); a generic symmetric element of its commutant
has eigenspaces that are single copies. All matrices are orthogonal.
"""

from __future__ import annotations

import numpy as np


def regular_irrep_matrices(table: np.ndarray, inv: np.ndarray, chi: np.ndarray, dim: int, e: int, seed: int) -> np.ndarray:
    """(n, dim, dim) orthogonal matrices of the real irrep with real character chi."""
    n = table.shape[0]
    rng = np.random.default_rng(seed)
    # left regular action: (R(g) v)[x] = v[g^-1 x]
    gather = table[inv[:, None], np.arange(n)[None, :]]  # gather[g, x] = g^-1 x
    for attempt in range(6):
        v = rng.normal(size=n)
        pv = (dim / (e * n)) * (chi[:, None] * v[gather]).sum(axis=0)
        span = pv[gather]  # rows: R(g) P v; their span has dimension <= dim^2 / e
        kmax = min(n, dim * dim // e + 4)
        sketch = span.T @ rng.normal(size=(n, kmax))  # random range finder
        u, s, _ = np.linalg.svd(sketch, full_matrices=False)
        rank = int(np.sum(s > 1e-8 * s[0]))
        Q = u[:, :rank]  # (n, k) orthonormal basis of the cyclic submodule
        rho = np.matmul(Q.T[None, :, :], Q[gather])  # Q^T R(g) Q
        X = rng.normal(size=(rank, rank))
        X = X + X.T
        C = np.matmul(np.matmul(rho, X), rho.transpose(0, 2, 1)).sum(axis=0)
        w, E = np.linalg.eigh(C)
        if rank > dim and (w[dim] - w[dim - 1]) < 1e-6 * max(1.0, abs(w).max()):
            continue
        B = E[:, :dim]
        mats = np.matmul(np.matmul(B.T[None], rho), B)
        if np.allclose(np.einsum("gii->g", mats), chi, atol=1e-7):
            return mats
    raise RuntimeError("could not split an irreducible representation")  # pragma: no cover


def commutant_basis(mats: np.ndarray) -> np.ndarray:
    """Frobenius-orthonormal basis (e, d, d) of the matrices commuting with every mats[g]."""
    d = mats.shape[1]
    # projector onto End_G: vec(X) -> avg_g R(g) X R(g)^T
    P = np.einsum("gac,gbd->abcd", mats, mats).reshape(d * d, d * d) / mats.shape[0]
    w, v = np.linalg.eigh((P + P.T) / 2)
    basis = v[:, w > 0.5].T.reshape(-1, d, d)
    return basis


def isotypic_projector(rho_v: np.ndarray, chi: np.ndarray, dim: int, e: int) -> np.ndarray:
    """(dim/(e|K|)) sum_k chi(k) rho(k): the projector onto the isotypic part of a real irrep."""
    return (dim / (e * rho_v.shape[0])) * np.einsum("g,gab->ab", chi, rho_v)
