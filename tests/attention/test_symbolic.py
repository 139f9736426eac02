"""The symbolic coverage engine (docs/theory-scale.md §3–§5) against the enumerating
checker, SPEC §6, weight construction and large problems."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eqattn.attention import Design, DesignOrbit, Problem, clusterings, option_table
from eqattn.attention.coverage import check_coverage, check_scenario, enumerated_coverage, uses_symbolic
from eqattn.attention.hosting import hosting
from eqattn.attention.options import maximal_profiles
from eqattn.attention.symbolic import SymbolicChecker, symbolic_coverage
from eqattn.errors import InputError, LimitError
from eqattn.groups.catalog import get_group
from eqattn.numeric import verify_design
from eqattn.reps import Rep, irreps_of
from strategies import problem_and_design as random_problem_and_design

ATLAS = Path(__file__).resolve().parents[2] / "tests" / "data" / "atlas_reference.csv"


# ----- independent checks of what the engine returns ------------------------------------------
def assert_genuine_option(p: Problem, o) -> None:  # noqa: ANN001
    """o = (a, b) is a pair of maximal profiles (SPEC §4.1) and (K̄, P, D) are its own."""
    K = p.group.subgroup_classes[o.orbit[0]]
    VK = p.restrict(K)
    d = p.head_dim
    dims = VK.irreps.dims
    for prof, cap in ((o.a, d), (o.b, o.orbit[1] * d)):
        assert prof <= VK and prof.dim <= cap
        room = cap - prof.dim
        assert all(prof.mults[i] == VK.mults[i] or dims[i] > room for i in range(len(dims)))
    t = option_table(p)
    if o.zero:
        top = p.top
        assert o.kbar == top.id and o.P.is_zero()
        assert o.D == t.demand(K, o.b, top.id, 0)
    else:
        assert t.image(K, o.a) == (o.kbar, o.conj, o.P)
        assert o.D == t.demand(K, o.b, o.kbar, o.conj)


def assert_valid_witness(p: Problem, design: Design, r) -> None:  # noqa: ANN001
    """Distinct design orbits, each hosting its demand through its coset, supplies ≥ D."""
    h = hosting(p)
    used = [x.design_orbit for a in r.assignments for x in a.hosts]
    assert len(used) == len(set(used))
    for a in r.assignments:
        dem = a.demand
        total = np.zeros(len(dem.D.mults), dtype=np.int64)
        for x in a.hosts:
            o = design.orbits[x.design_orbit]
            hosts = dict(h.hosts(o.sub.id, o.W, dem.kbar, dem.P))
            assert x.a in hosts and hosts[x.a] == x.supply
            total += np.array(x.supply.mults)
        assert (total >= np.array(dem.D.mults)).all()


def check_against_reference(p: Problem, design: Design) -> list[bool]:
    new = symbolic_coverage(p, design)
    old = enumerated_coverage(p, design)
    assert [v.covered for v in new] == [v.covered for v in old]
    for v in new:
        if v.covered:
            for r in v.witnesses:
                for o in r.options:
                    assert_genuine_option(p, o)
                assert_valid_witness(p, design, r)
        else:
            ce = v.counterexample
            for o in ce.options:
                assert_genuine_option(p, o)
            assert not check_scenario(p, design, ce.options).ok
            assert ce.shortfall
    return [v.covered for v in new]


# ----- random small problems and designs ---------------------------------------------------------
GROUPS = ["C2", "C3", "C4", "C2xC2", "D3", "D4", "Q8", "C6"]


def problem_and_design():  # noqa: ANN201
    return random_problem_and_design(GROUPS)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(problem_and_design())
def test_symbolic_agrees_with_enumeration(pd) -> None:  # noqa: ANN001
    p, design = pd
    check_against_reference(p, design)


@st.composite
def degenerate_problem_and_design(draw):  # noqa: ANN001, ANN201
    """V with one or two distinct irreps (K̄ > K is common: SPEC §4.3), or only irreps of
    dimension ≥ 2 with d small (zero pools of several orbits)."""
    G = get_group(draw(st.sampled_from(GROUPS)))
    top = G.subgroup_classes[-1]
    ir = irreps_of(top)
    mults = [0] * len(ir)
    big = [i for i in range(len(ir)) if ir.dims[i] >= 2]
    if big and draw(st.booleans()):
        for i in big:
            mults[i] = draw(st.integers(0, 2))
        mults[big[0]] = max(mults[big[0]], 1)
        d = draw(st.integers(1, 2))
    else:
        for i in draw(st.lists(st.sampled_from(range(len(ir))), min_size=1, max_size=2, unique=True)):
            mults[i] = draw(st.integers(1, 3))
        d = draw(st.integers(1, 3))
    p = Problem(G, Rep(top, tuple(mults)), draw(st.integers(1, 5)), d)
    orbits = []
    for _ in range(draw(st.integers(0, 4))):
        K = draw(st.sampled_from(G.subgroup_classes))
        W = tuple(draw(st.integers(0, m)) for m in p.restrict(K).mults)
        if any(W):
            orbits.append(DesignOrbit(K, Rep(K, W)))
    return p, Design(p, tuple(orbits))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(degenerate_problem_and_design())
def test_symbolic_agrees_on_degenerate_and_pooled_problems(pd) -> None:  # noqa: ANN001
    p, design = pd
    check_against_reference(p, design)


def _atlas_rows(step: int) -> list[dict]:
    with ATLAS.open() as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "optimal" and int(r["dim_v"]) <= 8]
    return rows[::step]


def atlas_design(p: Problem, text: str) -> Design:
    orbits = []
    for part in text.split(";"):
        part = part.strip()
        k = 1
        if " x " in part.split(":")[0]:
            k_text, part = part.split(" x ", 1)
            k = int(k_text)
        sub, rep = part.rsplit(":", 1)
        orbits += [(sub.strip(), rep.strip())] * k
    return Design.create(p, orbits)


def test_atlas_designs_and_their_weakenings() -> None:
    """Optimal atlas designs: covered by both engines; with an orbit removed or its W
    shrunk, both engines agree again (mostly 'not covered', with counterexamples)."""
    rows = _atlas_rows(23)
    assert len(rows) >= 40
    flips = 0
    for r in rows:
        try:
            p = Problem.create(r["group"], r["V"], int(r["H"]), int(r["d"]))
        except InputError:
            continue
        design = atlas_design(p, r["design"]) if r["design"] not in ("", "(empty)") else Design(p, ())
        try:
            assert all(check_against_reference(p, design))
            for i in range(len(design.orbits)):
                rest = design.orbits[:i] + design.orbits[i + 1 :]
                flips += not all(check_against_reference(p, Design(p, rest)))
                o = design.orbits[i]
                j = next((j for j, m in enumerate(o.W.mults) if m), None)
                if j is not None:
                    W = Rep(o.sub, tuple(m - (k == j) for k, m in enumerate(o.W.mults)))
                    check_against_reference(p, Design(p, rest + (DesignOrbit(o.sub, W),)))
        except LimitError:
            continue
    assert flips >= 20  # optimal designs lose coverage when an orbit goes


def test_spec_examples() -> None:
    p = Problem.create("C4", "E1", 2, 1)
    v = {tuple(sorted((p.group.subgroup_classes[c].name, n) for (c, n), _ in x.clustering.orbits)): x.covered
         for x in symbolic_coverage(p, Design.create(p, [("C2", "B")]))}
    assert all(v.values()) and len(v) == 3
    p = Problem.create("C2", "A + B", 1, 1)
    (bad,) = symbolic_coverage(p, Design.create(p, [("C2", "A"), ("C2", "B")]))
    assert not bad.covered
    (o,) = bad.counterexample.options
    assert (str(o.a), str(o.b)) == ("A", "B")
    assert str(bad.counterexample.shortfall[0][1]) == "B"
    assert symbolic_coverage(p, Design.create(p, [("C2", "A + B")]))[0].covered
    # example 4: the zero pool of two orbits is one demand, met by the regular orbit alone
    p = Problem.create("C3", "E1", 4, 1)
    assert all(v.covered for v in symbolic_coverage(p, Design.create(p, [("C1", "A")])))
    empty = {v.clustering.id: v.covered for v in symbolic_coverage(p, Design(p, ()))}
    assert empty == {v.clustering.id: v.covered for v in enumerated_coverage(p, Design(p, ()))}


def test_covered_verdicts_confirmed_by_weights() -> None:
    """SPEC §4.5 (⇐): every witness of the symbolic engine builds design weights that
    reproduce sampled vanilla layers (eqattn verify)."""
    cases = [
        ("C4", "E1", 2, 1, [("C2", "B")]),
        ("C3", "E1", 4, 1, [("C1", "A")]),
        ("C2", "A + B", 2, 2, [("C2", "A + B"), ("C1", "2xA")]),
        ("D3", "regular", 2, 2, None),
        ("C4", "2xA + E1", 2, 2, None),
    ]
    for g, rep, H, d, orbits in cases:
        p = Problem.create(g, rep, H, d)
        design = Design.create(p, orbits) if orbits else Design.regular(p)
        verdicts = symbolic_coverage(p, design)
        assert all(v.covered for v in verdicts)
        assert verify_design(p, design, verdicts=verdicts).worst_rel_error < 1e-8


# ----- large problems ------------------------------------------------------------------------------
def test_large_regular_design_and_a_cheaper_one() -> None:
    p = Problem.create("C8", "16xregular", 8, 16)
    assert uses_symbolic(p)
    reg = Design.regular(p)
    verdicts = check_coverage(p, reg)
    assert len(verdicts) == len(clusterings(p)) and all(v.covered for v in verdicts)
    for v in verdicts[:5]:
        for r in v.witnesses:
            assert_valid_witness(p, reg, r)
    # seven of the eight regular orbits cannot host eight generic orbits of G/C8
    short = Design(p, reg.orbits[:7])
    chk = SymbolicChecker(p, short)
    c = next(c for c in clusterings(p) if c.orbits == (((p.top.id, 1), 8),))
    ce = chk.first_uncovered(c)
    assert ce is not None
    for o in ce.options:
        assert_genuine_option(p, o)
    assert not check_scenario(p, short, ce.options).ok  # the reference assignment search agrees


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(problem_and_design())
def test_random_covered_verdicts_confirmed_by_weights(pd) -> None:  # noqa: ANN001
    """Every covered verdict of the symbolic engine on a random small problem rebuilds the
    sampled vanilla layers exactly from its witnesses (SPEC §4.5 (⇐), `eqattn verify`)."""
    p, design = pd
    if p.dim_v > 8:
        p = Problem(p.group, Rep(p.V.sub, tuple(min(m, 1) for m in p.V.mults)), p.heads, p.head_dim)
        design = Design(p, tuple(o for o in design.orbits if o.W <= p.restrict(o.sub)))
    design = Design(p, design.orbits + Design.regular(p).orbits[: p.heads // 2])
    verdicts = symbolic_coverage(p, design)
    report = verify_design(p, design, verdicts=verdicts)
    assert report.clusterings == sum(v.covered for v in verdicts)
    assert report.worst_rel_error < 1e-8


# ----- the per-clustering path against the general one ---------------------------------------------
@st.composite
def medium_problem_and_design(draw):  # noqa: ANN001, ANN201
    """Problems past the atlas sizes; designs of one orbit type (the chain fast path: several
    copies of one (K', W), or the regular design with up to two orbits removed, which sits on
    the boundary Σ k_j = c) or of several types. V of 2-dimensional irreps with d = 1 gives
    zero pools of several orbit types."""
    G = get_group(draw(st.sampled_from(["C2", "C4", "C2xC2", "D3", "D4", "Q8"])))
    top = G.subgroup_classes[-1]
    ir = irreps_of(top)
    big = [i for i in range(len(ir)) if ir.dims[i] >= 2]
    if big and draw(st.booleans()):
        mults = tuple(draw(st.integers(1, 3)) if i in big else 0 for i in range(len(ir)))
        d = 1
    else:
        mults = tuple(draw(st.integers(0, 3)) for _ in range(len(ir)))
        if not any(mults):
            mults = (2,) + mults[1:]
        d = draw(st.integers(1, 6))
    p = Problem(G, Rep(top, mults), draw(st.integers(2, 6)), d)
    kind = draw(st.sampled_from(["copies", "regular", "mixed"]))
    if kind == "regular":
        reg = Design.regular(p).orbits
        return p, Design(p, reg[: len(reg) - draw(st.integers(0, 2))])

    def orbit() -> DesignOrbit | None:
        K = draw(st.sampled_from(G.subgroup_classes))
        W = tuple(draw(st.integers(0, m)) for m in p.restrict(K).mults)
        return DesignOrbit(K, Rep(K, W)) if any(W) else None

    if kind == "copies":
        o = orbit()
        return p, Design(p, (o,) * draw(st.integers(1, p.heads)) if o else ())
    orbits = [o for o in (orbit() for _ in range(draw(st.integers(2, 4)))) if o]
    return p, Design(p, tuple(orbits))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(medium_problem_and_design())
def test_per_clustering_path_matches_general_path(pd) -> None:  # noqa: ANN001
    """`check_clustering` (interned demands, memoised feasibility, the one-type count test)
    gives the verdicts, scenarios and demands of `check_clustering_general` (demands rebuilt
    per scenario, pattern plan, reference search), valid witnesses, and counterexamples the
    reference assignment search confirms."""
    p, design = pd
    try:
        fast = SymbolicChecker(p, design)
        general = SymbolicChecker(p, design, fast=False)
        cl = clusterings(p)
        mine = [fast.check_clustering(c) for c in cl]
        ref = [general.check_clustering(c) for c in cl]
    except LimitError:
        return
    assert fast.single_type == (len({o.key() for o in design.orbits}) == 1)
    for v, w in zip(mine, ref):
        assert (v.covered, v.scenarios) == (w.covered, w.scenarios)
        for r in v.witnesses + ((v.counterexample,) if v.counterexample else ()):
            assert [o.orbit for o in r.options] == v.clustering.expanded()
        if v.covered:
            assert [(r.options, r.demands) for r in v.witnesses] == [(r.options, r.demands) for r in w.witnesses]
            for r in v.witnesses:
                assert_valid_witness(p, design, r)
        else:
            ce = v.counterexample
            assert (ce.options, ce.demands) == (w.counterexample.options, w.counterexample.demands)
            assert ce.shortfall and all(d in ce.demands for d, _ in ce.shortfall)
            assert not check_scenario(p, design, ce.options).ok


def test_profile_rows_merged_give_the_listings_hosting_sets(monkeypatch):
    """Lemma 6, merging: rows equal in dimension used and in their sums over the breakable
    pairs clipped at W + 1 are merged while listed. On D8, 4xregular, H = 4, d = 16 with a
    design of three orbit types (the shape the optimiser met at d = 64, where the plain
    listing passed 400 000 rows) every hosting-set listing equals the plain one, mask for
    mask, and the merged listing stays under a limit of 1000 rows that the plain one
    passes."""
    import eqattn.attention.hosting_sets as sym

    p = Problem.create("D8", "4xregular", 4, 16)
    sub = {c.name: c for c in p.group.subgroup_classes}
    spec = [("D8", (4, 4, 4, 4, 8, 0, 0), 2), ("C4", (8, 4, 8), 2), ("C2.1", (16, 0), 1)]
    design = Design(p, tuple(DesignOrbit(sub[n], Rep(sub[n], W)) for n, W, c in spec for _ in range(c)))
    orig = SymbolicChecker._hostsets
    calls = []

    def both(self, *args):  # noqa: ANN001, ANN202
        monkeypatch.setattr(sym, "MERGE_PROFILE_ROWS", False)
        plain = orig(self, *args)
        monkeypatch.setattr(sym, "MERGE_PROFILE_ROWS", True)
        merged = orig(self, *args)
        assert sorted(m.tobytes() for m, _ in plain) == sorted(m.tobytes() for m, _ in merged)
        calls.append(len(merged))
        return merged

    monkeypatch.setattr(SymbolicChecker, "_hostsets", both)
    chk = SymbolicChecker(p, design)
    verdicts = [chk.first_uncovered(c) is None for c in clusterings(p)]
    assert calls and max(calls) > 1
    monkeypatch.setattr(SymbolicChecker, "_hostsets", orig)
    monkeypatch.setattr(sym, "MAX_PROFILE_ROWS", 1000)
    chk = SymbolicChecker(p, design)
    assert [chk.first_uncovered(c) is None for c in clusterings(p)] == verdicts
    monkeypatch.setattr(sym, "MERGE_PROFILE_ROWS", False)
    with pytest.raises(LimitError):
        chk = SymbolicChecker(p, design)
        for c in clusterings(p):
            chk.first_uncovered(c)
