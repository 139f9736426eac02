"""The dense path of :class:`eqattn.torch.EquivariantAttention`: orbits given by explicit bases.

A realisation with dense ``hom_in (p, dim W, n)``, ``hom_out (p, n, dim W)`` and ``cosets
(index, n, n)`` (:func:`eqattn.torch.realize_from_matrices`, or a user's own object) keeps its
bases as float64 master buffers. The basis is replaced by the canonical orthonormal basis of
the same space (:func:`eqattn.numeric.canonical.canonical_basis`) unless ``canonical=False``;
a basis with at most ``SPARSE_MAX_DENSITY`` nonzeros is applied with ``index_add``, others by a
matmul; consecutive orbits with identical bases are expanded by one matmul (:func:`_expand_run`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from eqattn.numeric.canonical import canonical_basis

from .exact import ExactBuffers

#: a basis with at most this fraction of nonzero entries is expanded sparsely (index_add)
SPARSE_MAX_DENSITY = 0.1


def _cached_canonical(basis: np.ndarray, cache: dict) -> np.ndarray:
    key = (basis.shape, basis.tobytes())
    if key not in cache:
        cache[key] = canonical_basis(basis)
    return cache[key]


class _Orbit(ExactBuffers):
    """One design orbit ``(K, W)``: parameters ``theta_q, theta_k, theta_v, theta_o`` (length p)."""

    def __init__(
        self, orbit: Any, dim_v: int, dtype: torch.dtype, device: Any, canonical: bool = True, cache: dict | None = None
    ) -> None:
        super().__init__()
        w = int(orbit.head_dim)
        cosets = np.asarray(orbit.cosets, dtype=np.float64)
        hom_in = np.asarray(orbit.hom_in, dtype=np.float64)
        hom_out = np.asarray(orbit.hom_out, dtype=np.float64)
        if hom_in.size == 0:
            hom_in = hom_in.reshape(0, w, dim_v)
        if hom_out.size == 0:
            hom_out = hom_out.reshape(0, dim_v, w)
        if cosets.ndim != 3 or cosets.shape[1:] != (dim_v, dim_v) or cosets.shape[0] < 1:
            raise ValueError(f"cosets must have shape (index, {dim_v}, {dim_v}), got {cosets.shape}")
        if hom_in.ndim != 3 or hom_in.shape[1:] != (w, dim_v):
            raise ValueError(f"hom_in must have shape (p, {w}, {dim_v}), got {hom_in.shape}")
        if hom_out.shape != (hom_in.shape[0], dim_v, w):
            raise ValueError(f"hom_out must have shape ({hom_in.shape[0]}, {dim_v}, {w}), got {hom_out.shape}")
        self.head_dim = w
        #: orthonormal basis (b, dim W) of W^K, the biases equivariance allows (multihead.py)
        self.w_fixed_np = np.asarray(getattr(orbit, "w_fixed", np.zeros((0, w))), dtype=np.float64).reshape(-1, w)
        self.index = cosets.shape[0]
        self.p = hom_in.shape[0]
        self.dim_v = dim_v
        if canonical:
            cache = {} if cache is None else cache
            transposed = np.array_equal(hom_out, hom_in.transpose(0, 2, 1))
            hom_in = _cached_canonical(hom_in, cache)
            hom_out = hom_in.transpose(0, 2, 1).copy() if transposed else _cached_canonical(hom_out, cache)
        #: squared Frobenius norms of the whole bases (reset_parameters; known before any device)
        self.basis_norms = (float(np.square(hom_in).sum()), float(np.square(hom_out).sum()))
        self.register_exact("cosets", cosets, dtype, device)
        self.register_exact("hom_in", hom_in, dtype, device)
        self.register_exact("hom_out", hom_out, dtype, device)
        for name in ("theta_q", "theta_k", "theta_v", "theta_o"):
            setattr(self, name, nn.Parameter(torch.zeros(self.p, dtype=dtype, device=device)))
        for name in ("hom_in", "hom_out"):  # sparse form (rows, cols, values) of sparse bases
            for part in ("_rows", "_cols", "_vals"):
                self.register_buffer(name + part, None, persistent=False)
        self._refresh_sparse()

    def _refresh_working(self) -> None:
        super()._refresh_working()
        if "hom_in_vals" in self._buffers:
            self._refresh_sparse()

    def _refresh_sparse(self) -> None:
        """Bases with at most SPARSE_MAX_DENSITY nonzeros are expanded by ``index_add``."""
        for name in ("hom_in", "hom_out"):
            master, work = self._buffers[name], self._buffers[name + "_w"]
            rows = cols = vals = None
            try:
                flat = master.reshape(master.shape[0], master.shape[1] * master.shape[2])
                nz = flat != 0
                if flat.numel() and int(nz.sum()) <= SPARSE_MAX_DENSITY * flat.numel():
                    rows, cols = nz.nonzero(as_tuple=True)
                    vals = flat[rows, cols].to(dtype=work.dtype, device=work.device)
                    rows, cols = rows.to(work.device), cols.to(work.device)
            except (RuntimeError, NotImplementedError):  # e.g. meta tensors: stay dense
                rows = cols = vals = None
            self._buffers[name + "_rows"], self._buffers[name + "_cols"], self._buffers[name + "_vals"] = rows, cols, vals

    def apply_basis(self, theta: torch.Tensor, name: str) -> torch.Tensor:
        """``theta (r, p) -> (r, prod(basis.shape[1:]))``: ``sum_t theta[:, t] basis[t]`` flattened."""
        vals = self._buffers[name + "_vals"]
        work = self._buffers[name + "_w"]
        size = work.shape[1] * work.shape[2]
        if vals is None:
            return theta @ work.reshape(self.p, size)
        rows, cols = self._buffers[name + "_rows"], self._buffers[name + "_cols"]
        return theta.new_zeros(theta.shape[0], size).index_add(1, cols, theta[:, rows] * vals)

    def extra_repr(self) -> str:
        return f"index={self.index}, head_dim={self.head_dim}, p={self.p}"

    def same_basis(self, other: "_Orbit") -> bool:
        """Same head dim and identical cosets / bases (so their expansions can be batched)."""
        if (self.head_dim, self.cosets.shape, self.hom_in.shape) != (other.head_dim, other.cosets.shape, other.hom_in.shape):
            return False
        try:
            return all(bool(torch.equal(getattr(self, b), getattr(other, b))) for b in ("cosets", "hom_in", "hom_out"))
        except (RuntimeError, NotImplementedError):  # e.g. meta tensors
            return False


def _expand_run(run: Sequence[_Orbit], pad_to: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-head weights of consecutive orbits sharing one basis, in orbit-then-coset order:
    ``(3, c*index, pad_to, n)`` for q/k/v and ``(c*index, n, pad_to)`` for o.

    One matmul per run: for ``c`` identical orbits the (possibly large) dense basis is read
    once, not ``c`` times.
    """
    first = run[0]
    n, w, m, c = first.dim_v, first.head_dim, first.index, len(run)
    theta = torch.stack([t for o in run for t in (o.theta_q, o.theta_k, o.theta_v)])  # (3c, p)
    base = first.apply_basis(theta, "hom_in").view(c, 3, w, n)  # Wq, Wk, Wv per orbit
    # head at coset a: W_Q = Wq rho(a)^T  ->  [x, c, a, w, m] = sum_n Wq[c, x, w, n] rho(a)[m, n]
    qkv = torch.einsum("cxwn,amn->xcawm", base, first.cosets_w).reshape(3, c * m, w, n)
    theta_o = torch.stack([o.theta_o for o in run])  # (c, p)
    wo = first.apply_basis(theta_o, "hom_out").view(c, 1, n, w)
    o = torch.matmul(first.cosets_w, wo).reshape(c * m, n, w)  # W_O = rho(a) Wo
    if pad_to > w:
        qkv = F.pad(qkv, (0, 0, 0, pad_to - w))
        o = F.pad(o, (0, pad_to - w))
    return qkv, o
