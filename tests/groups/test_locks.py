"""Building one group (or its subgroup lattice) never holds up another group (issue 11:
one global lock made D11 wait 4.6-6.9 s behind an order-500 custom group)."""

from __future__ import annotations

import threading

import pytest

from eqattn.groups import catalog
from eqattn.groups.finite_group import FiniteGroup
from eqattn.groups.subgroups import SubgroupLattice


def test_a_slow_custom_group_does_not_block_a_catalog_group(monkeypatch):
    release = threading.Event()
    entered = threading.Event()
    real = catalog._build_custom

    def slow(key: str):  # noqa: ANN202
        entered.set()
        assert release.wait(30)
        return real(key)

    monkeypatch.setattr(catalog, "_build_custom", slow)
    spec = "perm:(1,2,3,4,5,6,7)"
    cat = catalog.GroupCatalog()
    waiting = threading.Thread(target=cat.get, args=(spec,))
    waiting.start()
    try:
        assert entered.wait(30)
        got: list = []
        other = threading.Thread(target=lambda: got.append(cat.get("D11")))
        other.start()
        other.join(30)  # finishes while the custom group is still held up
        assert got and got[0].order == 22 and not release.is_set()
    finally:
        release.set()
        waiting.join(30)
    assert cat.get(spec).order == 7


def test_same_group_is_built_once_by_concurrent_callers(monkeypatch):
    calls: list[str] = []
    real = catalog._build

    def counted(key: str):  # noqa: ANN202
        calls.append(key)
        return real(key)

    monkeypatch.setattr(catalog, "_build", counted)
    cat = catalog.GroupCatalog()
    out: list = []
    threads = [threading.Thread(target=lambda: out.append(cat.get("D13"))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert calls == ["D13"] and len({id(g) for g in out}) == 1 and len(out) == 6


def test_a_slow_lattice_does_not_block_another_groups_lattice(monkeypatch):
    slow_group = FiniteGroup.from_permutations("slow", [(1, 2, 0, 3), (0, 1, 3, 2)], degree=4)
    fast_group = FiniteGroup.from_permutations("fast", [(1, 0, 2)], degree=3)
    release = threading.Event()
    entered = threading.Event()
    real = SubgroupLattice.build

    def build(G, standard):  # noqa: ANN001, ANN202
        if G is slow_group:
            entered.set()
            assert release.wait(30)
        return real(G, standard)

    monkeypatch.setattr(SubgroupLattice, "build", staticmethod(build))
    t = threading.Thread(target=lambda: slow_group.lattice)
    t.start()
    try:
        assert entered.wait(30)
        got: list = []
        other = threading.Thread(target=lambda: got.append(len(fast_group.subgroup_classes)))
        other.start()
        other.join(30)
        assert got == [2] and not release.is_set()  # C2: {1}, C2
    finally:
        release.set()
        t.join(30)
    assert len(slow_group.subgroup_classes) > 1


@pytest.mark.parametrize("spec", ["C2", "perm:(1,2)"])
def test_no_build_locks_are_left_behind(spec):
    cat = catalog.GroupCatalog()
    cat.get(spec)
    assert not cat.building
