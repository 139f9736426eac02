"""The 3D point groups as groups of real orthogonal 3x3 matrices (family "point").

Standard orientation (as in the usual character tables):

* axial groups: the principal axis is z; the C2' axes of Dn, Dnh, Dnd include the x axis;
  the sigma_v of Cnv that is a generator is the xz plane; sigma_h is the xy plane;
  S2n is the rotation by 2 pi / 2n about z followed by sigma_h;
* T, Th, Td, O, Oh: the C2 (T) or C4 (O) axes are x, y, z, a C3 axis is (1, 1, 1), and the
  sigma_d of Td swaps x and y;
* I, Ih: the C2 axes include x, y, z, a C3 axis is (1, 1, 1) and a C5 axis is (0, 1, phi)
  (phi the golden ratio): the icosahedron with vertices (0, +-1, +-phi) and cyclic shifts.

Names: T, Td, Th, O, Oh, I, Ih, Cs (= C1h), Ci (= S2), C<n>v, C<n>h, D<n>h, D<n>d, and, with
the prefix `pg:` because the plain names are the abstract groups C_n, D_n, S_n,
pg:C<n>, pg:D<n>, pg:S<2n>. `G.matrices` holds the 3x3 matrix of every element: the
"vector" representation of the point group.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..errors import InputError
from .finite_group import FiniteGroup

N_MAX = 12  # the largest n of the axial families (S2n: 2n <= 2 * N_MAX)

POLYHEDRAL = ("T", "Td", "Th", "O", "Oh", "I", "Ih")

# family pattern -> (regex, smallest n, description); n is the index of the principal axis
AXIAL = {
    "Cnv": (re.compile(r"C(\d+)v"), 2, "C<n>v"),
    "Cnh": (re.compile(r"C(\d+)h"), 1, "C<n>h"),
    "Dnh": (re.compile(r"D(\d+)h"), 2, "D<n>h"),
    "Dnd": (re.compile(r"D(\d+)d"), 2, "D<n>d"),
    "Cn": (re.compile(r"pg:C(\d+)"), 1, "pg:C<n>"),
    "Dn": (re.compile(r"pg:D(\d+)"), 2, "pg:D<n>"),
    "S2n": (re.compile(r"pg:S(\d+)"), 2, "pg:S<2n>"),
}

ALIASES = {"C1h": "Cs", "C1v": "Cs", "pg:S2": "Ci"}

PATTERNS = "T Td Th O Oh I Ih Cs Ci C<n>v C<n>h D<n>h D<n>d (n <= 12), pg:C<n> pg:D<n> pg:S<2n>"


# ----- generators -----------------------------------------------------------------------------
def rot_z(n: int, k: int = 1) -> np.ndarray:
    """Rotation by 2 pi k / n about z."""
    t = 2 * math.pi * k / n
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by `angle` about `axis` (right-hand rule), Rodrigues' formula."""
    u = np.asarray(axis, dtype=float)
    u = u / np.linalg.norm(u)
    K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * (K @ K)


C2X = np.diag([1.0, -1.0, -1.0])  # C2' about x
SIGMA_H = np.diag([1.0, 1.0, -1.0])  # mirror plane xy
SIGMA_XZ = np.diag([1.0, -1.0, 1.0])  # sigma_v containing x (and z)
INVERSION = -np.eye(3)
C3_111 = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # x->y->z->x
SIGMA_D_XY = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # swaps x and y
PHI = (1 + math.sqrt(5)) / 2


def s2n(n2: int) -> np.ndarray:
    """The rotoreflection S_{n2}: rotation by 2 pi / n2 about z, then sigma_h."""
    return SIGMA_H @ rot_z(n2)


def generators(name: str) -> tuple[list[np.ndarray], tuple[int, ...]]:
    """Matrix generators and params of the point group with canonical `name`."""
    if name == "T":
        return [C2X, C3_111], ()
    if name == "Td":
        return [C2X, C3_111, SIGMA_D_XY], ()
    if name == "Th":
        return [C2X, C3_111, INVERSION], ()
    if name == "O":
        return [rot_z(4), C3_111], ()
    if name == "Oh":
        return [rot_z(4), C3_111, INVERSION], ()
    if name in ("I", "Ih"):
        c5 = rotation(np.array([0.0, 1.0, PHI]), 2 * math.pi / 5)
        gens = [C2X, C3_111, c5]
        return (gens + [INVERSION] if name == "Ih" else gens), ()
    if name == "Cs":
        return [SIGMA_H], (1,)
    if name == "Ci":
        return [INVERSION], (1,)
    fam, n = _axial(name)
    gens = {
        "Cn": lambda: [rot_z(n)] if n > 1 else [np.eye(3)],
        "Dn": lambda: [rot_z(n), C2X],
        "Cnv": lambda: [rot_z(n), SIGMA_XZ],
        "Cnh": lambda: [rot_z(n), SIGMA_H],
        "Dnh": lambda: [rot_z(n), C2X, SIGMA_H],
        "Dnd": lambda: [s2n(2 * n), C2X],
        "S2n": lambda: [s2n(2 * n)],
    }[fam]()
    return gens, (n,)


def _axial(name: str) -> tuple[str, int]:
    """(family, n) of an axial point-group name; for S2n, n is half the written index."""
    for fam, (rx, lo, desc) in AXIAL.items():
        m = rx.fullmatch(name)
        if m is None:
            continue
        k = int(m.group(1))
        if fam == "S2n":
            if k % 2 or not (2 <= k <= 2 * N_MAX):
                raise InputError("group", f"pg:S<2n> needs an even index 2..{2 * N_MAX} (got '{name}')")
            return fam, k // 2
        if not (lo <= k <= N_MAX):
            raise InputError("group", f"{desc} needs {lo} <= n <= {N_MAX} (got '{name}')")
        return fam, k
    raise KeyError(name)


def canonical_name(spec: str) -> str | None:
    """The canonical point-group name of `spec` (whitespace removed), or None if it is not one.

    Accepts every name with or without the `pg:` prefix (except pg:C<n>, pg:D<n>, pg:S<2n>,
    which need it). Raises InputError for a point-group pattern with n out of range.
    """
    s = spec
    bare = s[3:] if s.startswith("pg:") else s
    if bare in POLYHEDRAL or bare in ("Cs", "Ci"):
        return bare
    if bare in ALIASES:
        return ALIASES[bare]
    if s in ALIASES:
        return ALIASES[s]
    for cand in (bare, s):
        try:
            fam, n = _axial(cand)
        except KeyError:
            continue
        if fam == "S2n" and n == 1:
            return "Ci"
        if fam == "Cnh" and n == 1:
            return "Cs"
        return cand
    return None


def point_group(name: str) -> FiniteGroup:
    """The point group with canonical `name` (see `canonical_name`), built anew: the catalog
    (`get_group`) keeps one per name."""
    gens, params = generators(name)
    return FiniteGroup.from_matrices(name, gens, family="point", params=params)


def point_group_order(name: str) -> int:
    """|G| from the name, without building the group."""
    fixed = {"T": 12, "Td": 24, "Th": 24, "O": 24, "Oh": 48, "I": 60, "Ih": 120, "Cs": 2, "Ci": 2}
    if name in fixed:
        return fixed[name]
    fam, n = _axial(name)
    return {"Cn": n, "Dn": 2 * n, "Cnv": 2 * n, "Cnh": 2 * n, "Dnh": 4 * n, "Dnd": 4 * n, "S2n": 2 * n}[fam]


def listed_names(n_max: int = 6) -> list[str]:
    """Representative point-group names for listings (axial families for n <= n_max)."""
    out = list(POLYHEDRAL) + ["Cs", "Ci"]
    r = range(2, n_max + 1)
    out += [f"C{n}v" for n in r] + [f"C{n}h" for n in r] + [f"D{n}h" for n in r]
    out += [f"D{n}d" for n in r] + [f"pg:S{2 * n}" for n in r]
    out += [f"pg:C{n}" for n in r] + [f"pg:D{n}" for n in r]
    return out
