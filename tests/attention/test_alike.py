"""Scenarios a design cannot tell apart from a counterexample (`SymbolicChecker.alike`,
docs/theory-scale.md O18): genuine options of the same orbits, the same pattern, and so
counterexamples too, by the reference assignment search."""

from __future__ import annotations

from eqattn.attention import Design, Problem, clusterings
from eqattn.attention.coverage import check_scenario
from eqattn.attention.options import maximal_profiles, option_table
from eqattn.attention.symbolic import SymbolicChecker


def _genuine(p: Problem, o) -> None:  # noqa: ANN001
    """(a, b) maximal profiles of V|K and (K̄, P, D) their own (SPEC §4.1, §4.3)."""
    K = p.group.subgroup_classes[o.orbit[0]]
    VK = p.restrict(K)
    assert o.a.mults in {a.mults for a in maximal_profiles(VK, p.head_dim)}
    assert o.b.mults in {b.mults for b in maximal_profiles(VK, o.orbit[1] * p.head_dim)}
    table = option_table(p)
    kb, c, P = table.image(K, o.a)
    assert (kb, c, P) == (o.kbar, o.conj, o.P)
    assert table.demand(K, o.b, kb, c) == o.D


def _meets(p: Problem, design: Design, o) -> list[bool]:  # noqa: ANN001
    """For every sub-multiset of the design's orbits: does it meet o's demand alone (the
    reference assignment search on the one-orbit scenario)?"""
    out = []
    n = len(design.orbits)
    for mask in range(1 << n):
        sub = Design(p, tuple(design.orbits[i] for i in range(n) if mask >> i & 1))
        out.append(check_scenario(p, sub, (o,)).ok)
    return out


def test_alike_counterexamples_of_a_split_family():
    """A4, 3×regular, H = 4, d = 5, a design with a C2×C2 orbit lopsided over the three
    irreps that A4 permutes: its counterexamples come with alike ones (other splits of the
    same supports), each a genuine counterexample of the same clustering."""
    p = Problem.create("A4", "3xregular", 4, 5)
    design = Design.create(p, [("C2xC2", "5xA.A + A.B + 5xB.A + B.B"), ("A4", "3xA + 2xE")])
    chk = SymbolicChecker(p, design)
    found = 0
    for c in clusterings(p):
        r = chk.first_uncovered(c)
        if r is None:
            continue
        assert chk.fails(r.options)
        for opts in chk.alike(r.options):
            found += 1
            changed = [(x, y) for x, y in zip(r.options, opts) if x != y]
            assert len(opts) == len(r.options) and changed
            assert len({x for x, _ in changed}) == 1 and len({y for _, y in changed}) == 1  # one option, all its orbits
            x, y = changed[0]
            assert (x.orbit, x.kbar, x.conj) == (y.orbit, y.kbar, y.conj)
            assert {i for i, k in enumerate(x.a.mults) if k} == {i for i, k in enumerate(y.a.mults) if k}
            assert {i for i, k in enumerate(x.b.mults) if k} == {i for i, k in enumerate(y.b.mults) if k}
            _genuine(p, y)
            assert _meets(p, design, y) == _meets(p, design, x)  # the design cannot tell them apart
            assert chk.fails(opts)
            assert not check_scenario(p, design, opts).ok  # the reference search agrees
    assert found >= 5
