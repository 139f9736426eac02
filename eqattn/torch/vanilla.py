"""The plain multi-head attention core shared by the layers (SPEC §1), and its vanilla layer.

``_attend`` runs the heads bucket by bucket through ``scaled_dot_product_attention``
(one call per bucket of equal head dimension); :class:`VanillaAttention` is SPEC §1's layer
with free weights, the reference an equivariant layer is compared against.

    >>> import torch
    >>> v = VanillaAttention(2, 3, 4, dtype=torch.float64)
    >>> tuple(v(torch.zeros(1, 5, 4, dtype=torch.float64)).shape), v.num_parameters
    ((1, 5, 4), 96)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["VanillaAttention"]


def _attend(
    x: torch.Tensor,
    w_in: torch.Tensor,
    w_out: torch.Tensor,
    buckets: list[tuple[int, int, int]],
    attn_mask: torch.Tensor | None,
    is_causal: bool,
    bucket_heads: list[torch.Tensor] | None = None,
) -> torch.Tensor:
    """``x (B, N, n)`` or ``(N, n)``; ``w_in (3, T, n)`` (q/k/v rows in the layout of
    ``buckets``: ``(offset, heads, dim)``), ``w_out (n, T)``. One SDPA call per bucket.

    A 4-D mask with one slice per head (``(B, H, N, N)``, heads in orbit order) is cut per
    bucket with ``bucket_heads``; other masks broadcast over the heads."""
    unbatched = x.dim() == 2
    if unbatched:
        x = x.unsqueeze(0)
    if x.dim() != 3:
        raise ValueError(f"expected input of shape (batch, tokens, dim_v) or (tokens, dim_v), got {_shape(x)}")
    B, N, n = x.shape[0], x.shape[1], x.shape[2]
    if n != w_in.shape[-1]:
        raise ValueError(f"input feature dimension {n} does not match dim_v = {w_in.shape[-1]}")
    T = w_in.shape[1]
    if T == 0:
        out = torch.zeros_like(x)  # the empty design computes 0
        return out.squeeze(0) if unbatched else out
    qkv = F.linear(x, w_in.reshape(3 * T, n)).view(B, N, 3, T)
    if attn_mask is not None and attn_mask.dtype != torch.bool and attn_mask.dtype != x.dtype:
        attn_mask = attn_mask.to(x.dtype)
    per_head = attn_mask is not None and attn_mask.dim() == 4 and attn_mask.shape[1] > 1
    outs: list[torch.Tensor] = []
    # split, not slices: the backward of a split is one cat (slices each fill a zero gradient)
    parts = qkv.split([b[1] * b[2] for b in buckets], dim=-1) if len(buckets) > 1 else [qkv]
    for i in range(len(buckets)):
        h, d = buckets[i][1], buckets[i][2]
        part = parts[i].reshape(B, N, 3, h, d).permute(2, 0, 3, 1, 4)
        mask = attn_mask
        if per_head and mask is not None and bucket_heads is not None:
            mask = mask.index_select(1, bucket_heads[i])
        o = F.scaled_dot_product_attention(part[0], part[1], part[2], attn_mask=mask, is_causal=is_causal, scale=1.0)
        outs.append(o.transpose(1, 2).reshape(B, N, h * d))
    o = outs[0] if len(outs) == 1 else torch.cat(outs, dim=-1)
    out = F.linear(o, w_out)
    return out.squeeze(0) if unbatched else out


def _check_factory(dtype: torch.dtype | None) -> torch.dtype:
    dtype = dtype if dtype is not None else torch.get_default_dtype()
    if not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating point type, got {dtype}")
    return dtype


def _check_device(device: Any) -> torch.device:
    """`device` as a torch.device, or a one-line error naming the field (torch's own is a
    RuntimeError listing every backend).

        >>> _check_device("cpu")
        device(type='cpu')
    """
    from eqattn.errors import InputError, InputTypeError

    if not isinstance(device, (str, int, torch.device)) or isinstance(device, bool):
        raise InputTypeError("device", f"a torch.device or a string such as 'cpu' or 'cuda:0', got {type(device).__name__}")
    try:
        return torch.device(device)
    except (RuntimeError, ValueError):
        raise InputError("device", f"a device such as 'cpu', 'cuda' or 'cuda:0', got {device!r}") from None


class VanillaAttention(nn.Module):
    """Unconstrained multi-head attention of SPEC §1 (no biases, no 1/sqrt(d)).

    Parameters ``Wq, Wk, Wv (H, d, n_V)`` and ``Wo (H, n_V, d)``; ``4 H d n_V`` in total.
    Same input/mask conventions as :class:`EquivariantAttention`.
    """

    def __init__(
        self,
        heads: int,
        head_dim: int,
        dim_v: int,
        *,
        dtype: torch.dtype | None = None,
        device: Any = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        dtype = _check_factory(dtype)
        device = None if device is None else _check_device(device)
        if min(heads, head_dim, dim_v) < 0:
            raise ValueError("heads, head_dim and dim_v must be non-negative")
        self.heads, self.head_dim, self.dim_v = int(heads), int(head_dim), int(dim_v)
        H, d, n = self.heads, self.head_dim, self.dim_v
        kw = {"dtype": dtype, "device": device}
        self.Wq = nn.Parameter(torch.empty(H, d, n, **kw))
        self.Wk = nn.Parameter(torch.empty(H, d, n, **kw))
        self.Wv = nn.Parameter(torch.empty(H, d, n, **kw))
        self.Wo = nn.Parameter(torch.empty(H, n, d, **kw))
        self.reset_parameters(generator=generator)

    @classmethod
    def from_numpy(
        cls, Wq: Any, Wk: Any, Wv: Any, Wo: Any, *, dtype: torch.dtype | None = None, device: Any = None
    ) -> "VanillaAttention":
        """From arrays ``Wq, Wk, Wv (H, d, n)`` and ``Wo (H, n, d)``; dtype defaults to the
        arrays' (float64 stays float64) when floating, else torch's default."""
        arrs = [np.asarray(a) for a in (Wq, Wk, Wv, Wo)]
        H, d, n = arrs[0].shape
        for name, a, shape in zip(("Wq", "Wk", "Wv", "Wo"), arrs, ((H, d, n),) * 3 + ((H, n, d),)):
            if a.shape != shape:
                raise ValueError(f"{name} has shape {a.shape}, expected {shape}")
        if dtype is None:
            rt = np.result_type(*arrs)
            dtype = {np.dtype(np.float64): torch.float64, np.dtype(np.float32): torch.float32}.get(rt)
        layer = cls(H, d, n, dtype=dtype, device=device)
        with torch.no_grad():
            for p, a in zip((layer.Wq, layer.Wk, layer.Wv, layer.Wo), arrs):
                p.copy_(torch.as_tensor(a, dtype=p.dtype, device=p.device))
        return layer

    @property
    def num_parameters(self) -> int:
        return 4 * self.heads * self.head_dim * self.dim_v

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Entries ``N(0, 1/n_V)`` for ``Wq, Wk, Wv`` and ``N(0, 1/(H d))`` for ``Wo``."""
        sq = 1 / math.sqrt(max(self.dim_v, 1))
        so = 1 / math.sqrt(max(self.heads * self.head_dim, 1))
        for p, s in ((self.Wq, sq), (self.Wk, sq), (self.Wv, sq), (self.Wo, so)):
            noise = torch.randn(p.shape, generator=generator, dtype=torch.float64, device=_gen_device(generator))
            p.copy_(noise * s)

    def forward(
        self, x: torch.Tensor, attn_mask: torch.Tensor | None = None, is_causal: bool = False
    ) -> torch.Tensor:
        H, d, n = self.heads, self.head_dim, self.dim_v
        if not torch.jit.is_scripting():
            _check_tokens(x, n)
        w_in = torch.stack([self.Wq, self.Wk, self.Wv]).reshape(3, H * d, n)
        w_out = self.Wo.permute(1, 0, 2).reshape(n, H * d)
        buckets = [(0, H, d)] if H * d else []
        return _attend(x, w_in, w_out, buckets, attn_mask, is_causal)

    def extra_repr(self) -> str:
        return f"heads={self.heads}, head_dim={self.head_dim}, dim_v={self.dim_v}, params={self.num_parameters}"


# ----- helpers -------------------------------------------------------------------------------


def _shape(t: torch.Tensor) -> str:
    """``t``'s shape as ``(2, 3)`` (TorchScript formats no tuples)."""
    return "(" + ", ".join([str(s) for s in t.shape]) + ")"


@torch.jit.unused
def _check_tokens(x: object, dim_v: int) -> None:
    """``x`` must be a tensor ``(..., tokens, dim V)``: InputTypeError / InputError naming ``x``
    otherwise (a numpy array or a list is not converted silently)."""
    from eqattn.errors import InputError, InputTypeError

    if not isinstance(x, torch.Tensor):
        raise InputTypeError("x", f"a torch.Tensor of shape (..., tokens, {dim_v}), got {type(x).__name__}")
    if x.dim() < 2 or x.shape[-1] != dim_v:
        raise InputError("x", f"must have shape (..., tokens, {dim_v}) (the last axis is dim V), got {_shape(x)}")


def _gen_device(generator: torch.Generator | None) -> torch.device:
    return generator.device if generator is not None else torch.device("cpu")
