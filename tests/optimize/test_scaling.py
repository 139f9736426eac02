"""The multiplicity-scaling question (docs/theory-scale.md, Fact O6): for C4, V = m x regular,
H = 4, d = m the optimum is 48 at m = 1 and 224 at m = 2, not 4 x 48; and the m = 1 optimum
with every W doubled (cost 192) does not cover the m = 2 problem (a counterexample scenario)."""

from __future__ import annotations

from eqattn.attention import Design, Problem, check_coverage
from eqattn.optimize import optimize
from eqattn.numeric import verify_design


def test_optimum_does_not_scale_by_m_squared():
    p1 = Problem.create("C4", "regular", 4, 1)
    p2 = Problem.create("C4", "2xregular", 4, 2)
    r1 = optimize(p1, 60, constrained=False)
    r2 = optimize(p2, 60, constrained=False)
    assert r1.status == r2.status == "optimal"
    assert r1.design_params == 48 and r2.design_params == 224 != 4 * r1.design_params
    for p, r in ((p1, r1), (p2, r2)):
        verdicts = check_coverage(p, r.design)
        assert all(v.covered for v in verdicts)
        assert verify_design(p, r.design, verdicts=verdicts).worst_rel_error <= 1e-8


def test_doubled_design_does_not_cover():
    p2 = Problem.create("C4", "2xregular", 4, 2)
    doubled = Design.create(p2, [("C4", "2xA + 2xB"), ("C4", "2xA + 2xB"), ("C2", "2xA + 2xB"), ("C1", "2xA")])
    assert doubled.params == 192 == 4 * 48
    verdicts = check_coverage(p2, doubled)
    bad = [v for v in verdicts if not v.covered]
    assert bad and all(v.counterexample is not None for v in bad)
    # the same orbits at m = 1 cover (they are an optimum there)
    p1 = Problem.create("C4", "regular", 4, 1)
    single = Design.create(p1, [("C4", "A + B"), ("C4", "A + B"), ("C2", "A + B"), ("C1", "A")])
    assert single.params == 48 and all(v.covered for v in check_coverage(p1, single))
