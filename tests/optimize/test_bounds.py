"""Scenario bounds (eqattn/optimize/bounds.py) are lower bounds of the optimum: checked
against the proven optima of the atlas reference (tests/data/atlas_reference.csv) on every
scenario key of small problems, against SPEC §6, and used by the symbolic engine."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from eqattn.attention import Problem
from eqattn.attention.hosting import hosting
from eqattn.optimize.bounds import ScenarioBound, demand_bound
from eqattn.optimize.separation import ScenarioSpace

ROWS = [
    r for r in csv.DictReader(open(Path(__file__).parents[1] / "data" / "atlas_reference.csv"))
    if r["status"] == "optimal" and int(r["dim_v"]) <= 6 and int(r["H"]) <= 3 and int(r["d"]) <= 2
]
SAMPLE = ROWS[:: max(1, len(ROWS) // 40)]


def _keys(space: ScenarioSpace, rng: random.Random, per_clustering: int = 6) -> list[tuple[int, ...]]:
    """The initial keys and random scenario keys of every clustering."""
    keys = list(space.initial_keys())
    for c in space.clusterings:
        for _ in range(per_clustering):
            choice = [tuple(sorted(rng.randrange(len(space.contrib[o])) for _ in range(k))) for o, k in c.orbits]
            keys.append(space.scenario_key(c, choice))
    return keys


@pytest.mark.parametrize("row", SAMPLE, ids=lambda r: f"{r['group']}-{r['V']}-{r['H']}-{r['d']}")
def test_scenario_bound_never_exceeds_the_proven_optimum(row):
    p = Problem.create(row["group"], row["V"], int(row["H"]), int(row["d"]))
    space = ScenarioSpace(p)
    sb = ScenarioBound(p, hosting(p), space.values)
    best = max((sb.of_key(k) for k in _keys(space, random.Random(0))), default=0)
    assert 4 * best <= int(row["P_opt"])


def test_scenario_bounds_are_positive_and_sometimes_tight():
    tight = positive = 0
    for row in SAMPLE:
        p = Problem.create(row["group"], row["V"], int(row["H"]), int(row["d"]))
        space = ScenarioSpace(p)
        sb = ScenarioBound(p, hosting(p), space.values)
        best = max((sb.of_key(k) for k in space.initial_keys()), default=0)
        positive += best > 0
        tight += 4 * best == int(row["P_opt"])
    assert positive >= len(SAMPLE) // 2 and tight >= 3


def test_spec_examples():
    # §6.1: C4, V = E1, H = 1, d = 2: the only demand needs a host containing E1: 8 parameters
    p = Problem.create("C4", "E1", 1, 2)
    space = ScenarioSpace(p)
    sb = ScenarioBound(p, hosting(p), space.values)
    assert max(sb.of_key(k) for k in space.initial_keys()) * 4 == 8
    # §6.2: C4, V = E1, H = 2, d = 1: any host of {(C2, 1)} costs >= 8
    p = Problem.create("C4", "E1", 2, 1)
    space = ScenarioSpace(p)
    sb = ScenarioBound(p, hosting(p), space.values)
    assert max(sb.of_key(k) for k in space.initial_keys()) * 4 == 8
    # a demand with D = 0 needs nothing
    v = space.values[0]
    zero = type(v)(v.kbar, v.P, type(v.D)(v.D.sub, (0,) * len(v.D.mults)), (), v.pool)
    assert demand_bound(p, hosting(p), zero) == 0


# The symbolic engine past the type limit (C8, 8xregular, H = 4, d = 16): now proven optimal by
# the LP bound, tests/optimize/test_lp_bound.py::test_symbolic_engine_proves_optimality_past_the_type_limit.


def test_shared_demand_bounds_are_read_by_value_not_by_id(monkeypatch):
    """`DemandBounds` (the searches of one partial-coverage call): a second ScenarioBound over
    a catalogue holding the same demand values under other ids gives the same bounds without
    solving a program; a DemandBounds of another problem or head limit is refused."""
    from eqattn.optimize import bounds
    from eqattn.optimize.bounds import DemandBounds

    p = Problem.create("D4", "regular", 2, 1)
    space = ScenarioSpace(p)
    keys = list(space.initial_keys())
    shared = DemandBounds(p, None)
    first = [ScenarioBound(p, hosting(p), space.values, shared=shared).of_key(k) for k in keys]
    assert len(shared) == len({v for k in keys for v in k})
    solved = []
    real = bounds.demand_bound
    monkeypatch.setattr(bounds, "demand_bound", lambda *a, **k: solved.append(a) or real(*a, **k))
    reversed_values = space.values[::-1]  # the same values, other ids
    n = len(reversed_values)
    sb = ScenarioBound(p, hosting(p), reversed_values, shared=shared)
    assert [sb.of_key(tuple(n - 1 - v for v in k)) for k in keys] == first and not solved
    alone = ScenarioBound(p, hosting(p), space.values)  # not shared: solved again, the same bounds
    assert [alone.of_key(k) for k in keys] == first and solved
    with pytest.raises(ValueError, match="shared"):
        ScenarioBound(p, hosting(p), space.values, max_heads=1, shared=shared)
    with pytest.raises(ValueError, match="shared"):
        ScenarioBound(p, hosting(p), space.values, shared=DemandBounds(Problem.create("D4", "regular", 2, 1), None))
