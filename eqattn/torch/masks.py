"""Attention masks as one additive float tensor, by ``nn.MultiheadAttention``'s rules.

A bool mask marks what is NOT allowed (``True`` -> ``-inf``), a float mask is added to the
logits. ``g`` permutes the heads of each orbit, so a mask shared by all heads (2-D, or
``(N, L, S)``) keeps a layer equivariant for any mask, and needs no knowledge of the design's
head count; a per-head mask ``(N H, L, S)`` (H the design's heads, in the order of
``head_orbit``) keeps it equivariant when the heads of one orbit get the same mask.

    >>> import torch
    >>> m = combined_mask(None, torch.tensor([[False, True]]), False, 1, 2, 3, 2, torch.float32, torch.device("cpu"))
    >>> tuple(m.shape), m[0, 0, 0].tolist()
    ((1, 1, 1, 2), [0.0, -inf])
"""

from __future__ import annotations

import torch

from .vanilla import _shape

__all__ = ["additive", "combined_mask"]


def additive(m: torch.Tensor, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A bool mask (True = NOT allowed) as 0 / -inf; a float mask as it is."""
    if m.dtype == torch.bool:
        return torch.zeros(m.shape, dtype=dtype, device=device).masked_fill(m, float("-inf"))
    if not m.is_floating_point():
        raise TypeError("masks must be bool or floating point")
    return m.to(dtype)


def combined_mask(
    attn_mask: torch.Tensor | None,
    key_padding_mask: torch.Tensor | None,
    is_causal: bool,
    N: int,
    H: int,
    L: int,
    S: int,
    dtype: torch.dtype,
    device: torch.device,
) -> torch.Tensor | None:
    """One additive float mask broadcastable to ``(N, H, L, S)`` from ``attn_mask`` (2-D
    ``(L, S)``, 3-D shared ``(N, L, S)`` or per head ``(N H, L, S)``), ``key_padding_mask``
    ``(N, S)`` and ``is_causal`` (used only without ``attn_mask``), by
    ``nn.MultiheadAttention``'s rules; None when there is nothing to mask."""
    mask: torch.Tensor | None = None
    if attn_mask is None and is_causal:
        attn_mask = torch.ones(L, S, dtype=torch.bool, device=device).triu(1)
    if attn_mask is not None:
        m = additive(attn_mask, dtype, device)
        if m.dim() == 2:
            if list(m.shape) != [L, S]:
                raise ValueError(f"attn_mask of shape {_shape(m)}; expected ({L}, {S})")
            mask = m[None, None]
        elif m.dim() == 3:
            if list(m.shape) == [N * H, L, S]:  # per head (nn.MultiheadAttention's form)
                mask = m.view(N, H, L, S)
            elif list(m.shape) == [N, L, S]:  # shared by all heads
                mask = m[:, None]
            else:
                raise ValueError(
                    f"attn_mask of shape {_shape(m)}; expected ({N}, {L}, {S}) (shared by the heads) "
                    f"or ({N * H}, {L}, {S}) (per head)"
                )
        else:
            raise ValueError(f"attn_mask must be 2-D or 3-D, got {m.dim()}-D")
    if key_padding_mask is not None:
        if list(key_padding_mask.shape) != [N, S]:
            raise ValueError(f"key_padding_mask of shape {_shape(key_padding_mask)}; expected ({N}, {S})")
        kp = additive(key_padding_mask, dtype, device)[:, None, None, :]
        mask = kp if mask is None else mask + kp
    return mask
