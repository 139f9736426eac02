"""The listing of partial profiles behind the hosting sets (docs/theory-scale.md C4, Lemma 6:
merging, floors, blocks): the merge keys, the block-wise expansion against a plain
expansion, and the checker's answers with and without blocks."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eqattn.attention.hosting_sets as hs
from eqattn.attention import Design, DesignOrbit, Problem, clusterings
from eqattn.attention.symbolic import SymbolicChecker
from eqattn.reps import Rep


@st.composite
def states(draw, big: bool = False):  # noqa: ANN001, ANN201
    n = draw(st.integers(1, 30))
    p = draw(st.integers(0, 4))
    cap = draw(st.integers(0, 12))
    hi = 2**40 if big else 9
    top = np.array(draw(st.lists(st.integers(1, hi), min_size=p, max_size=p)), dtype=np.int64)
    floor = np.array([draw(st.integers(0, int(t))) for t in top], dtype=np.int64)
    used = np.array(draw(st.lists(st.integers(0, cap), min_size=n, max_size=n)), dtype=np.int64)
    sums = np.array(draw(st.lists(st.lists(st.integers(0, 12), min_size=p, max_size=p), min_size=n, max_size=n)),
                    dtype=np.int64).reshape(n, p)
    return used, sums, floor, top, cap


@settings(max_examples=150, deadline=None)
@given(states())
def test_state_keys_are_equal_exactly_for_equal_clipped_states(s):  # noqa: ANN001
    used, sums, floor, top, cap = s
    keys = hs._state_keys(used, sums, floor, floor, top, cap)
    assert keys.ndim == 1  # the small radices: one integer per row
    clipped = [(int(u), *np.clip(r, floor, top).tolist()) for u, r in zip(used, sums)]
    for i in range(len(used)):
        for j in range(len(used)):
            assert (keys[i] == keys[j]) == (clipped[i] == clipped[j])


@settings(max_examples=60, deadline=None)
@given(states(big=True))
def test_state_keys_past_the_integer_range_are_the_clipped_rows(s):  # noqa: ANN001
    used, sums, floor, top, cap = s
    keys = hs._state_keys(used, sums, floor, floor, top, cap)
    if keys.ndim == 1:  # the product of the radices stayed below 2**62
        return
    clipped = np.column_stack([used, np.clip(sums, floor, top) - floor])
    assert (keys == clipped).all()


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_row_floors_are_never_above_what_can_still_break(data):  # noqa: ANN001
    """Every completion of a row (values k >= 1 of the coordinates ahead within the dimension
    the row leaves, cap counting one copy of each) keeps a sum at or below the row's floor
    at most W = top - 1: the sums merged at a floor stay unbroken whatever comes."""
    pairs = data.draw(st.integers(1, 3))
    n_ahead = data.draw(st.integers(0, 3))
    ahead = [(np.array(data.draw(st.lists(st.integers(0, 3), min_size=pairs, max_size=pairs)), dtype=np.int64),
              data.draw(st.integers(1, 3))) for _ in range(n_ahead)]
    cap = data.draw(st.integers(0, 10))
    used = np.arange(0, cap + 1, dtype=np.int64)
    top = np.array(data.draw(st.lists(st.integers(1, 12), min_size=pairs, max_size=pairs)), dtype=np.int64)
    low = np.zeros(pairs, dtype=np.int64)
    floors = hs._row_floors(used, cap, low, top, ahead)
    for u, f in zip(used.tolist(), floors):
        room = cap - u + sum(dl for _, dl in ahead)
        most = np.zeros(pairs, dtype=np.int64)
        for ks in product(*[range(1, room // dl + 1) for _, dl in ahead]):
            if sum(k * dl for k, (_, dl) in zip(ks, ahead)) <= room:
                most = np.maximum(most, sum((k * c for k, (c, _) in zip(ks, ahead)), np.zeros(pairs, dtype=np.int64)))
        # sums up to a floor above 0 are merged: from the floor no completion passes W = top - 1
        assert ((f == 0) | (f + most <= top - 1)).all()


def _plain_extend(rows, used, j, ks, dl, cap, clip, low, top):  # noqa: ANN001, ANN202
    """The reference: every row with every value, filtered, the first of each clipped state."""
    seen, out_r, out_u = set(), [], []
    for r, u in zip(rows.tolist(), used.tolist()):
        for k in ks.tolist():
            if u + k * dl > cap:
                continue
            r2 = list(r)
            r2[j] = k
            state = (u + k * dl, *np.clip(np.array(r2) @ clip, low, top).tolist())
            if state in seen:
                continue
            seen.add(state)
            out_r.append(r2)
            out_u.append(u + k * dl)
    return out_r, out_u


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_extend_rows_in_blocks_is_the_plain_expansion(data):  # noqa: ANN001
    cols = data.draw(st.integers(1, 4))
    pairs = data.draw(st.integers(0, 3))
    n = data.draw(st.integers(0, 12))
    rows = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=cols, max_size=cols), min_size=n, max_size=n)),
                    dtype=np.int64).reshape(n, cols)
    used = np.array(data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=np.int64)
    j = data.draw(st.integers(0, cols - 1))
    ks = np.arange(1, data.draw(st.integers(0, 5)) + 1, dtype=np.int64)
    dl = data.draw(st.integers(1, 3))
    cap = data.draw(st.integers(0, 14))
    clip = np.array(data.draw(st.lists(st.lists(st.integers(0, 2), min_size=pairs, max_size=pairs), min_size=cols, max_size=cols)),
                    dtype=np.int64).reshape(cols, pairs)
    top = np.array(data.draw(st.lists(st.integers(1, 8), min_size=pairs, max_size=pairs)), dtype=np.int64)
    floor = np.array([data.draw(st.integers(0, int(t))) for t in top], dtype=np.int64)
    block = data.draw(st.integers(1, 40))
    want = _plain_extend(rows, used, j, ks, dl, cap, clip, floor, top)
    old = hs.MAX_PROFILE_EXPAND
    try:
        hs.MAX_PROFILE_EXPAND = block  # blocks of block // ks.size rows (at least one)
        r, u = hs._extend_rows(rows, used, j, ks, dl, cap, clip, floor, top)
    finally:
        hs.MAX_PROFILE_EXPAND = old
    assert (r.tolist(), u.tolist()) == want


def _d8_design() -> tuple[Problem, Design]:
    p = Problem.create("D8", "4xregular", 4, 16)
    sub = {c.name: c for c in p.group.subgroup_classes}
    spec = [("D8", (4, 4, 4, 4, 8, 0, 0), 2), ("C4", (8, 4, 8), 2), ("C2.1", (16, 0), 1)]
    return p, Design(p, tuple(DesignOrbit(sub[n], Rep(sub[n], W)) for n, W, c in spec for _ in range(c)))


def test_hosting_classes_in_blocks_of_seven_rows_are_the_same(monkeypatch):  # noqa: ANN001
    """Rows formed a few at a time (MAX_PROFILE_EXPAND = 7) give the same hosting classes,
    representatives included, and the same verdicts as one expansion; so do states compared
    as rows instead of integers."""
    p, design = _d8_design()
    orbits = sorted({(o.sub.id, 1) for o in design.orbits} | {(c.id, 2) for c in p.group.subgroup_classes[:4]})
    chk = SymbolicChecker(p, design)
    want = {o: chk.hosting_classes(o) for o in orbits}
    verdicts = [chk.first_uncovered(c) is None for c in clusterings(p)]
    monkeypatch.setattr(hs, "MAX_PROFILE_EXPAND", 7)
    chk = SymbolicChecker(p, design)
    assert {o: chk.hosting_classes(o) for o in orbits} == want
    assert [chk.first_uncovered(c) is None for c in clusterings(p)] == verdicts
    monkeypatch.setattr(hs, "INTEGER_STATE_KEYS", False)  # states compared as rows: the same merges
    chk = SymbolicChecker(p, design)
    assert {o: chk.hosting_classes(o) for o in orbits} == want


def test_the_s4xc2_design_past_the_old_limits_is_checked(monkeypatch):  # noqa: ANN001
    """S4xC2, 10xregular, H = 4, d = 60: a design the optimiser met (A4, A4, D4, D3 orbits).
    Listed row by row and merged only on equal clipped sums, its D6 profiles passed
    400 000 rows (LimitError, 31 s); with the floors they stay under 10 000 and the
    check answers."""
    p = Problem.create("S4xC2", "10xregular", 4, 60)
    sub = {c.name: c for c in p.group.subgroup_classes}
    spec = [("A4", (20, 20, 20)), ("A4", (40, 30, 20)), ("D4.1", (30, 30, 30, 30, 30)), ("D3.2", (40, 40, 30))]
    design = Design(p, tuple(DesignOrbit(sub[n], Rep(sub[n], W)) for n, W in spec))
    most = []
    orig = hs._extend_rows

    def counting(*args):  # noqa: ANN002, ANN202
        out = orig(*args)
        most.append(out[0].shape[0])
        return out

    monkeypatch.setattr(hs, "_extend_rows", counting)
    chk = SymbolicChecker(p, design)
    verdicts = [chk.first_uncovered(c) is None for c in clusterings(p)]
    assert max(most) < 10_000
    # the listing without floors, allowed 4 000 000 rows, gives the same verdicts (37 s:
    # `benchmarks/hosting_listing.py --quick --rows 4000000`): 10 of the 23 clusterings covered
    assert len(verdicts) == 23
    assert [i for i, v in enumerate(verdicts) if v] == [0, 1, 5, 6, 8, 9, 10, 12, 13, 14]


def _random_orbits(p: Problem, data, least: int, most: int) -> tuple[DesignOrbit, ...]:  # noqa: ANN001
    """least to most orbits (K, W) of random subgroups and head spaces W ≤ V|K."""
    orbits = []
    for _ in range(data.draw(st.integers(least, most))):
        K = data.draw(st.sampled_from(p.group.subgroup_classes))
        W = tuple(data.draw(st.integers(0, m)) for m in p.restrict(K).mults)
        orbits.append(DesignOrbit(K, Rep(K, W)))
    return tuple(orbits)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([("D4", "4xregular", 4, 12), ("D6", "3xregular", 4, 12), ("S4", "2xregular", 4, 12)]), st.data())
def test_merged_listing_has_the_plain_listings_masks_on_random_designs(case, data):  # noqa: ANN001
    """Merging with floors (Lemma 6) keeps every hosting mask of the plain listing, on designs
    of two to four random orbits; a floor that forgot what later coordinates add fails here."""
    p = Problem.create(*case)
    design = Design(p, _random_orbits(p, data, 2, 4))
    orig = SymbolicChecker._hostsets
    compared = []

    def both(self, *args):  # noqa: ANN001, ANN202
        hs.MERGE_PROFILE_ROWS = False
        try:
            plain = orig(self, *args)
        finally:
            hs.MERGE_PROFILE_ROWS = True
        merged = orig(self, *args)
        assert sorted(m.tobytes() for m, _ in plain) == sorted(m.tobytes() for m, _ in merged)
        compared.append(len(merged))
        return merged

    try:
        SymbolicChecker._hostsets = both
        chk = SymbolicChecker(p, design)
        for c in clusterings(p):
            chk.first_uncovered(c)
    finally:
        SymbolicChecker._hostsets = orig
    assert compared


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([("D4", "4xregular", 4, 12), ("S4", "2xregular", 4, 12)]), st.data())
def test_a_shared_memo_gives_each_design_its_own_verdicts(case, data):  # noqa: ANN001
    """Checkers of several designs sharing one `HostingMemo` (designs repeated, and designs
    with the same types in another order or with a type's orbit repeated) answer every
    clustering as fresh checkers do; the memo is hit, and refuses another problem's checker."""
    p = Problem.create(*case)
    pick = list(_random_orbits(p, data, 2, 3))
    designs = [Design(p, tuple(pick)), Design(p, tuple(pick[:-1])), Design(p, tuple(reversed(pick))),
               Design(p, tuple(pick + pick[:1])), Design(p, tuple(pick))]
    memo = hs.HostingMemo(p)
    hits = []
    orig = memo.get

    def get(key):  # noqa: ANN001, ANN202
        got = orig(key)
        hits.append(got is not None)
        return got

    memo.get = get
    cs = list(clusterings(p))
    for design in designs:
        shared = SymbolicChecker(p, design, memo=memo)
        fresh = SymbolicChecker(p, design)
        for c in cs:
            a, b = shared.first_uncovered(c), fresh.first_uncovered(c)
            assert (a is None) == (b is None)
            if a is not None:
                assert a.options == b.options
    assert any(hits)
    with pytest.raises(ValueError, match="memo"):
        SymbolicChecker(Problem.create("C4", "E1", 2, 1), Design(Problem.create("C4", "E1", 2, 1), ()), memo=memo)
