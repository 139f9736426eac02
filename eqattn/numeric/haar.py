"""Haar-distributed random elements of SO(2), O(2), SO(3), O(3) as orthogonal matrices.

* SO(3): a unit quaternion uniform on S^3 (a normalised standard normal 4-vector) gives a
  Haar-uniform rotation (the double cover S^3 -> SO(3) carries the uniform measure to Haar).
* O(3) = SO(3) x {±1}: that rotation times a fair random sign.
* SO(2): R(θ) with θ uniform on [0, 2π).
* O(2) = SO(2) ⋊ {1, S}: R(θ) S^b with b a fair coin, S = diag(1, -1) (Haar on both cosets).

Seeded by a numpy Generator or an int (theory-continuous.md §6: the samples ``verify`` and the
layer tests use).

>>> g = haar_elements("O3", 4, seed=1)
>>> g.shape, bool(np.allclose(g @ g.transpose(0, 2, 1), np.eye(3)))
((4, 3, 3), True)
>>> sorted(set(np.round(np.linalg.det(haar_elements("O2", 64, seed=0))).astype(int).tolist()))
[-1, 1]
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..reps.wigner import KINDS

__all__ = ["haar_elements", "quaternion_to_matrix"]


def quaternion_to_matrix(q: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotations of unit quaternions ``q (N, 4)`` = (w, x, y, z)."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def haar_elements(kind: str, count: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """(count, k, k) Haar-random elements of ``kind`` (module docstring); k = 3 or 2."""
    if kind not in KINDS:
        raise InputError("group", f"{kind!r}: one of {', '.join(KINDS)}")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise InputError("samples", f"a whole number >= 0, got {count!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if kind in ("SO3", "O3"):
        q = rng.normal(size=(count, 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        g = quaternion_to_matrix(q)
        if kind == "O3":
            g *= rng.choice([-1.0, 1.0], size=count)[:, None, None]
        return g
    theta = rng.uniform(0.0, 2 * np.pi, size=count)
    c, s = np.cos(theta), np.sin(theta)
    g = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    if kind == "O2":
        flip = rng.random(count) < 0.5
        g[flip, :, 1] *= -1
    return g
