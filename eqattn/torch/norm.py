"""Equivariant LayerNorm and RMSNorm: statistics that are G-invariant, gains that commute with G.

In eqattn's coordinates (:mod:`~eqattn.torch.components`) ``g`` acts on each irreducible copy
of V by the same orthogonal ``D_tau(g)``. Hence

* the squared norm of any isotypic component, and of all of V, is invariant: dividing by
  ``sqrt(mean square + eps)`` commutes with G;
* the mean of the trivial component's coordinates is invariant, and subtracting it from those
  coordinates commutes with G (the only centring equivariance allows: a non-trivial
  component has no invariant mean; for ``m x regular`` in the permutation basis it is exactly
  ``nn.LayerNorm``'s mean, which lies in the trivial component);
* a gain is a scalar per irreducible copy (a multiple of the identity on the copy commutes
  with ``D_tau(g)``), ``sum_tau m_tau(V)`` of them; a bias lies in V^G, the trivial component,
  ``m_1(V)`` of them.

``scope="isotypic"`` normalises each isotypic component by its own mean square (every
component then has unit RMS); ``scope="vector"`` normalises by the mean square over all of V,
as ``nn.LayerNorm`` / ``nn.RMSNorm`` do over ``normalized_shape``. Both are equivariant with
invariant statistics and the same invariant gains (one per irreducible copy, which contains a
gain per isotypic component as the case of equal gains).

Why ``scope="vector"`` is the default: per-component normalisation destroys every component of
small multiplicity. Counterexample, V = the regular representation of D4 (A1 + A2 + B1 + B2 +
2 E1; each one-dimensional irrep once): with ``scope="isotypic"`` the A2, B1, B2 coordinates
``c`` become ``c / sqrt(c^2 + eps)``, i.e. their signs, for every input with ``|c| >> sqrt(eps)``
(all magnitude information of three of the five components is lost, and the map jumps from -1
to 1 across c = 0 with slope ``eps^(-1/2)``); the LayerNorm's centring makes the single
trivial coordinate 0, so A1 carries nothing at all. Over all of V the same input keeps its
ratios between components, as ``nn.LayerNorm`` does on a vanilla layer. ``scope="isotypic"``
is the issue's per-component normalisation, right for large multiplicities (``m x regular``
with m >> 1, every component then has many coordinates); the test
``test_isotypic_scope_keeps_only_signs_of_single_copies`` checks both statements.

>>> import eqattn, torch
>>> G = eqattn.group("D4"); V = eqattn.rep(G, "2xregular")
>>> ln = EquivariantLayerNorm(V)
>>> ln.num_parameters    # gains: 2+2+2+2+4 copies; bias: 2 trivial copies
14
>>> y = ln(torch.randn(3, 16)).detach(); float(y.square().mean(-1).max()) < 1.0 + 1e-4
True
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from eqattn.reps import Rep

from .components import SharesGroupData, as_rep, components, copy_index
from .interop import coordinates
from .layers import _check_factory

__all__ = ["EquivariantLayerNorm", "EquivariantRMSNorm"]

SCOPES = ("vector", "isotypic")


class _InvariantNorm(SharesGroupData, nn.Module):
    """Shared machinery: centring of the trivial component, invariant statistics, gains per copy."""

    def __init__(
        self,
        V: Rep,
        eps: float | None,
        elementwise_affine: bool,
        bias: bool,
        center: bool,
        scope: str,
        basis: Any,
        dtype: torch.dtype | None,
        device: Any,
    ) -> None:
        super().__init__()
        dtype = _check_factory(dtype)
        self.rep = as_rep(V, "V")
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
        self.normalized_shape = (self.rep.dim,)
        self.eps, self.scope, self.center = eps, scope, center
        self.elementwise_affine = bool(elementwise_affine)
        comps = components(self.rep)
        self.num_copies = sum(c.mult for c in comps)
        copy_of, comp_of = copy_index(self.rep), []
        for j, c in enumerate(comps):
            comp_of += [j] * c.size
        triv = [(c.start, c.stop) for c in comps if c.trivial]
        self._trivial = triv[0] if triv else (0, 0)
        self.num_trivial = self._trivial[1] - self._trivial[0]
        mask = torch.zeros(self.rep.dim, dtype=dtype, device=device)
        mask[self._trivial[0] : self._trivial[1]] = 1.0
        self.register_buffer("trivial_mask", mask, persistent=False)
        self.comp_sizes = tuple(c.size for c in comps)
        self.register_buffer("copy_of", torch.tensor(copy_of, dtype=torch.long, device=device), persistent=False)
        self.register_buffer("comp_of", torch.tensor(comp_of, dtype=torch.long, device=device), persistent=False)
        kw = {"dtype": dtype, "device": device}
        self.weight = nn.Parameter(torch.empty(self.num_copies, **kw)) if self.elementwise_affine else None
        use_bias = self.elementwise_affine and bias
        self.bias = nn.Parameter(torch.empty(self.num_trivial, **kw)) if use_bias else None
        self.coords = coordinates(self.rep, basis, dtype=dtype, device=device)
        self.reset_parameters()

    @property
    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """Gains 1 and bias 0, as ``nn.LayerNorm``."""
        if self.weight is not None:
            self.weight.fill_(1.0)
        if self.bias is not None:
            self.bias.zero_()

    def forward(self, x: Any) -> Any:
        like = x
        x = self.coords.inward(x)
        s, e = self._trivial
        if self.center and e > s:  # the mean of the trivial coordinates, subtracted from them
            x = x - x[..., s:e].mean(-1, keepdim=True) * self.trivial_mask
        gain = self.weight.index_select(0, self.copy_of) if self.weight is not None else None
        if self.scope == "vector":
            y = F.rms_norm(x, self.normalized_shape, gain, self.eps)
        else:
            eps = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
            sq = x.square()
            sums = sq.new_zeros(*sq.shape[:-1], len(self.comp_sizes)).index_add(-1, self.comp_of, sq)
            ms = (sums / sq.new_tensor(self.comp_sizes)).index_select(-1, self.comp_of)
            y = x * torch.rsqrt(ms + eps)
            if gain is not None:
                y = y * gain
        if self.bias is not None:
            y = y + F.pad(self.bias, (s, self.rep.dim - e))
        return self.coords.outward(y, like)

    def extra_repr(self) -> str:
        return (
            f"V='{self.rep}', eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}, scope={self.scope!r}, params={self.num_parameters}"
        )


class EquivariantLayerNorm(_InvariantNorm):
    """``nn.LayerNorm`` over V, equivariantly (module docstring): subtract the mean of the trivial
    component, divide by the RMS (of V, or of each isotypic component with
    ``scope="isotypic"``), multiply by a gain per irreducible copy, add a bias on the trivial
    component. ``sum_tau m_tau + m_1`` parameters (``elementwise_affine``, ``bias``)."""

    def __init__(
        self,
        V: Rep,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        *,
        scope: str = "vector",
        basis: Any = None,
        dtype: torch.dtype | None = None,
        device: Any = None,
    ) -> None:
        super().__init__(V, eps, elementwise_affine, bias, True, scope, basis, dtype, device)


class EquivariantRMSNorm(_InvariantNorm):
    """``nn.RMSNorm`` over V, equivariantly: divide by the RMS (of V, or of each isotypic
    component with ``scope="isotypic"``) and multiply by a gain per irreducible copy;
    ``eps=None`` is ``torch.finfo(dtype).eps`` as there. ``sum_tau m_tau`` parameters."""

    def __init__(
        self,
        V: Rep,
        eps: float | None = None,
        elementwise_affine: bool = True,
        *,
        scope: str = "vector",
        basis: Any = None,
        dtype: torch.dtype | None = None,
        device: Any = None,
    ) -> None:
        super().__init__(V, eps, elementwise_affine, False, False, scope, basis, dtype, device)
