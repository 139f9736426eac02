"""The compact groups SO(2), O(2), SO(3), O(3) through finite stand-ins (docs/theory-continuous.md §5, §8).

A compact group G acting on a band-limited V (frequencies <= k for SO(2)/O(2), degrees
l <= L for SO(3)/O(3)) is represented by a finite subgroup F <= G with N = F ∩ G° and
F/N ≅ Γ = G/G°, its subgroup lattice pruned to the classes containing N. Two routes:

* **detecting** (Lemma 7, §5): every real irrep of every K (G° <= K <= G) inside the band
  stays irreducible, of the same type and pairwise distinct on F ∩ K; then every SPEC §4
  object of (G, V) is that of the finite problem (F, V|F), with F's own irreps;
* **character-detecting** (Lemma 8, §8): the band irreps' characters are only linearly
  independent on every F ∩ K; eqattn then computes with the band irreps themselves as K's
  irreps (reps/irreps.py `BandIrreps`: their characters on F, their Wigner matrices at F's
  elements, commutant R), decomposes characters by a linear solve, and takes End_K and the
  isotypic projectors from the Schur blocks in band coordinates (reps/schur.py).

| G | band | F | N | route |
|---|---|---|---|---|
| SO(2) | k | C_n, n = max(3, 2k + 1), rotations by 2πj/n (2x2) | F | detecting |
| O(2) | k | D_n, n as above, with the reflection diag(1, -1) (2x2) | C_n | detecting |
| SO(3) | l <= 1 / l = 2 | O (order 24) / I (order 60) (3x3, pointgroups.py) | F | detecting |
| O(3) | l <= 1 / l = 2 | Oh / Ih | O / I | detecting |
| SO(3) | 3 <= l <= L_MAX | C_n, n = 2l, rotations about z | F | character-detecting |
| O(3) | 3 <= l <= L_MAX | C_n x {1, -1} (`CnxCi`) | C_n | character-detecting |

No finite subgroup of SO(3) keeps l >= 3 irreducible (its real irreps have dimension <= 5 <
7), which is why those bands take the second route. `route="characters"` asks for it at any
SO(3)/O(3) band (the tests compare it with the detecting route at l <= 2).

Irrep labels (the compact notation of the rep text, `reps/compact_labels.py`):
O3 `0e 0o 1o 1e 2e 2o` (e3nn: parity of the inversion), SO3 `0 1 2`, SO2 `A E1 E2 ...`
(E_k: rotation by kθ, complex type), O2 `A1 A2 E1 E2 ...` (A2 = det; E_k real type).

    >>> info = CompactInfo("O3", 1)
    >>> info.labels, info.irrep("1o"), info.stand_in
    (('0e', '0o', '1o', '1e'), (1, -1), 'Oh')
    >>> CompactInfo("SO3", 3).stand_in, CompactInfo("O3", 4).stand_in, CompactInfo("O3", 4).band_irreps
    ('C6', 'C8xCi', True)
    >>> band_of("O3", "16x0e + 8x1o + 4x2e"), band_of("SO2", "A + 2xE3")
    (2, 3)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, LimitError

KINDS = ("SO2", "O2", "SO3", "O3")
IDENTITY_COMPONENT = {"SO2": "SO2", "O2": "SO2", "SO3": "SO3", "O3": "SO3"}
DESCRIPTION = {
    "SO2": "SO(2), rotations of the plane",
    "O2": "O(2), rotations and reflections of the plane",
    "SO3": "SO(3), rotations of space",
    "O3": "O(3), rotations and reflections of space",
}
L_DETECT = 2  # SO(3), O(3): the largest degree a finite subgroup keeps irreducible
L_MAX = 16  # SO(3), O(3): the largest degree (character-detecting C_32; blocks of dim 33)
ROUTES = ("auto", "irreps", "characters")
K_MAX = 50  # SO(2), O(2): the largest frequency (C_101, D_101: order 202)
DEFAULT_BAND = {"SO2": 8, "O2": 8, "SO3": 2, "O3": 2}  # get_group(name) without a band
_L_LIMIT_WHY = (
    "bands l >= 3 are computed on the character-detecting stand-in C_2l "
    "(docs/theory-continuous.md §8), and this limit keeps its Wigner blocks small and its "
    "characters well-conditioned"
)


@dataclass(frozen=True)
class CompactInfo:
    """What a stand-in stands for: the compact group `kind` at band `band` (l_max or k_max)."""

    kind: str
    band: int
    route: str = "auto"  # ROUTES: "irreps" = Lemma 7, "characters" = Lemma 8, "auto" = by band

    @property
    def band_irreps(self) -> bool:
        """True on the character-detecting route (Lemma 8): K's irreps are the band irreps,
        not F's (SO(3), O(3) at l > L_DETECT, or route "characters")."""
        if self.planar:
            return False
        return self.route == "characters" or (self.route == "auto" and self.band > L_DETECT)

    @property
    def gamma(self) -> str:
        """The component group Γ = G/G°: "1" or "C2"."""
        return "1" if self.kind in ("SO2", "SO3") else "C2"

    @property
    def identity_component(self) -> str:
        return IDENTITY_COMPONENT[self.kind]

    @property
    def planar(self) -> bool:
        return self.kind in ("SO2", "O2")

    @property
    def n(self) -> int:
        """The order of the rotation subgroup C_n of the stand-in: SO(2), O(2) max(3, 2k + 1);
        the character-detecting route 2l (at least 2: χ_0, ..., χ_l are independent on C_n
        when n >= 2l, docs/theory-continuous.md §8)."""
        if self.planar:
            return max(3, 2 * self.band + 1)
        return max(2, 2 * self.band)

    @property
    def stand_in(self) -> str:
        """The finite group F, by name."""
        if self.kind == "SO2":
            return f"C{self.n}"
        if self.kind == "O2":
            return f"D{self.n}"
        if self.band_irreps:
            return f"C{self.n}" + ("xCi" if self.kind == "O3" else "")
        base = "O" if self.band <= 1 else "I"
        return base + ("h" if self.kind == "O3" else "")

    @property
    def band_text(self) -> str:
        """The band in words, e.g. 'l <= 2' or 'frequencies k <= 3'."""
        return f"frequencies k <= {self.band}" if self.planar else f"degrees l <= {self.band}"

    @property
    def labels(self) -> tuple[str, ...]:
        """The irrep labels inside the band, in display order."""
        b = self.band
        if self.kind == "SO3":
            return tuple(str(l) for l in range(b + 1))
        if self.kind == "O3":
            return tuple(f"{l}{p}" for l in range(b + 1) for p in (("e", "o") if l % 2 == 0 else ("o", "e")))
        if self.kind == "SO2":
            return ("A",) + tuple(f"E{k}" for k in range(1, b + 1))
        return ("A1", "A2") + tuple(f"E{k}" for k in range(1, b + 1))

    def irrep(self, label: str) -> tuple[int, int]:
        """(l, parity) for SO3/O3 (parity +1 'e', -1 'o', 0 for SO3), (k, sign) for SO2/O2
        (k the frequency; sign -1 only for O2's A2 = det, else +1)."""
        if label not in self.labels:
            raise KeyError(label)
        if self.kind == "SO3":
            return int(label), 0
        if self.kind == "O3":
            return int(label[:-1]), (1 if label[-1] == "e" else -1)
        if label in ("A", "A1"):
            return 0, 1
        if label == "A2":
            return 0, -1
        return int(label[1:]), 1

    def character(self, label: str, g: np.ndarray) -> float:
        """The character of the irrep `label` at the orthogonal matrix g (2x2 or 3x3)."""
        a, p = self.irrep(label)
        det = float(np.linalg.det(g))
        if self.planar:
            if det < 0:  # a reflection: A1 -> 1, A2 -> -1, E_k -> 0
                return 0.0 if a else float(p)
            theta = math.atan2(g[1, 0], g[0, 0])
            return 1.0 if a == 0 else 2.0 * math.cos(a * theta)
        R = g * det  # the rotation part (g = det * R, det = +-1: O(3) = SO(3) x {1, -1})
        c = max(-1.0, min(1.0, (np.trace(R) - 1) / 2))
        theta = math.acos(c)
        chi = float(2 * a + 1) if abs(math.sin(theta / 2)) < 1e-9 else math.sin((2 * a + 1) * theta / 2) / math.sin(theta / 2)
        return chi * (1.0 if det > 0 or p >= 0 else -1.0)


_E3NN = re.compile(r"^(\d+)([eo]?)$")
_PLANAR = re.compile(r"^(?:A|A1|A2|E(\d+))$")
_TERM = re.compile(r"^\s*(?:\d+\s*x\s*)?(\S.*?)\s*$")


def band_of(kind: str, text: str, field: str = "rep") -> int:
    """The band a rep text needs: the largest l (SO3/O3) or frequency k (SO2/O2) it names.

    A light scan before any group is built (the stand-in depends on it); labels it does not
    recognise are left to the rep parser, which names the allowed ones. LimitError past the
    supported band."""
    band = 0
    if not isinstance(text, str):
        return band
    for term in text.split("+"):
        m = _TERM.match(term)
        lab = m.group(1).replace(" ", "") if m else ""
        if lab == "vector":
            band = max(band, 1)
            continue
        if kind in ("SO3", "O3"):
            e = _E3NN.match(lab)
            if e:
                band = max(band, int(e.group(1)) if len(e.group(1)) < 6 else 10**6)
        else:
            e = _PLANAR.match(lab)
            if e and e.group(1):
                band = max(band, int(e.group(1)) if len(e.group(1)) < 6 else 10**6)
    check_band(kind, band, field)
    return band


def check_band(kind: str, band: int, field: str = "rep") -> None:
    """LimitError when the band is past what a finite stand-in supports."""
    if kind in ("SO3", "O3") and band > L_MAX:
        raise LimitError(
            field,
            f"{kind} is supported for degrees l <= {L_MAX} (got l = {band}): {_L_LIMIT_WHY}",
        )
    if kind in ("SO2", "O2") and band > K_MAX:
        raise LimitError(
            field,
            f"{kind} is supported for frequencies k <= {K_MAX} (got E{band}): its finite stand-in "
            f"{'C' if kind == 'SO2' else 'D'}{2 * band + 1} would be larger than the supported "
            f"{'C' if kind == 'SO2' else 'D'}{2 * K_MAX + 1}",
        )
    if band < 0:
        raise InputError(field, "a band is a whole number >= 0")


def compact_kind(spec: str) -> str | None:
    """The kind when `spec` (whitespace removed) names a compact group, else None.

    Accepts `SO2 O2 SO3 O3` and the spellings `SO(2)`, `O(3)`."""
    s = spec.replace("(", "").replace(")", "")
    return s if s in KINDS else None


def _rot2(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


def stand_in_generators(info: CompactInfo) -> list[np.ndarray]:
    """Matrix generators of the stand-in F (2x2 for SO2/O2, 3x3 for SO3/O3)."""
    if info.planar:
        gens = [_rot2(2 * math.pi / info.n)]
        return gens + [np.diag([1.0, -1.0])] if info.kind == "O2" else gens
    if info.band_irreps:
        rz = np.eye(3)
        rz[:2, :2] = _rot2(2 * math.pi / info.n)
        return [rz, -np.eye(3)] if info.kind == "O3" else [rz]
    from .pointgroups import generators

    return generators(info.stand_in)[0]


def proper(matrices: np.ndarray) -> np.ndarray:
    """Elements (indices) with det = +1: the stand-in's N = F ∩ G°."""
    return np.nonzero(np.linalg.det(matrices) > 0)[0]
