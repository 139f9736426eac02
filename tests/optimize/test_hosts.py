"""The cheapest host of a demand through one slot (eqattn/optimize/hosts.py `cheapest_host`):
the shortcut (W = P^a) and the enumeration of the box P^a ≤ W ≤ top (`host_box_top`) agree
with the integer program over the whole box P^a ≤ W ≤ V|K' on every slot of every demand value
met on a few problems, with and without a head-dimension cap."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Problem
from eqattn.attention.hosting import hosting
from eqattn.optimize import hosts as types
from eqattn.optimize.separation import ScenarioSpace
from eqattn.optimize.hosts import _cheapest_host_program, cheapest_host, host_slots


def _feasible(slot, D, W, cap) -> bool:  # noqa: ANN001
    return bool((W >= slot.img).all() and (W <= slot.VK).all() and (W @ slot.unit >= D).all() and (cap is None or W @ slot.dims <= cap))


@pytest.mark.parametrize("G,V,H,d", [("C4", "2xregular", 2, 3), ("D4", "regular", 2, 3), ("S3", "2xregular", 2, 4), ("C2xC2", "2xregular", 2, 3),
                                     ("C4", "6xregular", 2, 4)])
def test_cheapest_host_matches_the_program(G, V, H, d, monkeypatch):  # noqa: ANN001
    p = Problem.create(G, V, H, d)
    h = hosting(p)
    space = ScenarioSpace(p)
    cases, seen = [], set()
    for v in space.values:  # distinct (slot data, demand) pairs, every one of them or an even sample of 60
        D = np.array(v.D.mults, dtype=np.int64)
        for slot in host_slots(p, h, v):
            key = (slot.K.id, slot.img.tobytes(), slot.unit.tobytes(), D.tobytes())
            if key not in seen:
                seen.add(key)
                cases.append((slot, D))
    checked = shortcut = cut = 0
    for slot, D in cases[:: max(1, len(cases) // 60)]:
        for cap in (None, d, 1):
            p.group.memo.get("cheapest_host", dict).clear()
            fast = cheapest_host(slot, D, cap)
            monkeypatch.setattr(types, "ENUMERATE_HOSTS", 0)  # the program every time, over the whole box P^a ≤ W ≤ V|K'
            monkeypatch.setattr(types, "CUT_HOST_BOX", False)
            p.group.memo.get("cheapest_host", dict).clear()
            ref = _cheapest_host_program(slot, D, cap, None)
            monkeypatch.setattr(types, "ENUMERATE_HOSTS", 20000)
            monkeypatch.setattr(types, "CUT_HOST_BOX", True)
            top = types.host_box_top(slot, D)
            cut += bool((top < slot.VK).any())
            assert (fast is None) == (ref is None)
            if ref is not None:
                assert _feasible(slot, D, fast, cap) and _feasible(slot, D, ref, cap)
                assert int(fast @ slot.unit_cost) == int(ref @ slot.unit_cost)
                shortcut += bool((fast == slot.img).all())
            checked += 1
    assert checked >= 20 and 1 <= shortcut < checked - 5, (checked, shortcut)
    assert cut > 0  # (the box's top below V|K' somewhere: the cut is exercised)


@pytest.mark.parametrize("G, V, H, d", [("D4", "A1+E1", 2, 2), ("C4", "A + E1", 2, 2), ("S3", "[3] + 2x[2,1]", 3, 1)])
def test_host_slots_are_kept_per_problem_and_price(G, V, H, d):  # noqa: ANN001
    """`host_slots` keeps the slots of a demand value per problem (they depend on K̄ and P
    only); the problem priced by attention cost shares the problem's memo but not its slots
    (their unit costs are the price's): each equals the slots listed afresh, whichever is
    asked first, and the head limit is part of the key."""
    from eqattn.optimize.hosts import _host_slots

    def fields(slots):  # noqa: ANN001, ANN202
        return [(s.K.id, s.a, s.unit_cost.tolist(), s.img.tolist(), s.unit.tolist()) for s in slots]

    p = Problem.create(G, V, H, d)
    q = p.priced("attention_cost")
    space = ScenarioSpace(p)
    h = hosting(p)
    values = space.values[:20]
    assert values
    differ = False
    for first, second in ((p, q), (q, p)):
        for v in values:
            for mh in (None, 2):
                a = host_slots(first, h, v, mh)
                assert host_slots(first, h, v, mh) is a  # kept
                assert fields(a) == fields(_host_slots(first, h, v, mh))
                b = host_slots(second, h, v, mh)
                assert fields(b) == fields(_host_slots(second, h, v, mh))
                differ = differ or fields(a) != fields(b)
        p, q = Problem.create(G, V, H, d), None
        q = p.priced("attention_cost")
        h = hosting(p)
    assert differ  # (the prices' unit costs differ on these problems; on m x regular they would not: B1)
