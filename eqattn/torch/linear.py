"""``EquivariantLinear``: the G-equivariant linear map V_in -> V_out with a bias (SPEC §0, §3).

Schur's lemma in eqattn's coordinates (:mod:`~eqattn.torch.components`)::

    Hom_G(V_in, V_out) = sum_tau Mat(m_tau(V_out) x m_tau(V_in)) (x) End_G(D_tau),

so the weight is block-diagonal over the irreps ``tau`` that both contain: block
``W_tau = sum_e C_tau[:, :, e] (x) E_e`` with ``E_e`` the Frobenius-orthonormal basis of
``End_G(D_tau)`` (``e_tau`` = 1, 2, 4 for real, complex, quaternionic type). The trainable
parameters are the ``C_tau``: ``dim Hom_G(V_in, V_out) = sum_tau m_tau(V_in) m_tau(V_out) e_tau
= (1/|G|) sum_g chi_in(g) chi_out(g)``. A bias commutes with G only on the G-fixed vectors,
the trivial component of V_out: ``m_1(V_out) = dim V_out^G`` more parameters.

The parameters are the orthonormal coordinates of :class:`eqattn.numeric.isotypic.HomBlocks`
(``HomBlocks.compose(theta)`` is the same matrix in numpy). Each call expands them into the
dense weight (:class:`~eqattn.torch.blocks.HomExpansion`: one ``index_add`` of the blocks'
``sum_tau m_tau(in) m_tau(out) nnz(E_tau)`` nonzeros, at most ``dim V_in dim V_out``) and
applies it by one GEMM, as ``nn.Linear`` does. In a user basis (``basis_in=`` /
``basis_out=``: a ``BasisChange`` from :mod:`eqattn.torch.interop` or an escnn ``FieldType``)
the weight is ``Q_out W Q_in^T``; an escnn ``GeometricTensor`` comes back as one when
``basis_out`` is a field type.

>>> import eqattn, torch
>>> G = eqattn.group("D4")
>>> lin = EquivariantLinear(eqattn.rep(G, "2xregular"), eqattn.rep(G, "regular"))
>>> lin.num_parameters, tuple(lin(torch.randn(3, 16)).shape)   # 2+2+2+2+2*2*1 weights + 1 bias
(17, (3, 8))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from eqattn.numeric.isotypic import HomBlocks, Isotypic
from eqattn.reps import Rep

from .blocks import HomExpansion
from .components import SharesGroupData, as_rep, components
from .exact import ExactBuffers
from .interop import coordinates
from .layers import _check_factory

__all__ = ["EquivariantLinear"]


def _tensor(x: Any) -> torch.Tensor:
    """The data of an escnn ``GeometricTensor`` (or ``x`` itself)."""
    return x.tensor if hasattr(x, "tensor") and hasattr(x, "type") else x


class EquivariantLinear(SharesGroupData, ExactBuffers):
    """``y = x W^T + b`` with ``W`` in Hom_G(V_in, V_out) and ``b`` in V_out^G (module docstring).

    Parameters: ``theta`` of length ``hom.dim = dim Hom_G(V_in, V_out)``, the orthonormal
    coordinates of :class:`eqattn.numeric.isotypic.HomBlocks` (irrep, then out copy, in copy,
    commutant element), and ``bias`` of length ``m_1(V_out)`` (None without bias). ``weight``
    is the dense ``(dim V_out, dim V_in)`` matrix (in the module's coordinates). Keywords as
    ``nn.Linear``: ``bias``, ``dtype``, ``device``; ``generator`` seeds :meth:`reset_parameters`;
    ``basis_in`` / ``basis_out`` put the features in your coordinates. Works on
    ``(..., dim V_in)`` tensors.
    """

    def __init__(
        self,
        in_rep: Rep,
        out_rep: Rep,
        bias: bool = True,
        *,
        basis_in: Any = None,
        basis_out: Any = None,
        dtype: torch.dtype | None = None,
        device: Any = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        dtype = _check_factory(dtype)
        self.in_rep, self.out_rep = as_rep(in_rep, "in_rep"), as_rep(out_rep, "out_rep")
        if self.in_rep.sub is not self.out_rep.sub:
            raise ValueError(f"in_rep and out_rep are representations of different groups ({self.in_rep.sub.name}, {self.out_rep.sub.name})")
        self.in_features, self.out_features = self.in_rep.dim, self.out_rep.dim
        self.hom = HomBlocks(Isotypic.standard(self.in_rep), Isotypic.standard(self.out_rep))
        self._out = components(self.out_rep)
        kw = {"dtype": dtype, "device": device}
        self.theta = nn.Parameter(torch.empty(self.hom.dim, **kw))
        self.expand = HomExpansion(self.hom, dtype=dtype, device=device)
        triv = [c for c in self._out if c.trivial]
        self._bias_pad = (triv[0].start, self.out_features - triv[0].stop) if triv else (0, self.out_features)
        self.bias = nn.Parameter(torch.empty(triv[0].mult if triv else 0, **kw)) if bias else None
        self.coords_in = coordinates(self.in_rep, basis_in, dtype=dtype, device=device, field="basis_in")
        self.coords_out = coordinates(self.out_rep, basis_out, dtype=dtype, device=device, field="basis_out")
        self.reset_parameters(generator=generator)

    @property
    def num_parameters(self) -> int:
        """``dim Hom_G(V_in, V_out)`` plus ``dim V_out^G`` with a bias."""
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """``nn.Linear``'s initialisation with the fan-in an output actually sees, its isotypic
        component ``m_tau(V_in) d_tau``: each row of block tau gets squared norm ``1/3`` in
        expectation (as ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` gives), so the coordinates of
        irrep tau are ``U(-b, b)`` with ``b = sqrt(d_tau / (e_tau m_tau(V_in)))``; the bias
        ``U(-1/sqrt(dim V_in), 1/sqrt(dim V_in))``."""
        n = max(self.in_features, 1)
        dev = generator.device if generator is not None else torch.device("cpu")
        noise = torch.rand(self.hom.dim, generator=generator, dtype=torch.float64, device=dev) * 2 - 1
        scale = np.zeros(self.hom.dim)
        dims = self.out_rep.irreps.dims
        for t, ((w, v, e), sl) in enumerate(zip(self.hom.shapes, self.hom.slices)):
            if w * v:
                scale[sl] = math.sqrt(int(dims[t]) / (e * v))
        self.theta.copy_(noise * torch.as_tensor(scale, device=dev))
        if self.bias is not None:
            self.bias.copy_((torch.rand(self.bias.shape, generator=generator, dtype=torch.float64, device=dev) * 2 - 1) / math.sqrt(n))

    def _weight_eq(self) -> torch.Tensor:
        """``HomBlocks.compose(theta)`` in torch (:class:`~eqattn.torch.blocks.HomExpansion`)."""
        return self.expand(self.theta)

    def _bias_eq(self) -> torch.Tensor | None:
        return None if self.bias is None else F.pad(self.bias, self._bias_pad)

    @property
    def weight(self) -> torch.Tensor:
        """The dense ``(dim V_out, dim V_in)`` weight in the module's coordinates (differentiable):
        ``Q_out W Q_in^T`` with a user basis."""
        W = self._weight_eq()
        if self.coords_in.active:
            W = W @ self.coords_in.Q_w.T
        if self.coords_out.active:
            W = self.coords_out.Q_w @ W
        return W

    def bias_vector(self) -> torch.Tensor | None:
        """The ``(dim V_out,)`` bias in the module's coordinates, or None."""
        b = self._bias_eq()
        if b is not None and self.coords_out.active:
            b = self.coords_out.Q_w @ b
        return b

    def forward(self, x: Any) -> Any:
        data = _tensor(x) if self.coords_in.active else self.coords_in.inward(x)
        y = F.linear(data, self.weight, self.bias_vector())
        ft = self.coords_out.field_type
        return ft(y) if ft is not None and data is not x else y

    def extra_repr(self) -> str:
        return (
            f"in_rep='{self.in_rep}', out_rep='{self.out_rep}', bias={self.bias is not None}, "
            f"params={self.num_parameters}"
        )
