"""Equivariant maps from their isotypic block coordinates, in torch (SPEC §3).

:class:`HomExpansion` is the differentiable twin of
:meth:`eqattn.numeric.isotypic.HomBlocks.compose`: ``theta (..., p) -> A (..., dim W, dim V)``
with ``A`` in Hom_K(V, W), through the sparse triplets of
:func:`eqattn.numeric.expansion.hom_triplets` (at most ``Σ_τ m_τ(W) m_τ(V) nnz(E_τ)`` times the
entries per column of Q_V, Q_W): no ``(p, dim W, dim V)`` basis tensor.

>>> import torch
>>> from eqattn.groups import get_group
>>> from eqattn.reps import parse_rep
>>> from eqattn.numeric.isotypic import HomBlocks, Isotypic
>>> G = get_group("D4").subgroup_classes[-1]
>>> hom = HomBlocks(Isotypic.standard(parse_rep("regular", G)), Isotypic.standard(parse_rep("2xE1 + A1", G)))
>>> ex = HomExpansion(hom, dtype=torch.float64)
>>> theta = torch.randn(hom.dim, dtype=torch.float64)
>>> bool(torch.allclose(ex(theta), torch.as_tensor(hom.compose(theta.numpy()))))
True
"""

from __future__ import annotations

from typing import Any

import torch

from eqattn.numeric.expansion import hom_triplets

from .exact import ExactBuffers

__all__ = ["HomExpansion"]


class HomExpansion(ExactBuffers):
    """``forward(theta (..., p)) -> (..., dim W, dim V)``, the map ``Q_W B(θ) Q_V^T`` of
    ``hom`` (a :class:`eqattn.numeric.isotypic.HomBlocks`). Its fixed data are non-persistent
    buffers (float64 master of the values plus a working copy in the module dtype); only
    whoever owns θ puts it in a ``state_dict``. ``hom.dim`` is the number of coordinates.
    """

    def __init__(self, hom: Any, *, dtype: torch.dtype | None = None, device: Any = None) -> None:
        super().__init__()
        dtype = dtype if dtype is not None else torch.get_default_dtype()
        self.hom = hom
        self.p, self.rows, self.cols = int(hom.dim), int(hom.target.dim), int(hom.source.dim)
        ex = hom_triplets(hom)
        self.register_index("param", ex.param, device)
        self.register_index("pos", ex.pos, device)
        self.register_exact("vals", ex.vals, dtype, device, persistent=False)

    def forward(self, theta: torch.Tensor) -> torch.Tensor:
        if theta.shape[-1] != self.p:
            raise ValueError(f"expected {self.p} coordinates in the last dimension, got {theta.shape[-1]}")
        lead = theta.shape[:-1]
        flat = theta.reshape(-1, self.p)
        out = flat.new_zeros(flat.shape[0], self.rows * self.cols)
        out = out.index_add(1, self.pos, flat[:, self.param] * self._buffers["vals_w"].to(flat.dtype))
        return out.view(*lead, self.rows, self.cols)

    def extra_repr(self) -> str:
        return f"p={self.p}, shape=({self.rows}, {self.cols}), triplets={int(self.param.numel())}"
