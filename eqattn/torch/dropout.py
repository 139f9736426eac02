"""``EquivariantDropout``: dropout of whole irreducible copies (SPEC §0).

``nn.Dropout`` zeroes coordinates independently, which does not commute with G (a rotation
mixes a kept and a dropped coordinate). Dropping each irreducible copy of V as a whole (one
Bernoulli draw per token and copy, the same for the ``d_tau`` coordinates of the copy) is a
scalar per copy, which commutes with ``D_tau(g)``: for the same random draws,
``drop(x rho(g)^T) = drop(x) rho(g)^T`` exactly. Survivors are scaled by ``1/(1-p)``;
identity in eval mode.

>>> import eqattn, torch
>>> drop = EquivariantDropout(eqattn.rep(eqattn.group("C4"), "2xE1"), p=0.5).eval()
>>> bool((drop(torch.ones(3, 4)) == 1).all())
True
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from eqattn.reps import Rep

from .components import SharesGroupData, as_rep, copy_index

__all__ = ["EquivariantDropout"]


class EquivariantDropout(SharesGroupData, nn.Module):
    """Dropout of irreducible copies of V with probability ``p`` (module docstring); acts in
    eqattn's coordinates of V on ``(..., dim V)``."""

    def __init__(self, V: Rep, p: float = 0.5, *, device: Any = None) -> None:
        super().__init__()
        if not 0.0 <= float(p) < 1.0:
            raise ValueError(f"dropout probability must be in [0, 1), got {p}")
        self.rep = as_rep(V, "V")
        self.p = float(p)
        idx = copy_index(self.rep)
        self.num_copies = (max(idx) + 1) if idx else 0
        self.register_buffer("copy_of", torch.tensor(idx, dtype=torch.long, device=device), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        keep = torch.rand(*x.shape[:-1], self.num_copies, dtype=x.dtype, device=x.device) >= self.p
        return x * keep.to(x.dtype).index_select(-1, self.copy_of) / (1.0 - self.p)

    def extra_repr(self) -> str:
        return f"V='{self.rep}', p={self.p}, copies={self.num_copies}"
