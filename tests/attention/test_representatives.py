"""Representative clusterings (docs/theory-scale.md C7): a design covers every clustering iff
it covers the clusterings of its kept orbit types. Checked against the full list of
clusterings on random small problems, clustering by clustering (the representative of an
uncovered clustering is uncovered), and on D4h with H = 16 (374 416 clusterings, not listed)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from eqattn.attention import Design, Problem, clusterings
from eqattn.attention.clusterings import MAX_CLUSTERINGS, Clustering, count_clusterings, orbit_types, require_checkable
from eqattn.attention.coverage import check_scenario
from eqattn.attention.symbolic import SymbolicChecker, representative_coverage, symbolic_coverage
from strategies import problem_and_design

GROUPS = ["C2", "C4", "C2xC2", "D3", "D4", "Q8", "C6", "C2xC2xC2"]


def _check(p: Problem, design: Design) -> tuple[int, int]:
    """Every clustering against its representative; (clusterings, representatives)."""
    chk = SymbolicChecker(p, design)
    full = {c.orbits: v.covered for c, v in zip(clusterings(p), symbolic_coverage(p, design))}
    reps = chk.representatives()
    for r in reps:
        assert r.orbits in full  # a genuine clustering of H heads
    for orbits, covered in full.items():
        r = chk.representative(Clustering(0, orbits))
        assert r.orbits in full and r in reps
        if full[r.orbits]:
            assert covered, f"representative {r.orbits} covered, {orbits} not"
    verdicts = [chk.check_clustering(r) for r in reps]
    assert all(v.covered for v in verdicts) == all(full.values())
    for v in verdicts:  # an uncovered representative's counterexample is a genuine one
        if not v.covered:
            assert not check_scenario(p, design, v.counterexample.options).ok
    return len(full), len(reps)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(problem_and_design(GROUPS, heads=(2, 8), orbits=5))
def test_representatives_decide_coverage_of_every_clustering(pd) -> None:  # noqa: ANN001
    p, design = pd
    _check(p, design)


def test_representatives_are_fewer_on_designs_that_cover() -> None:
    """The reduction is exercised: fewer representatives than clusterings, both for a
    covering design and for one that does not cover."""
    p = Problem.create("D4", "2xregular", 6, 2)
    regular = Design.create(p, [(0, "2xtrivial")] * 6)
    n, k = _check(p, regular)
    assert k < n / 4, (n, k)
    n, k = _check(p, Design.create(p, [(0, "2xtrivial")] * 2 + [("D4", "A1 + B1")]))
    assert k < n, (n, k)


def test_require_checkable_and_the_d4h_problem_past_the_list() -> None:
    p = Problem.create("D4h", "16xA1g + 16xA2u + 16xEu", 16, 4)
    assert count_clusterings(p) == 374416 > MAX_CLUSTERINGS and len(orbit_types(p)) == 131
    require_checkable(p)  # accepted: representatives
    regular = Design.create(p, [(0, "4xtrivial")] * 16)
    chk = SymbolicChecker(p, regular)
    reps = chk.representatives()
    assert 0 < len(reps) < 1000
    verdicts = representative_coverage(p, regular)
    assert len(verdicts) == len(reps) and all(v.covered for v in verdicts)
    half = Design.create(p, [(0, "4xtrivial")] * 8)
    assert not all(v.covered for v in representative_coverage(p, half))
