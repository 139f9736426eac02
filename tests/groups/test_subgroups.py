"""Subgroup lattice: canonical classes, normalisers, double cosets, identification isomorphisms."""

import numpy as np
import pytest

from eqattn.errors import InputError
from eqattn.groups import STANDARD as st
from eqattn.groups.identify import find_isomorphism

CASES = {  # published counts of conjugacy classes of subgroups (also checked against GAP)
    "S4": (st.symmetric(4), 11, 30),
    "A5": (st.alternating(5), 9, 59),
    "S5": (st.symmetric(5), 19, 156),
    "Q8": (st.quaternion(), 6, 6),
    "D4": (st.dihedral(4), 8, 10),
    "C2^4": (st.direct_product((st.cyclic(2),) * 4), 67, 67),
}


@pytest.mark.parametrize("name", list(CASES))
def test_class_counts(name):
    G, classes, total = CASES[name]
    cl = G.subgroup_classes
    assert len(cl) == classes
    assert sum(c.size for c in cl) == total
    assert cl[0].order == 1 and cl[-1].order == G.order
    assert [c.id for c in cl] == list(range(len(cl)))
    assert [c.order for c in cl] == sorted(c.order for c in cl)


@pytest.mark.parametrize("name", list(CASES))
def test_identification_is_an_isomorphism(name):
    G = CASES[name][0]
    for c in G.subgroup_classes:
        S, phi = c.std, c.phi
        assert sorted(phi.tolist()) == c.elements.tolist()
        assert np.array_equal(phi[S.table], G.table[phi[:, None], phi[None, :]])


def test_names_and_types():
    names = [c.name for c in st.symmetric(4).subgroup_classes]
    assert names == ["C1", "C2.1", "C2.2", "C3", "C2xC2.1", "C2xC2.2", "C4", "D3", "D4", "A4", "S4"]
    assert [c.name for c in st.quaternion().subgroup_classes] == ["C1", "C2", "C4.1", "C4.2", "C4.3", "Q8"]
    s5 = [c.type_name for c in st.symmetric(5).subgroup_classes]
    assert "G20a" in s5  # the Frobenius group C5:C4 has no standard name: fallback
    d6c2 = st.direct_product((st.dihedral(4), st.cyclic(2)))
    assert d6c2.subgroup_classes[-1].type_name == "D4xC2"


def test_normaliser_and_conjugates():
    G = st.symmetric(4)
    for c in G.subgroup_classes:
        assert c.mask[c.elements].all()
        assert G.order == len(c.conjugates) * c.normalizer.size
        for x in c.normalizer:
            assert np.array_equal(G.conjugate_set(int(x), c.elements), c.elements)


def test_double_cosets_partition():
    G = st.symmetric(4)
    cl = G.subgroup_classes
    for K in cl:
        for L in cl:
            reps = G.double_cosets(K.elements, L.elements)
            seen = np.zeros(G.order, dtype=int)
            for a in reps:
                dc = np.unique(G.table[G.table[K.elements, a][:, None], L.elements[None, :]])
                seen[dc] += 1
            assert (seen == 1).all()


def test_locate_gives_conjugator():
    G = st.symmetric(4)
    for c, S in G.lattice.all_subgroups:
        cls, x = G.lattice.locate(S)
        assert cls is c
        assert np.array_equal(G.conjugate_set(x, c.elements), S)


def test_resolve():
    lat = st.symmetric(4).lattice
    assert lat.resolve("D4").name == "D4"
    assert lat.resolve(3).name == "C3" and lat.resolve("3").name == "C3"
    with pytest.raises(InputError, match="ambiguous"):
        lat.resolve("C2")
    with pytest.raises(InputError, match="unknown subgroup"):
        lat.resolve("C7")
    with pytest.raises(InputError, match="out of range"):
        lat.resolve(99)


def test_non_isomorphic_groups_are_not_matched():
    D4, Q8 = st.dihedral(4), st.quaternion()
    assert find_isomorphism(D4, Q8, np.arange(8)) is None
    assert find_isomorphism(Q8, Q8, np.arange(8)) is not None
