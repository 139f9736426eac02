"""What each element, subgroup and irrep of a group is, in words a user can check (SPEC §0).

The page names subgroups by type and number (C2.1, C2.2) and irreps by their standard labels
([2,1,1]); these functions say what they are in the group's own realisation:

* C_n (elements r^k, SPEC §0): `rotation by 2πk/n`, the symmetries of a regular n-gon.
* D_n (permutations i -> ±i + t of the n vertices of a regular n-gon, numbered 1..n):
  `rotation by 2πt/n`, or `reflection across the axis through vertex v` / `... through the
  midpoint of vertices v and v+1` (the reflection i -> t - i fixes the axis at angle πt/n).
* point groups and other matrix groups (real orthogonal 3x3): `rotation by θ about (x, y, z)`,
  `reflection in the plane ⟂ (x, y, z)`, `inversion`, `rotoreflection by θ about ...`;
  with the matrix itself.
* Q8 (left multiplication by a unit quaternion): `quaternion −i`.
* permutation groups (S_n, A_n, custom): the cycles in words, `swaps 1 and 3; cycles 2 → 4 → 5`.
* direct products: the factors' words as a tuple, `(rotation by π, identity)`.

Every angle is a multiple of π written exactly (π/2, 2π/3) when it is one with denominator at
most 24; else in degrees.

>>> from eqattn.groups import get_group
>>> G = get_group("D4")
>>> [element_words(G, g) for g in (1, 2)]
['rotation by π/2', 'reflection across the axis through vertex 1 (and vertex 3)']
"""

from __future__ import annotations

from fractions import Fraction
from math import acos, pi

import numpy as np

from ..groups import FiniteGroup

_EPS = 1e-6


def angle_text(theta: float) -> str:
    """θ (radians, in [0, 2π)) as a multiple of π when it is a simple one, else in degrees.

    >>> angle_text(pi / 2), angle_text(pi), angle_text(4 * pi / 3)
    ('π/2', 'π', '4π/3')
    """
    f = Fraction(theta / pi).limit_denominator(24)
    if abs(float(f) * pi - theta) > 1e-6:
        return f"{theta * 180 / pi:.1f}°"
    num = "" if f.numerator == 1 else str(f.numerator)
    return f"{num}π" + ("" if f.denominator == 1 else f"/{f.denominator}")


def _vector_text(v: np.ndarray) -> str:
    """A direction, scaled so that its largest entry is 1, entries rounded: `(1, 1, 0)`."""
    v = np.asarray(v, dtype=float)
    k = int(np.argmax(np.abs(v)))
    v = v / v[k]
    parts = []
    for x in v:
        r = round(float(x), 3) + 0.0
        parts.append(str(int(r)) if r == int(r) else f"{r:g}")
    return "(" + ", ".join(parts) + ")"


def _rotation(R: np.ndarray) -> tuple[float, np.ndarray]:
    """Angle θ in [0, π] and axis of a 3x3 rotation R, the axis oriented so that its first
    non-zero entry is positive (θ then runs in [0, 2π) counterclockwise about it)."""
    theta = acos(max(-1.0, min(1.0, (float(np.trace(R)) - 1) / 2)))
    if abs(theta - pi) < _EPS:
        w, vecs = np.linalg.eigh((R + R.T) / 2)
        axis = vecs[:, int(np.argmax(w))]
    else:
        axis = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    axis = axis / np.linalg.norm(axis)
    first = next(x for x in axis if abs(x) > _EPS)
    if first < 0:
        axis = -axis
        if abs(theta - pi) > _EPS:
            theta = 2 * pi - theta
    return theta, axis


def matrix_words(M: np.ndarray) -> str:
    """A real orthogonal 3x3 matrix (or 2x2) as the motion it is.

    >>> matrix_words(np.diag([1.0, 1.0, -1.0]))
    'reflection in the plane ⟂ (0, 0, 1)'
    >>> matrix_words(-np.eye(3))
    'inversion'
    """
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    if np.allclose(M, np.eye(n), atol=_EPS):
        return "identity"
    if n == 2:
        det = np.linalg.det(M)
        if det > 0:
            return f"rotation by {angle_text(float(np.arctan2(M[1, 0], M[0, 0])) % (2 * pi))}"
        return f"reflection across the line at angle {angle_text((float(np.arctan2(M[1, 0], M[0, 0])) / 2) % pi)}"
    if n != 3:
        return f"{n}x{n} orthogonal matrix"
    kind, theta, axis = motion(M)
    if kind == "inversion":
        return "inversion"
    if kind == "rotation":
        return f"rotation by {angle_text(theta)} about {_vector_text(axis)}"
    if kind == "reflection":
        return f"reflection in the plane ⟂ {_vector_text(axis)}"
    return f"rotoreflection by {angle_text(theta)} about {_vector_text(axis)} (the rotation, then the mirror ⟂ the axis)"


def motion(M: np.ndarray) -> tuple[str, float, np.ndarray | None]:
    """A 3x3 real orthogonal M ≠ I as (kind, θ, axis n): "rotation" M = R(θ, n); "reflection"
    M = I − 2nnᵀ; "rotoreflection" M = R(θ, n)(I − 2nnᵀ); "inversion" M = −I. Since
    −I = (I − 2nnᵀ) R(π, n), an improper M = −R(φ, n) is R(φ + π, n)(I − 2nnᵀ).

    >>> kind, theta, n = motion(np.diag([-1.0, -1.0, 1.0]))
    >>> kind, angle_text(theta), n.tolist()
    ('rotation', 'π', [0.0, 0.0, 1.0])
    """
    M = np.asarray(M, dtype=float)
    if np.allclose(M, -np.eye(3), atol=_EPS):
        return "inversion", pi, None
    if np.linalg.det(M) > 0:
        theta, axis = _rotation(M)
        return "rotation", theta, axis
    phi, axis = _rotation(-M)
    if abs(phi - pi) < _EPS:
        return "reflection", pi, axis
    return "rotoreflection", (phi + pi) % (2 * pi), axis


def cycles(p: list[int]) -> list[list[int]]:
    """The non-trivial cycles of the permutation ``i -> p[i]`` (0-based in), 1-based out.

    >>> cycles([1, 0, 3, 4, 2])
    [[1, 2], [3, 4, 5]]
    """
    seen = [False] * len(p)
    out = []
    for i in range(len(p)):
        if seen[i] or p[i] == i:
            continue
        cyc, j = [], i
        while not seen[j]:
            seen[j] = True
            cyc.append(j + 1)
            j = p[j]
        out.append(cyc)
    return out


def _cycles_words(p: list[int]) -> str:
    words = [f"swaps {c[0]} and {c[1]}" if len(c) == 2 else "cycles " + " → ".join(map(str, c + c[:1])) for c in cycles(p)]
    return "; ".join(words) or "identity"


def _quaternion_words(M: np.ndarray) -> str:
    q = np.round(M[:, 0]).astype(int)  # the image of 1: the quaternion itself
    for unit, name in zip(range(4), ("1", "i", "j", "k")):
        if q[unit] != 0:
            return ("−" if q[unit] < 0 else "") + name if name != "1" or q[unit] < 0 else "identity"
    return "quaternion"


def element_words(G: FiniteGroup, g: int) -> str:
    """The element g of G in words (see the module docstring)."""
    g = int(g)
    if g == 0:
        return "identity"
    if G.family == "product" and G.components is not None and G.factors:
        parts = [element_words(F, int(x)) for F, x in zip(G.factors, G.components[g])]
        return "(" + ", ".join(parts) + ")"
    if G.family == "cyclic" and G.relabel is not None:
        n = G.order
        return f"rotation by {angle_text(2 * pi * int(G.relabel[g]) / n)}"
    if G.family == "dihedral" and G.perms is not None:
        p = [int(x) for x in G.perms[g]]
        n = len(p)
        t = p[0]
        if p[1 % n] == (t + 1) % n:
            return f"rotation by {angle_text(2 * pi * t / n)}"
        if t % 2 == 0:
            a, b = t // 2, (t // 2 + n // 2) % n
            through = f"vertex {a + 1}" + (f" (and vertex {b + 1})" if n % 2 == 0 else "")
        else:
            a = (t - 1) // 2
            through = f"the midpoint of vertices {a + 1} and {(a + 1) % n + 1}"
        return f"reflection across the axis through {through}"
    if G.family == "Q8" and G.matrices is not None:
        return f"quaternion {_quaternion_words(G.matrices[g])}"
    if G.matrices is not None:
        return matrix_words(G.matrices[g])
    if G.perms is not None:
        return _cycles_words([int(x) for x in G.perms[g]])
    return f"element of order {int(G.element_orders[g])}"


def subgroup_words(G: FiniteGroup, elements: np.ndarray, generators: list[int], listed: int = 4) -> str:
    """A subgroup of G in words: its elements when there are at most `listed`, else its generators.

    >>> from eqattn.groups import get_group
    >>> G = get_group("D4")
    >>> [subgroup_words(G, c.elements, [int(c.phi[int(s)]) for s in c.std.generators]) for c in G.subgroup_classes[1:4]]
    ['{identity, rotation by π}', '{identity, reflection across the axis through vertex 1 (and vertex 3)}', '{identity, reflection across the axis through the midpoint of vertices 1 and 2}']
    """
    elems = [int(x) for x in elements]
    if len(elems) == 1:
        return "{identity}"
    if len(elems) <= listed:
        return "{" + ", ".join(element_words(G, g) for g in sorted(elems)) + "}"
    return "generated by " + " and ".join(element_words(G, g) for g in generators)


def irrep_words(chars: np.ndarray, dim: int, kind: str, order: int, family: str = "", label: str = "") -> str:
    """An irrep in words from its character over the elements (dim, kernel, type).

    >>> irrep_words(np.array([1.0, 1.0]), 1, "real", 2)
    'trivial: every element acts as 1'
    >>> irrep_words(np.array([1.0, -1.0]), 1, "real", 2)
    'sign: elements act as ±1; kernel of order 1'
    """
    kernel = int(np.sum(np.abs(chars - dim) < _EPS))
    if kernel == order:
        return "trivial: every element acts as 1"
    named = ""
    if family == "symmetric" and label.startswith("["):
        parts = [int(x) for x in label.strip("[]").split(",")]
        n = sum(parts)
        if parts == [n - 1, 1]:
            named = f"standard: the permutations of {n} points, less the all-ones direction; "
        elif parts == [2] + [1] * (n - 2) and n > 2:
            named = "standard ⊗ sign; "
    if dim == 1 and kind == "real":
        return f"{named}sign: elements act as ±1; kernel of order {kernel}"
    extra = {"complex": ", a complex irrep seen as real", "quaternionic": ", a quaternionic irrep seen as real"}.get(kind, "")
    faithful = "faithful" if kernel == 1 else f"kernel of order {kernel}"
    return f"{named}{dim}-dimensional{extra}; {faithful}"


def coset_action(G: FiniteGroup, elements: np.ndarray) -> list[list[int]] | None:
    """How each generator of G permutes the left cosets a_i K of K = `elements` (the clusters
    of an orbit G/K, numbered by the transversal's order): `out[s][i] = j` when gen_s a_i K = a_j K
    (SPEC §2). None past 240 cosets.

    >>> from eqattn.groups import get_group
    >>> G = get_group("C4")
    >>> coset_action(G, G.subgroup_classes[1].elements)
    [[1, 0]]
    """
    K = np.asarray(elements)
    index = G.order // len(K)
    if index > 240:
        return None
    reps = G.left_transversal(K)
    where = np.full(G.order, -1, dtype=np.int64)
    for i, a in enumerate(reps):
        where[G.table[a, K]] = i
    return [[int(where[G.table[s, a]]) for a in reps] for s in G.generators]
