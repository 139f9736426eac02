"""Real irreps of the compact groups SO(2), O(2), SO(3), O(3) as explicit matrices.

SO(3) and O(3): the real Wigner matrices ``D^l(R)`` in e3nn's real spherical-harmonics basis
(so a layer acts on e3nn tensors directly; docs/theory-continuous.md §3, §6). The so(3)
generators of degree l are the su(2) ladder generators carried into the real basis by e3nn's
change of basis ``q_l`` (real form of the spherical harmonics, times ``(-i)^l``):
``X_a = q_l^† J_a q_l``, a = x, y, z, real and antisymmetric. A rotation by the angle θ about
the unit axis n is ``exp(θ n·L)`` with ``L`` the generators of degree 1 (which are the 3x3
cross-product matrices: degree 1 is R itself), so

    D^l(R) = exp(θ (n_x X_x + n_y X_y + n_z X_z)).

This is a homomorphism of SO(3) for integer l. O(3) = SO(3) x {±1}: for ``g`` with
``det g = s``, ``D^{l,p}(g) = p^{(1-s)/2} D^l(s g)`` (e3nn's ``Irrep(l, p).D_from_matrix``; parity
``p = +1`` is e3nn's ``e``, ``-1`` its ``o``).

SO(2) and O(2) on 2x2 matrices: ``E_k(R(θ)) = R(kθ)``, and for a reflection ``g = R(θ) S``
(``S = diag(1, -1)``) ``E_k(g) = R(kθ) S``; degree 0 is the trivial irrep (``A``, ``A1``) or,
with parity -1, ``det`` (``A2`` of O(2)).

>>> import numpy as np
>>> R = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])    # pi/2 about z
>>> bool(np.allclose(band_matrices(BandIrrep("SO3", 1), R[None])[0], R))
True
>>> np.round(band_matrices(BandIrrep("O3", 1, -1), -np.eye(3)[None])[0], 12).tolist()
[[-1.0, -0.0, -0.0], [-0.0, -1.0, -0.0], [-0.0, -0.0, -1.0]]
>>> band_matrices(BandIrrep("O2", 2), np.array([[[0.0, -1.0], [1.0, 0.0]]])).round(12).tolist()
[[[-1.0, -0.0], [0.0, -1.0]]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..groups.compact import KINDS as COMPACT_KINDS
from ..groups.compact import CompactInfo

__all__ = ["KINDS", "BandIrrep", "so3_generators", "wigner_d", "band_matrices"]

#: the compact groups (groups/compact.py), with the size of their matrices
KINDS = {kind: 2 if CompactInfo(kind, 0).planar else 3 for kind in COMPACT_KINDS}


@dataclass(frozen=True)
class BandIrrep:
    """A real irrep of a compact group: ``kind`` in KINDS, ``degree`` (l for SO3/O3, the
    frequency k for SO2/O2) and ``parity`` (+1/-1: e/o for O3, A1/A2 for O2's degree 0; +1
    otherwise)."""

    kind: str
    degree: int
    parity: int = 1

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError("group", f"{self.kind!r}: one of {', '.join(KINDS)}")
        if self.degree < 0 or self.parity not in (1, -1):
            raise InputError("rep", f"degree {self.degree} >= 0 and parity +1 or -1, got {self.parity}")
        if self.parity == -1 and not (self.kind == "O3" or (self.kind == "O2" and self.degree == 0)):
            raise InputError("rep", f"{self.kind} has no irrep of degree {self.degree} with parity -1")

    @property
    def dim(self) -> int:
        if self.kind in ("SO3", "O3"):
            return 2 * self.degree + 1
        return 1 if self.degree == 0 else 2

    @staticmethod
    def of_label(info: CompactInfo, label: str) -> "BandIrrep":
        """The band irrep of a compact stand-in's label (``info.irrep(label)`` is ``(l, parity)``
        or ``(k, sign)``, parity 0 where the group has none)."""
        degree, parity = info.irrep(label)
        return BandIrrep(info.kind, int(degree), -1 if parity == -1 else 1)

    def __str__(self) -> str:
        """The compact notation's label (groups/compact.py), e.g. ``1o``, ``E2``, ``A2``."""
        info = CompactInfo(self.kind, self.degree)
        return next(lab for lab in info.labels if BandIrrep.of_label(info, lab) == self)


def _real_to_complex(l: int) -> np.ndarray:
    """e3nn's ``change_basis_real_to_complex(l)``: complex from real spherical harmonics."""
    q = np.zeros((2 * l + 1, 2 * l + 1), dtype=np.complex128)
    r = 2**-0.5
    for m in range(-l, 0):
        q[l + m, l - m] = r
        q[l + m, l + m] = -1j * r
    q[l, l] = 1
    for m in range(1, l + 1):
        q[l + m, l + m] = (-1) ** m * r
        q[l + m, l - m] = 1j * (-1) ** m * r
    return (-1j) ** l * q


def so3_generators(l: int) -> np.ndarray:
    """(3, 2l+1, 2l+1): the real so(3) generators X_x, X_y, X_z of degree l in e3nn's basis.

    >>> X = so3_generators(2)
    >>> bool(np.allclose(X[0] @ X[1] - X[1] @ X[0], X[2]))     # [X_x, X_y] = X_z
    True
    """
    j = np.arange(-l, l + 1, dtype=np.float64)
    raising = np.diag(-np.sqrt(l * (l + 1) - j[:-1] * (j[:-1] + 1)), -1)
    lowering = np.diag(np.sqrt(l * (l + 1) - j[1:] * (j[1:] - 1)), 1)
    su2 = np.stack([0.5 * (raising + lowering), np.diag(1j * j), -0.5j * (raising - lowering)])
    q = _real_to_complex(l)
    X = np.einsum("ji,ajk,kl->ail", q.conj(), su2, q)
    assert np.abs(X.imag).max() < 1e-12
    # su2's components are (x, z, -y) in e3nn's naming; the real basis turns them into
    # rotations about x, y, z (X_a = the cross-product matrix of e_a for l = 1).
    return np.ascontiguousarray(X.real)


def wigner_d(l: int, R: np.ndarray) -> np.ndarray:
    """(N, 2l+1, 2l+1): D^l at the rotations ``R (N, 3, 3)``: exp of the axis-angle
    ``θ n`` against the generators (module docstring)."""
    R = np.asarray(R, dtype=np.float64)
    if l == 0:
        return np.ones((R.shape[0], 1, 1))
    from scipy.spatial.transform import Rotation  # on first use: `import eqattn` stays light

    rotvec = Rotation.from_matrix(R).as_rotvec()  # (N, 3), θ n
    A = np.einsum("na,aij->nij", rotvec, so3_generators(l))
    # exp of the antisymmetric A through the Hermitian iA = U diag(λ) U^†: exp(A) = U e^{-iλ} U^†
    lam, U = np.linalg.eigh(1j * A)
    return np.einsum("nij,nj,nkj->nik", U, np.exp(-1j * lam), U.conj()).real


def _so2_angle(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(θ, reflection flag) with ``g = R(θ) S^flag`` for 2x2 orthogonal g."""
    det = np.linalg.det(g)
    refl = det < 0
    h = g.copy()
    h[refl, :, 1] *= -1  # g S: the rotation part
    return np.arctan2(h[:, 1, 0], h[:, 0, 0]), refl


def band_matrices(irrep: BandIrrep, g: np.ndarray) -> np.ndarray:
    """(N, dim, dim): the irrep at the group elements ``g (N, k, k)`` (k = 3 for SO3/O3,
    2 for SO2/O2; module docstring)."""
    g = np.asarray(g, dtype=np.float64)
    k = KINDS[irrep.kind]
    if g.ndim != 3 or g.shape[1:] != (k, k):
        raise InputError("elements", f"{irrep.kind}: an (N, {k}, {k}) array of orthogonal matrices, got shape {g.shape}")
    det = np.sign(np.linalg.det(g))
    if irrep.kind in ("SO3", "SO2") and (det < 0).any():
        raise InputError("elements", f"{irrep.kind} has determinant +1 only; element {int(np.argmax(det < 0))} has -1")
    if irrep.kind in ("SO3", "O3"):
        D = wigner_d(irrep.degree, det[:, None, None] * g)
        return D * np.where(det < 0, float(irrep.parity), 1.0)[:, None, None]
    theta, refl = _so2_angle(g)
    if irrep.degree == 0:
        return np.where(refl & (irrep.parity == -1), -1.0, 1.0)[:, None, None]
    c, s = np.cos(irrep.degree * theta), np.sin(irrep.degree * theta)
    out = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    out[refl, :, 1] *= -1
    return out
