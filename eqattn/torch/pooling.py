"""``InvariantPooling``: from V to G-invariant features (SPEC §0).

Two kinds of invariants of ``x`` in V, both read off eqattn's coordinates
(:mod:`~eqattn.torch.components`):

* the trivial component: its ``m_1(V)`` coordinates are fixed by G (``mode="trivial"``);
* the norm of every non-trivial irreducible copy: ``g`` acts on a copy by an orthogonal
  ``D_tau(g)``, so ``|x_copy|`` is invariant (``mode="norms"``, ``sum_{tau != 1} m_tau``
  features; ``sqrt(|x_copy|^2 + eps)``, smooth at 0).

``mode="both"`` (default) concatenates them: trivial coordinates first, then the norms in
coordinate order. No parameters. The output is invariant: ``pool(x rho(g)^T) = pool(x)``.

>>> import eqattn, torch
>>> pool = InvariantPooling(eqattn.rep(eqattn.group("D4"), "2xregular"))
>>> pool.out_features      # 2 trivial coordinates + 2 + 2 + 2 + 4 non-trivial copies
12
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from eqattn.reps import Rep

from .components import SharesGroupData, as_rep, components
from .interop import coordinates, trivial_field_type

__all__ = ["InvariantPooling"]

MODES = ("both", "trivial", "norms")


class InvariantPooling(SharesGroupData, nn.Module):
    """``(..., dim V) -> (..., out_features)`` invariants (module docstring). With ``basis=`` the
    input is in your coordinates; an escnn ``GeometricTensor`` gives one of trivial fields."""

    def __init__(self, V: Rep, mode: str = "both", eps: float = 1e-12, *, basis: Any = None, dtype: Any = None, device: Any = None) -> None:
        super().__init__()
        self.rep = as_rep(V, "V")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode, self.eps = mode, float(eps)
        comps = components(self.rep)
        triv = [i for c in comps if c.trivial for i in range(c.start, c.stop)]
        rest = [c for c in comps if not c.trivial]
        norm_idx = [i for c in rest for i in range(c.start, c.stop)]
        norm_of = [k for k, (c, i) in enumerate((c, i) for c in rest for i in range(c.mult)) for _ in range(c.dim)]
        self.num_trivial, self.num_norms = len(triv), sum(c.mult for c in rest)
        self.out_features = (self.num_trivial if mode != "norms" else 0) + (self.num_norms if mode != "trivial" else 0)
        self.register_buffer("trivial_idx", torch.tensor(triv, dtype=torch.long, device=device), persistent=False)
        self.register_buffer("norm_idx", torch.tensor(norm_idx, dtype=torch.long, device=device), persistent=False)
        self.register_buffer("norm_of", torch.tensor(norm_of, dtype=torch.long, device=device), persistent=False)
        self.coords = coordinates(self.rep, basis, dtype=dtype, device=device)

    def forward(self, x: Any) -> Any:
        like = x
        x = self.coords.inward(x)
        parts = []
        if self.mode != "norms":
            parts.append(x.index_select(-1, self.trivial_idx))
        if self.mode != "trivial":
            sq = x.index_select(-1, self.norm_idx).square()
            sums = sq.new_zeros(*sq.shape[:-1], self.num_norms).index_add(-1, self.norm_of, sq)
            parts.append(torch.sqrt(sums + self.eps))
        y = torch.cat(parts, dim=-1)
        if hasattr(like, "tensor") and hasattr(like, "type"):
            return trivial_field_type(like, self.out_features)(y)
        return y

    def extra_repr(self) -> str:
        return f"V='{self.rep}', mode={self.mode!r}, out_features={self.out_features}"
