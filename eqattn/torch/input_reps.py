"""Keys or values in another representation of G: the projection of a design from V' (SPEC §3).

Cross-attention often reads keys and values from another space (``kdim``/``vdim`` of
``nn.MultiheadAttention``). When G acts on that space by a representation V' (given in the
rep notation over G's irreps, like V), the design's orbit ``(K, W)`` projects it by
``Wk' ∈ Hom_K(V'|K, W)``: ``dim Hom_K(V'|K, W) = Σ_τ m_τ(V'|K) m_τ(W) e_τ`` coordinates, held
by the same isotypic blocks as V's (:func:`eqattn.numeric.realize_design` on the problem with
V'), and the head at coset ``a`` uses ``Wk' rho'(a)^T``. The scores ``q_i^T W_Q^{a T} W_K'^a k_j``
and values then transform like those of V, so

    f(Q rho(g)^T, K rho'(g)^T, U rho''(g)^T) = f(Q, K, U) rho(g)^T

for every g, by construction (tested to 1e-10 in float64).

What the design's coverage claim says here: SPEC §4.5 is about self-attention on V, so the
design realises every G-equivariant vanilla layer whose M_h, R_h act on V. For keys or values
in V' ≠ V the layer is equivariant and its heads are the design's, but no such claim is
made: a G-equivariant vanilla cross-attention layer need not be realisable by this design
(its M_h lie in Hom(V', V) and its clusters' supplies differ).

>>> import eqattn
>>> G = eqattn.group("C4"); prob = eqattn.Problem(G, eqattn.rep(G, "regular"), heads=2, head_dim=2)
>>> design = eqattn.Design.create(prob, [("C2", "A + B")])
>>> from eqattn.numeric.expansion import HeadLayout
>>> side = InputProjection(design, eqattn.rep(G, "E1 + 2xA"), HeadLayout.of([2, 2]), torch.float64, None)
>>> side.p, side.dim
(4, 4)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from eqattn.numeric.expansion import HeadLayout

from .exact import ExactBuffers
from .expansion import BlockExpansion
from .reuse import WeightCache

__all__ = ["InputProjection", "parse_input_rep"]


def parse_input_rep(name: str, value: Any, design: Any, dim_v: int) -> Any:
    """``kdim``/``vdim`` as a representation of G, or None for V itself.

    ``value`` is None, an integer equal to dim V, a rep text over G's irreps (``"2xA + E1"``)
    or an ``eqattn`` representation of G. Raises ValueError naming the argument otherwise."""
    from eqattn.reps import Rep, parse_rep

    if value is None:
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if int(value) == dim_v:
            return None
        raise ValueError(
            f"{name} = {value}: an integer alone does not say how the group acts on the keys/values; "
            f"give {name} as a representation of the group (e.g. {name}='2xA + E1'), or {dim_v} (= dim V)"
        )
    if design is None:
        raise ValueError(f"{name} as a representation needs the design (build the drop-in from an eqattn.Design)")
    top = design.problem.group.subgroup_classes[-1]
    if isinstance(value, str):
        rep = parse_rep(value, top, field=name)
    elif isinstance(value, Rep) and value.sub is top:
        rep = value
    else:
        raise ValueError(f"{name} must be None, {dim_v} or a representation of {design.problem.group.name}, got {value!r}")
    if rep.dim == 0:
        raise ValueError(f"{name}: the representation is zero")
    return None if rep.mults == design.problem.V.mults else rep


class InputProjection(ExactBuffers):
    """The design's key (or value) rows from a representation V' of G, in ``layout``.

    Parameter ``theta``: the coordinates of every orbit's ``Hom_K(V'|K, W)`` concatenated
    (``p = Σ_i dim Hom_{K_i}(V'|K_i, W_i)``). ``rows()`` gives ``(layout.total, dim V')``;
    ``head_weights(padded_rows, layout_rows, H, D)`` the ``(H, D, dim V')`` per-head form.
    Heads whose orbit has no coordinates on V (width 0 in ``layout``) get no rows.
    """

    def __init__(self, design: Any, rep: Any, layout: HeadLayout, dtype: torch.dtype, device: Any) -> None:
        super().__init__()
        from eqattn.attention import Design, Problem
        from eqattn.numeric import realize_design

        problem = Problem(design.problem.group, rep, design.problem.heads, design.problem.head_dim)
        side = Design.create(problem, [(o.sub.id, str(o.W)) for o in design.orbits])
        realized = realize_design(problem, side)
        self.rep_text = str(rep)
        self.dim = int(rep.dim)
        self.counts = tuple(int(o.hom.dim) for o in realized.orbits)
        self.widths = tuple(int(o.head_dim) for o in realized.orbits)
        self.register_exact("group_matrices", realized.group_matrices, dtype, device)
        self.expansion = BlockExpansion(realized, layout, dtype, device)
        self.theta = torch.nn.Parameter(torch.zeros(sum(self.counts), dtype=dtype, device=device))
        self.weight_cache = WeightCache()

    @property
    def p(self) -> int:
        return sum(self.counts)

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Coordinates of variance ``dim W / p_i`` per orbit (entries of variance ``1 / dim V'``,
        as the core's q/k/v)."""
        from .vanilla import _gen_device

        pos = 0
        for p, w in zip(self.counts, self.widths):
            if p:
                noise = torch.randn(p, generator=generator, dtype=torch.float64, device=_gen_device(generator))
                self.theta[pos : pos + p].copy_(noise * math.sqrt(w / p))
            pos += p

    def rows(self) -> torch.Tensor:
        """``(layout.total, dim V')``: the projection rows the forward uses (reused without
        autograd while ``theta`` is unchanged, :mod:`eqattn.torch.reuse`)."""
        if torch.jit.is_scripting():
            return self._rows()
        return self._reused_rows()

    @torch.jit.unused
    def _reused_rows(self) -> torch.Tensor:
        return self.weight_cache.get([self.theta] + list(self.buffers()), self._rows)

    def _rows(self) -> torch.Tensor:
        return self.expansion.weights(self.theta.unsqueeze(0))[0]

    def head_weights(self, padded_rows: torch.Tensor, layout_rows: torch.Tensor, heads: int, head_dim: int) -> torch.Tensor:
        """``(H, D, dim V')`` (heads in orbit order, then coset order, padded to D)."""
        w = self.rows()
        flat = w.new_zeros(heads * head_dim, self.dim).index_copy(0, padded_rows, w.index_select(0, layout_rows))
        return flat.view(heads, head_dim, self.dim)

    def group_action(self, g: int) -> torch.Tensor:
        """``rho'(g)`` (module dtype and device)."""
        return self.group_matrices_w[int(g)].clone()

    def extra_repr(self) -> str:
        return f"rep={self.rep_text!r}, dim={self.dim}, p={self.p}"
