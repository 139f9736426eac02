"""Multiples of a smaller problem (multiples.py, theory-scale O16): the keys of (G, V, H/k, d)
repeated k times are dominated by genuine scenarios of (G, V, H, d), checked against the
enumerated scenarios; the seeded symbolic engine keeps the enumerating engine's optima."""

from __future__ import annotations

import logging
import math
import time
from collections import Counter

import pytest

from eqattn.attention import Design, Problem, check_coverage
from eqattn.attention.clusterings import clusterings
from eqattn.attention.coverage import DesignSearch, demands_of, scenarios
from eqattn.optimize import optimize
from eqattn.optimize import search as ss
from eqattn.optimize.budget import Budget
from eqattn.optimize.multiples import Seed, multiply_design, multiply_key, split_factor, sub_problem
from eqattn.optimize.oracle import CounterexampleOracle
from eqattn.optimize.rounds import capped
from eqattn.optimize.search import search, seed_for


def test_split_factor():
    H = {h: split_factor(Problem.create("C2", "regular", h, 1)) for h in (1, 4, 7, 8, 9, 12, 16, 17, 25)}
    assert H == {1: None, 4: None, 7: None, 8: 2, 9: 3, 12: 2, 16: 2, 17: None, 25: 5}
    with pytest.raises(ValueError):
        sub_problem(Problem.create("C2", "regular", 9, 1), 2)


def test_multiply_key_pool_once_and_capped():
    # SPEC §6.4: C3, V = E1, H = 4, d = 1: {(C3,2),(C3,2)} is one zero pool demanding E1;
    # repeated twice the pool stays one demand, min(2 E1, V) = E1
    p = Problem.create("C3", "E1", 4, 1)
    c = next(c for c in clusterings(p) if c.orbits == (((1, 2), 2),))
    (opts,) = list(scenarios(p, c))
    (pool,) = demands_of(p, opts)
    assert pool.pool and str(pool.D) == "E1"
    (twice,) = multiply_key((pool,), 2, p.V)
    assert twice.pool and twice.D == pool.D


CASES = [("C2", "A + B", 4, 1, 2), ("C4", "E1", 4, 1, 2), ("C3", "E1", 4, 1, 2), ("C2", "regular", 3, 1, 3),
         ("C4", "regular", 4, 1, 2), ("D3", "E1", 4, 1, 2), ("C3", "A + E1", 4, 1, 2), ("C2", "A + 2xB", 2, 2, 2)]


@pytest.mark.parametrize("group, rep, h1, d, k", CASES)
def test_multiplied_keys_are_dominated_by_scenarios_of_the_repeated_clustering(group, rep, h1, d, k):
    """Lemma O16 on every scenario of every clustering of the smaller problem: the repeated
    clustering is a clustering of H = k h1 heads; its scenario with each option repeated has
    exactly the repeated non-pool demands and a pool at least the repeated key's; and the
    enumerating engine's optimal design of H heads meets every repeated key."""
    small = Problem.create(group, rep, h1, d)
    big = Problem.create(group, rep, k * h1, d)
    by_orbits = {c.orbits: c for c in clusterings(big)}
    best = optimize(big, 60, constrained=False, engine="enumerate")
    assert best.status == "optimal"
    meets = DesignSearch(big, best.design)
    keys = 0
    for c in clusterings(small):
        assert tuple((o, n * k) for o, n in c.orbits) in by_orbits
        for opts in scenarios(small, c):
            key = multiply_key(demands_of(small, opts), k, big.V)
            real = demands_of(big, tuple(o for o in opts for _ in range(k)))
            assert Counter(x.value() for x in key if not x.pool) == Counter(x.value() for x in real if not x.pool)
            kp = [x for x in key if x.pool]
            rp = [x for x in real if x.pool]
            assert len(kp) <= 1 and len(kp) == len(rp)
            if kp:
                assert all(a <= b for a, b in zip(kp[0].D.mults, rp[0].D.mults))
            assert meets.search.solve(key) is not None
            keys += 1
    assert keys > 0


SEEDED = [("C2", "A + B", 8, 1), ("C4", "E1", 8, 1), ("C3", "E1", 8, 1), ("C2", "regular", 9, 1),
          ("C4", "regular", 8, 1), ("D3", "E1", 8, 1), ("C2", "A + 2xB", 8, 2), ("C3", "A + E1", 8, 1)]


@pytest.mark.parametrize("group, rep, heads, head_dim", SEEDED)
def test_seeded_symbolic_engine_equals_enumerating_engine(group, rep, heads, head_dim, monkeypatch):
    """H >= 8: the symbolic engine is seeded by H/k heads (and that one by H/k² when >= 8);
    the optimum is still the enumerating engine's."""
    p = Problem.create(group, rep, heads, head_dim)
    seeds = []
    real = ss.seed_for

    def spy(problem, *a, **kw):
        s = real(problem, *a, **kw)
        seeds.append((problem.heads, s))
        return s

    monkeypatch.setattr(ss, "seed_for", spy)
    ref = optimize(p, 60, constrained=False, engine="enumerate")
    new = optimize(p, 60, engine="symbolic")
    assert ref.status == new.status == "optimal"
    assert new.design_params == new.lower_bound == ref.design_params
    top = [s for h, s in seeds if h == heads]
    assert top and top[0] is not None and top[0].k == split_factor(p) and top[0].keys
    assert any(n.startswith(f"seeded by the search of H = {heads // split_factor(p)} heads") for n in new.notes)
    assert all(v.covered for v in check_coverage(p, new.design))


def test_seed_design_is_the_incumbent_only_when_it_covers(caplog, monkeypatch):
    """The repeated design is a candidate, checked by the coverage checker: the small
    optimum repeated covers C4, regular, H = 8 and becomes the incumbent; one of its orbits
    repeated does not, and the regular design stays the incumbent. The answer is the optimum
    either way."""
    p = Problem.create("C4", "regular", 8, 1)
    sub = sub_problem(p, 2)
    opt = optimize(sub, 60, constrained=False, engine="enumerate").design
    ref = optimize(p, 60, constrained=False, engine="enumerate").design_params
    weak = Design(sub, opt.orbits[:1])
    for design, covers in ((opt, True), (weak, False)):
        twice = multiply_design(p, design, 2)
        assert twice.params < p.vanilla_params and all(v.covered for v in check_coverage(p, twice)) == covers
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="eqattn.optimize"):
            res = search(p, Budget.starting(60), threads=1, seed=Seed(2, design, (), (), ()))
        (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("seeded")]
        assert int(line.rsplit(" ", 1)[1]) == (twice.params if covers else p.vanilla_params) // 4
        assert res.status == "optimal" and res.design.params == ref
    # the restricted rounds first (FULL_TYPES = 0): they repair the weak seed's copies
    # (lower bounds on their orbits) and still end at the optimum
    monkeypatch.setattr(capped, "FULL_TYPES", 0)
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="eqattn.optimize"):
        res = search(p, Budget.starting(60), threads=1, seed=Seed(2, weak, (), (), ()))
    assert any("programs repair it" in r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records][:5]
    assert res.status == "optimal" and res.design.params == ref


def test_seed_for_hands_on_the_smaller_search():
    p = Problem.create("C4", "regular", 8, 1)
    s = seed_for(p, Budget.starting(60), time.perf_counter() + 60, threads=1)
    assert s is not None and s.k == 2 and s.design is not None
    assert s.design.problem.heads == 4 and s.design.params == optimize(sub_problem(p, 2), 60, constrained=False, engine="enumerate").design_params
    assert s.keys and all(dm.D.mults and any(dm.D.mults) for key in s.keys for dm in key)
    assert set(s.active) <= set(range(len(s.keys)))
    assert seed_for(sub_problem(p, 2), Budget.starting(60), time.perf_counter() + 60, threads=1) is None  # H = 4 < SPLIT_HEADS


def test_h16_proven_by_the_h8_search():
    """C8, 8×regular, H = 16, d = 4: unproven (gap 33 %) after 60 s without the seed; the
    search of H = 8 (itself seeded by H = 4) proves its optimum, twice its design covers and
    the repeated keys' LP bound reaches it."""
    p = Problem.create("C8", "8xregular", 16, 4)
    r = optimize(p, 120)
    assert r.status == "optimal" and r.design_params == r.lower_bound
    h8 = optimize(sub_problem(p, 2), 120)
    assert h8.status == "optimal" and r.design_params == 2 * h8.design_params == 12288


def test_refused_problem_is_refused_before_the_seed_runs(monkeypatch):
    """D4h with H = 24 has 34 883 552 clusterings (too many to check through representatives,
    theory-scale C7): refused up front, not after the search of H = 12 heads has spent half
    the time."""
    from eqattn.errors import LimitError

    def boom(*a, **kw):
        raise AssertionError("the seed ran before the refusal")

    monkeypatch.setattr("eqattn.optimize.search.seed_for", boom)
    with pytest.raises(LimitError) as e:
        optimize(Problem.create("D4h", "16xvector + 16xtrivial", 24, 4), 60)
    assert e.value.field == "heads" and "34883552 clusterings" in e.value.message


def test_a_limit_of_the_smaller_problem_leaves_no_seed(monkeypatch):
    """A limit met by the search of H / k heads is not the answer for H heads: no seed, and
    the search of H runs as before (its own limits, if any, are reported)."""
    from eqattn.errors import LimitError

    real = ss.search

    def limited(problem, *a, **kw):
        if problem.heads == 4:
            raise LimitError("head_dim", "a limit of the smaller problem")
        return real(problem, *a, **kw)

    monkeypatch.setattr(ss, "search", limited)
    p = Problem.create("C4", "regular", 8, 1)
    assert seed_for(p, Budget.starting(60), time.perf_counter() + 60, threads=1) is None
    r = optimize(p, 60, engine="symbolic")
    assert r.status == "optimal" and r.design_params == 96
    assert not any(n.startswith("seeded by") for n in r.notes)


def test_the_regular_design_is_checked_before_the_seed_runs(monkeypatch):
    """The search checks the regular design (its answer when time runs out) before the
    search of H / k heads takes half of the time: with the seed first, a 4-5 s limit at
    H = 16 left no time for that check (status unknown, no design). The order of the calls
    is recorded, not timed."""
    events = []
    check, seed = CounterexampleOracle.keys, ss.seed_for

    def spy_check(oracle, design, *a, **kw):
        if oracle.problem.heads == 16:
            events.append(("regular" if design == Design.regular(oracle.problem) else "check"))
        return check(oracle, design, *a, **kw)

    def spy_seed(problem, *a, **kw):
        if problem.heads == 16:
            events.append("seed")
        return seed(problem, *a, **kw)

    monkeypatch.setattr(CounterexampleOracle, "keys", spy_check)
    monkeypatch.setattr(ss, "seed_for", spy_seed)
    p = Problem.create("C4", "4xregular", 16, 1)
    r = optimize(p, 60)
    assert r.status == "optimal" and any(n.startswith("seeded by the search of H = 8") for n in r.notes)
    assert events[0] == "regular" and "seed" in events and events.index("seed") > 0


def _atlas_pairs() -> list[tuple[tuple, int]]:
    """(G, V, H1, d) with the proven optimum of (G, V, 2 H1, d), from the atlas reference."""
    import csv
    from pathlib import Path

    rows = [r for r in csv.DictReader(open(Path(__file__).parents[1] / "data" / "atlas_reference.csv")) if r["status"] == "optimal"]
    opt = {(r["group"], r["V"], int(r["H"]), int(r["d"])): int(r["P_opt"]) for r in rows}
    pairs = [(k, opt[(k[0], k[1], 2 * k[2], k[3])]) for k in opt if (k[0], k[1], 2 * k[2], k[3]) in opt and int(k[3]) <= 2]
    return pairs[:: max(1, len(pairs) // 14)]


@pytest.mark.parametrize("spec,big_opt", _atlas_pairs(), ids=lambda x: "-".join(map(str, x)) if isinstance(x, tuple) else str(x))
def test_the_carried_certificate_is_dual_feasible_for_every_type_of_the_larger_problem(spec, big_opt):
    """Lemma O16c: the LP certificate of (G, V, H1, d) over random keys, carried to their
    keys repeated twice (`multiply_certificate`), satisfies π(t)/θ - c_t <= 0 for every type
    of (G, V, 2 H1, d) — checked by enumerating every (K', W), not by the pricing programs —
    so its value is a bound: at most the proven optimum of the atlas reference, and twice the
    smaller bound when no zero pool carries a dual."""
    import random

    from eqattn.attention.hosting import hosting
    from eqattn.optimize.catalogue import DemandCatalogue
    from eqattn.optimize.lp_bound import lp_bound
    from eqattn.optimize.multiples import multiply_certificate
    from eqattn.optimize.separation import ScenarioSpace
    from test_lp_bound import _keys, max_profit

    small = Problem.create(*spec)
    space = ScenarioSpace(small)
    keys = _keys(space, random.Random(2))
    b = lp_bound(small, hosting(small), space.values, keys, start=())
    assert b.converged and b.certificate is not None
    demands = [tuple(space.values[v] for v in key) for key in keys]
    big = Problem.create(spec[0], spec[1], 2 * spec[2], spec[3])
    cat = DemandCatalogue(big)
    big_keys = list(dict.fromkeys(tuple(sorted(cat.intern(d) for d in multiply_key(dems, 2, big.V))) for dems in demands))
    cert = multiply_certificate(b.certificate, demands, 2, big.V, cat.intern, {k: i for i, k in enumerate(big_keys)})
    assert max_profit(big, cat.values, big_keys, cert) <= 1e-6
    value = cert.value(cat.values, big_keys, None)
    assert 4 * math.ceil(value - 1e-6) <= big_opt
    pooled = any(demands[s][j].pool for s, j, _, m in b.certificate.mu if m > 0)  # (C5, C7, C10, D5, D8 rows)
    if not pooled:
        assert value == pytest.approx(2 * b.value)
    else:
        assert b.value - 1e-6 <= value <= 2 * b.value + 1e-6


def test_a_head_limit_is_not_carried():
    from eqattn.optimize.lp_duals import Certificate
    from eqattn.optimize.multiples import multiply_certificate

    p = Problem.create("C2", "regular", 2, 1)
    assert multiply_certificate(Certificate((), 0.5, 1.0), (), 2, p.V, lambda d: 0, {}) is None


def test_the_seed_certificate_proves_a_doubled_optimum_at_once():
    """C8, 8×regular, H = 16, d = 4: P*(16) = 2 P*(8) (O16); the H = 8 seed's certificate,
    carried, proves the repeated design optimal before any LP of the larger search."""
    p = Problem.create("C8", "8xregular", 16, 4)
    res = optimize(p, 60)
    assert res.status == "optimal" and res.design.params == 12288
    assert any("LP certificate on the repeated keys proves >= 12288 parameters" in n for n in res.notes)


def test_a_smaller_problem_proven_once_in_a_call_is_not_searched_again(caplog):
    """`SubSearches`: the seed of `(C4, regular, 8, 1)` is `(…, 4, 1)`; asked twice with one
    memo, the second answer is the first (proven) one, at no cost; with a new memo it is
    searched again. An answer a limit stopped is not kept."""
    p = Problem.create("C4", "regular", 8, 1)
    memo = ss.SubSearches()
    b = Budget.starting(60)
    first = seed_for(p, b, b.hard_end, memo=memo)
    assert first is not None and first.design is not None
    used = ss.Usage()
    with caplog.at_level(logging.DEBUG, logger="eqattn.optimize"):
        again = seed_for(p, b, b.hard_end, used=used, memo=memo)
    assert "proven earlier in this call" in caplog.text
    assert again.design is first.design and again.keys == first.keys and again.certificate == first.certificate
    assert used.work == 0 and used.solver_time == 0
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="eqattn.optimize"):
        seed_for(p, b, b.hard_end, memo=ss.SubSearches())
    assert "proven earlier" not in caplog.text
    import dataclasses

    small = Problem.create("C4", "regular", 4, 1)
    proven = search(small, Budget.starting(60))
    fresh = ss.SubSearches()
    fresh.put(small, ss.ComputeLimits(), dataclasses.replace(proven, status="feasible"))
    assert proven.status == "optimal" and fresh.get(small, ss.ComputeLimits()) is None
    fresh.put(small, ss.ComputeLimits(), proven)
    assert fresh.get(small, ss.ComputeLimits()) is proven and fresh.get(small, ss.ComputeLimits(max_head_dim=1)) is None


def test_a_seed_proven_by_its_own_seeds_certificate_hands_that_certificate_on():
    """A search proven by the certificate its own seed carried to it (O16c) may run no LP
    bound of its own; `seed_for` then hands on the carried certificate (a certificate over
    its keys as well), and of two the one proving more: the chain H → 2H → 4H keeps proving
    at once (C8 8×regular H = 16 d = 4 lost its note when its H = 8 search took that path)."""
    import dataclasses

    p = Problem.create("C8", "8xregular", 16, 4)
    sub = sub_problem(p, split_factor(p))
    proven = search(sub, Budget.starting(60))
    assert proven.status == "optimal" and proven.best_lp is not None and proven.best_lp[1].certificate is not None
    cert = proven.best_lp[1].certificate
    value = cert.value(proven.values, proven.keys, None)
    weaker = dataclasses.replace(cert, theta=cert.theta * 2)
    cases = [
        (dataclasses.replace(proven, best_lp=None, seed_certificate=cert), cert),  # no LP of its own: the carried one
        (dataclasses.replace(proven, seed_certificate=weaker), cert),  # the LP's proves more
        (dataclasses.replace(proven, best_lp=(proven.best_lp[0], dataclasses.replace(proven.best_lp[1], certificate=weaker)),
                             seed_certificate=cert), cert),  # the carried one proves more
        (dataclasses.replace(proven, best_lp=None), None),
    ]
    for res, want in cases:
        memo = ss.SubSearches()
        memo.put(sub, ss.ComputeLimits(), res)
        b = Budget.starting(60)
        seed = seed_for(p, b, b.hard_end, memo=memo)
        assert seed.certificate is want
        if want is not None:
            assert {s for s, _, _, _ in want.mu} <= set(seed.active)
            assert math.isclose(want.value(proven.values, proven.keys, None), value)
