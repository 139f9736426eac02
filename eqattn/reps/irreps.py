"""Real irreps of a standard group, pulled back to each subgroup class through its fixed
isomorphism (SPEC §0, §5.1). Computed once per group and cached.

A character-detecting stand-in of SO(3) or O(3) (groups/compact.py, docs/theory-continuous.md
§8, Lemma 8) has as irreps the *band* irreps, not its own: `BandIrreps` holds their
characters on F (linearly independent, not orthogonal), their Wigner matrices at F's elements
(reps/wigner.py) and the commutant R·I of an irrep of real type. `IrrepSet.band` says which
kind a subgroup's irreps are; decomposition (reps/rep.py) and projectors (reps/schur.py) follow it.

    >>> from eqattn.groups import get_group
    >>> irr = irreps(get_group("SO3", band=3))
    >>> irr.labels, irr.dims.tolist(), irr.band, irr.chars[3].round(6).tolist()[:3]
    (('0', '1', '2', '3'), [1, 3, 5, 7], True, [7.0, -1.0, 1.0])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..memo import Memo, memoized
from .characters import E_OF_TYPE, RealCharacter, real_characters
from .compact_labels import compact_labels, compact_order
from .labels import display_order, label_irreps
from .matrices import commutant_basis, regular_irrep_matrices

if TYPE_CHECKING:
    from ..groups import FiniteGroup, SubgroupClass


@dataclass(frozen=True, eq=False)
class StandardIrreps:
    group: "FiniteGroup"
    labels: tuple[str, ...]
    real_chars: tuple[RealCharacter, ...]
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    #: False: the group's own irreps (orthogonal characters); True: BandIrreps (Lemma 8)
    band = False

    @memoized
    def matrices(self) -> tuple[np.ndarray, ...]:
        S = self.group
        return tuple(
            regular_irrep_matrices(S.table, S.inv, c.values, c.dim, c.e, seed=1000 + i)
            for i, c in enumerate(self.real_chars)
        )

    @memoized
    def commutants(self) -> tuple[np.ndarray, ...]:
        """Per irrep a Frobenius-orthonormal basis (e, d, d) of End(D)."""
        return tuple(commutant_basis(m) for m in self.matrices)


@dataclass(frozen=True, eq=False)
class BandIrreps(StandardIrreps):
    """The band irreps of SO(3) / O(3) on a character-detecting stand-in (Lemma 8): the
    matrices are D^l (times the parity at det -1) at the stand-in's elements, the commutant
    of each is R·I (every irrep of SO(3), O(3) is of real type), the characters are the
    traces (linearly independent on every class of the pruned lattice, §8)."""

    band = True

    @memoized
    def matrices(self) -> tuple[np.ndarray, ...]:
        from .wigner import BandIrrep, band_matrices

        S, info = self.group, self.group.compact
        assert info is not None and S.matrices is not None
        return tuple(band_matrices(BandIrrep.of_label(info, lab), S.matrices) for lab in self.labels)

    @memoized
    def commutants(self) -> tuple[np.ndarray, ...]:
        return tuple(np.eye(c.dim)[None] / np.sqrt(c.dim) for c in self.real_chars)


def band_irreps(S: "FiniteGroup") -> BandIrreps:
    """The band irreps of a character-detecting stand-in, in the band's order."""
    info = S.compact
    assert info is not None and info.band_irreps and S.matrices is not None
    chars = []
    for lab in info.labels:
        values = np.array([info.character(lab, g) for g in S.matrices])
        values = np.where(np.abs(values - np.round(values)) < 1e-9, np.round(values), values) + 0.0
        chars.append(RealCharacter(values, 2 * info.irrep(lab)[0] + 1, "real", values.astype(complex)))
    return BandIrreps(S, info.labels, tuple(chars))


def standard_irreps(S: "FiniteGroup") -> StandardIrreps:
    """The real irreps of a standard group, labelled, in display order; once per group."""
    return S.memo.get("standard_irreps", lambda: _standard_irreps(S))


def _standard_irreps(S: "FiniteGroup") -> StandardIrreps:
    if S.compact is not None and S.compact.band_irreps:
        return band_irreps(S)
    chars = list(real_characters(S))
    if S.compact is not None:
        labels = compact_labels(S, chars)
        order = compact_order(S, labels)
        return StandardIrreps(S, tuple(labels[i] for i in order), tuple(chars[i] for i in order))
    labels = product_labels(S, chars) if S.family == "product" and S.factors else label_irreps(S, chars)
    order = display_order(S, labels, chars)
    return StandardIrreps(S, tuple(labels[i] for i in order), tuple(chars[i] for i in order))


def product_labels(S: "FiniteGroup", chars: Sequence[RealCharacter]) -> list[str]:
    """Labels of a direct product's irreps from its factors' labels, e.g. `A.B` (SPEC §0)."""
    factors = S.factors
    comps = S.components
    assert comps is not None
    # positions of the elements (e, .., g, .., e) of each factor in S
    positions = []
    for pos, f in enumerate(factors):
        p = np.full(f.order, -1)
        others = np.delete(comps, pos, axis=1)
        rows = np.nonzero((others == 0).all(axis=1))[0]
        p[comps[rows, pos]] = rows
        positions.append(p)
    irs = [standard_irreps(f) for f in factors]

    def match(rest: np.ndarray, ir: StandardIrreps) -> tuple[int, int]:
        """(irrep index, +1 canonical / -1 conjugate / 0 not complex type)."""
        z = rest / rest[0]
        for k, ch in enumerate(ir.real_chars):
            c = ch.constituent / ch.constituent[0]
            if np.allclose(z, c, atol=1e-7):
                return k, (1 if ch.type == "complex" else 0)
            if np.allclose(z, c.conj(), atol=1e-7):
                return k, (-1 if ch.type == "complex" else 0)
        raise RuntimeError("product irrep did not factor")  # pragma: no cover

    out = []
    for c in chars:
        psi = c.constituent
        found = [match(psi[p], ir) for p, ir in zip(positions, irs)]
        signs = [s for _, s in found]
        first = next((s for s in signs if s), 1)
        parts = []
        for (k, s), ir in zip(found, irs):
            parts.append(ir.labels[k] + ("*" if s * first < 0 else ""))
        out.append(".".join(parts))
    return out



@dataclass(frozen=True, eq=False)
class IrrepSet:
    """The real irreps of a subgroup class representative K, in display order."""

    sub: "SubgroupClass"
    std: StandardIrreps
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    @property
    def labels(self) -> tuple[str, ...]:
        return self.std.labels

    @property
    def band(self) -> bool:
        """True when these are band irreps (Lemma 8): characters not orthogonal on K."""
        return self.std.band

    def __len__(self) -> int:
        return len(self.std.labels)

    @memoized
    def dims(self) -> np.ndarray:
        return np.array([c.dim for c in self.std.real_chars])

    @memoized
    def types(self) -> tuple[str, ...]:
        return tuple(c.type for c in self.std.real_chars)

    @memoized
    def es(self) -> np.ndarray:
        return np.array([E_OF_TYPE[t] for t in self.types])

    @memoized
    def chars(self) -> np.ndarray:
        """(r, |G|) real characters, zero outside K."""
        G = self.sub.group
        out = np.zeros((len(self), G.order))
        K = self.sub.elements
        src = self.sub.phi_inv[K]
        for i, c in enumerate(self.std.real_chars):
            out[i, K] = c.values[src]
        return out

    @memoized
    def matrices(self) -> tuple[np.ndarray, ...]:
        """Per irrep: (|K|, d, d) orthogonal matrices in the order of `sub.elements`."""
        src = self.sub.phi_inv[self.sub.elements]
        return tuple(m[src] for m in self.std.matrices)

    @memoized
    def commutants(self) -> tuple[np.ndarray, ...]:
        return self.std.commutants

    def index(self, label: str) -> int:
        return self.labels.index(label)


def irreps_of(sub: "SubgroupClass") -> IrrepSet:
    """The irreps of a subgroup class representative (once per class, in its memo)."""
    return sub.memo.get("irreps", lambda: IrrepSet(sub, standard_irreps(sub.std)))


def irreps(G: "FiniteGroup") -> IrrepSet:
    """The irreps of G itself (its last subgroup class)."""
    return irreps_of(G.subgroup_classes[-1])
