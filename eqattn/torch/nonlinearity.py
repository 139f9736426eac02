"""Equivariant nonlinearities: gates from invariant scalars, and pointwise maps on permutation
representations (SPEC §0).

* :class:`EquivariantGate` (as e3nn's ``Gate``): the input is ``V + k x trivial``, one gate
  scalar for each of the ``k`` non-trivial irreducible copies of V. Scalars (the trivial
  component of V) go through ``activation``; each non-trivial copy is multiplied by
  ``gate(its scalar)``. Invariant scalars times a copy commute with G, so the map is
  equivariant for every choice of the two functions.
* :class:`PointwiseNonlinearity`: on a permutation representation ``perm:K`` (G permuting the
  cosets G/K; ``K = 1`` is the regular representation) any function applied coordinate by
  coordinate commutes with the permutation matrices. The module holds ``copies x perm:K`` in
  eqattn's coordinates, changes each copy to the permutation basis (``Q`` from
  :func:`eqattn.numeric.basis.basis_from_elements`; ``rho_perm(g) = Q rho(g) Q^T``), applies
  ``activation`` and changes back. ``rep`` is the representation it acts on.

Neither has parameters.

>>> import eqattn, torch
>>> G = eqattn.group("C4")
>>> act = PointwiseNonlinearity(G, copies=2)
>>> str(act.rep), tuple(act(torch.randn(5, 8)).shape)
('2xA + 2xB + 2xE1', (5, 8))
>>> gate = EquivariantGate(eqattn.rep(G, "A + 2xE1"))
>>> str(gate.in_rep)     # two gates for the two E1 copies
'3xA + 2xE1'
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from eqattn.groups import FiniteGroup
from eqattn.numeric.basis import basis_from_elements
from eqattn.reps import Rep, decompose

from .components import SharesGroupData, as_rep, components
from .exact import ExactBuffers
from .interop import coordinates
from .layers import _check_factory

__all__ = ["EquivariantGate", "PointwiseNonlinearity", "activation_function", "permutation_matrices"]

_ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "relu": F.relu,
    "gelu": F.gelu,
    "silu": F.silu,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "identity": lambda x: x,
}


def activation_function(activation: str | Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
    """``"relu"``, ``"gelu"``, ``"silu"``, ``"tanh"``, ``"sigmoid"``, ``"identity"`` or a callable
    (as ``nn.TransformerEncoderLayer``'s ``activation``)."""
    if callable(activation):
        return activation
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation must be a callable or one of {sorted(_ACTIVATIONS)}, got {activation!r}")
    return _ACTIVATIONS[activation]


def _name(fn: Any) -> str:
    return fn if isinstance(fn, str) else getattr(fn, "__name__", type(fn).__name__)


class EquivariantGate(SharesGroupData, nn.Module):
    """Gated nonlinearity with invariant gates (module docstring): ``in_rep = V + k x trivial``
    -> ``V``. The ``k`` gate scalars are the LAST ``k`` copies of ``in_rep``'s trivial
    component (its first ``m_1(V)`` copies are V's own scalars), one per non-trivial copy of V
    in coordinate order. It acts in eqattn's coordinates (inside a block, between two
    :class:`~eqattn.torch.linear.EquivariantLinear`)."""

    def __init__(
        self,
        V: Rep,
        activation: str | Callable[[torch.Tensor], torch.Tensor] = "silu",
        gate: str | Callable[[torch.Tensor], torch.Tensor] = "sigmoid",
        *,
        device: Any = None,
    ) -> None:
        super().__init__()
        self.rep = as_rep(V, "V")
        self.activation, self.gate = activation_function(activation), activation_function(gate)
        self._names = (_name(activation), _name(gate))
        comps = components(self.rep, all_irreps=True)
        triv = next(c for c in comps if c.trivial)
        self.num_gates = sum(c.mult for c in comps if not c.trivial)
        mults = list(self.rep.mults)
        mults[triv.irrep] += self.num_gates
        self.in_rep = Rep(self.rep.sub, tuple(mults))
        keep, gate_pos, gate_of, scalar = [], [], [], []
        pos, g = 0, 0  # position in in_rep, next gate number
        for c in comps:
            if c.trivial:
                keep += range(pos, pos + c.mult)
                gate_pos += range(pos + c.mult, pos + c.mult + self.num_gates)
                gate_of += [0] * c.mult
                scalar += [1.0] * c.mult
                pos += c.mult + self.num_gates
            else:
                keep += range(pos, pos + c.size)
                gate_of += [g + i for i in range(c.mult) for _ in range(c.dim)]
                scalar += [0.0] * c.size
                g += c.mult
                pos += c.size
        self.register_buffer("keep", torch.tensor(keep, dtype=torch.long, device=device), persistent=False)
        self.register_buffer("gate_pos", torch.tensor(gate_pos, dtype=torch.long, device=device), persistent=False)
        self.register_buffer("gate_of", torch.tensor(gate_of, dtype=torch.long, device=device), persistent=False)
        self.register_buffer("scalar", torch.tensor(scalar, dtype=torch.bool, device=device), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.in_rep.dim:
            raise ValueError(f"expected {self.in_rep.dim} features (V + {self.num_gates} gates), got {tuple(x.shape)}")
        v = x.index_select(-1, self.keep)
        scal = self.activation(v)
        if self.num_gates == 0:
            return scal
        gates = self.gate(x.index_select(-1, self.gate_pos)).index_select(-1, self.gate_of)
        return torch.where(self.scalar, scal, v * gates)

    def extra_repr(self) -> str:
        return f"V='{self.rep}', gates={self.num_gates}, activation={self._names[0]}, gate={self._names[1]}"


def permutation_matrices(G: FiniteGroup, subgroup: Any = None) -> np.ndarray:
    """``(|G|, [G:K], [G:K])`` permutation matrices of G acting on the left cosets ``a K``
    (``P(g) e_{aK} = e_{gaK}``); ``subgroup`` a class name or id of G's lattice, None for the
    trivial subgroup (the regular representation)."""
    K = G.subgroup_classes[0] if subgroup is None else G.lattice.resolve(subgroup, field="subgroup")
    reps = G.left_transversal(K.elements)
    coset_of = np.empty(G.order, dtype=np.int64)
    for i, a in enumerate(reps):
        coset_of[G.table[a, K.elements]] = i
    r = len(reps)
    P = np.zeros((G.order, r, r))
    for g in range(G.order):
        P[g, coset_of[G.table[g, reps]], np.arange(r)] = 1.0
    return P


class PointwiseNonlinearity(SharesGroupData, ExactBuffers):
    """``activation`` coordinate by coordinate in the permutation basis of ``copies x perm:K``
    (module docstring). Input and output: ``rep`` in eqattn's coordinates (or in your basis of
    it with ``basis=``)."""

    def __init__(
        self,
        group: FiniteGroup,
        copies: int = 1,
        subgroup: Any = None,
        activation: str | Callable[[torch.Tensor], torch.Tensor] = "relu",
        *,
        basis: Any = None,
        dtype: torch.dtype | None = None,
        device: Any = None,
    ) -> None:
        super().__init__()
        dtype = _check_factory(dtype)
        if not isinstance(group, FiniteGroup):
            raise TypeError(f"group must be an eqattn group (eqattn.group(name)), got {type(group).__name__}")
        if int(copies) < 1:
            raise ValueError(f"copies must be at least 1, got {copies}")
        self.copies = int(copies)
        self.activation = activation_function(activation)
        self._name = _name(activation)
        P = permutation_matrices(group, subgroup)
        top = group.subgroup_classes[-1]
        one = decompose(top, np.trace(P, axis1=1, axis2=2))
        self.rep = Rep(top, tuple(self.copies * m for m in one.mults))
        self.subgroup = "1" if subgroup is None else str(subgroup)
        change = basis_from_elements(group, one.matrices(), P)
        r = one.dim
        idx = np.empty((self.copies, r), dtype=np.int64)
        total = {c.irrep: c for c in components(self.rep)}
        for c in components(one):
            t = total[c.irrep]
            for j in range(self.copies):
                for i in range(c.mult):
                    src = c.start + i * c.dim
                    dst = t.start + (j * c.mult + i) * c.dim
                    idx[j, src : src + c.dim] = np.arange(dst, dst + c.dim)
        flat = idx.reshape(-1)
        self.block = r
        self.register_buffer("gather", torch.tensor(flat, dtype=torch.long, device=device), persistent=False)
        self.register_buffer("scatter", torch.tensor(np.argsort(flat), dtype=torch.long, device=device), persistent=False)
        self.register_exact("Q", change.Q, dtype, device)
        self.coords = coordinates(self.rep, basis, dtype=dtype, device=device)

    def forward(self, x: Any) -> Any:
        like = x
        x = self.coords.inward(x)
        lead = x.shape[:-1]
        u = x.index_select(-1, self.gather).reshape(*lead, self.copies, self.block) @ self.Q_w.T
        y = (self.activation(u) @ self.Q_w).reshape(*lead, self.copies * self.block)
        return self.coords.outward(y.index_select(-1, self.scatter), like)

    def permutation_rows(self, W: torch.Tensor) -> torch.Tensor:
        """``W (dim rep, k)``, a map INTO ``rep`` (eqattn's coordinates), as the map into the
        permutation basis: ``P W`` with ``P`` the change of basis used by :meth:`forward`
        (per copy ``Q W[copy]``; ``(dim rep, k)``, cost ``dim rep * [G:K] * k``). A vector
        (a bias) is a ``(dim rep,)`` W."""
        vec = W.dim() == 1
        W = W.unsqueeze(-1) if vec else W
        Wp = (self.Q_w @ W.index_select(0, self.gather).reshape(self.copies, self.block, -1)).reshape(self.rep.dim, -1)
        return Wp.squeeze(-1) if vec else Wp

    def permutation_columns(self, W: torch.Tensor) -> torch.Tensor:
        """``W (k, dim rep)``, a map OUT OF ``rep``, as the map out of the permutation basis:
        ``W P^T`` (``(k, dim rep)``)."""
        k = W.shape[0]
        return (W.index_select(1, self.gather).reshape(k, self.copies, self.block) @ self.Q_w.T).reshape(k, -1)

    def extra_repr(self) -> str:
        return f"rep='{self.rep}', copies={self.copies}, subgroup={self.subgroup!r}, activation={self._name}"
