"""Designs above a design (eqattn/optimize/coarsen.py, theory-scale O12): the coarse design
covers every clustering the original covers, so its counterexamples are the original's;
checked with the enumerating coverage checker on random small designs; scenarios drawn
against a design (O12b), each a counterexample; and the search's program round, whose
designs past the checker's limits learn from the design above them and from drawn scenarios."""

from __future__ import annotations

import random

import pytest

from eqattn.attention import Design, DesignOrbit, Problem, check_coverage
from eqattn.attention.symbolic import SymbolicChecker
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
        # scenario by scenario: each counterexample of the coarse design is one of the design
        chk = SymbolicChecker(p, d)
        for v in check_coverage(p, c):
            if v.counterexample is not None:
                assert not chk.check_scenario(v.counterexample.options).ok
        covered += sum(before.values())
    assert seen >= 8 and covered >= 3, (seen, covered)


def test_coarsen_keeps_a_checkable_design_and_stops_at_one_type():
    p = Problem.create("C4", "2xregular", 2, 2)
    d = Design.create(p, [("C2", "A"), ("C2", "B"), ("C4", "A")])
    assert coarsen(d, 8).orbits == d.orbits  # already within the limit
    one = coarsen(d, 4)
    assert len({o.key() for o in one.orbits}) == 1 and multisets(one) == 4
    assert coarsen(one, 3) is None  # one type of 3 copies: nothing left to merge


def test_a_program_design_past_the_checkers_limits_learns_from_the_design_above(monkeypatch, caplog):
    """With the checker's multiset limit at 8, the program's design on D4, 2xregular, H3 d4
    is past it; the design above it has counterexamples, which join S (O12) without asking
    the programs for checkable designs, and the search still proves the optimum (448, as at
    the real limit)."""
    import logging

    from eqattn.attention import dominance
    from eqattn.optimize import oracle, search as search_module
    from eqattn.optimize.budget import Budget
    from eqattn.optimize.search import search

    p = Problem.create("D4", "2xregular", 3, 4)
    free = search(p, Budget.starting(60))
    assert (free.status, free.design.params) == ("optimal", 448)
    for module in (dominance, oracle, search_module):
        monkeypatch.setattr(module, "MAX_MULTISETS", 8)
    seen = []
    coarse_keys = oracle.CounterexampleOracle.coarse_keys

    def spy(self, design, deadline):  # noqa: ANN001, ANN202
        coarse, keys = coarse_keys(self, design, deadline)
        seen.append((design, coarse, keys))
        return coarse, keys

    monkeypatch.setattr(oracle.CounterexampleOracle, "coarse_keys", spy)
    with caplog.at_level(logging.DEBUG, logger="eqattn.optimize"):
        res = search(p, Budget.starting(60))
    assert (res.status, res.design.params) == ("optimal", 448)
    assert "a design above it" in caplog.text
    learned = [(d, c, k) for d, c, k in seen if k]
    assert learned and all(multisets(d) > 8 >= multisets(c) for d, c, _ in learned)
    # the earlier order (checkable programs first, the benchmark's baseline) proves it too
    from eqattn.optimize.rounds import program

    monkeypatch.setattr(program, "COARSE_FIRST", False)
    res = search(p, Budget.starting(60))
    assert (res.status, res.design.params) == ("optimal", 448)


def test_the_benchmarks_coarse_switch_reaches_the_round():
    """`benchmarks/budget.py --baseline coarse|sampled` and `benchmarks/induced.py --switch
    coarse|sampled` turn off `rounds.program.COARSE_FIRST` / `SAMPLED_CHECK`: the names they
    set must be the ones the round reads."""
    import importlib
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from benchmarks import budget

    from eqattn.optimize.rounds import program

    for switch, constant in (("coarse", "COARSE_FIRST"), ("sampled", "SAMPLED_CHECK")):
        module, name = budget.SWITCHES[switch]
        assert importlib.import_module(module) is program and name == constant and getattr(program, name) is True
        assert f"program.{constant}" in (root / "benchmarks" / "induced.py").read_text()
    from eqattn.optimize.rounds import rounded

    module, name = budget.SWITCHES["quick"]
    assert importlib.import_module(module) is rounded and name == "QUICK_DRAWS" and getattr(rounded, name) > 0


@pytest.mark.parametrize("spec", PROBLEMS + [("S3", "2xregular", 3, 2)], ids=lambda s: "-".join(map(str, s)))
def test_drawn_counterexamples_are_counterexamples(spec):
    """`CounterexampleOracle.sampled_keys` (O12b) on random designs: every clustering it
    stamps as failing is uncovered by the enumerating checker (an independent route), each
    key is a scenario of such a clustering, a covering design gives none; and it is no
    no-op: over the designs, it finds most of the uncovered clusterings."""
    import math

    from eqattn.attention.clusterings import clusterings
    from eqattn.attention.enumerated import enumerated_coverage
    from eqattn.optimize.catalogue import DemandCatalogue
    from eqattn.optimize.oracle import CounterexampleOracle

    p = Problem.create(*spec)
    assert CounterexampleOracle(p, DemandCatalogue(p)).sampled_keys(Design.regular(p), math.inf, seed=1) == []
    rng = random.Random(11)
    uncovered = found = 0
    for i in range(12):
        d = _random_design(p, rng, rng.randint(2, 5))
        oracle = CounterexampleOracle(p, DemandCatalogue(p))
        keys = oracle.sampled_keys(d, math.inf, limit=100, seed=i, draws=64)
        verdicts = {v.clustering.id: v for v in enumerated_coverage(p, d)}
        stamped = [c for c in oracle.failing]
        assert len(keys) <= len(stamped) and all(not verdicts[c.id].covered for c in stamped)
        assert len(keys) == len(set(keys)) and all(key == tuple(sorted(key)) for key in keys)
        uncovered += sum(not v.covered for v in verdicts.values())
        found += len(stamped)
        if all(v.covered for v in verdicts.values()):
            assert keys == []
    assert uncovered > 0 and found >= uncovered * 3 // 4, (found, uncovered)
    assert len(clusterings(p)) > 0


def test_a_design_past_the_checkers_limits_learns_from_drawn_scenarios(monkeypatch):
    """With the checker's multiset limit at 4, the program's designs on S3, 2xregular, H3 d2
    are past it and their designs above cover: drawn scenarios decided on the design itself
    (O12b) raise the search's bound (24 without them, at the first such design); the bound
    stays at most the optimum that the search proves at the real limits."""
    from eqattn.attention import dominance
    from eqattn.optimize import oracle, search as search_module
    from eqattn.optimize.budget import Budget
    from eqattn.optimize.rounds import program
    from eqattn.optimize.search import search

    p = Problem.create("S3", "2xregular", 3, 2)
    free = search(p, Budget.starting(60))
    assert free.status == "optimal"
    optimum = free.design.params // 4
    for module in (dominance, oracle, search_module):
        monkeypatch.setattr(module, "MAX_MULTISETS", 4)
    drawn = search(p, Budget.starting(60))
    monkeypatch.setattr(program, "SAMPLED_CHECK", False)
    plain = search(p, Budget.starting(60))
    assert plain.lower_units < drawn.lower_units <= optimum, (plain.lower_units, drawn.lower_units, optimum)
    assert drawn.design is not None and drawn.design.params // 4 >= optimum


def test_the_rounded_design_meets_drawn_scenarios_before_its_symbolic_check(monkeypatch):
    """The rounded round (O14) draws scenarios against the LP's rounded design before its
    symbolic check (O12b) once such a check took longer than QUICK_AFTER_S (set to 0 here,
    so that the test does not depend on the machine's speed): the search refuting D8,
    32xregular, H8 d64, clustering 23 alone within (16, 64) ends `infeasible` after one
    symbolic check of a rounded design, and with the draws off (`QUICK_DRAWS = 0`, the
    benchmarks' baseline) the same verdict after more."""
    from eqattn.attention.clusterings import clusterings
    from eqattn.optimize import oracle
    from eqattn.optimize.budget import Budget
    from eqattn.optimize.limits import ComputeLimits
    from eqattn.optimize.rounds import rounded
    from eqattn.optimize.search import search

    p = Problem.create("D8", "32xregular", 8, 64)
    c = next(c for c in clusterings(p) if c.id == 23)
    calls = []
    rounded_keys = oracle.CounterexampleOracle.rounded_keys

    def spy(self, design, deadline):  # noqa: ANN001, ANN202
        calls.append(design)
        return rounded_keys(self, design, deadline)

    monkeypatch.setattr(oracle.CounterexampleOracle, "rounded_keys", spy)
    monkeypatch.setattr(rounded, "QUICK_AFTER_S", 0.0)
    res = search(p, Budget.starting(60), ComputeLimits(16, 64, None), only=(c,))
    assert res.status == "infeasible" and len(calls) == 1
    calls.clear()
    monkeypatch.setattr(rounded, "QUICK_DRAWS", 0)
    res = search(p, Budget.starting(60), ComputeLimits(16, 64, None), only=(c,))
    assert res.status == "infeasible" and len(calls) >= 2
