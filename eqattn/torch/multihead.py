"""A drop-in for ``torch.nn.MultiheadAttention`` whose weights come from a design (SPEC §1, §3).

``EquivariantMultiheadAttention`` has ``nn.MultiheadAttention``'s call::

    out, weights = mha(query, key, value, key_padding_mask=None, need_weights=True,
                       attn_mask=None, average_attn_weights=True, is_causal=False)

with ``batch_first`` as there (default False: ``(tokens, batch, dim V)``), unbatched inputs,
cross-attention (``key``/``value`` of another length than ``query``), attention dropout, and
the masks with ``nn.MultiheadAttention``'s meaning (bool ``True`` = NOT allowed to attend;
float masks are added; ``key_padding_mask (batch, S)``; ``attn_mask (L, S)``, ``(batch, L, S)``
shared by all heads, or ``(batch * heads, L, S)`` per head), ``add_bias_kv``, ``add_zero_attn``,
``reset_parameters()`` / ``_reset_parameters()``, construction on ``device="meta"``. It works as
``self_attn`` of ``nn.TransformerEncoderLayer`` / ``nn.TransformerDecoderLayer`` in training and
evaluation. ``embed_dim`` is ``dim V``; heads of one head dimension run in one batched attention
call (narrower heads in a bucket are zero-padded, which changes nothing).

Masks and equivariance: ``g`` permutes the heads of each orbit, so a mask shared by all heads
(2-D, or ``(batch, L, S)``) keeps the layer equivariant for any mask (masks act on token
pairs, not on V). A per-head mask ``(batch * heads, L, S)`` (heads in the order of
:attr:`head_orbit`) keeps it equivariant when the heads of one orbit get the same mask.

Fully masked query rows answer as in ``nn.MultiheadAttention`` (training mode): NaN with
``need_weights=True`` (the softmax of a row of ``-inf``), the output bias with
``need_weights=False`` (what ``scaled_dot_product_attention`` gives on the CPU).

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
* ``add_bias_kv``: the extra key and value token has, in every head of an orbit ``(K, W)``, the
  same learnt vector of ``W^K`` (``bias_k``, ``bias_v`` hold its coordinates), which keeps the
  layer equivariant; ``add_zero_attn`` appends a zero key/value token (invariant anyway);
* ``kdim`` / ``vdim``: keys and values may carry other representations of G, given in the
  rep notation (``kdim="2xA + E1"``) or as ``eqattn`` representations; their projections are
  the orbits' ``Hom_K(V'|K, W)`` (:mod:`eqattn.torch.input_reps`, which also says what the
  design's coverage claim does not cover there). A plain integer is accepted only when it is
  ``dim V`` (an integer alone does not say how G acts on another space);
* ``_qkv_same_embed_dim`` is False and ``in_proj_weight`` / ``in_proj_bias`` are None: the
  projections are the design's, not one ``(3 E, E)`` matrix, so PyTorch's fused encoder fast
  path (which reads them and scales by ``1/sqrt(head_dim)``) is declined and the layer is
  called instead;
* ``torch.jit.script`` works (train and eval, masks, ``kdim``/``vdim`` representations, the
  extra tokens; tested against the eager module, gradients included) for layers built from a
  design (the block path). The scripted module expands the weights on every call (the eager
  module's reuse without autograd, :mod:`eqattn.torch.reuse`, is Python-side). Layers from
  explicit bases (``realize_from_matrices``) are not scriptable (their dense path raises when
  scripted); ``torch.compile`` and :meth:`to_multihead_attention` work for both.

Equivariance: ``mha(q rho(g)^T, k rho_k(g)^T, v rho_v(g)^T)[0] = mha(q, k, v)[0] rho(g)^T`` and
the attention weights are unchanged (``rho_k = rho_v = rho`` unless ``kdim``/``vdim`` are other
representations: :meth:`group_actions`); masks act on token pairs, so any mask keeps it.

Dropout (training only) drops attention weights like ``nn.MultiheadAttention`` but with ONE
mask per (batch, query, key) shared by all heads: ``g`` permutes the heads of an orbit, so
per-head masks would make a training step equivariant only in distribution; a shared mask
keeps it exactly equivariant for the same random state.
"""

from __future__ import annotations

from typing import Any

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .exact import ExactBuffers
from .input_reps import InputProjection, parse_input_rep
from .layers import EquivariantAttention
from .masks import combined_mask
from .vanilla import _shape

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
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        rep_matrices: Any = None,
        basis: Any = None,
        dtype: torch.dtype | None = None,
        device: Any = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        if isinstance(design, EquivariantAttention):
            core, design = design, None
        else:
            core = EquivariantAttention.from_design(
                design, rep_matrices=rep_matrices, basis=basis, dtype=dtype, device=device, generator=generator
            )
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        reps = {name: parse_input_rep(name, value, design, core.dim_v) for name, value in (("kdim", kdim), ("vdim", vdim))}
        if core.has_change and any(r is not None for r in reps.values()):
            raise ValueError("kdim/vdim as representations work in the design's coordinates; build without rep_matrices/basis")
        self.core = core
        self.embed_dim = core.dim_v
        # keys / values in other representations: their own projections; the core's are then unused
        self.key_proj = self.value_proj = None
        for name, which in (("kdim", "theta_k"), ("vdim", "theta_v")):
            if reps[name] is None:
                continue
            side = InputProjection(design, reps[name], core.layout, core.group_matrices_w.dtype, core.group_matrices_w.device)
            side.reset_parameters(generator)
            setattr(self, "key_proj" if name == "kdim" else "value_proj", side)
            for o in core.orbits:  # not parameters any more: zero, non-persistent
                unused = getattr(o, which).detach()
                del o._parameters[which]
                o.register_buffer(which, torch.zeros_like(unused), persistent=False)
        self.kdim = self.key_proj.dim if self.key_proj is not None else core.dim_v
        self.vdim = self.value_proj.dim if self.value_proj is not None else core.dim_v
        self.num_heads = core.heads
        self.head_dim = core.head_dim
        self.dropout = float(dropout)
        self.batch_first = bool(batch_first)
        self.has_bias = bool(bias)
        self.add_zero_attn = bool(add_zero_attn)
        #: PyTorch's fused paths need one (3E, E) projection with 1/sqrt(head_dim); ours is the design's
        self._qkv_same_embed_dim = False
        self.in_proj_weight = self.in_proj_bias = None
        self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        w = core.group_matrices_w
        kw = {"dtype": w.dtype, "device": w.device}
        # fixed bases of the allowed biases (float64 masters as for the Hom bases)
        fixed_w = [o.w_fixed_np for o in core.orbits]
        fixed_v = core.v_fixed_np if bias else np.zeros((0, core.dim_v))
        self.bias_dims = tuple(int(f.shape[0]) for f in fixed_w)
        self.register_exact("bias_out_basis", fixed_v, kw["dtype"], kw["device"])
        # the orbits' W^K bases side by side: coordinates (Σ b_i) -> vectors (Σ dim W_i), block diagonal
        widths = [o.head_dim for o in core.orbits]
        blockdiag = np.zeros((sum(self.bias_dims), sum(widths)))
        r = c = 0
        for f, w in zip(fixed_w, widths):
            blockdiag[r : r + f.shape[0], c : c + w] = f
            r, c = r + f.shape[0], c + w
        self.register_exact("bias_in_basis", blockdiag, kw["dtype"], kw["device"])
        self.orbit_widths = widths
        self.orbit_heads = [o.index for o in core.orbits]
        nb = sum(self.bias_dims)
        self.bias_qkv = nn.Parameter(torch.zeros(3, nb, **kw)) if bias else None
        self.bias_out = nn.Parameter(torch.zeros(fixed_v.shape[0], **kw)) if bias else None
        self.bias_k = nn.Parameter(torch.zeros(nb, **kw)) if add_bias_kv else None
        self.bias_v = nn.Parameter(torch.zeros(nb, **kw)) if add_bias_kv else None
        #: head h belongs to orbit head_orbit[h] (orbit order, then coset order)
        self.head_orbit = tuple(i for i, o in enumerate(core.orbits) for _ in range(o.index))
        # layout row -> entry of the concatenated per-orbit bias vectors (last entry: 0 for padding)
        starts = np.cumsum([0] + [o.head_dim for o in core.orbits])
        rows = np.full(core.layout.total, int(starts[-1]), dtype=np.int64)
        for h, i in enumerate(self.head_orbit):
            width = core.layout.widths[h]
            if width:
                rows[core.layout.row[h] : core.layout.row[h] + width] = starts[i] + np.arange(width)
        self.register_index("_bias_rows", rows, kw["device"])
        self._init_biases(generator)

    @torch.no_grad()
    def _init_biases(self, generator: torch.Generator | None = None) -> None:
        """q/k/v and output biases zero (as ``nn.MultiheadAttention``), ``bias_k``/``bias_v``
        normal with variance ``1 / embed_dim``."""
        for p in (self.bias_qkv, self.bias_out):
            if p is not None:
                p.zero_()
        for p in (self.bias_k, self.bias_v):
            if p is not None:
                noise = torch.randn(p.shape, generator=generator, dtype=torch.float64)
                p.copy_(noise / math.sqrt(max(self.embed_dim, 1)))

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Fresh random weights (:meth:`EquivariantAttention.reset_parameters`) and biases."""
        self.core.reset_parameters(generator=generator)
        for side in (self.key_proj, self.value_proj):
            if side is not None:
                side.reset_parameters(generator)
        self._init_biases(generator)

    def _reset_parameters(self) -> None:
        """``nn.MultiheadAttention``'s name for :meth:`reset_parameters`."""
        self.reset_parameters()

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
        """``4 * sum_i dim Hom_{K_i}(V, W_i)``: the design's count (SPEC §3). With keys (values)
        in another representation V', their ``sum_i dim Hom_{K_i}(V, W_i)`` is replaced by
        ``sum_i dim Hom_{K_i}(V'|K_i, W_i)``."""
        p = self.core.num_parameters // 4
        pk = self.key_proj.p if self.key_proj is not None else p
        pv = self.value_proj.p if self.value_proj is not None else p
        return 2 * p + pk + pv

    @property
    def num_bias_parameters(self) -> int:
        """``3 * sum_i dim W_i^{K_i} + dim V^G`` with ``bias=True`` (else 0), plus
        ``2 * sum_i dim W_i^{K_i}`` with ``add_bias_kv``."""
        out = 3 * sum(self.bias_dims) + int(self.bias_out_basis.shape[0]) if self.has_bias else 0
        return out + (2 * sum(self.bias_dims) if self.bias_k is not None else 0)

    @property
    def num_parameters(self) -> int:
        """Weights and biases: ``sum(p.numel() for p in self.parameters())``."""
        return self.num_weight_parameters + self.num_bias_parameters

    def group_actions(self, g: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(rho(g), rho_k(g), rho_v(g))`` on queries/outputs, keys and values."""
        r = self.core.group_action(g)
        rk = self.key_proj.group_action(g) if self.key_proj is not None else r
        rv = self.value_proj.group_action(g) if self.value_proj is not None else r
        return r, rk, rv

    # ----- export --------------------------------------------------------------------------------
    @torch.no_grad()
    def to_multihead_attention(self) -> nn.MultiheadAttention:
        """A real ``nn.MultiheadAttention`` computing the same function (a detached copy), when
        the design's heads all have one head dimension d and ``H d = dim V``; ``W_Q`` and its
        bias are scaled by ``sqrt(d)`` (PyTorch divides the scores by it). Dropout then draws a
        mask per head (PyTorch's), not one shared by the heads; everything else is the same.
        Raises ``ValueError`` saying why otherwise.
        """
        widths = sorted({o.head_dim for o in self.core.orbits})
        H, n = self.num_heads, self.embed_dim
        if len(widths) > 1:
            raise ValueError(f"the design's heads have dimensions {widths}; nn.MultiheadAttention has one head dimension")
        if H * self.head_dim != n:
            raise ValueError(
                f"the design's {H} heads of dimension {self.head_dim} fill {H * self.head_dim} of dim V = {n}; "
                f"nn.MultiheadAttention needs num_heads * head_dim = embed_dim"
            )
        Wq, Wk, Wv, Wo = self._head_weights()
        D = self.head_dim
        w = Wq.new_empty(0)
        ref = nn.MultiheadAttention(
            n, H, dropout=self.dropout, bias=self.has_bias, add_bias_kv=self.bias_k is not None,
            add_zero_attn=self.add_zero_attn, kdim=self.kdim, vdim=self.vdim, batch_first=self.batch_first,
            dtype=w.dtype, device=w.device,
        )
        s = math.sqrt(D)
        if ref.in_proj_weight is not None:
            ref.in_proj_weight.copy_(torch.cat([Wq.reshape(H * D, n) * s, Wk.reshape(H * D, n), Wv.reshape(H * D, n)]))
        else:  # keys / values of other dimensions: separate projections
            ref.q_proj_weight.copy_(Wq.reshape(H * D, n) * s)
            ref.k_proj_weight.copy_(Wk.reshape(H * D, self.kdim))
            ref.v_proj_weight.copy_(Wv.reshape(H * D, self.vdim))
        ref.out_proj.weight.copy_(Wo.permute(1, 0, 2).reshape(n, H * D))
        b_qkv, b_out = self._biases()
        if ref.in_proj_bias is not None and b_qkv is not None and b_out is not None:
            ref.in_proj_bias.copy_(torch.cat([b_qkv[0].reshape(-1) * s, b_qkv[1].reshape(-1), b_qkv[2].reshape(-1)]))
            ref.out_proj.bias.copy_(b_out)
        if self.bias_k is not None and self.bias_v is not None:
            ref.bias_k.copy_(self._per_head(self.bias_k).reshape(1, 1, n))
            ref.bias_v.copy_(self._per_head(self.bias_v).reshape(1, 1, n))
        return ref.train(self.training)

    # ----- forward -----------------------------------------------------------------------------
    def _head_weights(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The core's per-head weights with W_K / W_V from the key / value representations."""
        Wq, Wk, Wv, Wo = self.core.head_weights()
        H, D = Wq.shape[0], Wq.shape[1]
        core = self.core
        if self.key_proj is not None:
            Wk = self.key_proj.head_weights(core._padded_rows, core._layout_rows, H, D)
        if self.value_proj is not None:
            Wv = self.value_proj.head_weights(core._padded_rows, core._layout_rows, H, D)
        return Wq, Wk, Wv, Wo

    def _orbit_vectors(self, coords: torch.Tensor) -> list[torch.Tensor]:
        """Per orbit ``coords[..., b_i] @ basis_i``: vectors of W_i^{K_i} (shape ``(..., dim W_i)``)."""
        return list((coords @ self.bias_in_basis_w).split(self.orbit_widths, dim=-1))

    def _per_head(self, coords: torch.Tensor) -> torch.Tensor:
        """``(..., H, D)``: each orbit's vector repeated over its heads, padded to D."""
        D = self.head_dim
        vecs = self._orbit_vectors(coords)
        parts: list[torch.Tensor] = []
        for i in range(len(vecs)):
            vec = vecs[i]
            lead = list(vec.shape[:-1])
            parts.append(F.pad(vec, (0, D - self.orbit_widths[i])).unsqueeze(-2).expand(lead + [self.orbit_heads[i], D]))
        return torch.cat(parts, dim=-2)

    def _biases(self) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """``(3, H, D)`` q/k/v biases (each orbit's vector repeated over its heads) and ``(n,)``."""
        if self.bias_qkv is None or self.bias_out is None:
            return None, None
        return self._per_head(self.bias_qkv), self.bias_out @ self.bias_out_basis_w

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
            if attn_mask is not None and attn_mask.dim() == 3 and attn_mask.shape[0] not in (1, self.num_heads):
                raise ValueError(f"attn_mask of shape {_shape(attn_mask)} for unbatched input")
        elif not self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        N, L, n = query.shape[0], query.shape[1], query.shape[2]
        S = key.shape[1]
        if n != self.embed_dim or key.shape[-1] != self.kdim or value.shape[-1] != self.vdim:
            raise ValueError(
                f"query, key and value must have {self.embed_dim} (embed_dim = dim V), {self.kdim} (kdim) and "
                f"{self.vdim} (vdim) features, got {n}, {key.shape[-1]}, {value.shape[-1]}"
            )
        if value.shape[:2] != key.shape[:2]:
            raise ValueError(f"key {_shape(key)} and value {_shape(value)} must have the same batch and length")
        mask = combined_mask(attn_mask, key_padding_mask, is_causal, N, self.num_heads, L, S, query.dtype, query.device)
        p = self.dropout if self.training else 0.0
        extra = self.bias_k is not None or self.add_zero_attn
        if self.num_heads == 0 or self.head_dim == 0:
            out, weights = query.new_zeros(N, L, n), query.new_zeros(N, 0, L, S)
            if self.bias_out is not None:
                out = out + self.bias_out @ self.bias_out_basis_w
        elif need_weights or p > 0 or extra:
            out, weights = self._explicit(query, key, value, mask, p)
        else:
            out, weights = self._bucketed(query, key, value, mask), None
        if need_weights and weights is not None and average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            return out.squeeze(0), (weights.squeeze(0) if need_weights and weights is not None else None)
        if not self.batch_first:
            out = out.transpose(0, 1)
        return out, (weights if need_weights else None)

    def _bucketed(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """One SDPA call per head bucket on the layer's layout (no attention weights, no dropout)."""
        core = self.core
        w_in, w_out = core.projections()  # (3, T, n), (n, T)
        if core.has_change:
            U = core.basis_change_w
            query, key, value = query @ U, key @ U, value @ U
        w_k = self.key_proj.rows() if self.key_proj is not None else w_in[1]
        w_v = self.value_proj.rows() if self.value_proj is not None else w_in[2]
        if query is key and key is value and self.key_proj is None and self.value_proj is None:
            q, k, v = F.linear(query, w_in.reshape(-1, w_in.shape[-1])).chunk(3, dim=-1)
        else:
            q, k, v = (F.linear(x, w) for x, w in zip((query, key, value), (w_in[0], w_k, w_v)))
        if self.bias_qkv is not None:
            vecs = self._orbit_vectors(self.bias_qkv)  # per orbit (3, dim W)
            flat = torch.cat(vecs + [vecs[0].new_zeros(3, 1)], dim=1)
            b = flat.index_select(1, self._bias_rows)  # (3, T)
            q, k, v = q + b[0], k + b[1], v + b[2]
        N, L = q.shape[0], q.shape[1]
        S = k.shape[1]
        per_head = mask is not None and mask.shape[1] > 1
        outs = []
        sizes = [h * d for _, h, d in core.buckets]
        for i, ((off, h, d), qb, kb, vb) in enumerate(zip(core.buckets, q.split(sizes, -1), k.split(sizes, -1), v.split(sizes, -1))):
            qb = qb.reshape(N, L, h, d).transpose(1, 2)
            kb = kb.reshape(N, S, h, d).transpose(1, 2)
            vb = vb.reshape(N, S, h, d).transpose(1, 2)
            m = mask.index_select(1, core.bucket_heads(i)) if per_head and mask is not None else mask
            o = F.scaled_dot_product_attention(qb, kb, vb, attn_mask=m, scale=1.0)
            outs.append(o.transpose(1, 2).reshape(N, L, h * d))
        out = F.linear(outs[0] if len(outs) == 1 else torch.cat(outs, dim=-1), w_out)
        if core.has_change:
            out = out @ core.basis_change_w.T
        if self.bias_out is not None:
            out = out + self.bias_out @ self.bias_out_basis_w
        return out

    def _explicit(
        self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None, p: float
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """All heads with explicit softmax weights (need_weights, dropout, the extra tokens)."""
        N = query.shape[0]
        Wq, Wk, Wv, Wo = self._head_weights()  # (H, D, n), (H, D, kdim), (H, D, vdim), (H, n, D)
        b_qkv, b_out = self._biases()
        q = torch.einsum("nle,hde->nhld", query, Wq)
        k = torch.einsum("nse,hde->nhsd", key, Wk)
        v = torch.einsum("nse,hde->nhsd", value, Wv)
        if b_qkv is not None:
            q = q + b_qkv[0][None, :, None, :]
            k = k + b_qkv[1][None, :, None, :]
            v = v + b_qkv[2][None, :, None, :]
        H, D = q.shape[1], q.shape[3]
        extra = 0
        if self.bias_k is not None and self.bias_v is not None:  # one more token: W^K vectors per orbit
            k = torch.cat([k, self._per_head(self.bias_k).expand(N, H, D).unsqueeze(2)], dim=2)
            v = torch.cat([v, self._per_head(self.bias_v).expand(N, H, D).unsqueeze(2)], dim=2)
            extra += 1
        if self.add_zero_attn:
            k = torch.cat([k, k.new_zeros(N, H, 1, D)], dim=2)
            v = torch.cat([v, v.new_zeros(N, H, 1, D)], dim=2)
            extra += 1
        if mask is not None and extra:
            mask = F.pad(mask, (0, extra))  # the extra keys are never masked
        scores = q @ k.transpose(-2, -1)  # SPEC §1: no 1/sqrt(d)
        if mask is not None:
            scores = scores + mask
        weights = torch.softmax(scores, dim=-1)
        if p > 0:  # one mask per (batch, query, key), shared by the heads: g permutes heads
            keep = torch.rand(N, 1, weights.shape[2], weights.shape[3], dtype=weights.dtype, device=weights.device) >= p
            weights = weights * keep / (1.0 - p)
        out = torch.einsum("nhld,hed->nle", weights @ v, Wo)
        if b_out is not None:
            out = out + b_out
        return out, weights  # with the extra keys as the last columns, as nn.MultiheadAttention

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, head_dim={self.head_dim}, "
            f"dropout={self.dropout}, batch_first={self.batch_first}, weights={self.num_weight_parameters}, "
            f"biases={self.num_bias_parameters}"
        )
