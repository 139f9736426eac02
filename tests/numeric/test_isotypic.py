"""The isotypic block structure of Hom_K(V, W): checked against the averaging projector
(an independent route to Hom_K), for real, complex and quaternionic irreps."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Problem
from eqattn.groups import get_group
from eqattn.numeric.equivariant import averaged_hom_basis
from eqattn.numeric.isotypic import HomBlocks, Isotypic, isotypic_basis, isotypic_of_rep
from eqattn.reps import irreps_of, parse_rep

CASES = [  # (group, V, subgroup class index, W over K)
    ("C4", "2xregular", 1, "2xA + B"),  # C2 in C4
    ("C4", "A + 2xE1", 2, "E1 + B"),  # complex type, e = 2
    ("Q8", "regular", 5, "H + A"),  # quaternionic type, e = 4
    ("Q8", "2xregular", 2, "2xE1 + A"),  # C4 in Q8: H restricts to 2xE1 (complex)
    ("D4", "3xregular", 4, "2xA.A + B.A"),  # a Klein four subgroup
    ("A4", "T + E", 2, "E1 + A"),  # C3 in A4
    ("S4", "[3,1] + [2,2]", 7, "2xE1 + A2"),  # D3 in S4
]


def _check_isotypic(iso: Isotypic, rho_k: np.ndarray) -> None:
    Q = iso.matrix()
    assert np.abs(Q.T @ Q - np.eye(Q.shape[0])).max() < 1e-12
    blocks = _rep(iso).matrices()
    assert np.abs(rho_k @ Q - Q @ blocks).max() < 1e-10


def _rep(iso: Isotypic):  # noqa: ANN202
    from eqattn.reps import Rep

    return Rep(iso.sub, iso.mults)


@pytest.mark.parametrize("group,V,k,W", CASES)
def test_hom_blocks_span_hom_k(group: str, V: str, k: int, W: str) -> None:
    p = Problem.create(group, V, 1, 1)
    K = p.group.subgroup_classes[k]
    WK = parse_rep(W, K)
    rho_k = p.rho[K.elements]
    iso_v = isotypic_of_rep(p.V, K)
    _check_isotypic(iso_v, rho_k)
    assert iso_v.mults == p.restrict(K).mults
    hom = HomBlocks(iso_v, Isotypic.standard(WK))
    assert hom.dim == p.restrict(K).hom_dim(WK)
    basis = hom.dense_basis()
    flat = basis.reshape(hom.dim, -1)
    assert np.abs(flat @ flat.T - np.eye(hom.dim)).max() < 1e-12  # orthonormal
    # the same space as the averaging projector's image (independent route)
    ref = averaged_hom_basis(WK.matrices(), rho_k).reshape(-1, flat.shape[1])
    assert ref.shape[0] == hom.dim
    assert np.abs(flat - (flat @ ref.T) @ ref).max() < 1e-10
    # compose / coordinates are inverse, and project onto the space
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(3, hom.dim))
    A = hom.compose(theta)
    assert np.abs(hom.coordinates(A) - theta).max() < 1e-12
    X = rng.normal(size=A.shape[1:])
    Pr = hom.compose(hom.coordinates(X))
    assert np.abs(hom.coordinates(X - Pr)).max() < 1e-12


@pytest.mark.parametrize("group,V,k,W", CASES)
def test_matrix_route_agrees(group: str, V: str, k: int, W: str) -> None:
    """isotypic_basis from a dense, rotated copy of V gives the same Hom space."""
    p = Problem.create(group, V, 1, 1)
    K = p.group.subgroup_classes[k]
    rng = np.random.default_rng(1)
    U = np.linalg.qr(rng.normal(size=(p.dim_v, p.dim_v)))[0]
    rho_u = U @ p.rho[K.elements] @ U.T
    iso = isotypic_basis(K, rho_u, seed=3)
    _check_isotypic(iso, rho_u)
    WK = parse_rep(W, K)
    a = HomBlocks(iso, Isotypic.standard(WK)).dense_basis().reshape(-1, WK.dim * p.dim_v)
    b = HomBlocks(isotypic_of_rep(p.V, K).in_basis(U), Isotypic.standard(WK)).dense_basis().reshape(a.shape)
    assert np.abs(a - (a @ b.T) @ b).max() < 1e-10


def test_commutant_dims_by_type() -> None:
    """End_K(D_τ) has dimension 1, 2, 4 for real, complex, quaternionic τ."""
    K = get_group("Q8").subgroup_classes[-1]
    p = Problem.create("Q8", "regular", 1, 1)
    hom = HomBlocks(isotypic_of_rep(p.V, K), isotypic_of_rep(p.V, K))
    assert [e for _, _, e in hom.shapes] == [1, 1, 1, 1, 4]
    assert hom.dim == 4 + 1 * 1 * 4  # real regular = A + B1 + B2 + B3 + H (m_H = d/e = 1)
    assert hom.source.Q is None  # V of G over G: already in block form
    C3 = get_group("C3").subgroup_classes[-1]
    assert tuple(irreps_of(C3).es) == (1, 2)


def test_bad_input() -> None:
    K = get_group("C2").subgroup_classes[-1]
    with pytest.raises(ValueError, match="multiplicities give dimension"):
        isotypic_basis(K, np.array([np.eye(2), np.eye(2)]), mults=(1, 0))
    with pytest.raises(ValueError, match="different subgroups"):
        HomBlocks(Isotypic(K, (1, 0)), Isotypic(get_group("C3").subgroup_classes[-1], (1, 0)))


@pytest.mark.parametrize("group,V,k,W", CASES)
def test_trivial_copies_are_the_fixed_vectors(group: str, V: str, k: int, W: str) -> None:
    from eqattn.numeric.equivariant import fixed_vectors
    from eqattn.numeric.realize import _trivial_copies

    K = get_group(group).subgroup_classes[k]
    WK = parse_rep(W, K)
    mine, ref = _trivial_copies(WK), fixed_vectors(WK.matrices())
    assert mine.shape == ref.shape
    if mine.size:
        assert np.abs(mine - (mine @ ref.T) @ ref).max() < 1e-10  # the same space
