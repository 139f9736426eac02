"""The checker's stop test (the caller's deadline): when it says so, an orbit's hosting sets stop before the next support
(DeadlinePassed, nothing partial kept), and the oracle answers as at its own deadline — so
the optimiser's clock stops the longest computation of a check, not only the loop between
clusterings. No wall-clock assertion: the stop test says yes, or the deadlines are past or never."""

from __future__ import annotations

import math

import pytest

from eqattn.attention import Design, Problem
from eqattn.attention.clusterings import clusterings
from eqattn.attention.symbolic import DeadlinePassed, SymbolicChecker
from eqattn.optimize.catalogue import DemandCatalogue
from eqattn.optimize.oracle import CounterexampleOracle


def test_a_passed_deadline_stops_the_hosting_sets_and_keeps_nothing():
    p = Problem.create("D4", "2xregular", 4, 5)
    d = Design.regular(p)
    late = SymbolicChecker(p, d, stop=lambda: True)
    orbit = next(o for c in clusterings(p) for o, _ in c.orbits if not late.is_zero_orbit(o))
    with pytest.raises(DeadlinePassed):
        late.hosting_classes(orbit)
    assert late._hostclass == {}
    with pytest.raises(DeadlinePassed):
        late.patterns(orbit)
    assert orbit not in late._patterns
    # the same checker without a deadline gives the verdicts
    on_time = SymbolicChecker(p, d)
    assert all(on_time.first_uncovered(c) is None for c in clusterings(p))


def test_the_oracle_answers_none_at_a_passed_deadline_and_keys_without_one():
    p = Problem.create("D4", "2xregular", 4, 5)
    cat = DemandCatalogue(p)
    oracle = CounterexampleOracle(p, cat)
    empty = Design(p, ())
    keys = oracle.keys(empty, math.inf, 5)
    assert keys and len(keys) <= 5
    fresh = CounterexampleOracle(p, DemandCatalogue(p))
    # deadline already passed: the oracle stops before (or inside) the first clustering
    assert fresh.keys(empty, -math.inf, 5) is None
    assert fresh.keys(Design.regular(p), -math.inf, 5) is None


def test_the_checker_stops_inside_a_clustering_when_the_deadline_passes_there():
    # the deadline passes between the oracle's check of the clock and the checker's: the
    # checker's own test stops it (a deadline that is "now" once the first support is reached)
    p = Problem.create("D4", "2xregular", 4, 5)
    chk = SymbolicChecker(p, Design.regular(p))
    c = next(c for c in clusterings(p) if any(not chk.is_zero_orbit(o) for o, _ in c.orbits))
    chk.stop = lambda: True
    with pytest.raises(DeadlinePassed):
        chk.first_uncovered(c)
