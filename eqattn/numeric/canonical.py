"""A canonical orthonormal basis of a space of matrices, as sparse as we can get (SPEC §3).

The layer's parameters are coordinates in a basis of Hom_K(V, W); only the span matters. The
core builds bases from random intertwiners (dense); this one depends only on the space and is
very sparse for representations in block or permutation form. numpy/scipy only.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["canonical_basis", "CANONICAL_MAX_FLOPS"]

#: skip the canonical-basis search when it would cost more than this many flops (p^2 * size)
CANONICAL_MAX_FLOPS = 1e10


def canonical_basis(basis: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the same space as ``basis (p, r, c)``, as sparse as we can get.

    The span is what matters (SPEC §3), not the basis the realisation happened to pick (the
    core builds it from random intertwiners, which makes every element dense). The reduced
    row-echelon form of a space depends only on the space; for Hom spaces of representations
    in block/permutation form it is sparse and, after normalising, usually orthogonal. It is
    orthonormalised (Löwdin, which keeps the sparsity when the rows are already orthogonal),
    checked to span the same space, and used only when it is sparser than the given basis.
    A full space (``p = r * c``) gets the standard basis at no cost.

    >>> canonical_basis(np.array([[[1.0, 1.0]]]) / np.sqrt(2)).round(3).tolist()
    [[[0.707, 0.707]]]
    """
    p = basis.shape[0]
    size = int(np.prod(basis.shape[1:]))
    if p == 0:
        return basis
    if p == size:
        return np.eye(size).reshape(basis.shape)
    if float(p) * p * size > CANONICAL_MAX_FLOPS:
        return basis
    flat = basis.reshape(p, size)
    try:
        # p independent columns (partial-pivoting LU of flat^T: flat^T = L[perm] @ U)
        perm, _, _ = scipy.linalg.lu(flat.T, p_indices=True)
        piv = np.nonzero(perm < p)[0]
        R = np.linalg.solve(flat[:, piv], flat)  # reduced row-echelon form (up to row order)
        R[np.abs(R) < 1e-12 * np.abs(R).max()] = 0.0
        R[:, piv] = np.eye(p)
        gram = R @ R.T
        d = np.sqrt(np.diag(gram))
        off = gram / np.outer(d, d) - np.eye(p)
        if np.abs(off).max() < 1e-12:
            Q = R / d[:, None]
        else:
            vals, vecs = np.linalg.eigh(gram)
            Q = (vecs / np.sqrt(vals)) @ vecs.T @ R
            Q[np.abs(Q) < 1e-13] = 0.0
        # same space and orthonormal, else keep the given basis
        if np.abs(Q @ Q.T - np.eye(p)).max() > 1e-10:
            return basis
        ortho = flat if np.abs(flat @ flat.T - np.eye(p)).max() < 1e-12 else np.linalg.qr(flat.T)[0].T
        if np.abs(Q - (Q @ ortho.T) @ ortho).max() > 1e-10:
            return basis
    except (np.linalg.LinAlgError, ValueError):
        return basis
    if np.count_nonzero(Q) <= np.count_nonzero(np.abs(flat) > 1e-13):
        return Q.reshape(basis.shape)
    return basis
