"""Positional information that keeps equivariance: additive attention biases from token
positions (SPEC §1).

G acts on the features of a token, never on its position. A bias ``B[i, j]`` added to the
attention score of query ``i`` and key ``j`` that depends only on the two positions is
therefore unchanged by ``g``, and softmax(scores + B) keeps the layer equivariant (the same
argument as for masks). The bias is the same for every head (a per-head bias would have to be
constant on each orbit of heads, which ``g`` permutes). Positions are integers: ``(L,)`` for
all sequences, or ``(batch, L)``; the biases are ``(L, S)`` or ``(batch, L, S)`` and go where an
additive float ``attn_mask`` goes.

* :class:`RelativePositionBias`: ``B[i, j] = w[clip(p_j - p_i, -D, D)]``, one learnt scalar
  per offset (``2 D + 1`` parameters; ``bidirectional=False`` uses ``|p_j - p_i|``, ``D + 1``).
* :class:`AbsolutePositionBias`: ``B[i, j] = <U e_{p_i}, U' e_{p_j}> / sqrt(k)`` with learnt
  position embeddings ``e_p`` (``max_len x k``) and projections ``U, U' (k x k)`` (untied
  absolute positions: the position-position term of an absolute encoding, added to the
  scores instead of to the features).

Adding a position encoding to the features would break equivariance unless it went into the
trivial component only; the biases need no such care.

>>> import torch
>>> rel = RelativePositionBias(max_distance=4)
>>> rel(torch.arange(6)).shape, rel.num_parameters
(torch.Size([6, 6]), 9)
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from .layers import _check_factory

__all__ = ["RelativePositionBias", "AbsolutePositionBias"]


def _positions(p: torch.Tensor | int, device: Any) -> torch.Tensor:
    if isinstance(p, int):
        return torch.arange(p, device=device)
    if p.dtype.is_floating_point or p.dim() not in (1, 2):
        raise ValueError(f"positions must be an integer tensor (L,) or (batch, L), got {p.dtype} {tuple(p.shape)}")
    return p


class RelativePositionBias(nn.Module):
    """``B[i, j] = w[clip(p_j - p_i, -D, D)]`` (module docstring); ``forward(positions,
    key_positions=None)`` (an int ``L`` means ``0..L-1``)."""

    def __init__(
        self, max_distance: int = 128, bidirectional: bool = True, *, dtype: torch.dtype | None = None, device: Any = None
    ) -> None:
        super().__init__()
        if int(max_distance) < 0:
            raise ValueError(f"max_distance must be >= 0, got {max_distance}")
        self.max_distance, self.bidirectional = int(max_distance), bool(bidirectional)
        size = 2 * self.max_distance + 1 if self.bidirectional else self.max_distance + 1
        self.weight = nn.Parameter(torch.zeros(size, dtype=_check_factory(dtype), device=device))

    @property
    def num_parameters(self) -> int:
        return self.weight.numel()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """Zero bias: the layer starts as without positions."""
        self.weight.zero_()

    def forward(self, positions: torch.Tensor | int, key_positions: torch.Tensor | int | None = None) -> torch.Tensor:
        q = _positions(positions, self.weight.device)
        k = q if key_positions is None else _positions(key_positions, self.weight.device)
        rel = k.unsqueeze(-2) - q.unsqueeze(-1)  # (..., L, S): p_j - p_i
        D = self.max_distance
        rel = rel.clamp(-D, D) + D if self.bidirectional else rel.abs().clamp(max=D)
        return self.weight[rel]

    def extra_repr(self) -> str:
        return f"max_distance={self.max_distance}, bidirectional={self.bidirectional}"


class AbsolutePositionBias(nn.Module):
    """``B[i, j] = <U e_{p_i}, U' e_{p_j}> / sqrt(k)`` (module docstring); positions in
    ``[0, max_len)``."""

    def __init__(self, max_len: int, dim: int = 16, *, dtype: torch.dtype | None = None, device: Any = None,
                 generator: torch.Generator | None = None) -> None:
        super().__init__()
        if int(max_len) < 1 or int(dim) < 1:
            raise ValueError(f"max_len and dim must be >= 1, got {max_len}, {dim}")
        self.max_len, self.dim = int(max_len), int(dim)
        kw = {"dtype": _check_factory(dtype), "device": device}
        self.embedding = nn.Parameter(torch.empty(self.max_len, self.dim, **kw))
        self.query = nn.Parameter(torch.empty(self.dim, self.dim, **kw))
        self.key = nn.Parameter(torch.empty(self.dim, self.dim, **kw))
        self.reset_parameters(generator=generator)

    @property
    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Embeddings ``N(0, 1)``; projections ``N(0, 1/k)``, so biases start of order 1."""
        dev = generator.device if generator is not None else torch.device("cpu")
        for p, s in ((self.embedding, 1.0), (self.query, 1 / math.sqrt(self.dim)), (self.key, 1 / math.sqrt(self.dim))):
            p.copy_(torch.randn(p.shape, generator=generator, dtype=torch.float64, device=dev) * s)

    def forward(self, positions: torch.Tensor | int, key_positions: torch.Tensor | int | None = None) -> torch.Tensor:
        q = _positions(positions, self.embedding.device)
        k = q if key_positions is None else _positions(key_positions, self.embedding.device)
        for p in (q, k):
            if p.numel() and (int(p.min()) < 0 or int(p.max()) >= self.max_len):
                raise ValueError(f"positions must lie in [0, {self.max_len}), got [{int(p.min())}, {int(p.max())}]")
        uq = self.embedding[q] @ self.query.T
        uk = self.embedding[k] @ self.key.T
        return uq @ uk.transpose(-1, -2) / math.sqrt(self.dim)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, dim={self.dim}"
