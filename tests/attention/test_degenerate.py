"""Degenerate actions: G acting trivially on V, or through ±I (SPEC §4.3)."""

import numpy as np

from eqattn.attention import Design, Problem, check_coverage, clusterings, option_table
from eqattn.numeric import verify_design


def test_trivial_action_every_kbar_is_G():
    p = Problem.create("C4", "2xA", 2, 1)
    t = option_table(p)
    G = p.group
    for c in clusterings(p):
        for o, _ in c.orbits:
            for opt in t.all_options(o):
                assert G.subgroup_classes[opt.kbar].order == G.order
            assert t.degenerate(o) == (G.subgroup_classes[o[0]].order != G.order)
    # the design with one G-fixed orbit of width... covers what the regular orbit covers
    d = Design.create(p, [("C4", "A"), ("C4", "A")])
    assert d.params == 16 == p.vanilla_params
    assert all(v.covered for v in check_coverage(p, d))
    r = verify_design(p, d)
    assert r.worst_rel_error < 1e-8


def test_action_through_minus_identity():
    """C2 acting by -I on V = 2xB: every matrix commutes with rho(g), so K̄ = G for C1 orbits."""
    p = Problem.create("C2", "2xB", 2, 1)
    G = p.group
    t = option_table(p)
    C1 = G.subgroup_classes[0]
    opts = t.all_options((C1.id, 1))
    assert opts and all(G.subgroup_classes[o.kbar].order == 2 for o in opts if not o.zero)
    assert t.degenerate((C1.id, 1))
    # the two heads of the regular orbit share M: a single G-fixed orbit of width 1 suffices
    d = Design.create(p, [("C2", "B"), ("C2", "B")])
    assert d.params == 16 and d.params == p.vanilla_params
    cheap = Design.create(p, [("C2", "B")])
    verdicts = check_coverage(p, cheap)
    covered = {v.clustering.id: v.covered for v in verdicts}
    assert any(covered.values())
    assert verify_design(p, cheap, verdicts=verdicts).worst_rel_error < 1e-8
    assert np.allclose(p.rho[1], -np.eye(2))
