"""The pricing program's linear relaxation as a screen (lp_bound._price, theory-scale O11):
its optimum bounds the program's, so when it shows no improving type the program is skipped.
Against the profits of every type on the subgroup, enumerated (`profits` over the box): the
upper bound `_price` returns is never below the best profit, a type is returned exactly when
one improves, and the screen does decide some subgroups on its own."""

from __future__ import annotations

import random

import numpy as np
import pytest

from eqattn.attention import Problem
from eqattn.attention.hosting import hosting
from eqattn.optimize import lp_bound as lp_bound_module
from eqattn.optimize import solver
from eqattn.optimize.hosts import box
from eqattn.optimize.lp_bound import EPS, _price
from eqattn.optimize.lp_duals import Slots, profits
from eqattn.optimize.separation import ScenarioSpace


def test_screened_pricing_agrees_with_the_enumeration(monkeypatch):
    p = Problem.create("D4", "2xregular", 3, 2)
    space = ScenarioSpace(p)
    keys = [k for k in space.initial_keys() if any(any(space.values[v].D.mults) for v in k)]
    slots = Slots(p, hosting(p), space.values, keys, None)
    monkeypatch.setattr(lp_bound_module, "PRICE_ENUMERATE", 0)  # every subgroup through the program
    programs = [0]
    real = solver.solve_linear

    def counting(*a, **k):  # noqa: ANN002, ANN003, ANN202
        if k.get("maximize") and a[4:5] and a[4] is not None and any(a[4]):
            programs[0] += 1
        return real(*a, **k)

    monkeypatch.setattr(lp_bound_module.solver, "solve_linear", counting)
    rng = random.Random(5)
    rows = [(s, j, g) for s, key in enumerate(keys) for j, vi in enumerate(key) for g, x in enumerate(space.values[vi].D.mults) if x > 0]
    calls = 0
    for scale in (0.05, 0.3, 1.0, 3.0):
        mu = {r: scale * rng.random() for r in rows if rng.random() < 0.5}
        for sub, ref in slots.subs.items():
            Ws = box(np.zeros(len(ref.VK), dtype=np.int64), ref.VK)[1:]
            best = float(profits(sub, Ws, slots, space.values, keys, mu, 0.0).max())
            upper, W, _ = _price(sub, slots, space.values, keys, mu, 0.0, None, 10.0, None)
            calls += 1
            assert upper >= best - 1e-6, (sub, upper, best)
            assert (W is not None) == (best > EPS), (sub, W, best)
            if W is not None:
                assert profits(sub, np.array([W]), slots, space.values, keys, mu, 0.0)[0] > EPS
    assert 0 < programs[0] < calls  # the screen decided some subgroups, the programs the others


@pytest.mark.parametrize("disaggregate", [True, False], ids=["shared-W", "plain"])
@pytest.mark.parametrize("case", [("D4", "2xregular", 3, 2), ("S3", "regular + 2x[2,1]", 2, 3), ("C2xC4", "regular", 3, 2),
                                  ("D4", "2xE1 + A1 + B1", 2, 2)],
                         ids=lambda c: f"{c[0]}-{c[1]}-H{c[2]}-d{c[3]}")
def test_the_pricing_program_finds_the_best_type(monkeypatch, case, disaggregate):
    """The program's maximum is the best profit over every type (a key's slots sharing W
    or not, DISAGGREGATE): when it solves, its upper bound is the enumerated maximum and the
    type it returns attains it. The keys here have several slots (demands and cosets)."""
    p = Problem.create(*case)
    space = ScenarioSpace(p)
    keys = [k for k in space.initial_keys() if any(any(space.values[v].D.mults) for v in k)]
    slots = Slots(p, hosting(p), space.values, keys, None)
    monkeypatch.setattr(lp_bound_module, "PRICE_ENUMERATE", 0)
    monkeypatch.setattr(lp_bound_module, "DISAGGREGATE", disaggregate)
    multi = sum(1 for s, key in enumerate(keys) for sub in slots.subs
                if sum(1 for vi in key for sl in slots.by_value[vi] if sl.K.id == sub) > 1)
    assert multi > 0  # (keys with several slots on one subgroup: where the formulations differ)
    rng = random.Random(11)
    rows = [(s, j, g) for s, key in enumerate(keys) for j, vi in enumerate(key) for g, x in enumerate(space.values[vi].D.mults) if x > 0]
    improving = 0
    for scale in (0.05, 0.3, 1.0, 3.0, 10.0):
        for lam in (0.0, 0.5):
            mu = {r: scale * rng.random() for r in rows if rng.random() < 0.6}
            for sub, ref in slots.subs.items():
                Ws = box(np.zeros(len(ref.VK), dtype=np.int64), ref.VK)[1:]
                best = float(profits(sub, Ws, slots, space.values, keys, mu, lam).max())
                upper, W, solved = _price(sub, slots, space.values, keys, mu, lam, None, 10.0, None)
                assert solved
                if best > EPS:
                    improving += 1
                    assert W is not None and upper == pytest.approx(best, abs=1e-6), (sub, upper, best)
                    assert profits(sub, np.array([W]), slots, space.values, keys, mu, lam)[0] == pytest.approx(best, abs=1e-6)
                else:
                    assert W is None and upper >= best - 1e-6
    assert improving > 0, improving


def test_shared_w_tightens_the_screen(monkeypatch):
    """With a key's slots sharing W, the program's linear relaxation is tighter, so the
    screen decides more subgroups without the integer program. (Without it the relaxation let
    each slot of a key use all of W while choosing it only fractionally: on one of Ih
    4×regular H = 8 d = 60's pricing programs 1760 against an integer optimum of 18.)"""
    p = Problem.create("D4", "2xregular", 3, 2)
    space = ScenarioSpace(p)
    keys = [k for k in space.initial_keys() if any(any(space.values[v].D.mults) for v in k)]
    slots = Slots(p, hosting(p), space.values, keys, None)
    monkeypatch.setattr(lp_bound_module, "PRICE_ENUMERATE", 0)
    real = solver.solve_linear
    rows = [(s, j, g) for s, key in enumerate(keys) for j, vi in enumerate(key) for g, x in enumerate(space.values[vi].D.mults) if x > 0]
    rng = random.Random(3)
    duals = [{r: scale * rng.random() for r in rows if rng.random() < 0.6} for scale in (0.05, 0.3, 1.0, 3.0) for _ in range(3)]
    programs = {}
    for disaggregate in (False, True):
        monkeypatch.setattr(lp_bound_module, "DISAGGREGATE", disaggregate)
        count = [0]

        def counting(*a, **k):  # noqa: ANN002, ANN003, ANN202
            if a[4:5] and a[4] is not None and any(a[4]):
                count[0] += 1
            return real(*a, **k)

        monkeypatch.setattr(lp_bound_module.solver, "solve_linear", counting)
        for mu in duals:
            for sub in slots.subs:
                _price(sub, slots, space.values, keys, mu, 0.0, None, 10.0, None)
        programs[disaggregate] = count[0]
    assert programs[True] < programs[False], programs


def _pi_every_key(sub, Ws, slots, values, keys, mu):  # noqa: ANN001, ANN202 - the plain loop over every key
    pi = np.zeros(len(Ws))
    for s, key in enumerate(keys):
        best = None
        for j, vi in enumerate(key):
            D = np.asarray(values[vi].D.mults, dtype=np.int64)
            w = np.array([mu.get((s, j, g), 0.0) for g in range(len(D))])
            if not w.any():
                continue
            for sl in slots.by_value[vi]:
                if sl.K.id == sub:
                    val = np.where((Ws >= sl.img).all(axis=1), np.minimum(Ws @ sl.unit, D) @ w, 0.0)
                    best = val if best is None else np.maximum(best, val)
        if best is not None:
            pi += best
    return pi


def test_pi_values_over_the_keys_with_duals_is_the_loop_over_every_key():
    """`pi_values` visits only the keys with a nonzero dual, in key order: the same values, to
    the bit, as the loop over every key (zero duals and keys without any included)."""
    from eqattn.optimize.lp_duals import pi_values

    p = Problem.create("D4", "2xregular", 3, 2)
    space = ScenarioSpace(p)
    keys = [k for k in space.initial_keys() if any(any(space.values[v].D.mults) for v in k)]
    slots = Slots(p, hosting(p), space.values, keys, None)
    rows = [(s, j, g) for s, key in enumerate(keys) for j, vi in enumerate(key) for g, x in enumerate(space.values[vi].D.mults) if x > 0]
    rng = random.Random(7)
    for share in (0.05, 0.3, 1.0):
        mu = {r: (0.0 if rng.random() < 0.3 else rng.random() * 5) for r in rows if rng.random() < share}
        for sub, ref in slots.subs.items():
            Ws = box(np.zeros(len(ref.VK), dtype=np.int64), ref.VK)
            assert np.array_equal(pi_values(sub, Ws, slots, space.values, keys, mu), _pi_every_key(sub, Ws, slots, space.values, keys, mu))
