"""Given weight matrices as coordinates of the layer: ``Wq (dim W, n)`` or ``Wo (n, dim W)``
of one head orbit expressed in its ``Hom_K(V, W)`` (SPEC §3: a design head's maps are
K-equivariant), from the isotypic blocks or by least squares in an explicit basis. A matrix off
the space by more than ``HOM_RESIDUAL_TOL`` (relative) is refused, naming it: loading weights
that are not equivariant would silently project them.

    >>> import numpy as np
    >>> basis = np.stack([np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]])])   # span of I and the swap
    >>> basis_coordinates(np.array([[2.0, 3.0], [3.0, 2.0]]), basis, "Wq").round(12).tolist()
    [2.0, 3.0]
    >>> basis_coordinates(np.array([[1.0, 0.0], [0.0, 0.0]]), basis, "Wq")
    Traceback (most recent call last):
    ValueError: Wq is not in the Hom space of its orbit (relative residual 7.07e-01)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .expansion import BlockOrbit

#: relative residual above which a matrix is declared not to lie in the Hom space
HOM_RESIDUAL_TOL = 1e-8


def block_coordinates(orbit: BlockOrbit, mat: Any, out: bool, U: np.ndarray | None, what: str) -> np.ndarray:
    """Coordinates of ``Wq (dim W, n)`` (or ``Wo (n, dim W)`` when ``out``) in the orbit's
    Hom_K(V, W) (user coordinates, U the change); raise if off the space."""
    m = np.asarray(mat, dtype=np.float64)
    w, n = orbit.head_dim, orbit.hom.source.dim
    shape = (n, w) if out else (w, n)
    if m.shape != shape:
        raise ValueError(f"{what} has shape {m.shape}, expected {shape}")
    A = m.T if out else m
    if U is not None:
        A = A @ U
    coef = orbit.hom.coordinates(A)
    resid = np.linalg.norm(A - orbit.hom.compose(coef))
    scale = np.linalg.norm(A)
    if resid > HOM_RESIDUAL_TOL * scale or (scale == 0 and resid > 0):
        raise ValueError(f"{what} is not in the Hom space of its orbit (relative residual {resid / max(scale, 1e-300):.2e})")
    return coef


def basis_coordinates(mat: Any, basis: np.ndarray, what: str) -> np.ndarray:
    """Least-squares coordinates of ``mat`` in ``basis (p, r, c)``; raise if off the span."""
    m = np.asarray(mat, dtype=np.float64)
    if m.shape != basis.shape[1:]:
        raise ValueError(f"{what} has shape {m.shape}, expected {basis.shape[1:]}")
    p = basis.shape[0]
    flat = basis.reshape(p, int(np.prod(basis.shape[1:])))
    if p:
        coef, *_ = np.linalg.lstsq(flat.T, m.ravel(), rcond=None)
    else:
        coef = np.zeros(0)
    resid = np.linalg.norm(m.ravel() - flat.T @ coef)
    scale = np.linalg.norm(m)
    if resid > HOM_RESIDUAL_TOL * scale or (scale == 0 and resid > 0):
        raise ValueError(
            f"{what} is not in the Hom space of its orbit (relative residual {resid / max(scale, 1e-300):.2e})"
        )
    return coef
