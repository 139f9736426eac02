"""The block path: a design's coordinates to per-head weights without any basis tensor.

Step 1 is :func:`eqattn.numeric.expansion.base_expansion` (one gather, one product, one
``index_add`` for all orbits and all four of q/k/v/o); step 2 applies ``rho(a)^T`` for the cosets
a by one small batched product per irrep block of V (``rho`` is block diagonal over V's
irreps σ in the design's coordinates), for all orbits sharing their coset representatives at
once. The result is written straight into the :class:`HeadLayout` the forward uses. Memory and
time grow like ``dim V · Σ dim W`` (docs: eqattn.numeric.expansion).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from eqattn.numeric.expansion import HeadLayout, base_expansion

from .exact import ExactBuffers

__all__ = ["BlockExpansion"]


class BlockExpansion(ExactBuffers):
    """``weights(theta (4, P)) -> (4, layout.total, dim V)``: rows of q, k, v and ``W_O^T``
    for every head in ``layout`` (padding rows zero), in the design's coordinates.

    ``realized`` is a ``RealizedDesign`` whose orbits all carry ``hom`` and whose ``blocks``
    give V's block form. All fixed data are non-persistent buffers rebuilt from the design
    (only the coordinates θ go into a ``state_dict``).
    """

    def __init__(self, realized: Any, layout: HeadLayout, dtype: torch.dtype, device: Any) -> None:
        super().__init__()
        n = int(realized.dim_v)
        self.dim_v, self.total = n, layout.total
        ex = base_expansion(realized)
        self.base_rows = sum(int(o.head_dim) for o in realized.orbits)
        self.register_buffer("param", torch.as_tensor(ex.param).to(device), persistent=False)
        self.register_buffer("pos", torch.as_tensor(ex.pos).to(device), persistent=False)
        self.register_exact("vals", ex.vals, dtype, device, persistent=False)
        self.blocks = tuple(realized.blocks)
        # step 2: orbits grouped by their coset representatives
        groups: dict[tuple[int, ...], list[tuple[int, int, int]]] = {}
        first_row, head = 0, 0
        for o in realized.orbits:
            w = int(o.head_dim)
            if w and o.hom.dim:
                groups.setdefault(tuple(o.coset_reps), []).append((first_row, w, head))
            first_row += w
            head += len(o.coset_reps)
        self.groups: list[tuple[int, bool]] = []  # (index, identity cosets only)
        gm = np.asarray(realized.orbits[0].group_matrices) if realized.orbits else np.zeros((1, n, n))
        rows_of = np.asarray(layout.row, dtype=np.int64)
        for g, (reps, members) in enumerate(groups.items()):
            src = np.concatenate([np.arange(r, r + w) for r, w, _ in members])
            # output order (a, member, r) -> layout rows
            dest = np.concatenate([rows_of[h + a] + np.arange(w) for a in range(len(reps)) for _, w, h in members])
            self.register_buffer(f"src_{g}", torch.as_tensor(src).to(device), persistent=False)
            self.register_buffer(f"dest_{g}", torch.as_tensor(dest).to(device), persistent=False)
            trivial = all(np.array_equal(gm[a], np.eye(n)) for a in reps)
            for s, (off, _, d) in enumerate(self.blocks):
                if not trivial:
                    self.register_exact(f"rho_{g}_{s}", gm[list(reps)][:, off : off + d, off : off + d], dtype, device, persistent=False)
            self.groups.append((len(reps), trivial))

    def weights(self, theta: torch.Tensor) -> torch.Tensor:
        """``theta (4, P)`` (q, k, v, o coordinates of all orbits, concatenated)."""
        n = self.dim_v
        vals = self._buffers["vals_w"]
        base = theta.new_zeros(theta.shape[0], self.base_rows * n)
        base = base.index_add(1, self.pos, theta[:, self.param] * vals).view(theta.shape[0], self.base_rows, n)
        out = theta.new_zeros(theta.shape[0], self.total, n)
        for g, (index, trivial) in enumerate(self.groups):
            b = base.index_select(1, self._buffers[f"src_{g}"])  # (4, r, n)
            if trivial:
                heads = b
            else:
                parts = []
                for s, (off, m, d) in enumerate(self.blocks):
                    x = b[..., off : off + m * d].reshape(b.shape[0], b.shape[1], m, d)
                    R = self._buffers[f"rho_{g}_{s}_w"]  # (index, d, d)
                    y = torch.einsum("xrmd,aed->xarme", x, R)  # W rho(a)^T on each copy
                    parts.append(y.reshape(b.shape[0], index, b.shape[1], m * d))
                heads = torch.cat(parts, dim=-1).reshape(b.shape[0], index * b.shape[1], n)
            out = out.index_copy(1, self._buffers[f"dest_{g}"], heads)
        return out

    def extra_repr(self) -> str:
        return f"triplets={int(self.param.numel())}, base_rows={self.base_rows}, rows={self.total}"


class BlockOrbit(torch.nn.Module):
    """One orbit of the block path: its coordinates ``theta_q, theta_k, theta_v, theta_o``
    (length p = dim Hom_K(V, W)) and the orbit's data; the fixed maps live in
    :class:`BlockExpansion`. The basis of the coordinates is orthonormal, so the squared norm
    of the whole basis is p (``basis_norms``)."""

    def __init__(self, orbit: Any, dtype: torch.dtype, device: Any) -> None:
        super().__init__()
        self.hom = orbit.hom
        self.head_dim = int(orbit.head_dim)
        self.index = len(orbit.coset_reps)
        self.p = int(orbit.hom.dim)
        self.coset_reps = tuple(int(a) for a in orbit.coset_reps)
        w = self.head_dim
        self.w_fixed_np = np.asarray(getattr(orbit, "w_fixed", np.zeros((0, w))), dtype=np.float64).reshape(-1, w)
        self.basis_norms = (float(self.p), float(self.p))
        for name in ("theta_q", "theta_k", "theta_v", "theta_o"):
            setattr(self, name, torch.nn.Parameter(torch.zeros(self.p, dtype=dtype, device=device)))

    def extra_repr(self) -> str:
        return f"index={self.index}, head_dim={self.head_dim}, p={self.p}"
