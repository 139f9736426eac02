"""Real Wigner matrices against e3nn, the planar irreps, and Haar sampling (reps/wigner.py,
numeric/haar.py)."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.errors import InputError
from eqattn.numeric.haar import haar_elements, quaternion_to_matrix
from eqattn.reps.wigner import BandIrrep, band_matrices, so3_generators

torch = pytest.importorskip("torch")
o3 = pytest.importorskip("e3nn.o3")


def _e3nn(l: int, p: int, g: np.ndarray) -> np.ndarray:
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return o3.Irrep(l, p).D_from_matrix(torch.as_tensor(g)).numpy()
    finally:
        torch.set_default_dtype(default)


def _special_o3() -> np.ndarray:
    """Identity, inversion, rotations by pi (the axis-angle's edge). (At tiny angles e3nn's
    Euler angles lose ~1e-9; there degree 1 is checked against R itself below.)"""
    Rz = lambda t: np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1.0]])
    Rx = lambda t: np.array([[1.0, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    mats = [np.eye(3), -np.eye(3), Rz(np.pi), Rx(np.pi), Rz(np.pi) @ Rx(np.pi / 2), -Rx(np.pi)]
    return np.array(mats)


@pytest.mark.parametrize("l", range(5))
@pytest.mark.parametrize("p", [1, -1])
def test_wigner_matrices_equal_e3nn(l: int, p: int) -> None:
    g = np.concatenate([haar_elements("O3", 64, seed=l), _special_o3()])
    D = band_matrices(BandIrrep("O3", l, p), g)
    assert np.abs(D - _e3nn(l, p, g)).max() < 1e-12


def test_degree_one_odd_is_the_matrix_itself_even_at_tiny_angles() -> None:
    t = 1e-9
    tiny = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1.0]])
    g = np.concatenate([haar_elements("O3", 32, seed=9), _special_o3(), tiny[None], -tiny[None]])
    assert np.abs(band_matrices(BandIrrep("O3", 1, -1), g) - g).max() < 1e-14
    assert np.abs(band_matrices(BandIrrep("O3", 1, 1), g) - g * np.linalg.det(g)[:, None, None]).max() < 1e-14


def test_so3_matches_o3_on_rotations_and_refuses_reflections() -> None:
    R = haar_elements("SO3", 16, seed=5)
    assert np.abs(band_matrices(BandIrrep("SO3", 2), R) - _e3nn(2, 1, R)).max() < 1e-12
    with pytest.raises(InputError, match="determinant"):
        band_matrices(BandIrrep("SO3", 1), -R)


def test_generators_satisfy_so3_brackets_and_degree_one_is_the_cross_product() -> None:
    for l in range(4):
        X = so3_generators(l)
        for a, b, c in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
            assert np.abs(X[a] @ X[b] - X[b] @ X[a] - X[c]).max() < 1e-13
        assert np.abs(X + X.transpose(0, 2, 1)).max() == 0
    e = np.eye(3)
    assert np.allclose([np.cross(e[a], e) .T for a in range(3)], so3_generators(1))


@pytest.mark.parametrize("irrep", [BandIrrep("O3", 3, -1), BandIrrep("O2", 3), BandIrrep("O2", 0, -1), BandIrrep("SO2", 2)])
def test_band_irreps_are_orthogonal_homomorphisms(irrep: BandIrrep) -> None:
    kind = irrep.kind
    a, b = haar_elements(kind, 40, seed=1), haar_elements(kind, 40, seed=2)
    Da, Db, Dab = (band_matrices(irrep, x) for x in (a, b, a @ b))
    assert np.abs(Dab - Da @ Db).max() < 1e-12
    assert np.abs(Da @ Da.transpose(0, 2, 1) - np.eye(irrep.dim)).max() < 1e-12


def test_planar_irreps_by_hand() -> None:
    t = 0.7
    R = np.array([[[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]])
    S = np.diag([1.0, -1.0])[None]
    E2 = band_matrices(BandIrrep("O2", 2), R)[0]
    assert np.allclose(E2, [[np.cos(2 * t), -np.sin(2 * t)], [np.sin(2 * t), np.cos(2 * t)]])
    assert np.allclose(band_matrices(BandIrrep("O2", 2), R @ S)[0], E2 @ S[0])
    assert band_matrices(BandIrrep("O2", 0, -1), S)[0, 0, 0] == -1
    assert band_matrices(BandIrrep("O2", 0, 1), S)[0, 0, 0] == 1
    with pytest.raises(InputError, match="parity"):
        BandIrrep("SO3", 1, -1)


@pytest.mark.parametrize("kind", ["SO2", "O2", "SO3", "O3"])
def test_haar_samples_are_seeded_group_elements_with_haar_moments(kind: str) -> None:
    g = haar_elements(kind, 4000, seed=7)
    assert np.array_equal(g, haar_elements(kind, 4000, seed=7))
    assert not np.array_equal(g, haar_elements(kind, 4000, seed=8))
    k = g.shape[1]
    assert np.abs(g @ g.transpose(0, 2, 1) - np.eye(k)).max() < 1e-12
    det = np.linalg.det(g)
    if kind.startswith("S"):
        assert np.allclose(det, 1)
    else:
        assert abs((det < 0).mean() - 0.5) < 0.05
    # Haar: the mean of every non-trivial irrep vanishes (Schur orthogonality); 4000 samples
    # give a standard error ~ 1/63 per entry.
    irreps = [BandIrrep(kind, 1), BandIrrep(kind, 2)] + ([BandIrrep(kind, 0, -1)] if kind in ("O2", "O3") else [])
    for irrep in irreps:
        assert np.abs(band_matrices(irrep, g).mean(axis=0)).max() < 0.07, irrep
    # and the mean of |chi|^2 of an irrep of real type is 1 (of complex type: 2)
    chi = np.trace(band_matrices(BandIrrep(kind, 1), g), axis1=1, axis2=2)
    assert abs((chi**2).mean() - (2 if kind == "SO2" else 1)) < 0.1


def test_quaternions_give_rotations() -> None:
    q = np.array([[1.0, 0, 0, 0], [0, 0, 0, 1.0], [np.cos(0.3), np.sin(0.3), 0, 0]])
    R = quaternion_to_matrix(q)
    assert np.allclose(R[0], np.eye(3))
    assert np.allclose(R[1], np.diag([-1.0, -1.0, 1.0]))            # pi about z
    assert np.allclose(R[2][1:, 1:], [[np.cos(0.6), -np.sin(0.6)], [np.sin(0.6), np.cos(0.6)]])


def test_bad_arguments_are_input_errors() -> None:
    with pytest.raises(InputError, match="group"):
        haar_elements("SU2", 3)
    with pytest.raises(InputError, match="samples"):
        haar_elements("O3", -1)
    with pytest.raises(InputError, match="elements"):
        band_matrices(BandIrrep("O3", 1), np.eye(2)[None])
