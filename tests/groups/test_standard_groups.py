"""The lattice is built by the group with the standard groups handed down explicitly
(FiniteGroup.lattice -> SubgroupLattice.build(G, STANDARD)); nothing is registered."""

from __future__ import annotations

from eqattn.groups import STANDARD, FiniteGroup, StandardGroups, SubgroupLattice, get_group


def test_a_subgroups_standard_group_is_the_catalogs_group() -> None:
    D4 = get_group("D4")
    by_type = {c.type_name: c.std for c in D4.subgroup_classes}
    assert by_type["C4"] is get_group("C4") is STANDARD.cyclic(4)
    assert by_type["C2xC2"] is get_group("C2xC2") is STANDARD.abelian((2, 2))
    assert get_group("S4").subgroup_classes[-1].std is get_group("S4")


def test_the_lattice_uses_the_standard_groups_it_is_handed() -> None:
    G = FiniteGroup.from_permutations("S4 on 4 points", [(1, 2, 3, 0), (1, 0, 2, 3)], degree=4)
    own = StandardGroups(FiniteGroup)
    lat = SubgroupLattice.build(G, own)
    assert [c.name for c in lat.classes] == [c.name for c in G.subgroup_classes]
    assert [c.name for c in lat.classes][:4] == ["C1", "C2.1", "C2.2", "C3"]
    d4 = next(c for c in lat.classes if c.type_name == "D4")
    assert d4.std is own.dihedral(4) and d4.std is not STANDARD.dihedral(4)
    assert next(c for c in G.subgroup_classes if c.type_name == "D4").std is STANDARD.dihedral(4)
