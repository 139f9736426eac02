"""The group's matrices on V applied by V's irrep blocks, and K-maps drawn from their blocks
(SPEC §0, §3), so that no step of the weight construction forms a dense operator on Hom(V, W).

V is in block form over G's irreps σ (``Problem.rho`` is block diagonal with ``m_σ`` equal
``d_σ x d_σ`` blocks per σ), so ``rho(g) X`` costs ``n · cols · d_σ`` flops instead of
``n^2 · cols``; ``rho(g) X rho(g)^T`` is two such products.

Hom_K(V, W) is built by its isotypic blocks (:class:`eqattn.numeric.isotypic.HomBlocks`): the
isotypic basis of V|K once per subgroup class (kept on the problem), W in block form, and a
random element ``Q_W B(θ) Q_V^T`` for a standard normal θ in the orthonormal coordinates
(the same law as a normal combination of an orthonormal basis, without the basis).

>>> from eqattn.attention import Problem
>>> p = Problem.create("D4", "2xregular", 2, 2)
>>> act = BlockAction.of(p)
>>> X = np.random.default_rng(0).normal(size=(p.dim_v, 3))
>>> bool(np.allclose(act.left(5, X), p.rho[5] @ X)), bool(np.allclose(act.conj(5, X @ X.T), p.rho[5] @ X @ X.T @ p.rho[5].T))
(True, True)
>>> bool(np.allclose(act.left_many([2, 5], X, transpose=True), p.rho[[2, 5]].transpose(0, 2, 1) @ X))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .isotypic import HomBlocks, Isotypic, isotypic_of_rep

if TYPE_CHECKING:
    from ..attention.problem import Problem
    from ..groups import SubgroupClass
    from ..reps import Rep

__all__ = ["BlockAction", "problem_hom", "random_hom"]

#: irrep blocks up to this size are applied by scaled adds, larger ones by a batched matmul
SMALL_BLOCK = 4


@dataclass(frozen=True)
class BlockAction:
    """``rho (|G|, n, n)`` with V's block form ``segments``: ``(offset, copies, dim)`` per irrep σ."""

    rho: np.ndarray
    segments: tuple[tuple[int, int, int], ...]

    @classmethod
    def of(cls, problem: "Problem") -> "BlockAction":
        segs, pos = [], 0
        for d, m in zip(problem.V.irreps.dims, problem.V.mults):
            if m:
                segs.append((pos, int(m), int(d)))
                pos += int(m) * int(d)
        return cls(problem.rho, tuple(segs))

    def left(self, g: int, X: np.ndarray, transpose: bool = False) -> np.ndarray:
        """``rho(g) @ X`` (``rho(g)^T @ X`` with ``transpose``) for ``X (n, k)``."""
        return self.left_many((g,), X, transpose)[0]

    def left_many(self, gs, X: np.ndarray, transpose: bool = False) -> np.ndarray:  # noqa: ANN001
        """``[rho(g) @ X for g in gs]`` (``rho(g)^T`` with ``transpose``) as ``(len(gs), n, k)``:
        one matrix product per irrep block of V for all the elements together."""
        gs = np.asarray(gs, dtype=np.int64)
        k = X.shape[1]
        out = np.empty((len(gs), X.shape[0], k), dtype=np.float64)
        for off, m, d in self.segments:
            D = self.rho[gs, off : off + d, off : off + d]
            if transpose:
                D = np.swapaxes(D, 1, 2)
            seg = X[off : off + m * d].reshape(m, d, k)
            if d <= SMALL_BLOCK:  # d^2 broadcast multiply-adds, straight into place
                dst = out[:, off : off + m * d].reshape(len(gs), m, d, k)
                for a in range(d):
                    np.multiply(D[:, a, 0, None, None], seg[None, :, 0], out=dst[:, :, a])
                    for b in range(1, d):
                        dst[:, :, a] += D[:, a, b, None, None] * seg[None, :, b]
            else:  # (g a, b) @ (b, m k) -> (g, a, m, k) -> (g, m, a, k)
                prod = D.reshape(len(gs) * d, d) @ np.swapaxes(seg, 0, 1).reshape(d, m * k)
                out[:, off : off + m * d] = np.swapaxes(prod.reshape(len(gs), d, m, k), 1, 2).reshape(len(gs), m * d, k)
        return out

    def right_t_many(self, X: np.ndarray, gs) -> np.ndarray:  # noqa: ANN001
        """``[X @ rho(g)^T for g in gs]`` as ``(len(gs), k, n)`` for ``X (k, n)``."""
        return np.swapaxes(self.left_many(gs, X.T), 1, 2)

    def right_t(self, X: np.ndarray, g: int) -> np.ndarray:
        """``X @ rho(g)^T`` for ``X (k, n)``."""
        return self.left(g, X.T).T

    def conj(self, g: int, X: np.ndarray) -> np.ndarray:
        """``rho(g) X rho(g)^T`` for ``X (n, n)``."""
        return self.left(g, self.left(g, X).T).T

    def conj_t(self, g: int, X: np.ndarray) -> np.ndarray:
        """``rho(g)^T X rho(g)`` (the action of g^-1)."""
        return self.left(g, self.left(g, X, True).T, True).T


def problem_hom(problem: "Problem", sub: "SubgroupClass", W: "Rep") -> HomBlocks:
    """Hom_K(V|K, W) by blocks; the isotypic basis of V|K is built once per subgroup class
    and kept on the problem (the same basis :func:`eqattn.numeric.realize_design` uses)."""
    iso = problem.cached(("isotypic", sub.id), lambda: isotypic_of_rep(problem.V, sub))
    return HomBlocks(iso, Isotypic.standard(W))


def random_hom(hom: HomBlocks, rng: np.random.Generator) -> np.ndarray:
    """A standard normal element ``(dim W, dim V)`` of Hom_K(V, W) (θ ~ N(0, I_p))."""
    if hom.dim == 0:
        return np.zeros((hom.target.dim, hom.source.dim))
    return hom.compose(rng.normal(size=hom.dim))
