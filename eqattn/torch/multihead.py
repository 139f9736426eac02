"""A drop-in for ``torch.nn.MultiheadAttention`` whose weights come from a design (SPEC §1, §3).

``EquivariantMultiheadAttention`` has ``nn.MultiheadAttention``'s call::

    out, weights = mha(query, key, value, key_padding_mask=None, need_weights=True,
                       attn_mask=None, average_attn_weights=True, is_causal=False)

with ``batch_first`` as there (default False: ``(tokens, batch, dim V)``), unbatched inputs,
cross-attention (``key``/``value`` of another length than ``query``), attention dropout, and
the masks with ``nn.MultiheadAttention``'s meaning (bool ``True`` = NOT allowed to attend;
float masks are added; ``key_padding_mask (batch, S)``; ``attn_mask (L, S)`` or
``(batch * heads, L, S)``). ``embed_dim`` is ``dim V``; every head has the design's head
dimension (narrower heads are zero-padded, which changes nothing).

Differences from ``nn.MultiheadAttention``, all forced by SPEC §1 or equivariance:

* no ``1/sqrt(head_dim)`` factor (it is absorbed into the learnt ``W_Q``);
* the projections are the design's: ``4 * sum_i dim Hom_{K_i}(V, W_i)`` weights
  (:attr:`num_weight_parameters`) instead of ``4 * embed_dim**2``;
* the biases (``bias=True``) are only the G-invariant parts equivariance allows: for every
  orbit ``(K, W)`` one query, key and value bias in ``W^K`` (the K-fixed vectors of W; the same
  vector for every head of the orbit), and an output bias in ``V^G`` (the G-fixed vectors of V).
  Their count is :attr:`num_bias_parameters` = ``3 * sum_i dim W_i^{K_i} + dim V^G``;
* ``is_causal=True`` without ``attn_mask`` builds the causal mask (``nn.MultiheadAttention``
  requires the mask as well); with ``attn_mask`` it is a hint, as there;
* ``add_bias_kv``, ``add_zero_attn``, ``kdim``, ``vdim`` are not offered (a learnt extra key or
  zero token is not a G-equivariant feature of V).

Equivariance: ``mha(q rho(g)^T, k rho(g)^T, v rho(g)^T)[0] = mha(q, k, v)[0] rho(g)^T`` and the
attention weights are unchanged; masks act on token pairs, so any mask keeps it.

Dropout (training only) drops attention weights like ``nn.MultiheadAttention`` but with ONE
mask per (batch, query, key) shared by all heads: ``g`` permutes the heads of an orbit, so
per-head masks would make a training step equivariant only in distribution; a shared mask
keeps it exactly equivariant for the same random state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from eqattn.numeric.equivariant import fixed_vectors

from .exact import ExactBuffers
from .layers import EquivariantAttention

__all__ = ["EquivariantMultiheadAttention"]


class EquivariantMultiheadAttention(ExactBuffers):
    """``nn.MultiheadAttention``'s interface on a G-equivariant design (see the module docstring).

    Build it from a design (``eqattn.Design``, e.g. ``eqattn.optimal_design(prob)``), a design
    JSON (:meth:`from_json`) or an :class:`EquivariantAttention`. ``rep_matrices=`` / ``basis=``
    put V in your coordinates (:meth:`EquivariantAttention.from_design`).

    >>> import eqattn, torch
    >>> G = eqattn.group("C4"); prob = eqattn.Problem(G, eqattn.rep(G, "regular"), heads=2, head_dim=2)
    >>> mha = EquivariantMultiheadAttention(eqattn.Design.create(prob, [("C2", "A + B")]), batch_first=True)
    >>> out, w = mha(torch.randn(3, 5, 4), torch.randn(3, 7, 4), torch.randn(3, 7, 4))
    >>> tuple(out.shape), tuple(w.shape), mha.num_weight_parameters, mha.num_bias_parameters
    ((3, 5, 4), (3, 5, 7), 16, 4)
    """

    def __init__(
        self,
        design: Any,
        *,
        dropout: float = 0.0,
        bias: bool = True,
        batch_first: bool = False,
        rep_matrices: Any = None,
        basis: Any = None,
        dtype: torch.dtype | None = None,
        device: Any = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        if isinstance(design, EquivariantAttention):
            core = design
        else:
            core = EquivariantAttention.from_design(
                design, rep_matrices=rep_matrices, basis=basis, dtype=dtype, device=device, generator=generator
            )
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.core = core
        self.embed_dim = core.dim_v
        self.num_heads = core.heads
        self.head_dim = core.head_dim
        self.dropout = float(dropout)
        self.batch_first = bool(batch_first)
        self.has_bias = bool(bias)
        w = core.group_matrices_w
        kw = {"dtype": w.dtype, "device": w.device}
        # fixed bases of the allowed biases (float64 masters as for the Hom bases)
        fixed_w = [o.w_fixed_np for o in core.orbits]
        fixed_v = fixed_vectors(core.group_matrices.detach().cpu().double().numpy()) if bias else np.zeros((0, core.dim_v))
        self.bias_dims = tuple(int(f.shape[0]) if bias else 0 for f in fixed_w)
        self.register_exact("bias_out_basis", fixed_v, kw["dtype"], kw["device"])
        for i, f in enumerate(fixed_w):
            self.register_exact(f"bias_in_basis_{i}", f if bias else np.zeros((0, f.shape[1])), kw["dtype"], kw["device"])
        nb = sum(self.bias_dims)
        self.bias_qkv = nn.Parameter(torch.zeros(3, nb, **kw)) if bias else None
        self.bias_out = nn.Parameter(torch.zeros(fixed_v.shape[0], **kw)) if bias else None

    # ----- constructors ------------------------------------------------------------------------
    @classmethod
    def from_json(cls, obj: Any, **kwargs: Any) -> "EquivariantMultiheadAttention":
        """From a design JSON (what ``eqattn optimize --json`` prints; see
        :meth:`EquivariantAttention.from_json`)."""
        core_kw = {k: kwargs.pop(k) for k in ("rep_matrices", "basis", "dtype", "device", "generator") if k in kwargs}
        return cls(EquivariantAttention.from_json(obj, **core_kw), **kwargs)

    # ----- parameter counts --------------------------------------------------------------------
    @property
    def num_weight_parameters(self) -> int:
        """``4 * sum_i dim Hom_{K_i}(V, W_i)``: the design's count (SPEC §3)."""
        return self.core.num_parameters

    @property
    def num_bias_parameters(self) -> int:
        """``3 * sum_i dim W_i^{K_i} + dim V^G`` with ``bias=True``, else 0."""
        if not self.has_bias:
            return 0
        return 3 * sum(self.bias_dims) + int(self.bias_out_basis.shape[0])

    @property
    def num_parameters(self) -> int:
        """Weights and biases: ``sum(p.numel() for p in self.parameters())``."""
        return self.num_weight_parameters + self.num_bias_parameters

    # ----- forward -----------------------------------------------------------------------------
    def _biases(self) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """``(3, H, D)`` q/k/v biases (each orbit's vector repeated over its heads) and ``(n,)``."""
        if self.bias_qkv is None or self.bias_out is None:
            return None, None
        parts, pos = [], 0
        D = self.head_dim
        for i, (o, b) in enumerate(zip(self.core.orbits, self.bias_dims)):
            basis = self._buffers[f"bias_in_basis_{i}_w"]  # (b, dim W)
            vec = self.bias_qkv[:, pos : pos + b] @ basis  # (3, dim W)
            pos += b
            vec = F.pad(vec, (0, D - o.head_dim))
            parts.append(vec.unsqueeze(1).expand(3, o.index, D))
        qkv = torch.cat(parts, dim=1)
        out = self.bias_out @ self._buffers["bias_out_basis_w"]
        return qkv, out

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        key_padding_mask: torch.Tensor | None = None,
        need_weights: bool = True,
        attn_mask: torch.Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        batched = query.dim() == 3
        if query.dim() not in (2, 3) or key.dim() != query.dim() or value.dim() != query.dim():
            raise ValueError(
                f"query, key and value must all be 2-D (unbatched) or 3-D, got {query.dim()}, {key.dim()}, {value.dim()}"
            )
        if not batched:
            query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif not self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        N, L, n = query.shape
        S = key.shape[1]
        if n != self.embed_dim or key.shape[-1] != n or value.shape[-1] != n:
            raise ValueError(f"query, key and value must have embed_dim = dim V = {self.embed_dim} features")
        if value.shape[:2] != key.shape[:2]:
            raise ValueError(f"key {tuple(key.shape)} and value {tuple(value.shape)} must have the same batch and length")
        H, D = self.num_heads, self.head_dim
        dtype = query.dtype
        if H == 0 or D == 0:
            out = query.new_zeros(N, L, n)
            weights = query.new_zeros(N, 0, L, S)
        else:
            Wq, Wk, Wv, Wo = self.core.head_weights()  # (H, D, n) x3, (H, n, D)
            b_qkv, b_out = self._biases()
            q = torch.einsum("nle,hde->nhld", query, Wq)
            k = torch.einsum("nse,hde->nhsd", key, Wk)
            v = torch.einsum("nse,hde->nhsd", value, Wv)
            if b_qkv is not None:
                q = q + b_qkv[0][None, :, None, :]
                k = k + b_qkv[1][None, :, None, :]
                v = v + b_qkv[2][None, :, None, :]
            mask = self._mask(attn_mask, key_padding_mask, is_causal, N, L, S, dtype, query.device)
            p = self.dropout if self.training else 0.0
            if need_weights or p > 0:
                scores = q @ k.transpose(-2, -1)  # SPEC §1: no 1/sqrt(d)
                if mask is not None:
                    scores = scores + mask
                weights = torch.softmax(scores, dim=-1)
                if p > 0:  # one mask per (batch, query, key), shared by the heads: g permutes heads
                    keep = torch.rand(N, 1, L, S, dtype=weights.dtype, device=weights.device) >= p
                    weights = weights * keep / (1.0 - p)
                o = weights @ v
            else:
                o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=1.0)
                weights = None
            out = torch.einsum("nhld,hed->nle", o, Wo)
            if b_out is not None:
                out = out + b_out
        if need_weights and weights is not None and average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            return out.squeeze(0), (weights.squeeze(0) if need_weights and weights is not None else None)
        if not self.batch_first:
            out = out.transpose(0, 1)
        return out, (weights if need_weights else None)

    def _mask(
        self,
        attn_mask: torch.Tensor | None,
        key_padding_mask: torch.Tensor | None,
        is_causal: bool,
        N: int,
        L: int,
        S: int,
        dtype: torch.dtype,
        device: torch.device,
    ) -> torch.Tensor | None:
        """One additive float mask broadcastable to ``(N, H, L, S)`` (nn.MultiheadAttention's rules)."""

        def additive(m: torch.Tensor) -> torch.Tensor:
            if m.dtype == torch.bool:
                return torch.zeros(m.shape, dtype=dtype, device=device).masked_fill(m, float("-inf"))
            if not m.is_floating_point():
                raise TypeError(f"masks must be bool or floating point, got {m.dtype}")
            return m.to(dtype)

        mask = None
        if attn_mask is None and is_causal:
            attn_mask = torch.ones(L, S, dtype=torch.bool, device=device).triu(1)
        if attn_mask is not None:
            m = additive(attn_mask)
            if m.dim() == 2:
                if m.shape != (L, S):
                    raise ValueError(f"attn_mask of shape {tuple(m.shape)}; expected ({L}, {S})")
                mask = m[None, None]
            elif m.dim() == 3:
                if m.shape != (N * self.num_heads, L, S):
                    raise ValueError(f"attn_mask of shape {tuple(m.shape)}; expected ({N * self.num_heads}, {L}, {S})")
                mask = m.view(N, self.num_heads, L, S)
            else:
                raise ValueError(f"attn_mask must be 2-D or 3-D, got {m.dim()}-D")
        if key_padding_mask is not None:
            if key_padding_mask.shape != (N, S):
                raise ValueError(f"key_padding_mask of shape {tuple(key_padding_mask.shape)}; expected ({N}, {S})")
            kp = additive(key_padding_mask)[:, None, None, :]
            mask = kp if mask is None else mask + kp
        return mask

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, head_dim={self.head_dim}, "
            f"dropout={self.dropout}, batch_first={self.batch_first}, weights={self.num_weight_parameters}, "
            f"biases={self.num_bias_parameters}"
        )
