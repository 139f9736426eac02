"""The transformers compared on every task, at equal depth and feed-forward width.

* :class:`VanillaModel` — ``Linear`` embedding of each token's input, ``depth`` x
  ``nn.TransformerEncoderLayer`` (pre-norm, GELU, no dropout, ``d_model = H d``, feed-forward
  ``4 d_model``), a linear readout (per-token output, or the mean over tokens then a linear
  classifier).
* :class:`EqModel` — the same stack on ``m x regular`` features in permutation form
  (:mod:`symmetry`): an equivariant lift of each token's input, ``depth`` encoder layers
  (:func:`eqattn_layer`: eqattn's ``EquivariantTransformerEncoderLayer`` with a design's
  attention, pre-norm, GELU on ``4 m`` regular copies; or any layer, e.g. symm-learning's in
  :mod:`peer`), and an equivariant readout (per-token vectors, or invariant logits from the
  mean over tokens and G). ``d_model = |G| m`` equals the vanilla width. Neither model has a
  norm after its last (pre-norm) layer.

Equivariance: the lift maps ``u -> rho_in(g) u`` to ``h -> P(g) h``, the layers commute with
``P(g)``, the readout maps ``P(g) h`` to ``rho_out(g) y`` (or to the same invariants); so the
whole model is equivariant. tests/tasks/test_models.py checks each part and the stacks
numerically in float64.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.tasks.symmetry import TaskGroup, regular_perms

__all__ = ["Lift", "Readout", "EqModel", "VanillaModel", "regular_basis", "eqattn_attention", "eqattn_layer", "count"]


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


def regular_basis(problem, tg: TaskGroup, m: int):  # noqa: ANN001, ANN201
    """The ``BasisChange`` from the design's block coordinates of ``m x regular`` to the
    permutation form of :func:`symmetry.regular_perms` (exact element correspondence)."""
    from eqattn.numeric.basis import basis_from_elements

    return basis_from_elements(tg.G, problem.rho, regular_perms(tg.G, m))


def eqattn_attention(design, tg: TaskGroup, m: int) -> nn.Module:  # noqa: ANN001
    """``EquivariantAttention`` of ``design`` acting on the permutation-form features."""
    from eqattn.torch import EquivariantAttention

    return EquivariantAttention.from_design(design, basis=regular_basis(design.problem, tg, m), dtype=torch.get_default_dtype())


def eqattn_layer(design, tg: TaskGroup, m: int, ff_mult: int = 4) -> nn.Module:  # noqa: ANN001
    """eqattn's ``EquivariantTransformerEncoderLayer`` with ``design`` as its attention and the
    vanilla layer's settings (pre-norm, GELU, no dropout, batch first, feed-forward of
    ``ff_mult * m`` regular copies = width ``4 d_model``), on the permutation-form features."""
    from eqattn.torch import EquivariantTransformerEncoderLayer

    return EquivariantTransformerEncoderLayer(
        design.problem.V, design, dim_feedforward=ff_mult * m, dropout=0.0, activation="gelu", batch_first=True,
        norm_first=True, basis=regular_basis(design.problem, tg, m), dtype=torch.get_default_dtype())


class EqModel(nn.Module):
    """Lift -> ``depth`` encoder layers -> readout. ``make_block(i)`` builds layer ``i`` acting
    on ``(batch, tokens, |G| m)``; ``out`` is ``"tokens"`` (per-token ``rho_out`` vectors) or
    an int (that many invariant logits from the mean over tokens and G)."""

    def __init__(self, tg: TaskGroup, m: int, depth: int, make_block: Callable[[int], nn.Module], out: str | int) -> None:
        super().__init__()
        self.lift = Lift(tg.rho_in, m)
        self.layers = nn.ModuleList(make_block(i) for i in range(depth))
        self.out = out
        self.n, self.m = tg.order, m
        self.head = Readout(tg.rho_out, m) if out == "tokens" else nn.Linear(m, int(out))

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        h = self.lift(u)
        for layer in self.layers:
            h = layer(h)
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
        self.out = out
        self.head = nn.Linear(d_model, b if out == "tokens" else int(out))

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        h = self.embed(u)
        for layer in self.layers:
            h = layer(h)
        return self.head(h) if self.out == "tokens" else self.head(h.mean(dim=1))

    def attention_modules(self) -> list[nn.Module]:
        return [layer.self_attn for layer in self.layers]
