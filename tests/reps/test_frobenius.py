"""Property tests (hypothesis): Frobenius reciprocity and the induction/restriction laws
over random groups, subgroups and representations (SPEC §0, §4.2)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as hst

from eqattn.groups import STANDARD as st
from eqattn.reps import Rep, conjugate_character, decompose, induce_character, irreps_of

GROUPS = [
    st.cyclic(6), st.dihedral(3), st.dihedral(4), st.dihedral(5), st.quaternion(), st.alternating(4),
    st.symmetric(4), st.direct_product((st.cyclic(2), st.cyclic(2))), st.direct_product((st.dihedral(3), st.cyclic(2))),
]


@hst.composite
def group_sub_reps(draw):
    G = draw(hst.sampled_from(GROUPS))
    K = draw(hst.sampled_from(G.subgroup_classes))
    top = G.subgroup_classes[-1]
    nV = len(irreps_of(top))
    nW = len(irreps_of(K))
    V = Rep(top, tuple(draw(hst.lists(hst.integers(0, 2), min_size=nV, max_size=nV))))
    W = Rep(K, tuple(draw(hst.lists(hst.integers(0, 2), min_size=nW, max_size=nW))))
    return G, K, V, W


@given(group_sub_reps())
def test_frobenius_reciprocity(data):
    G, K, V, W = data
    top = G.subgroup_classes[-1]
    ind = decompose(top, induce_character(G, W.character, K.elements, top.elements))
    assert ind.dim == W.dim * K.index
    assert V.restrict(K).hom_dim(W) == V.hom_dim(ind)


@given(group_sub_reps())
def test_projection_formula(data):
    """Ind_K^G (V|K) = V (x) Ind_K^G 1, as characters."""
    G, K, V, _ = data
    top = G.subgroup_classes[-1]
    res = np.zeros(G.order)
    res[K.elements] = V.character[K.elements]
    lhs = induce_character(G, res, K.elements, top.elements)
    triv = np.zeros(G.order)
    triv[K.elements] = 1.0
    perm = induce_character(G, triv, K.elements, top.elements)
    assert np.allclose(lhs, V.character * perm)


@given(group_sub_reps(), hst.integers(0, 10**6))
def test_conjugation_preserves_dimension_and_hom(data, seed):
    """U^a is a rep of a^-1 K a with the same dimension; Hom dims are invariant."""
    G, K, _, W = data
    a = seed % G.order
    chi = conjugate_character(G, W.character, a)
    L = np.sort(G.conj_table[G.inv[a], K.elements])  # a^-1 K a
    Lc, x = G.lattice.locate(L)
    assert Lc.id == K.id
    assert np.isclose(chi[0], W.dim)
    # <chi^a, chi^a> over a^-1 K a equals <chi, chi> over K
    assert np.isclose((chi[L] ** 2).sum(), (W.character[K.elements] ** 2).sum())


@given(group_sub_reps())
def test_induction_in_stages(data):
    """Ind_L^G = Ind_K^G Ind_L^K for L <= K (transfers compose, SPEC §4.5)."""
    G, K, _, W = data
    top = G.subgroup_classes[-1]
    subs = [c for c in G.subgroup_classes if K.mask[c.elements].all()]
    L = subs[len(subs) // 2]
    chi = np.zeros(G.order)
    chi[L.elements] = 1.0
    chi[0] = 1.0
    two = induce_character(G, induce_character(G, chi, L.elements, K.elements), K.elements, top.elements)
    one = induce_character(G, chi, L.elements, top.elements)
    assert np.allclose(one, two)
