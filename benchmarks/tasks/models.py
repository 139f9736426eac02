"""The transformers compared on every task, at equal depth and feed-forward width.

* :class:`VanillaModel` — ``Linear`` embedding of each token's input, ``depth`` x
  ``nn.TransformerEncoderLayer`` (pre-norm, GELU, no dropout, ``d_model = H d``), a linear
  readout (per-token output, or the mean over tokens then a linear classifier).
* :class:`EqModel` — the same stack built from G-equivariant parts on ``m x regular``
  features in permutation form (:mod:`symmetry`): lift, pre-norm encoder layers whose
  attention is ``eqattn.torch.EquivariantAttention`` of a design (or any module given by
  ``attention``, e.g. symm-learning's), group-convolution feed-forward with a pointwise GELU
  (pointwise maps commute with permutations), a layer norm with per-channel gains, and an
  equivariant readout. ``d_model = |G| m`` equals the vanilla width.

Equivariance: every part maps ``x -> rho_in(g) x`` on inputs to ``P(g) h`` on features and
``P(g) h`` to ``rho_out(g) y`` (or to the same invariants), so the whole model does;
tests/tasks/test_models.py checks each part and the stack numerically in float64.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.tasks.symmetry import TaskGroup, regular_perms

__all__ = ["Lift", "GroupConv", "RegularLayerNorm", "Readout", "EqEncoderLayer", "EqModel", "VanillaModel",
           "eqattn_attention", "count"]


def count(module: nn.Module) -> int:
    """Trainable parameters of ``module``."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


class Lift(nn.Module):
    """``U -> m x regular``: ``h[k, c] = (W rho_in(g_k)^T u)[c] + b[c]`` (one weight ``(m, a)``)."""

    def __init__(self, rho_in: np.ndarray, m: int) -> None:
        super().__init__()
        n, a, _ = rho_in.shape
        self.register_buffer("rinv", torch.as_tensor(rho_in.transpose(0, 2, 1).copy(), dtype=torch.get_default_dtype()))
        self.weight = nn.Parameter(torch.randn(m, a) / math.sqrt(a))
        self.bias = nn.Parameter(torch.zeros(m))
        self.n, self.m = n, m

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        w = torch.einsum("ci,kij->kcj", self.weight, self.rinv).reshape(self.n * self.m, -1)
        return F.linear(u, w, self.bias.repeat(self.n))


class GroupConv(nn.Module):
    """``m_in x regular -> m_out x regular``: ``h'[k] = sum_j W[g_k^{-1} g_j] h[j] + b``."""

    def __init__(self, tg: TaskGroup, m_in: int, m_out: int) -> None:
        super().__init__()
        n = tg.order
        idx = tg.table[tg.inv][:, :]  # idx[k, j] = g_k^{-1} g_j
        self.register_buffer("idx", torch.as_tensor(idx, dtype=torch.long), persistent=False)
        self.weight = nn.Parameter(torch.randn(n, m_out, m_in) / math.sqrt(n * m_in))
        self.bias = nn.Parameter(torch.zeros(m_out))
        self.n, self.m_in, self.m_out = n, m_in, m_out

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        w = self.weight[self.idx].permute(0, 2, 1, 3).reshape(self.n * self.m_out, self.n * self.m_in)
        return F.linear(h, w, self.bias.repeat(self.n))


class RegularLayerNorm(nn.Module):
    """Layer norm over all ``|G| m`` features; gain and bias per channel, shared over G."""

    def __init__(self, n: int, m: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.n, self.eps = n, eps
        self.weight = nn.Parameter(torch.ones(m))
        self.bias = nn.Parameter(torch.zeros(m))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(h, h.shape[-1:], self.weight.repeat(self.n), self.bias.repeat(self.n), self.eps)


class Readout(nn.Module):
    """``m x regular -> U'``: ``y = (1/|G|) sum_k rho_out(g_k) A h[k]`` (``A`` of shape ``(b, m)``)."""

    def __init__(self, rho_out: np.ndarray, m: int) -> None:
        super().__init__()
        n, b, _ = rho_out.shape
        self.register_buffer("rho", torch.as_tensor(rho_out, dtype=torch.get_default_dtype()))
        self.weight = nn.Parameter(torch.randn(b, m) / math.sqrt(m))
        self.n, self.m = n, m

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        w = torch.einsum("kij,jc->ikc", self.rho, self.weight).reshape(self.rho.shape[1], self.n * self.m) / self.n
        return F.linear(h, w)


def eqattn_attention(design, tg: TaskGroup, m: int) -> nn.Module:  # noqa: ANN001
    """``EquivariantAttention`` of ``design`` acting on the permutation-form features of
    :func:`symmetry.regular_perms` (exact element correspondence: ``basis_from_elements``)."""
    from eqattn.numeric.basis import basis_from_elements
    from eqattn.torch import EquivariantAttention

    change = basis_from_elements(tg.G, design.problem.rho, regular_perms(tg.G, m))
    return EquivariantAttention.from_design(design, basis=change, dtype=torch.get_default_dtype())


class EqEncoderLayer(nn.Module):
    """Pre-norm encoder layer: ``x + attn(norm(x))``, then ``x + ff(norm(x))`` with a group
    convolution feed-forward of ``ff_mult * m`` regular copies and GELU."""

    def __init__(self, tg: TaskGroup, m: int, attention: nn.Module, ff_mult: int = 4) -> None:
        super().__init__()
        self.norm1 = RegularLayerNorm(tg.order, m)
        self.norm2 = RegularLayerNorm(tg.order, m)
        self.self_attn = attention
        self.ff1 = GroupConv(tg, m, ff_mult * m)
        self.ff2 = GroupConv(tg, ff_mult * m, m)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(self.norm1(x))
        return x + self.ff2(F.gelu(self.ff1(self.norm2(x))))


class EqModel(nn.Module):
    """Lift -> ``depth`` encoder layers -> readout. ``make_block(i)`` builds layer ``i`` acting
    on ``(batch, tokens, |G| m)``; ``out`` is ``"tokens"`` (per-token ``rho_out`` vectors) or
    an int (that many invariant logits from the mean over tokens and G)."""

    def __init__(self, tg: TaskGroup, m: int, depth: int, make_block: Callable[[int], nn.Module], out: str | int) -> None:
        super().__init__()
        self.lift = Lift(tg.rho_in, m)
        self.layers = nn.ModuleList(make_block(i) for i in range(depth))
        self.norm = RegularLayerNorm(tg.order, m)
        self.out = out
        self.n, self.m = tg.order, m
        self.head = Readout(tg.rho_out, m) if out == "tokens" else nn.Linear(m, int(out))

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        h = self.lift(u)
        for layer in self.layers:
            h = layer(h)
        h = self.norm(h)
        if self.out == "tokens":
            return self.head(h)
        return self.head(h.mean(dim=1).view(h.shape[0], self.n, self.m).mean(dim=1))

    def attention_modules(self) -> list[nn.Module]:
        return [layer.self_attn for layer in self.layers]


class VanillaModel(nn.Module):
    """``Linear(a, H d)`` -> ``depth`` x ``nn.TransformerEncoderLayer`` -> readout."""

    def __init__(self, a: int, heads: int, head_dim: int, depth: int, out: str | int, b: int = 0, ff_mult: int = 4) -> None:
        super().__init__()
        d_model = heads * head_dim
        self.embed = nn.Linear(a, d_model)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, heads, ff_mult * d_model, dropout=0.0, activation="gelu",
                                       batch_first=True, norm_first=True)
            for _ in range(depth)
        )
        self.norm = nn.LayerNorm(d_model)
        self.out = out
        self.head = nn.Linear(d_model, b if out == "tokens" else int(out))

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        h = self.embed(u)
        for layer in self.layers:
            h = layer(h)
        h = self.norm(h)
        return self.head(h) if self.out == "tokens" else self.head(h.mean(dim=1))

    def attention_modules(self) -> list[nn.Module]:
        return [layer.self_attn for layer in self.layers]
