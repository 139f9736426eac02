"""``EquivariantLinear``: the G-equivariant linear map V_in -> V_out with a bias (SPEC §0, §3).

Schur's lemma in eqattn's coordinates (:mod:`~eqattn.torch.components`)::

    Hom_G(V_in, V_out) = sum_tau Mat(m_tau(V_out) x m_tau(V_in)) (x) End_G(D_tau),

so the weight is block-diagonal over the irreps ``tau`` that both contain: block
``W_tau = sum_e C_tau[:, :, e] (x) E_e`` with ``E_e`` the Frobenius-orthonormal basis of
``End_G(D_tau)`` (``e_tau`` = 1, 2, 4 for real, complex, quaternionic type). The trainable
parameters are the ``C_tau``: ``dim Hom_G(V_in, V_out) = sum_tau m_tau(V_in) m_tau(V_out) e_tau
= (1/|G|) sum_g chi_in(g) chi_out(g)``. A bias commutes with G only on the G-fixed vectors,
the trivial component of V_out: ``m_1(V_out) = dim V_out^G`` more parameters.

The forward pass is one matmul per shared irrep on an ``(..., m_tau d_tau)`` slice (cost
``sum_tau m_tau(in) m_tau(out) d_tau^2`` per token, at most ``dim V_in dim V_out``). In a user
basis (``basis_in=`` / ``basis_out=``: a ``BasisChange`` from :mod:`eqattn.torch.interop` or an
escnn ``FieldType``) the dense ``Q_out W Q_in^T`` is applied instead, like ``nn.Linear``; an
escnn ``GeometricTensor`` comes back as one when ``basis_out`` is a field type.

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

from eqattn.reps import Rep

from .components import Component, as_rep, components
from .exact import ExactBuffers
from .interop import Coordinates
from .layers import _check_factory

__all__ = ["EquivariantLinear"]


def _tensor(x: Any) -> torch.Tensor:
    """The data of an escnn ``GeometricTensor`` (or ``x`` itself)."""
    return x.tensor if hasattr(x, "tensor") and hasattr(x, "type") else x


class EquivariantLinear(ExactBuffers):
    """``y = x W^T + b`` with ``W`` in Hom_G(V_in, V_out) and ``b`` in V_out^G (module docstring).

    Parameters: ``weights[k]`` of shape ``(m_tau(V_out), m_tau(V_in), e_tau)`` for the k-th irrep
    both contain (``pairs[k]``), and ``bias`` of shape ``(m_1(V_out),)`` (None without bias).
    Keywords as ``nn.Linear``: ``bias``, ``dtype``, ``device``; ``generator`` seeds
    :meth:`reset_parameters`; ``basis_in`` / ``basis_out`` put the features in your coordinates.
    Works on ``(..., dim V_in)`` tensors.
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
        self._in = {c.irrep: c for c in components(self.in_rep)}
        self._out = components(self.out_rep)
        self.pairs: tuple[tuple[Component, Component], ...] = tuple(
            (self._in[c.irrep], c) for c in self._out if c.irrep in self._in
        )
        kw = {"dtype": dtype, "device": device}
        self.weights = nn.ParameterList(nn.Parameter(torch.empty(co.mult, ci.mult, co.e, **kw)) for ci, co in self.pairs)
        for k, (_, co) in enumerate(self.pairs):
            self.register_exact(f"commutant_{k}", co.commutant, dtype, device)
        triv = [c for c in self._out if c.trivial]
        self._bias_slot = triv[0] if triv else None
        self.bias = nn.Parameter(torch.empty(triv[0].mult if triv else 0, **kw)) if bias else None
        self.coords_in = Coordinates(self.in_rep, basis_in, dtype=dtype, device=device, field="basis_in")
        self.coords_out = Coordinates(self.out_rep, basis_out, dtype=dtype, device=device, field="basis_out")
        self.reset_parameters(generator=generator)

    @property
    def num_parameters(self) -> int:
        """``dim Hom_G(V_in, V_out)`` plus ``dim V_out^G`` with a bias."""
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Entries of the expanded weight with ``nn.Linear``'s variance ``1/(3 dim V_in)``: each
        coordinate ``U(-b, b)`` with ``b = d_tau / sqrt(e_tau dim V_in)``; the bias
        ``U(-1/sqrt(dim V_in), 1/sqrt(dim V_in))``."""
        n = max(self.in_features, 1)
        dev = generator.device if generator is not None else torch.device("cpu")
        for w, (_, co) in zip(self.weights, self.pairs):
            b = co.dim / math.sqrt(co.e * n)
            w.copy_((torch.rand(w.shape, generator=generator, dtype=torch.float64, device=dev) * 2 - 1) * b)
        if self.bias is not None:
            self.bias.copy_((torch.rand(self.bias.shape, generator=generator, dtype=torch.float64, device=dev) * 2 - 1) / math.sqrt(n))

    def block(self, k: int) -> torch.Tensor:
        """The weight block ``(m_tau(out) d, m_tau(in) d)`` of ``pairs[k]``."""
        ci, co = self.pairs[k]
        E = self._buffers[f"commutant_{k}_w"]
        return torch.einsum("ije,eab->iajb", self.weights[k], E).reshape(co.size, ci.size)

    def weight(self) -> torch.Tensor:
        """The dense ``(dim V_out, dim V_in)`` weight in eqattn's coordinates (differentiable)."""
        ref = self.commutant_0_w if self.pairs else self.coords_in.Q_w
        W = ref.new_zeros(self.out_features, self.in_features)
        for k, (ci, co) in enumerate(self.pairs):
            W[co.start : co.stop, ci.start : ci.stop] = self.block(k)
        return W

    def bias_vector(self) -> torch.Tensor | None:
        """The ``(dim V_out,)`` bias in eqattn's coordinates, or None."""
        if self.bias is None:
            return None
        b = self.bias.new_zeros(self.out_features)
        if self._bias_slot is not None:
            b[self._bias_slot.start : self._bias_slot.stop] = self.bias
        return b

    def forward(self, x: Any) -> Any:
        like = x
        if self.coords_in.active or self.coords_out.active:  # dense weight in the user's bases
            x = self.coords_in.inward(x) if not self.coords_in.active else _tensor(x)
            W, b = self.weight(), self.bias_vector()
            if self.coords_in.active:
                W = W @ self.coords_in.Q_w.T
            if self.coords_out.active:
                W, b = self.coords_out.Q_w @ W, (self.coords_out.Q_w @ b if b is not None else None)
            y = F.linear(x, W, b)
            ft = self.coords_out.field_type
            return ft(y) if ft is not None and like is not x else y
        x = self.coords_in.inward(x)
        parts, k = [], 0
        for co in self._out:
            if k < len(self.pairs) and self.pairs[k][1] is co:
                ci = self.pairs[k][0]
                y = F.linear(x[..., ci.start : ci.stop], self.block(k))
                k += 1
            else:
                y = x.new_zeros(*x.shape[:-1], co.size)
            if co.trivial and self.bias is not None:
                y = y + self.bias
            parts.append(y)
        return torch.cat(parts, dim=-1) if parts else x.new_zeros(*x.shape[:-1], 0)

    def extra_repr(self) -> str:
        return (
            f"in_rep='{self.in_rep}', out_rep='{self.out_rep}', bias={self.bias is not None}, "
            f"params={self.num_parameters}"
        )
