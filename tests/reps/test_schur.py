"""reps/schur.py: isotypic projectors and generic endomorphisms on both routes.

On band irreps (Lemma 8) an average over the finite stand-in would give F's commutant, which
is larger than the compact group's: the Schur blocks must commute with V's matrices at
Haar-random elements of the compact group, span exactly Σ m_σ² dimensions, and the average over
F must fail that test (so the test can tell the two apart)."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Problem
from eqattn.groups import get_group
from eqattn.numeric.ambient import ambient_rep
from eqattn.numeric.haar import haar_elements
from eqattn.numeric.isotypic import isotypic_basis
from eqattn.reps import irreps_of, parse_rep
from eqattn.reps.matrices import isotypic_projector
from eqattn.reps.schur import block_irreps, generic_endomorphism, isotypic_projector_on


def _span_dim(mats: list[np.ndarray]) -> int:
    return int(np.linalg.matrix_rank(np.array([m.ravel() for m in mats]), tol=1e-8))


@pytest.mark.parametrize("kind, text, sub, blocks, dim_end", [
    ("O3", "2x0e + 1x3o + 1x3e", 0, (0, 0, 3, 3), 8),      # on SO3: 2x0 + 2x3
    ("O3", "2x0e + 1x3o + 1x3e", 1, (0, 0, 6, 7), 6),      # on O3 itself: 4 + 1 + 1
    ("SO3", "1x1 + 2x3", 0, (1, 3, 3), 5),
])
def test_band_schur_blocks_are_the_compact_commutant(kind, text, sub, blocks, dim_end) -> None:
    G = get_group(kind, band=3)
    V = parse_rep(text, G.subgroup_classes[-1])
    K = G.subgroup_classes[sub]
    assert irreps_of(K).band and block_irreps(V, K) == blocks
    rng = np.random.default_rng(0)
    Bs = [generic_endomorphism(V, K, rng) for _ in range(dim_end + 3)]
    assert _span_dim(Bs) == dim_end
    g = haar_elements(kind, 12, seed=1)
    if sub == 0 and kind == "O3":
        g = g * np.sign(np.linalg.det(g))[:, None, None]  # rotations: elements of SO(3)
    R = ambient_rep(V).matrices(g)
    assert max(float(np.abs(R @ B - B @ R).max()) for B in Bs) < 1e-10
    # the average over the finite K_F commutes on F but not on the compact group
    rho_k = V.matrices()[K.elements]
    avg = np.matmul(np.matmul(rho_k, rng.normal(size=(V.dim, V.dim))), rho_k.transpose(0, 2, 1)).mean(axis=0)
    assert float(np.abs(rho_k @ avg - avg @ rho_k).max()) < 1e-10 and float(np.abs(R @ avg - avg @ R).max()) > 1e-3
    # projectors: idempotent, summing to I, commuting with the compact group, traces m_σ d_σ
    irr = irreps_of(K)
    Ps = [isotypic_projector_on(V, K, s) for s in range(len(irr))]
    assert np.allclose(sum(Ps), np.eye(V.dim)) and all(np.allclose(P @ P, P) for P in Ps)
    assert max(float(np.abs(R @ P - P @ R).max()) for P in Ps) < 1e-10
    mults = V.restrict(K).mults
    assert [round(float(np.trace(P))) for P in Ps] == [m * int(d) for m, d in zip(mults, irr.dims)]


def test_the_irreps_route_keeps_the_averages() -> None:
    """A group's own irreps: the projector is the character formula and the endomorphism the
    average over K, drawn from the same random stream as before reps/schur.py existed."""
    p = Problem.create("D4", "A1 + B1 + E1", 2, 2)
    K = p.group.subgroup_classes[3]
    rho_k = p.rho[K.elements]
    irr = irreps_of(K)
    for s in range(len(irr)):
        want = isotypic_projector(rho_k, irr.chars[s, K.elements], int(irr.dims[s]), int(irr.es[s]))
        assert np.allclose(isotypic_projector_on(p.V, K, s), want)
    Y = np.random.default_rng(5).normal(size=(p.dim_v, p.dim_v))
    want = np.matmul(np.matmul(rho_k, Y), rho_k.transpose(0, 2, 1)).mean(axis=0)
    assert np.allclose(generic_endomorphism(p.V, K, np.random.default_rng(5)), want)


def test_band_isotypic_bases_are_block_permutations_and_refuse_other_bases() -> None:
    G = get_group("O3", band=3)
    V = parse_rep("1x0e + 1x3o + 1x3e", G.subgroup_classes[-1])
    SO3 = G.subgroup_classes[0]
    rho_k = V.matrices()[SO3.elements]
    iso = isotypic_basis(SO3, rho_k)
    assert iso.mults == (1, 0, 0, 2) and iso.Q is None  # 0, then 3 twice: already sorted
    perm = np.eye(V.dim)[[*range(1, 8), 0, *range(8, 15)]]  # the 0 block moved to the middle
    iso2 = isotypic_basis(SO3, perm @ rho_k @ perm.T)
    assert np.allclose(perm @ rho_k @ perm.T @ iso2.matrix(), iso2.matrix() @ rho_k)
    rot = np.linalg.qr(np.random.default_rng(0).normal(size=(V.dim, V.dim)))[0]
    with pytest.raises(ValueError, match="band block form"):
        isotypic_basis(SO3, rot @ rho_k @ rot.T)
