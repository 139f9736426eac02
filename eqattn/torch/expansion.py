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

from eqattn.numeric.expansion import HeadLayout, base_expansion, coset_groups

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
        self.register_index("param", ex.param, device)
        self.register_index("pos", ex.pos, device)
        self.register_exact("vals", ex.vals, dtype, device, persistent=False)
        self.blocks = [(int(o), int(m), int(d)) for o, m, d in realized.blocks]
        self.block_sizes = [m * d for _, m, d in self.blocks]
        groups = coset_groups(realized)  # step 2: orbits grouped by their coset representatives
        self.groups: list[tuple[int, bool]] = []  # (index, identity cosets only)
        gm = np.asarray(realized.orbits[0].group_matrices) if realized.orbits else np.zeros((1, n, n))
        rows_of = np.asarray(layout.row, dtype=np.int64)
        dests: list[np.ndarray] = []
        srcs: list[np.ndarray] = []
        rhos: list[np.ndarray] = []
        #: where rho(a) of group g on irrep block k starts in ``rho_all`` (flattened (index, d, d))
        self.rho_starts: list[int] = []
        # heads without rows in the layout (their orbit computes 0 in the layer) are left out
        groups = [(reps, kept) for reps, members in groups if (kept := [m for m in members if layout.widths[m[2]]])]
        pos = 0
        for reps, members in groups:
            srcs.append(np.concatenate([np.arange(r, r + w) for r, w, _ in members]))
            # output order (a, member, r) -> layout rows
            dests.append(np.concatenate([rows_of[h + a] + np.arange(w) for a in range(len(reps)) for _, w, h in members]))
            trivial = all(np.array_equal(gm[a], np.eye(n)) for a in reps)
            for off, _, d in self.blocks:  # rho(a) on each irrep block of V (the copies share it)
                self.rho_starts.append(pos)
                if not trivial:
                    rhos.append(gm[list(reps)][:, off : off + d, off : off + d].ravel())
                    pos += rhos[-1].size
            self.groups.append((len(reps), trivial))
        self.src_starts = [0] + [int(x) for x in np.cumsum([len(x) for x in srcs])]
        self.register_index("src_all", np.concatenate(srcs) if srcs else np.zeros(0), device)
        self.register_exact("rho_all", np.concatenate(rhos) if rhos else np.zeros(0), dtype, device, persistent=False)
        # emit the groups in the order of their rows in the layout (then no scatter is needed)
        self.order = sorted(range(len(dests)), key=lambda g: int(dests[g].min()) if dests[g].size else 0)
        dests = [dests[g] for g in self.order]
        dest_all = np.concatenate(dests) if dests else np.zeros(0, dtype=np.int64)
        #: the output rows are the layout's rows in order (no scatter needed)
        self.in_order = bool(np.array_equal(dest_all, np.arange(layout.total)))
        self.register_index("dest", dest_all, device)

    def weights(self, theta: torch.Tensor) -> torch.Tensor:
        """``theta (4, P)`` (q, k, v, o coordinates of all orbits, concatenated)."""
        n = self.dim_v
        X = theta.shape[0]
        base = theta.new_zeros(X, self.base_rows * n)
        base = base.index_add(1, self.pos, theta[:, self.param] * self.vals_w).view(X, self.base_rows, n)
        pieces: list[torch.Tensor] = []
        nb = len(self.blocks)
        for g in range(len(self.groups)):
            index, trivial = self.groups[g][0], self.groups[g][1]
            b = base.index_select(1, self.src_all[self.src_starts[g] : self.src_starts[g + 1]])  # (4, r, n)
            if trivial:
                heads = b
            else:
                r = b.shape[1]
                parts: list[torch.Tensor] = []
                pieces_b = b.split(self.block_sizes, dim=-1)  # a split's backward is one cat
                for k in range(nb):
                    m, d = self.blocks[k][1], self.blocks[k][2]
                    x = pieces_b[k]
                    start = self.rho_starts[g * nb + k]
                    R = self.rho_all_w[start : start + index * d * d].view(index, d, d)
                    if d == 1:  # a sign (or 1) per coset
                        parts.append(x.unsqueeze(1) * R.view(1, index, 1, 1))
                        continue
                    # W rho(a)^T on each copy: y[., a, e] = sum_d x[., d] R[a, e, d]
                    y = (x.reshape(X * r * m, d) @ R.permute(2, 0, 1).reshape(d, index * d)).view(X, r, m, index, d)
                    parts.append(y.permute(0, 3, 1, 2, 4).reshape(X, index, r, m * d))
                heads = (parts[0] if len(parts) == 1 else torch.cat(parts, dim=-1)).reshape(X, index * r, n)
            pieces.append(heads)
        if len(pieces) == 0:
            return theta.new_zeros(X, self.total, n)
        ordered = [pieces[g] for g in self.order]
        heads = ordered[0] if len(ordered) == 1 else torch.cat(ordered, dim=1)
        if self.in_order:
            return heads
        return theta.new_zeros(X, self.total, n).index_copy(1, self.dest, heads)

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
