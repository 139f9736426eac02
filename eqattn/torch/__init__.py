"""PyTorch layers for G-equivariant multi-head attention (SPEC §1, §3).

This subpackage needs ``torch`` and is only imported explicitly::

    import eqattn.torch as eqt
    layer = eqt.EquivariantAttention.from_design(design)   # design: eqattn.Design (carries its problem)

``import eqattn`` (and every other layer of the package) works without torch.

* :class:`EquivariantAttention` — the equivariant layer of a design. Its trainable
  parameters are exactly the free coordinates of the design (``4 * sum_i dim Hom_{K_i}(V, W_i)``);
  the Hom bases are buffers.
* :class:`EquivariantMultiheadAttention` — a drop-in for ``torch.nn.MultiheadAttention``
  (its call, masks, dropout, cross-attention, the biases equivariance allows).
* :mod:`eqattn.torch.interop` — escnn / e3nn representations as ``(group, rep, basis change)``;
  ``from_design(design, basis=change)`` or ``rep_matrices=[...]`` puts the layer in your basis.
* :class:`VanillaAttention` — the unconstrained layer of SPEC §1 with the same conventions.
* :func:`realize_from_matrices` — build a realisation from explicit orthogonal matrices
  (groups or representations outside the catalog; also used by the tests).
* The rest of a transformer block, each equivariant by construction (docs/site/transformer.md):
  :class:`EquivariantLinear`, :class:`EquivariantLayerNorm`, :class:`EquivariantRMSNorm`,
  :class:`EquivariantGate`, :class:`PointwiseNonlinearity`, :class:`EquivariantDropout`,
  :class:`InvariantPooling`, :class:`RelativePositionBias`, :class:`AbsolutePositionBias`,
  :class:`EquivariantTransformerEncoderLayer`, :class:`EquivariantTransformerEncoder`.

See :mod:`eqattn.torch.layers` for the tensor conventions, masks, dtypes and
``torch.compile`` support.
"""

from __future__ import annotations

try:
    import torch as _torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without torch
    raise ImportError(
        "eqattn.torch needs PyTorch: pip install 'eqattn[torch]' (or pip install torch)"
    ) from exc

from .dropout import EquivariantDropout
from .encoder import EquivariantTransformerEncoder, EquivariantTransformerEncoderLayer
from .layers import EquivariantAttention, VanillaAttention
from .linear import EquivariantLinear
from .manual import realize_from_matrices
from .multihead import EquivariantMultiheadAttention
from .nonlinearity import EquivariantGate, PointwiseNonlinearity
from .norm import EquivariantLayerNorm, EquivariantRMSNorm
from .pooling import InvariantPooling
from .positional import AbsolutePositionBias, RelativePositionBias

__all__ = [
    "EquivariantAttention",
    "EquivariantMultiheadAttention",
    "VanillaAttention",
    "realize_from_matrices",
    # the rest of a transformer block
    "EquivariantLinear",
    "EquivariantLayerNorm",
    "EquivariantRMSNorm",
    "EquivariantGate",
    "PointwiseNonlinearity",
    "EquivariantDropout",
    "InvariantPooling",
    "RelativePositionBias",
    "AbsolutePositionBias",
    "EquivariantTransformerEncoderLayer",
    "EquivariantTransformerEncoder",
]
