"""Values are immutable for real: frozen dataclasses with declared fields only, derived data
in one bounded per-object memo, and no module-level cache keyed by group objects, so a
custom group evicted from the catalog's cache is freed."""

from __future__ import annotations

import dataclasses
import gc
from itertools import combinations

import pytest

from eqattn.attention import Design, Problem, check_coverage
from eqattn.groups import FiniteGroup, get_group
from eqattn.groups import catalog
from eqattn.memo import Memo
from eqattn.reps import irreps, irreps_of, parse_rep


def _declared_only(obj: object) -> None:
    names = {f.name for f in dataclasses.fields(obj)}  # type: ignore[arg-type]
    extra = set(vars(obj)) - names
    assert not extra, f"{type(obj).__name__} has undeclared attributes {extra}"


def test_declared_fields_only_after_use():
    G = get_group("D4")
    p = Problem.create("D4", "regular", 2, 2)
    check_coverage(p, Design.regular(p))
    _ = (G.inv, G.conj_table, G.class_of, G.lattice, irreps(G).matrices, p.rho)
    for obj in [G, G.lattice, p, irreps(G), irreps(G).std, parse_rep("E1", G.subgroup_classes[-1]), *G.subgroup_classes]:
        _declared_only(obj)
    for K in G.subgroup_classes:
        _declared_only(irreps_of(K))
        _declared_only(K.std)


def test_frozen():
    G = get_group("C4")
    with pytest.raises(dataclasses.FrozenInstanceError):
        G.name = "C5"  # type: ignore[misc]
    p = Problem.create("C4", "E1", 1, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.heads = 2  # type: ignore[misc]


def test_memo_is_bounded():
    m = Memo(limit=3)
    for k in range(10):
        assert m.get(k, lambda k=k: k * k) == k * k
    assert len(m) == 3 and m.find(9) == 81 and m.find(0) is None
    assert m.get(0, lambda: "again") == "again"  # dropped entries are recomputed


def _live(family: str | None = None) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is FiniteGroup and (family is None or o.family == family))


def test_evicted_custom_groups_are_freed():
    """100 custom groups used through the whole stack; the catalog keeps the most recent
    ones (its cap), everything else about the others must be collectable. The groups are
    C3 x| C4 on 7 of 12 points: no standard name, so each builds its own fallback group
    (G12a) for its top class, which must go with it."""
    specs = [f"perm:({a},{b},{c}),({b},{c})({d},{e},{f},{g})" for a, b, c, d, e, f, g in combinations(range(1, 12), 7)][:100]
    assert len(set(specs)) == 100
    assert get_group(specs[0]).subgroup_classes[-1].std.family == "fallback"
    catalog.CATALOG.forget_custom()
    before, held = _live(), _live("custom") + _live("fallback")  # what other tests still hold
    for spec in specs:
        G = get_group(spec)
        p = Problem.create(G, "regular", 2, 1)
        check_coverage(p, Design.regular(p))
        assert irreps(G).labels
    del G, p
    custom, fallback = _live("custom"), _live("fallback")
    assert custom <= held + catalog.CATALOG.custom_max, f"{custom} custom groups alive; the catalog keeps {catalog.CATALOG.custom_max}"
    assert fallback <= held + catalog.CATALOG.custom_max, f"{fallback} fallback groups alive for {custom} custom groups"
    assert _live() <= before + 2 * catalog.CATALOG.custom_max
    catalog.CATALOG.forget_custom()
    assert _live("custom") + _live("fallback") <= held
    assert _live() <= before + 4  # what identification needed: C4, C6, ...
