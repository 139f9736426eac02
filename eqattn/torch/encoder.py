"""The equivariant transformer encoder: ``nn.TransformerEncoderLayer`` / ``nn.TransformerEncoder``
with every piece G-equivariant (SPEC §1, §3).

``EquivariantTransformerEncoderLayer`` has ``nn.TransformerEncoderLayer``'s signature and
structure (``self_attn``, ``linear1``, ``dropout``, ``linear2``, ``norm1``, ``norm2``,
``dropout1``, ``dropout2``; post-norm by default, ``norm_first=True`` for pre-norm)::

    x = norm1(x + dropout1(self_attn(x, x, x, masks)))        # norm_first=False
    x = norm2(x + dropout2(linear2(dropout(act(linear1(x))))))

with

* ``d_model`` a representation V (``eqattn.rep(G, "2xregular")``);
* ``nhead`` a design (``eqattn.Design``, e.g. from ``eqattn.optimal_design``), or a head count
  ``H``: then the optimiser finds the fewest-parameter covering design for ``(G, V, H, d)``
  with ``d = head_dim`` (default ``dim V // H``) within ``time_limit`` seconds (``design`` and
  ``design_status``: ``"optimal"`` when proven, ``"feasible"`` when the limit stopped the proof);
  ``self_attn`` is an :class:`~eqattn.torch.multihead.EquivariantMultiheadAttention`;
* ``dim_feedforward`` a count ``c`` of regular copies (default ``ceil(4 dim V / |G|)``): the
  hidden representation is ``c x regular`` and ``activation`` acts pointwise in its
  permutation basis (:class:`~eqattn.torch.nonlinearity.PointwiseNonlinearity`); or a
  representation ``U`` (a ``Rep`` or its text, ``"2xA1 + 3xE1"``): ``linear1`` maps to ``U`` plus one invariant gate per non-trivial copy
  and :class:`~eqattn.torch.nonlinearity.EquivariantGate` applies ``activation`` to U's
  scalars and the gates to its other copies. With regular copies ``linear1`` and ``linear2``
  are applied in the permutation basis (their weights moved there once per call), so the
  feed-forward costs two GEMMs per token like a vanilla one, and its dropout drops whole
  regular copies (which G permutes within themselves);
* ``linear1``, ``linear2``: :class:`~eqattn.torch.linear.EquivariantLinear`; ``norm1``,
  ``norm2``: :class:`~eqattn.torch.norm.EquivariantLayerNorm` (``norm="rms"``:
  :class:`~eqattn.torch.norm.EquivariantRMSNorm`); the dropouts drop whole irreducible copies
  (:class:`~eqattn.torch.dropout.EquivariantDropout`), attention dropout is the attention's;
* masks as in ``nn.TransformerEncoderLayer`` (``src_mask`` bool True = not allowed, or float;
  ``src_key_padding_mask``; ``is_causal``), and ``positional``: a module giving additive
  attention biases from token positions (:mod:`~eqattn.torch.positional`; G never acts on
  positions, so these keep equivariance), called with ``positions`` (default ``0..L-1``);
* ``basis``: your coordinates of V (a ``BasisChange`` from :mod:`eqattn.torch.interop`, or an
  escnn ``FieldType``: a ``GeometricTensor`` ``(tokens, dim V)`` then comes back as one).

Equivariance: ``layer(x rho(g)^T) = layer(x) rho(g)^T`` for every mask and position bias, in
eval mode, and in training mode for the same random state.

>>> import eqattn, torch
>>> G = eqattn.group("C4"); V = eqattn.rep(G, "2xregular")
>>> layer = EquivariantTransformerEncoderLayer(V, 2, head_dim=2, dim_feedforward=2, batch_first=True)
>>> enc = EquivariantTransformerEncoder(layer, num_layers=2)
>>> tuple(enc(torch.randn(3, 5, 8)).shape)
(3, 5, 8)
"""

from __future__ import annotations

import copy
import math
from typing import Any, Callable

import torch
import torch.nn.functional as F
from torch import nn

from eqattn.errors import whole_number
from eqattn.reps import Rep, parse_rep

from .components import SharesGroupData, as_rep
from .dropout import EquivariantDropout
from .interop import coordinates
from .linear import EquivariantLinear
from .masks import additive
from .multihead import EquivariantMultiheadAttention
from .nonlinearity import EquivariantGate, PointwiseNonlinearity
from .norm import EquivariantLayerNorm, EquivariantRMSNorm

__all__ = ["EquivariantTransformerEncoderLayer", "EquivariantTransformerEncoder"]

NORMS = {"layer": EquivariantLayerNorm, "rms": EquivariantRMSNorm}


def _design(V: Rep, nhead: Any, head_dim: int | None, time_limit: float | None) -> tuple[Any, str]:
    """The attention design and where it came from: ``(nhead, "given")``, or the optimiser's for
    ``(G, V, nhead, head_dim)`` with its status (``"optimal"`` when proven, ``"feasible"``
    when the time limit stopped the proof)."""
    if hasattr(nhead, "problem") and hasattr(nhead, "orbits"):
        p = nhead.problem
        if p.group.name != V.sub.group.name or tuple(p.V.mults) != tuple(V.mults):
            raise ValueError(f"the design is for {p.group.name} on {p.V}; d_model is {V.sub.group.name} on {V}")
        return nhead, "given"
    nhead = whole_number(nhead, "nhead")
    from eqattn.attention import Problem
    from eqattn.optimize import optimize

    d = int(head_dim) if head_dim is not None else max(1, V.dim // nhead)
    result = optimize(Problem(V.sub.group, V, int(nhead), d), time_limit, constrained=False)
    return result.design, str(result.status)


class EquivariantTransformerEncoderLayer(SharesGroupData, nn.Module):
    """``nn.TransformerEncoderLayer`` on a representation V (module docstring)."""

    def __init__(
        self,
        d_model: Rep,
        nhead: Any,
        dim_feedforward: int | Rep | str | None = None,
        dropout: float = 0.1,
        activation: str | Callable[[torch.Tensor], torch.Tensor] = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: torch.dtype | None = None,
        *,
        head_dim: int | None = None,
        norm: str = "layer",
        positional: nn.Module | None = None,
        basis: Any = None,
        time_limit: float | None = 30.0,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        V = as_rep(d_model, "d_model")
        G = V.sub.group
        if norm not in NORMS:
            raise ValueError(f"norm must be one of {sorted(NORMS)}, got {norm!r}")
        kw = {"dtype": dtype, "device": device}
        self.rep, self.batch_first, self.norm_first = V, bool(batch_first), bool(norm_first)
        #: the attention design, and "given" / the optimiser's status ("optimal": proven fewest parameters)
        self.design, self.design_status = _design(V, nhead, head_dim, time_limit)
        self.self_attn = EquivariantMultiheadAttention(
            self.design, dropout=dropout, bias=bias, batch_first=batch_first, generator=generator, **kw
        )
        if isinstance(dim_feedforward, str):  # the rep notation, e.g. "4xregular + 8xE1"
            dim_feedforward = parse_rep(dim_feedforward, V.sub, field="dim_feedforward")
        if isinstance(dim_feedforward, Rep):
            hidden = dim_feedforward
            self.activation: nn.Module = EquivariantGate(hidden, activation, device=device)
            inner = self.activation.in_rep
        else:
            copies = dim_feedforward if dim_feedforward is not None else math.ceil(4 * V.dim / G.order)
            copies = whole_number(copies, "dim_feedforward")
            self.activation = PointwiseNonlinearity(G, copies, activation=activation, **kw)
            hidden = inner = self.activation.rep
        self.hidden_rep = hidden
        self.linear1 = EquivariantLinear(V, inner, bias=bias, generator=generator, **kw)
        self.dropout = EquivariantDropout(hidden, dropout, device=device)
        self.linear2 = EquivariantLinear(hidden, V, bias=bias, generator=generator, **kw)
        norm_kw = {"bias": bias} if norm == "layer" else {}
        self.norm1 = NORMS[norm](V, layer_norm_eps, **norm_kw, **kw)
        self.norm2 = NORMS[norm](V, layer_norm_eps, **norm_kw, **kw)
        self.dropout1 = EquivariantDropout(V, dropout, device=device)
        self.dropout2 = EquivariantDropout(V, dropout, device=device)
        self.positional = positional
        self.coords = coordinates(V, basis, **kw)

    @property
    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Re-draw every submodule's parameters (attention, linears; norms to 1 and 0)."""
        attn = self.self_attn
        if hasattr(attn, "reset_parameters"):
            attn.reset_parameters()
        else:  # the attention's weights as EquivariantAttention draws them, zero biases
            attn.core.reset_parameters(generator=generator)
            with torch.no_grad():
                for b in (attn.bias_qkv, attn.bias_out):
                    if b is not None:
                        b.zero_()
        self.linear1.reset_parameters(generator=generator)
        self.linear2.reset_parameters(generator=generator)
        self.norm1.reset_parameters()
        self.norm2.reset_parameters()
        if self.positional is not None and hasattr(self.positional, "reset_parameters"):
            self.positional.reset_parameters()

    def forward(
        self,
        src: Any,
        src_mask: torch.Tensor | None = None,
        src_key_padding_mask: torch.Tensor | None = None,
        is_causal: bool = False,
        positions: torch.Tensor | None = None,
    ) -> Any:
        x = self.coords.inward(src)
        mask, causal = self.attention_mask(x, src_mask, is_causal, positions, self.positional)
        return self.coords.outward(self.block(x, mask, src_key_padding_mask, causal), src)

    def attention_mask(
        self, x: torch.Tensor, src_mask: torch.Tensor | None, is_causal: bool, positions: Any, positional: nn.Module | None
    ) -> tuple[torch.Tensor | None, bool]:
        """``src_mask`` with the positional bias added (``(L, L)`` or ``(N * heads, L, L)``)."""
        if positional is None:
            return src_mask, bool(is_causal)
        batched = x.dim() == 3
        L = x.shape[1] if batched and self.batch_first else x.shape[0]
        N = (x.shape[0] if self.batch_first else x.shape[1]) if batched else 1
        bias = positional(positions if positions is not None else L).to(x.dtype)
        if src_mask is None and is_causal:
            src_mask = torch.ones(L, L, dtype=torch.bool, device=x.device).triu(1)
        H = self.self_attn.num_heads
        if bias.dim() == 3:
            bias = bias[:, None].expand(bias.shape[0], H, L, L).reshape(-1, L, L)
        if src_mask is not None:
            m = additive(src_mask, x.dtype, src_mask.device)
            if m.dim() == 3 and bias.dim() == 2:
                bias = bias.expand(m.shape[0], L, L)
            bias = bias + m
        if bias.dim() == 3 and bias.shape[0] != N * H:
            raise ValueError(f"positions for {bias.shape[0] // H} sequences, the batch has {N}")
        return bias, False

    def block(self, x: torch.Tensor, mask: Any, key_padding_mask: Any, is_causal: bool) -> torch.Tensor:
        """The layer in eqattn's coordinates, ``mask`` already combined."""
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), mask, key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, mask, key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x: torch.Tensor, mask: Any, key_padding_mask: Any, is_causal: bool) -> torch.Tensor:
        out = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=key_padding_mask, need_weights=False,
                             is_causal=is_causal)[0]
        return self.dropout1(out)

    def _ff_block(self, x: torch.Tensor) -> torch.Tensor:
        act = self.activation
        if isinstance(act, PointwiseNonlinearity):
            # linear2(act(linear1(x))) with the weights moved into the permutation basis once per
            # call: two GEMMs and the activation per token, as in a vanilla FFN
            w1 = act.permutation_rows(self.linear1.weight)
            b1 = self.linear1.bias_vector()
            u = act.activation(F.linear(x, w1, act.permutation_rows(b1) if b1 is not None else None))
            if self.training and self.dropout.p > 0:  # whole regular copies: permuted within themselves
                keep = torch.rand(*u.shape[:-1], act.copies, 1, dtype=u.dtype, device=u.device) >= self.dropout.p
                u = (u.unflatten(-1, (act.copies, act.block)) * keep / (1.0 - self.dropout.p)).flatten(-2)
            y = F.linear(u, act.permutation_columns(self.linear2.weight), self.linear2.bias_vector())
            return self.dropout2(y)
        return self.dropout2(self.linear2(self.dropout(act(self.linear1(x)))))

    def extra_repr(self) -> str:
        return (
            f"d_model='{self.rep}', nhead={self.self_attn.num_heads}, head_dim={self.self_attn.head_dim}, "
            f"dim_feedforward='{self.hidden_rep}', batch_first={self.batch_first}, norm_first={self.norm_first}, "
            f"params={self.num_parameters}"
        )


class EquivariantTransformerEncoder(SharesGroupData, nn.Module):
    """``nn.TransformerEncoder``: ``num_layers`` copies of ``encoder_layer`` (deep copies, as
    there: they start with the same weights; call :meth:`reset_parameters` for independent
    draws), then ``norm`` (an equivariant norm of V in eqattn's coordinates, or None).
    ``positional`` (optional) is ONE bias module shared by all layers, added to each layer's
    own. The input and output are in the layer's coordinates (its ``basis``), converted once."""

    def __init__(
        self,
        encoder_layer: EquivariantTransformerEncoderLayer,
        num_layers: int,
        norm: nn.Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
        *,
        positional: nn.Module | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(encoder_layer, EquivariantTransformerEncoderLayer):
            raise TypeError(f"encoder_layer must be an EquivariantTransformerEncoderLayer, got {type(encoder_layer).__name__}")
        num_layers = whole_number(num_layers, "num_layers")
        if norm is not None and getattr(getattr(norm, "coords", None), "active", False):
            raise ValueError("the final norm acts in eqattn's coordinates inside the stack: build it without basis=")
        self.layers = nn.ModuleList(copy.deepcopy(encoder_layer) for _ in range(num_layers))
        self.num_layers, self.norm, self.positional = num_layers, norm, positional
        self.coords = copy.deepcopy(encoder_layer.coords)
        self.rep = encoder_layer.rep

    @property
    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Independent draws for every layer (and the final norm to 1 and 0)."""
        for layer in self.layers:
            layer.reset_parameters(generator=generator)
        if self.norm is not None and hasattr(self.norm, "reset_parameters"):
            self.norm.reset_parameters()
        if self.positional is not None and hasattr(self.positional, "reset_parameters"):
            self.positional.reset_parameters()

    def forward(
        self,
        src: Any,
        mask: torch.Tensor | None = None,
        src_key_padding_mask: torch.Tensor | None = None,
        is_causal: bool | None = None,
        positions: torch.Tensor | None = None,
    ) -> Any:
        x = self.coords.inward(src)
        first = self.layers[0]
        shared, causal = first.attention_mask(x, mask, bool(is_causal), positions, self.positional)
        for layer in self.layers:
            m, c = layer.attention_mask(x, shared, causal, positions, layer.positional)
            x = layer.block(x, m, src_key_padding_mask, c)
        if self.norm is not None:
            x = self.norm(x)
        return self.coords.outward(x, src)

    def extra_repr(self) -> str:
        return f"num_layers={self.num_layers}, d_model='{self.rep}', params={self.num_parameters}"
