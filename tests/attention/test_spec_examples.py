"""SPEC §6 worked examples, with the numbers stated there."""

import pytest

from eqattn.attention import Design, Problem, check_coverage, clusterings, option_table
from eqattn.attention.coverage import demands_of, scenarios
from eqattn.attention.views import check_report


def orbit_names(problem, c):
    return sorted((problem.group.subgroup_classes[cid].name, n, k) for (cid, n), k in c.orbits)


def test_example_1():
    p = Problem.create("C4", "E1", 1, 2)
    assert p.vanilla_params == 16
    cl = clusterings(p)
    assert [orbit_names(p, c) for c in cl] == [[("C4", 1, 1)]]
    d = Design.create(p, [("C4", "E1")])
    assert d.params == 8
    assert all(v.covered for v in check_coverage(p, d))


def test_example_2():
    p = Problem.create("C4", "E1", 2, 1)
    assert p.vanilla_params == 16
    cl = clusterings(p)
    assert sorted(orbit_names(p, c) for c in cl) == sorted([[("C4", 1, 2)], [("C4", 2, 1)], [("C2", 1, 1)]])
    t = option_table(p)
    by = {tuple(orbit_names(p, c)): c for c in cl}
    # {(C4,1),(C4,1)}: rank <= 1 forces M = R = 0: nothing to cover
    for opts in scenarios(p, by[(("C4", 1, 2),)]):
        assert demands_of(p, opts) == ()
    # {(C4,2)}: M = 0, K̄ = C4, D = E1 (the zero pool)
    (o,) = t.options(by[(("C4", 2, 1),)].orbits[0][0])
    assert o.zero and str(o.D) == "E1"
    # {(C2,1)}: V|C2 = 2xB, a = b = B, K̄ = C2, D = B
    (o,) = t.options(by[(("C2", 1, 1),)].orbits[0][0])
    assert (str(o.a), str(o.b), p.group.subgroup_classes[o.kbar].name, str(o.D)) == ("B", "B", "C2", "B")
    assert str(p.restrict(p.group.lattice.resolve("C2"))) == "2xB"
    d = Design.create(p, [("C2", "B")])
    assert d.params == 8 and d.heads == 2
    rep = check_report(p, d)
    assert (rep["covered"], rep["total"], rep["design_params"], rep["vanilla_params"]) == (3, 3, 8, 16)
    # also covered by the regular orbit at the same cost
    d2 = Design.create(p, [("C1", "A")])
    assert d2.params == 8 and all(v.covered for v in check_coverage(p, d2))


def test_example_3():
    p = Problem.create("C2", "A + B", 1, 1)
    assert p.vanilla_params == 8
    (c,) = clusterings(p)
    assert orbit_names(p, c) == [("C2", 1, 1)]
    assert len(list(scenarios(p, c))) == 4  # a, b in {A, B}
    good = Design.create(p, [("C2", "A + B")])
    assert good.params == 8 and check_coverage(p, good)[0].covered
    bad = Design.create(p, [("C2", "A"), ("C2", "B")])
    assert bad.params == 8
    (v,) = check_coverage(p, bad)
    assert not v.covered
    ce = v.counterexample
    (o,) = ce.options
    assert (str(o.a), str(o.b)) == ("A", "B")
    ((dem, missing),) = ce.shortfall
    assert str(missing) == "B"


def test_example_4_zero_pool():
    p = Problem.create("C3", "E1", 4, 1)
    cl = {tuple(orbit_names(p, c)): c for c in clusterings(p)}
    c = cl[(("C3", 2, 2),)]
    (opts,) = list(scenarios(p, c))
    dem = demands_of(p, opts)
    assert len(dem) == 1 and dem[0].pool and str(dem[0].D) == "E1"
    assert dem[0].orbits == (0, 1)  # both orbits in one cluster of 4 heads
    d = Design.create(p, [("C1", "A")])
    assert d.params == 8 and d.heads == 3
    assert all(v.covered for v in check_coverage(p, d))


def test_empty_design():
    p = Problem.create("C4", "E1", 2, 1)
    d = Design.create(p, [])
    assert d.params == 0
    verdicts = {tuple(orbit_names(p, v.clustering)): v.covered for v in check_coverage(p, d)}
    # only the clustering whose scenarios have no non-zero demand is covered
    assert verdicts == {(("C4", 1, 2),): True, (("C4", 2, 1),): False, (("C2", 1, 1),): False}


def test_report_counts_and_flags():
    """The numbers the page and the CLI show: scenario counts and degenerate flags."""
    from eqattn.attention import clusterings_report

    p = Problem.create("C2", "A + B", 1, 1)
    rep = check_report(p, Design.create(p, [("C2", "A + B")]))
    (c,) = rep["clusterings"]
    assert (c["scenarios"], c["covered"], c["witness_truncated"]) == (4, True, False)
    assert 1 <= c["scenarios_checked"] <= 4 and len(c["witness"]) == c["scenarios_checked"]
    bad = check_report(p, Design.create(p, [("C2", "A"), ("C2", "B")]))
    assert bad["clusterings"][0]["counterexample"]["shortfall"][0]["missing"] == "B"
    # S4 on [3,1] with d = 2: the A4 orbit is forced to M = 0 (T has dim 3), so K̄ = G: degenerate
    q = Problem.create("S4", "[3,1]", 3, 2)
    flags = {tuple(o["name"] for o in c["orbits"]): c["degenerate"] for c in clusterings_report(q)["clusterings"]}
    assert flags[("S4", "A4")] is True and flags[("D4",)] is False
