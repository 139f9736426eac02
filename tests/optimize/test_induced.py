"""Designs induced from a subgroup (induced.py, theory-scale O20): a design covering
(A, V|A, H, d) induced to G covers (G, V, H, d) with the same parameters, checked by the
coverage checker for every proper subgroup class of small problems, with the subgroup's
optimum from the exhaustive listing (brute_force.py, no optimiser); and the search of a
group of order >= 48 takes the induced design as a candidate."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Design, DesignOrbit, Problem, check_coverage
from eqattn.reps import Rep
from eqattn.optimize import optimize
from eqattn.optimize.induced import induce_design, induce_from, index_two_subgroups, subgroup_problem

from brute_force import BruteForce, Budget

SMALL = [("D4", "A1 + E1", 1, 2), ("D4", "B1 + E1", 1, 2), ("D4", "E1", 2, 2), ("S3", "regular", 2, 1),
         ("C2xC2", "A.A + A.B + B.A", 1, 1), ("C4", "A + E1", 2, 1), ("C4", "regular", 2, 1)]


@pytest.mark.parametrize("g, v, H, d", SMALL)
def test_the_optimum_of_every_subgroup_induced_covers_with_its_parameters(g: str, v: str, H: int, d: int) -> None:
    p = Problem.create(g, v, H, d)
    best_G = BruteForce(p).optimum(Budget()).params
    for A in p.group.subgroup_classes[:-1]:
        q = subgroup_problem(p, A)
        assert q.group.order == A.order and q.V.dim == p.V.dim
        sub = BruteForce(q).optimum(Budget())
        D = induce_design(p, A, sub.design)
        assert D.params == sub.params, A.name
        assert sum(o.heads for o in D.orbits) == A.index * sum(o.heads for o in sub.design.orbits)
        assert all(v.covered for v in check_coverage(p, D)), f"{g} {v}: the design induced from {A.name} misses a clustering"
        assert best_G <= sub.params  # (so the fewest parameters of G are at most those of every subgroup)


def test_the_induced_head_space_is_the_character_carried_by_the_conjugation() -> None:
    """W' on the class representative K' is χ_W(φ⁻¹(x k x⁻¹)) with φ(K) = x K' x⁻¹: on every
    orbit of an induced design, whatever conjugate of K' the subgroup's K lands on."""
    p = Problem.create("D4", "regular", 1, 2)
    G = p.group
    moved = 0
    for A in G.subgroup_classes[:-1]:
        q = subgroup_problem(p, A)
        for K in q.group.subgroup_classes:
            for mults in np.ndindex(*(m + 1 for m in q.restrict(K).mults)):
                W = Rep(K, tuple(int(m) for m in mults))
                if W.dim == 0:
                    continue
                (o,) = induce_design(p, A, Design(q, (DesignOrbit(K, W),))).orbits
                _, x = G.lattice.locate(A.phi[K.elements])
                moved += int(x != 0)
                assert o.W.dim == W.dim and o.sub.order == K.order
                for k in o.sub.elements:
                    assert np.isclose(o.W.character[k], W.character[A.phi_inv[G.conj_table[x][k]]])
    assert moved > 0  # some image is not the class representative itself


def test_which_subgroup() -> None:
    assert [A.name for A in index_two_subgroups(Problem.create("D4", "regular", 1, 1))] == ["C2xC2.1", "C2xC2.2", "C4"]
    assert induce_from(Problem.create("D4", "regular", 1, 1)) is None  # below INDUCE_MIN_ORDER
    assert induce_from(Problem.create("S4", "regular", 1, 1)) is None  # order 24 < 48, though A4 has index 2
    assert induce_from(Problem.create("S5", "regular", 1, 1)).name == "A5"
    assert induce_from(Problem.create("Oh", "regular", 1, 1)).type_name == "S4"  # 5 irreps, not A4xC2's 8
    assert induce_from(Problem.create("A5", "regular", 1, 1)) is None  # simple: no index-2 subgroup
    assert induce_from(Problem.create("O3", "1x1o", 1, 1)) is None  # a compact group's stand-in (Oh)


def test_the_search_of_S5_takes_the_design_induced_from_A5() -> None:
    """S5 regular H2 d2: the induced design (112 = A5's optimum, the regular design is 960)
    is an incumbent on the way to the proven optimum 56."""
    p = Problem.create("S5", "regular", 2, 2)
    r = optimize(p, 60)
    assert r.status == "optimal" and r.design.params == 56
    assert any("induced from the search of the index-2 subgroup A5 (112 parameters" in n for n in r.to_json()["notes"])
    assert optimize(subgroup_problem(p, induce_from(p)), 60).design.params == 112
    assert all(v.covered for v in check_coverage(p, r.design))


def test_under_a_work_limit_the_induced_search_is_deterministic() -> None:
    """With a work limit the subgroup's search gets half the work left and no share of the
    clock (search._sub_search): two runs give the same design, bound and notes."""
    p = Problem.create("S5", "regular", 2, 2)
    a, b = (optimize(p, 120, work_limit=40).to_json() for _ in range(2))
    assert a["design_params"] == b["design_params"] == 56 and a["status"] == b["status"] == "optimal"
    assert a["notes"] == b["notes"] and any("induced from the search of the index-2 subgroup A5" in n for n in a["notes"])
