"""Designs above a design (eqattn/optimize/coarsen.py, theory-scale O12): the coarse design
covers every clustering the original covers, so its counterexamples are the original's;
checked with the enumerating coverage checker on random small designs."""

from __future__ import annotations

import random

import pytest

from eqattn.attention import Design, DesignOrbit, Problem, check_coverage
from eqattn.optimize.coarsen import coarsen, multisets
from eqattn.reps import Rep

PROBLEMS = [("C4", "2xregular", 2, 2), ("D4", "regular", 2, 2), ("C2xC2", "2xregular", 2, 2), ("S3", "regular", 3, 2)]


def _random_design(p: Problem, rng: random.Random, n: int) -> Design:
    orbits = []
    for _ in range(n):
        K = rng.choice(p.group.subgroup_classes)
        VK = p.restrict(K).mults
        orbits.append(DesignOrbit(K, Rep(K, tuple(rng.randint(0, v) for v in VK))))
    return Design(p, tuple(orbits))


@pytest.mark.parametrize("spec", PROBLEMS, ids=lambda s: "-".join(map(str, s)))
def test_the_coarse_design_covers_what_the_design_covers(spec):
    p = Problem.create(*spec)
    rng = random.Random(7)
    seen = covered = 0
    for _ in range(30):
        d = _random_design(p, rng, rng.randint(3, 6))
        limit = max(1, multisets(d) // rng.choice((2, 4, 16)))
        c = coarsen(d, limit)
        if c is None:
            continue
        seen += 1
        assert multisets(c) <= limit and len(c.orbits) == len(d.orbits) and c.params >= d.params
        before = {v.clustering.id: v.covered for v in check_coverage(p, d)}
        after = {v.clustering.id: v.covered for v in check_coverage(p, c)}
        assert all(after[k] for k, ok in before.items() if ok)
        covered += sum(before.values())
    assert seen >= 8 and covered >= 3, (seen, covered)


def test_coarsen_keeps_a_checkable_design_and_stops_at_one_type():
    p = Problem.create("C4", "2xregular", 2, 2)
    d = Design.create(p, [("C2", "A"), ("C2", "B"), ("C4", "A")])
    assert coarsen(d, 8).orbits == d.orbits  # already within the limit
    one = coarsen(d, 4)
    assert len({o.key() for o in one.orbits}) == 1 and multisets(one) == 4
    assert coarsen(one, 3) is None  # one type of 3 copies: nothing left to merge
