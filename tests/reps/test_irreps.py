"""Irreps: homomorphisms, orthogonal, irreducible with the right commutant, distinct,
sum dim^2/e = |G|; standard labels (README: irrep labels)."""

import numpy as np
import pytest

from eqattn.groups import STANDARD as st
from eqattn.reps import irreps, irreps_of
from eqattn.reps.matrices import commutant_basis

GROUPS = [
    st.cyclic(1), st.cyclic(2), st.cyclic(5), st.cyclic(12), st.dihedral(3), st.dihedral(4), st.dihedral(6),
    st.quaternion(), st.alternating(4), st.symmetric(4), st.alternating(5), st.symmetric(5),
    st.direct_product((st.cyclic(3), st.cyclic(3))), st.direct_product((st.cyclic(2), st.cyclic(2))),
    st.direct_product((st.quaternion(), st.cyclic(3))), st.direct_product((st.dihedral(3), st.cyclic(4))),
]


@pytest.mark.parametrize("G", GROUPS, ids=lambda g: g.name)
def test_irrep_matrices_are_orthogonal_irreducible_homomorphisms(G):
    ir = irreps(G)
    t = G.table
    total = 0.0
    for i, mats in enumerate(ir.matrices):
        d = int(ir.dims[i])
        assert mats.shape == (G.order, d, d)
        # homomorphism on all pairs
        lhs = mats[t]  # (n, n, d, d): rho(ab)
        rhs = np.einsum("aij,bjk->abik", mats, mats)
        assert np.allclose(lhs, rhs, atol=1e-9)
        # orthogonal
        assert np.allclose(np.einsum("gji,gjk->gik", mats, mats), np.eye(d), atol=1e-9)
        # irreducible with commutant of dimension e (1, 2, 4 by type)
        assert commutant_basis(mats).shape[0] == ir.es[i]
        # character is the trace
        assert np.allclose(np.einsum("gii->g", mats), ir.chars[i], atol=1e-9)
        total += d * d / ir.es[i]
    assert total == pytest.approx(G.order)
    # pairwise non-isomorphic: <chi_i, chi_j> = e_i delta_ij
    gram = ir.chars @ ir.chars.T / G.order
    assert np.allclose(gram, np.diag(ir.es), atol=1e-9)


def _labels(G):
    ir = irreps(G)
    return list(zip(ir.labels, ir.dims.tolist(), ir.types))


def test_standard_labels():
    assert _labels(st.cyclic(4)) == [("A", 1, "real"), ("B", 1, "real"), ("E1", 2, "complex")]
    assert _labels(st.cyclic(5)) == [("A", 1, "real"), ("E1", 2, "complex"), ("E2", 2, "complex")]
    assert [l for l, _, _ in _labels(st.dihedral(4))] == ["A1", "A2", "B1", "B2", "E1"]
    assert _labels(st.quaternion())[-1] == ("H", 4, "quaternionic")
    assert _labels(st.alternating(4)) == [("A", 1, "real"), ("E", 2, "complex"), ("T", 3, "real")]
    assert [l for l, _, _ in _labels(st.alternating(5))] == ["A", "T1", "T2", "G", "H"]
    assert sorted(l for l, _, _ in _labels(st.symmetric(4))) == sorted(["[4]", "[3,1]", "[2,2]", "[2,1,1]", "[1,1,1,1]"])
    assert [l for l, _, _ in _labels(st.direct_product((st.cyclic(3), st.cyclic(3))))] == [
        "A.A", "A.E1", "E1.A", "E1.E1", "E1.E1*"
    ]


def test_label_values():
    D4 = st.dihedral(4)
    ir = irreps(D4)
    r, s = D4.generators
    vals = {lab: (ir.chars[i, r], ir.chars[i, s]) for i, lab in enumerate(ir.labels)}
    assert vals["A2"] == (1, -1) and vals["B1"] == (-1, 1) and vals["B2"] == (-1, -1)
    C6 = st.cyclic(6)
    ir = irreps(C6)
    for i, lab in enumerate(ir.labels):
        if lab.startswith("E"):
            k = int(lab[1:])
            assert ir.chars[i, 1] == pytest.approx(2 * np.cos(2 * np.pi * k / 6))
    S4 = st.symmetric(4)
    ir = irreps(S4)
    transposition = next(g for g in range(24) if (S4.perms[g] != np.arange(4)).sum() == 2)
    std = ir.labels.index("[3,1]")
    assert ir.chars[std, transposition] == pytest.approx(1.0)  # the standard rep: fixed points - 1
    A5 = st.alternating(5)
    ir = irreps(A5)
    b = A5.generators[0]
    assert ir.chars[ir.labels.index("T1"), b] == pytest.approx((1 + 5**0.5) / 2)


@pytest.mark.parametrize("G", [st.symmetric(4), st.dihedral(6), st.symmetric(5)], ids=lambda g: g.name)
def test_subgroup_irreps_are_homomorphisms(G):
    for c in G.subgroup_classes:
        ir = irreps_of(c)
        K = c.elements
        li = c.local_index
        prod = li[G.table[np.ix_(K, K)]]
        for mats in ir.matrices:
            assert np.allclose(mats[prod], np.einsum("aij,bjk->abik", mats, mats), atol=1e-9)
        assert sum(d * d / e for d, e in zip(ir.dims, ir.es)) == pytest.approx(c.order)
