"""Labels of a compact group's irreps on its finite stand-in (groups/compact.py).

Each real irrep of the stand-in F whose character equals that of an irrep of the band
(SO3 `l`, O3 `le`/`lo`, SO2 `A`/`E_k`, O2 `A1`/`A2`/`E_k`, evaluated at F's matrices) gets
that label; the other irreps of F exist only as multiplicity slots and are labelled
`~X1`, `~X2`, ... (OUT_OF_BAND prefix): never parsed, and refused wherever a representation
would use them (rep.py). Display order: the band's order (`CompactInfo.labels`), then the rest.

    >>> from eqattn.groups import get_group
    >>> from eqattn.reps import irreps
    >>> irreps(get_group("O3", band=1)).labels
    ('0e', '0o', '1o', '1e', '~X1', '~X2', '~X3', '~X4', '~X5', '~X6')
    >>> irreps(get_group("SO2", band=2)).labels, irreps(get_group("SO2", band=2)).types
    (('A', 'E1', 'E2'), ('real', 'complex', 'complex'))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from .characters import RealCharacter

if TYPE_CHECKING:
    from ..groups import FiniteGroup

OUT_OF_BAND = "~"


def compact_labels(S: "FiniteGroup", chars: Sequence[RealCharacter]) -> list[str]:
    """The compact label of each real character of the stand-in S (OUT_OF_BAND ones numbered)."""
    info = S.compact
    assert info is not None and S.matrices is not None
    band = {lab: np.array([info.character(lab, g) for g in S.matrices]) for lab in info.labels}
    out: list[str | None] = []
    for c in chars:
        hit = [lab for lab, chi in band.items() if np.allclose(chi, c.values, atol=1e-6)]
        out.append(hit[0] if hit else None)
    found = [lab for lab in out if lab is not None]
    if sorted(found) != sorted(band) :  # pragma: no cover - a stand-in that does not detect the band
        raise RuntimeError(f"{S.compact.stand_in} does not keep the band {info.band_text} irreducible")
    rest = sorted((i for i, lab in enumerate(out) if lab is None), key=lambda i: (chars[i].dim, i))
    for j, i in enumerate(rest):
        out[i] = f"{OUT_OF_BAND}X{j + 1}"
    return [str(lab) for lab in out]


def compact_order(S: "FiniteGroup", labels: list[str]) -> list[int]:
    """Display order: the band's labels in `CompactInfo.labels` order, then the out-of-band ones."""
    assert S.compact is not None
    rank = {lab: i for i, lab in enumerate(S.compact.labels)}
    return sorted(range(len(labels)), key=lambda i: (rank.get(labels[i], len(rank)), labels[i]))


def in_band(label: str) -> bool:
    return not label.startswith(OUT_OF_BAND)
