"""Mulliken labels for the real irreps of a 3D point group (its elements are G.matrices).

The rules, read off the geometry of the matrices (so they do not depend on how the group
was generated):

* The principal axis is the axis of the proper rotation of highest order (for three
  perpendicular C2 axes and no higher axis: the one that is also an S4 axis, if any, else z).
  The principal element is the rotation about it by 2 pi / n, n largest; when the group has
  neither the inversion nor sigma_h and has a rotoreflection about the axis of higher order
  (S4 in D2d and S4, S8 in D4d and S8, ...), it is that rotoreflection S_2n.
* Letter by dimension (complex dimension for complex / quaternionic types): 1 -> A if the
  character of the principal element is +1 else B, 2 -> E, 3 -> T, 4 -> G, 5 -> H; a complex-
  type real irrep made of two conjugate 1-dim irreps -> E. In T, Th, Td, O, Oh, I, Ih every
  1-dim irrep is A.
* Subscripts 1 / 2 on A and B: the character (+1 / -1) of a C2 perpendicular to the
  principal axis (the one closest to x), else of a sigma_v (the one containing x, or closest
  to it). D2 and D2h: B1, B2, B3 are symmetric under the C2 along z, y, x. In the cubic and
  icosahedral groups subscripts are given only where needed: A1 / A2 by the character of the
  principal element, T1 / T2 with T1 the one whose character at the principal element equals
  that of the rotations (axial vectors), so the vector rep (x, y, z) is T1 in O, I and T1u in
  Oh, Ih, and T2 in Td (where the rotations are T1).
* E's sharing all other marks are numbered E1, E2, ... by k with character
  2 cos(2 pi k / m) at the principal element (m its order).
* g / u by the character of the inversion; else ' / '' by the character of sigma_h.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from ..groups import FiniteGroup

TOL = 1e-6
LETTERS = {1: "A", 2: "E", 3: "T", 4: "G", 5: "H"}


class _Geometry:
    """Rotation axes and the special elements of a finite subgroup of O(3)."""

    def __init__(self, G: "FiniteGroup") -> None:
        mats = np.asarray(G.matrices, dtype=float)
        if mats.ndim != 3 or mats.shape[1:] != (3, 3):
            raise ValueError("Mulliken labels need a group of 3x3 matrices")
        self.mats = mats
        self.orders = np.asarray(G.element_orders)
        self.det = np.sign(np.linalg.det(mats))
        self.rot = self.det[:, None, None] * mats  # proper part: M or -M
        n = mats.shape[0]
        self.axis = np.zeros((n, 3))
        for g in range(n):
            self.axis[g] = _axis(self.rot[g])
        eye = np.eye(3)
        self.proper = self.det > 0
        self.identity = np.array([np.allclose(m, eye, atol=TOL) for m in mats])
        inv = [g for g in range(n) if np.allclose(mats[g], -eye, atol=TOL)]
        self.inversion = inv[0] if inv else None

        # rotation axes (lines) of the proper elements of order >= 3
        prop = [g for g in range(n) if self.proper[g] and not self.identity[g]]
        high_axes = _distinct_lines([self.axis[g] for g in prop if self.orders[g] >= 3])
        self.polyhedral = len(high_axes) > 1
        self.max_proper = max((int(self.orders[g]) for g in prop), default=1)

        ez = np.array([0.0, 0.0, 1.0])
        self.d2_like = False
        if self.polyhedral:
            u = ez
        elif self.max_proper >= 3:
            u = high_axes[0]
        elif prop:
            c2_axes = _distinct_lines([self.axis[g] for g in prop])
            if len(c2_axes) == 1:
                u = c2_axes[0]
            else:  # three perpendicular C2 axes: D2, D2h, D2d
                s4 = [g for g in range(n) if not self.proper[g] and self.orders[g] == 4]
                if s4:
                    u = self.axis[s4[0]]
                else:
                    self.d2_like = True
                    u = max(c2_axes, key=lambda a: abs(a @ ez))
        else:
            refl = [g for g in range(n) if not self.proper[g] and self.inversion != g and not self.identity[g]]
            u = self.axis[refl[0]] if refl else ez
        self.u = u / np.linalg.norm(u)

        # sigma_h: the reflection in the plane perpendicular to u
        sh = eye - 2 * np.outer(self.u, self.u)
        sig = [g for g in range(n) if np.allclose(mats[g], sh, atol=TOL)]
        self.sigma_h = sig[0] if sig else None

        self.principal = self._principal()
        self.reference = self._reference()

    def _about_u(self, g: int) -> bool:
        return abs(abs(self.axis[g] @ self.u) - 1) < TOL

    def _principal(self) -> int:
        """The proper rotation (or, see the module doc, rotoreflection) generating the axis."""
        n = self.mats.shape[0]
        tr = np.trace(self.mats, axis1=1, axis2=2)
        if self.polyhedral:
            use_improper = self.inversion is None and not self.proper.all()
        else:
            use_improper = False
        cands_p = [g for g in range(n) if self.proper[g] and not self.identity[g] and (self.polyhedral or self._about_u(g))]
        cands_i = [
            g
            for g in range(n)
            if not self.proper[g] and g != self.inversion and g != self.sigma_h and self.orders[g] > 2
            and (self.polyhedral or self._about_u(g))
        ]
        best_p = max((int(self.orders[g]) for g in cands_p), default=1)
        best_i = max((int(self.orders[g]) for g in cands_i), default=1)
        if not self.polyhedral and self.inversion is None and self.sigma_h is None and best_i > best_p:
            use_improper = True
        cands = cands_i if use_improper else cands_p
        if not cands:
            return 0  # identity: C1, Cs, Ci
        top = max(int(self.orders[g]) for g in cands)
        # the smallest rotation angle among those of top order: the largest trace
        return max((g for g in cands if self.orders[g] == top), key=lambda g: (round(float(tr[g]), 6), -g))

    def _reference(self) -> int | None:
        """A C2 perpendicular to the principal axis (closest to x), else a sigma_v (containing x)."""
        if self.polyhedral:
            return None
        n = self.mats.shape[0]
        ex = np.array([1.0, 0.0, 0.0])
        perp = lambda g: abs(self.axis[g] @ self.u) < TOL  # noqa: E731
        c2p = [g for g in range(n) if self.proper[g] and self.orders[g] == 2 and perp(g)]
        if c2p:
            return max(c2p, key=lambda g: (round(abs(self.axis[g] @ ex), 6), -g))
        tr = np.trace(self.mats, axis1=1, axis2=2)
        # a reflection has trace 1; its axis is the plane's normal; sigma_v contains u
        sv = [g for g in range(n) if not self.proper[g] and abs(tr[g] - 1) < TOL and perp(g)]
        if sv:
            return min(sv, key=lambda g: (round(abs(self.axis[g] @ ex), 6), g))
        return None


def _axis(R: np.ndarray) -> np.ndarray:
    """Unit axis of a proper rotation (z for the identity); sign normalised."""
    c = (np.trace(R) - 1) / 2
    if c > 1 - 1e-9:
        return np.array([0.0, 0.0, 1.0])
    if c < -1 + 1e-9:  # half turn: R + I = 2 u u^T
        B = R + np.eye(3)
        v = B[:, int(np.argmax(np.linalg.norm(B, axis=0)))]
    else:
        v = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    v = v / np.linalg.norm(v)
    # sign: first clearly non-zero coordinate positive (axes are lines)
    for x in v:
        if abs(x) > TOL:
            return v if x > 0 else -v
    return v


def _distinct_lines(vecs: Sequence[np.ndarray]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for v in vecs:
        if not any(abs(abs(v @ w) - 1) < TOL for w in out):
            out.append(v)
    return out


def _k_of(value: float, m: int) -> int:
    """k in 0..m/2 with 2 cos(2 pi k / m) = value."""
    t = np.arccos(np.clip(value / 2, -1.0, 1.0))
    return int(round(t * m / (2 * np.pi)))


def mulliken_labels(G: "FiniteGroup", chars: np.ndarray, dims: Sequence[int], types: Sequence[str]) -> list[str]:
    """Mulliken labels (ASCII, ' and '' for primes) of the real irreps with real characters `chars`.

    `chars[i]` is the real character of real irrep i per element of G, `dims[i]` its real
    dimension, `types[i]` in {"real", "complex", "quaternionic"}.
    """
    geo = _Geometry(G)
    chars = np.asarray(chars, dtype=float)
    r = len(dims)
    p = geo.principal
    m_p = int(geo.orders[p])
    axial_vec = geo.det * np.trace(geo.mats, axis1=1, axis2=2)  # character of the rotations (R_x, R_y, R_z)

    letters: list[str] = []
    subs: list[str] = []
    marks: list[str] = []
    for i in range(r):
        t = types[i]
        d = int(dims[i])
        c = d if t == "real" else d // 2
        chi = chars[i]
        if t == "complex" and c == 1:
            letter = "E"
        elif c == 1:
            if geo.polyhedral:
                letter = "A"
            elif geo.d2_like:
                letter = "A" if all(chi[g] > 0 for g in _c2_elements(geo)) else "B"
            else:
                letter = "A" if chi[p] > 0 else "B"
        else:
            letter = LETTERS.get(c, f"X{c}")
        sub = ""
        if c == 1 and t == "real" and not geo.polyhedral:
            if geo.d2_like:
                if letter == "B":
                    sub = str(_d2_index(geo, chi))
            elif geo.reference is not None:
                sub = "1" if chi[geo.reference] > 0 else "2"
        if geo.inversion is not None:
            mark = "g" if chi[geo.inversion] > 0 else "u"
        elif geo.sigma_h is not None:
            mark = "'" if chi[geo.sigma_h] > 0 else "''"
        else:
            mark = ""
        letters.append(letter)
        subs.append(sub)
        marks.append(mark)

    # subscripts where needed (cubic and icosahedral groups), E numbering (all groups)
    groups = Counter(zip(letters, subs, marks))
    for i in range(r):
        if groups[(letters[i], subs[i], marks[i])] < 2:
            continue
        chi = chars[i]
        if letters[i] == "E":
            subs[i] = str(_k_of(chi[p] * 2 / max(int(dims[i]), 1), m_p))
        elif geo.polyhedral and letters[i] == "A":
            subs[i] = "1" if chi[p] > 0 else "2"
        elif geo.polyhedral and letters[i] == "T":
            subs[i] = "1" if abs(chi[p] - axial_vec[p]) < TOL else "2"

    labels = [a + b + c for a, b, c in zip(letters, subs, marks)]
    # last resort: keep labels unique
    counts = Counter(labels)
    if len(counts) < r:
        seen: Counter = Counter()
        for i, lab in enumerate(labels):
            if counts[lab] > 1:
                seen[lab] += 1
                labels[i] = f"{lab}.{seen[lab]}"
    return labels


def _c2_elements(geo: _Geometry) -> list[int]:
    n = geo.mats.shape[0]
    return [g for g in range(n) if geo.proper[g] and geo.orders[g] == 2]


def _d2_index(geo: _Geometry, chi: np.ndarray) -> int:
    """D2-like groups: B1 / B2 / B3 is symmetric under the C2 along z / y / x."""
    for g in _c2_elements(geo):
        if chi[g] > 0:
            a = np.abs(geo.axis[g])
            return {2: 1, 1: 2, 0: 3}[int(np.argmax(a))]
    return 0
