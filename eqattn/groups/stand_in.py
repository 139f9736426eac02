"""The finite stand-in of a compact group at a band: the group F with its lattice pruned to
the classes containing N = F ∩ G° (compact.py; docs/theory-continuous.md §5).

The classes are named after what they stand for: `SO3` (N) and `O3` (F) for O(3), one class
`SO2` for SO(2). Each class's standard group is itself a stand-in (family "compact"), so its
irreps carry the compact labels (reps/compact_labels.py).

    >>> G = compact_group("O3", 1)
    >>> G.name, G.order, [c.name for c in G.subgroup_classes], G.compact.stand_in
    ('O3', 48, ['SO3', 'O3'], 'Oh')
    >>> G.matrices.shape
    (48, 3, 3)
    >>> H = compact_group("O3", 3); H.order, [c.name for c in H.subgroup_classes], H.compact.stand_in
    (12, ['SO3', 'O3'], 'C6xCi')
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .compact import L_DETECT, ROUTES, CompactInfo, check_band, proper, stand_in_generators
from .finite_group import STANDARD, FiniteGroup
from .subgroups import SubgroupClass, SubgroupLattice, prune_lattice


def compact_group(kind: str, band: int, route: str = "auto") -> FiniteGroup:
    """The stand-in of the compact group `kind` for V's band (built each call: cache it);
    `route` (compact.ROUTES) picks Lemma 7's or Lemma 8's stand-in, by default by the band."""
    check_band(kind, band, "group")
    if route not in ROUTES:
        raise InputError("route", f"one of {', '.join(ROUTES)}, got {route!r}")
    if route == "irreps" and kind in ("SO3", "O3") and band > L_DETECT:
        raise InputError("route", f"no finite subgroup of SO(3) keeps l = {band} irreducible: route 'irreps' "
                         f"goes up to l = {L_DETECT}; 'characters' (or 'auto') computes higher bands")
    info = CompactInfo(kind, band, route)
    G = FiniteGroup.from_matrices(kind, stand_in_generators(info), family="compact", params=(band,), compact=info)
    lat = pruned_lattice(G, SubgroupLattice.build(G, STANDARD))
    G.memo.get("lattice", lambda: lat)  # FiniteGroup.lattice finds it (and never builds a stand-in's)
    return G


def pruned_lattice(G: FiniteGroup, lat: SubgroupLattice) -> SubgroupLattice:
    """The stand-in's lattice `lat` pruned to the classes containing N = F ∩ G° (det > 0),
    named after what they stand for, each class's standard group a stand-in itself."""
    info = G.compact
    assert info is not None and G.matrices is not None
    if info.gamma == "1":
        N, core = np.arange(G.order), G
    else:
        N, core = proper(G.matrices), compact_group(info.identity_component, info.band, info.route)

    def rename(c: SubgroupClass) -> dict:
        if c.order == G.order:
            return {"name": info.kind, "type_name": info.kind, "std": G, "phi": np.arange(G.order)}
        return {"name": core.name, "type_name": core.name, "std": core, "phi": _embedding(core, G)}

    return prune_lattice(lat, N, rename)


def _embedding(S: FiniteGroup, G: FiniteGroup) -> np.ndarray:
    """phi[s] = the element of G with the same matrix as S's element s."""
    assert S.matrices is not None and G.matrices is not None

    def key(a: np.ndarray) -> bytes:
        return (np.round(a, 6) + 0.0).tobytes()

    index = {key(m): i for i, m in enumerate(G.matrices)}
    return np.array([index[key(m)] for m in S.matrices], dtype=np.int64)
