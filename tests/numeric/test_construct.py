"""The constructive proof of 'covered' (SPEC §4.5): sampled vanilla layers are equivariant,
their clusters' single R_h are not, and witnesses give design weights with the same outputs."""

import numpy as np
import pytest

from eqattn.attention import Design, Problem, check_coverage, clusterings
from eqattn.attention.coverage import check_scenario, scenarios
from eqattn.numeric import design_weights, expand_design, realize_design, sample_vanilla, verify_design
from eqattn.numeric.equivariant import check_equivariant, hom_basis

CASES = [
    ("C4", "E1", 2, 1, [("C2", "B")]),
    ("C3", "E1", 4, 1, [("C1", "A")]),
    ("C2", "A + B", 1, 1, [("C2", "A + B")]),
    ("D3", "regular", 2, 2, "regular"),
    ("D4", "A2 + B1 + E1", 3, 2, "regular"),
    ("Q8", "H", 2, 2, "regular"),  # quaternionic type
    ("A4", "E + T", 2, 2, "regular"),  # complex type
    ("S4", "[3,1]", 2, 2, "regular"),
    ("C6", "E1 + E2", 3, 1, [("C2", "A + 2xB"), ("C3", "E1"), ("C1", "A")]),
    # regression: the assignment memo is keyed by sorted demands; witnesses must follow the
    # caller's demand order (a permuted plan once gave supply A1 to the demand A1 + E1)
    ("D3", "A1 + E1", 5, 1, [("D3", "A1"), ("C2", "A + B")]),
]


def make(case):
    g, v, h, d, orbits = case
    p = Problem.create(g, v, h, d)
    return p, (Design.regular(p) if orbits == "regular" else Design.create(p, orbits))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-H{c[2]}-d{c[3]}")
def test_every_witness_reproduces_the_vanilla_layer(case):
    p, d = make(case)
    r = verify_design(p, d)
    assert r.scenarios > 0
    assert r.worst_rel_error <= 1e-8
    assert r.worst_equivariance_error <= 1e-8


def test_all_scenarios_not_only_the_checked_ones():
    """Every scenario of every clustering (not only those left after the design-specific
    reduction) has a witness that reproduces the vanilla outputs."""
    from eqattn.numeric.verify import verify_scenario

    p, d = make(("D4", "A2 + B1 + E1", 2, 1, "regular"))
    rng = np.random.default_rng(3)
    n = 0
    for c in clusterings(p):
        for opts in scenarios(p, c):
            res = check_scenario(p, d, opts)
            assert res.ok
            rel, eq = verify_scenario(p, d, c, res, rng)
            assert rel < 1e-8 and eq < 1e-8
            n += 1
    assert n == 41


def test_single_heads_of_a_cluster_are_not_equivariant():
    p = Problem.create("C4", "E1", 2, 1)
    (c,) = [c for c in clusterings(p) if c.expanded() == [(p.group.lattice.resolve("C4").id, 2)]]
    (opts,) = list(scenarios(p, c))
    s = sample_vanilla(p, c, opts, np.random.default_rng(0))
    R = [s.Wo[h] @ s.Wv[h] for h in range(2)]
    rho = p.rho
    total = R[0] + R[1]
    assert check_equivariant(rho, rho, total) < 1e-10
    assert check_equivariant(rho, rho, R[0]) > 1e-3


def test_design_weights_lie_in_the_hom_spaces():
    p, d = make(("C6", "E1 + E2", 3, 1, [("C2", "A + 2xB"), ("C3", "E1"), ("C1", "A")]))
    rng = np.random.default_rng(1)
    for v in check_coverage(p, d):
        for res in v.witnesses:
            s = sample_vanilla(p, v.clustering, res.options, rng)
            w = design_weights(p, d, res, s, v.clustering, rng)
            for orb, (wq, wk, wv, wo) in zip(d.orbits, w):
                rk = p.rho[orb.sub.elements]
                Wm = orb.W.matrices()
                for A in (wq, wk, wv):
                    if np.abs(A).max() > 0:
                        assert check_equivariant(rk, Wm, A) < 1e-9
                if np.abs(wo).max() > 0:
                    assert check_equivariant(Wm, rk, wo) < 1e-9
            assert len(expand_design(p, d, w)) == len(d.orbits)


def test_realized_design_bases():
    p, d = make(("C6", "E1 + E2", 3, 1, [("C2", "A + 2xB"), ("C3", "E1"), ("C1", "A")]))
    real = realize_design(p, d)
    assert real.params == d.params
    for orb, ro in zip(d.orbits, real.orbits):
        assert ro.cosets.shape[0] == orb.heads
        B = ro.hom_in.reshape(ro.hom_in.shape[0], -1)
        assert np.allclose(B @ B.T, np.eye(B.shape[0]), atol=1e-10)  # orthonormal
        rk = p.rho[orb.sub.elements]
        for b in ro.hom_in:
            assert check_equivariant(rk, orb.W.matrices(), b) < 1e-10
    # the basis size is dim Hom_K(V, W), for a complex-type irrep counted with e = 2
    C3 = p.group.lattice.resolve("C3")
    from eqattn.reps import parse_rep

    assert hom_basis(C3, p.rho[C3.elements], p.restrict(C3), parse_rep("E1", C3)).shape[0] == 4  # V|C3 = 2xE1
