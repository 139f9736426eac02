"""Real irreps of a standard group, pulled back to each subgroup class through its fixed
isomorphism (SPEC §0, §5.1). Computed once per group and cached."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .characters import E_OF_TYPE, RealCharacter, real_characters
from .labels import display_order, label_irreps
from .matrices import commutant_basis, regular_irrep_matrices

if TYPE_CHECKING:
    from ..groups import FiniteGroup, SubgroupClass


@dataclass(frozen=True, eq=False)
class StandardIrreps:
    group: "FiniteGroup"
    labels: tuple[str, ...]
    real_chars: tuple[RealCharacter, ...]

    @cached_property
    def matrices(self) -> tuple[np.ndarray, ...]:
        S = self.group
        return tuple(
            regular_irrep_matrices(S.table, S.inv, c.values, c.dim, c.e, seed=1000 + i)
            for i, c in enumerate(self.real_chars)
        )


@lru_cache(maxsize=None)
def standard_irreps(S: "FiniteGroup") -> StandardIrreps:
    chars = list(real_characters(S))
    labels = label_irreps(S, chars)
    order = display_order(S, labels, chars)
    return StandardIrreps(S, tuple(labels[i] for i in order), tuple(chars[i] for i in order))


@dataclass(frozen=True, eq=False)
class IrrepSet:
    """The real irreps of a subgroup class representative K, in display order."""

    sub: "SubgroupClass"
    std: StandardIrreps

    @property
    def labels(self) -> tuple[str, ...]:
        return self.std.labels

    def __len__(self) -> int:
        return len(self.std.labels)

    @cached_property
    def dims(self) -> np.ndarray:
        return np.array([c.dim for c in self.std.real_chars])

    @cached_property
    def types(self) -> tuple[str, ...]:
        return tuple(c.type for c in self.std.real_chars)

    @cached_property
    def es(self) -> np.ndarray:
        return np.array([E_OF_TYPE[t] for t in self.types])

    @cached_property
    def chars(self) -> np.ndarray:
        """(r, |G|) real characters, zero outside K."""
        G = self.sub.group
        out = np.zeros((len(self), G.order))
        K = self.sub.elements
        src = self.sub.phi_inv[K]
        for i, c in enumerate(self.std.real_chars):
            out[i, K] = c.values[src]
        return out

    @cached_property
    def matrices(self) -> tuple[np.ndarray, ...]:
        """Per irrep: (|K|, d, d) orthogonal matrices in the order of `sub.elements`."""
        src = self.sub.phi_inv[self.sub.elements]
        return tuple(m[src] for m in self.std.matrices)

    @cached_property
    def commutants(self) -> tuple[np.ndarray, ...]:
        return tuple(commutant_basis(m) for m in self.std.matrices)

    def index(self, label: str) -> int:
        return self.labels.index(label)


def irreps_of(sub: "SubgroupClass") -> IrrepSet:
    cache = sub.__dict__.setdefault("_irreps", None)
    if cache is None:
        cache = IrrepSet(sub, standard_irreps(sub.std))
        sub.__dict__["_irreps"] = cache
    return cache


def irreps(G: "FiniteGroup") -> IrrepSet:
    """The irreps of G itself (its last subgroup class)."""
    return irreps_of(G.subgroup_classes[-1])
