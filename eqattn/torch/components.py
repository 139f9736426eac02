"""The isotypic layout of a representation in eqattn's coordinates (SPEC §0, §2).

eqattn writes ``V = sum_tau m_tau tau`` block-diagonally in the real irreps' standard matrices,
irreps in display order and the ``m_tau`` copies of each irrep contiguous: the coordinates of V
are ``[tau_1: m_1 blocks of dim d_1][tau_2: m_2 blocks of dim d_2]...``, so the isotypic
component of ``tau`` is the slice ``start : start + m_tau d_tau``, read as an ``(m_tau, d_tau)``
array on which ``g`` acts by ``X -> X D_tau(g)^T`` (the same orthogonal matrix on every copy).
Schur's lemma in these coordinates: ``Hom_G(V, W) = sum_tau Mat(m_tau(W) x m_tau(V)) (x)
End_G(D_tau)``, with ``End_G(D_tau)`` of dimension ``e_tau`` = 1, 2, 4 (real, complex,
quaternionic type) spanned by ``IrrepSet.commutants`` (:class:`eqattn.numeric.isotypic.HomBlocks`;
these coordinates are its ``Isotypic.standard(V)``). A :class:`Component` adds what the
per-copy modules need: the copy layout and which irrep is trivial.

The block modules (:mod:`~eqattn.torch.linear`, :mod:`~eqattn.torch.norm`,
:mod:`~eqattn.torch.nonlinearity`, :mod:`~eqattn.torch.pooling`) read this layout here.

>>> import eqattn
>>> G = eqattn.group("D4")
>>> [(c.label, c.start, c.mult, c.dim) for c in components(eqattn.rep(G, "2xA1 + E1"))]
[('A1', 0, 2, 1), ('E1', 2, 1, 2)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eqattn.errors import InputError
from eqattn.numeric.isotypic import Isotypic
from eqattn.reps import Rep

__all__ = ["Component", "components", "copy_index", "trivial_index", "as_rep", "SharesGroupData"]


@dataclass(frozen=True)
class Component:
    """The isotypic component of one irrep in V: ``mult`` copies of dimension ``dim`` at
    ``start``; ``e`` = dim End_G of the irrep; ``commutant`` its Frobenius-orthonormal basis
    ``(e, dim, dim)``; ``trivial`` whether the irrep is the trivial one."""

    label: str
    irrep: int
    start: int
    mult: int
    dim: int
    e: int
    trivial: bool
    commutant: np.ndarray

    @property
    def size(self) -> int:
        return self.mult * self.dim

    @property
    def stop(self) -> int:
        return self.start + self.size


def trivial_index(V: Rep) -> int:
    """The index of the trivial irrep among V's group's irreps (character 1 everywhere)."""
    chars = V.irreps.chars[:, V.sub.elements]
    hits = np.nonzero(np.all(np.abs(chars - 1.0) < 1e-9, axis=1))[0]
    return int(hits[0])


def components(V: Rep, *, all_irreps: bool = False) -> tuple[Component, ...]:
    """V's isotypic components in coordinate order (only irreps with ``m_tau > 0`` unless
    ``all_irreps``)."""
    irr = V.irreps
    triv = trivial_index(V)
    offsets = Isotypic.standard(V).offsets
    return tuple(
        Component(irr.labels[i], i, int(offsets[i]), int(m), int(irr.dims[i]), int(irr.es[i]), i == triv, irr.commutants[i])
        for i, m in enumerate(V.mults)
        if m or all_irreps
    )


def as_rep(V: object, field: str) -> Rep:
    """``V`` if it is an eqattn representation (``eqattn.rep(G, text)``), else a clear error."""
    if not isinstance(V, Rep):
        raise InputError(field, f"a representation from eqattn.rep(G, text), got {type(V).__name__}")
    return V


def copy_index(V: Rep) -> list[int]:
    """For each coordinate of V, the irreducible copy it belongs to (copies numbered in
    coordinate order, ``sum_tau m_tau`` of them)."""
    out: list[int] = []
    first = 0
    for c in components(V):
        for i in range(c.mult):
            out += [first + i] * c.dim
        first += c.mult
    return out


class SharesGroupData:
    """Mixin for the block modules: ``copy.deepcopy`` (``nn.TransformerEncoder`` and
    :class:`~eqattn.torch.encoder.EquivariantTransformerEncoder` copy their layer) shares the
    group-level values (the group, its subgroup classes, designs, ``HomBlocks``: immutable, with
    their own memos) instead of copying them; parameters and buffers are copied as usual."""

    _SHARED_ATTRS = ("rep", "in_rep", "out_rep", "hidden_rep", "design", "hom")

    def __deepcopy__(self, memo: dict) -> object:
        import copy

        for name in self._SHARED_ATTRS:
            value = self.__dict__.get(name)
            if value is None:
                continue
            memo.setdefault(id(value), value)
            for part in (getattr(value, "problem", None), getattr(value, "sub", None)):
                if part is not None:
                    memo.setdefault(id(part), part)
            sub = getattr(value, "sub", None) or getattr(getattr(value, "problem", None), "top", None)
            group = getattr(sub, "group", None)
            if group is not None:
                memo.setdefault(id(group), group)
                for c in group.subgroup_classes:
                    memo.setdefault(id(c), c)
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new
