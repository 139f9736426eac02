"""The greedy repair of a candidate design (eqattn/optimize/repair.py, theory-scale O18):
raises cost what SPEC §3 says, a repaired design covers every clustering by the enumerating
checker, and the search uses the repair where the LP bound used to creep."""

from __future__ import annotations

import time

from eqattn.attention import Design, DesignOrbit, Problem
from eqattn.attention.coverage import enumerated_coverage
from eqattn.optimize import optimize
from eqattn.optimize import oracle
from eqattn.optimize.repair import moves, repair
from eqattn.reps import Rep


def test_raises_cost_what_the_parameter_count_says():
    p = Problem.create("A4", "3xregular", 4, 5)
    d = Design.create(p, [("C2xC2", "5xA.A + A.B + 5xB.A + B.B"), ("C2xC2", "5xA.A + A.B + 5xB.A + B.B"), ("A4", "3xA + 2xE")])
    ms = moves(p, d, None)
    assert ms and [u for u, _ in ms] == sorted(u for u, _ in ms)
    for units, r in ms:
        assert r.params - d.params == 4 * units
        assert r.heads == d.heads
        # one multiplicity of one orbit type raised on all its copies: m_τ(V|K) e_τ units each (SPEC §3)
        changed = [(o0, o) for o0, o in zip(d.orbits, r.orbits) if o != o0]
        assert changed and len({(o0.key(), o.key()) for o0, o in changed}) == 1
        o0, o = changed[0]
        assert len(changed) == sum(x.key() == o0.key() for x in d.orbits)
        diff = [(t, b - a) for t, (a, b) in enumerate(zip(o0.W.mults, o.W.mults)) if b != a]
        assert len(diff) == 1 and diff[0][1] in (1, 2, 4, 8)
        t, by = diff[0]
        VK = p.restrict(o0.sub)
        assert units == len(changed) * by * int(VK.mults[t]) * int(VK.irreps.es[t])
    capped = moves(p, d, 13)
    for _, r in capped:  # the raised orbits stay within max_head_dim
        assert all(o.head_dim <= 13 for o, o0 in zip(r.orbits, d.orbits) if o != o0)
    assert 0 < len(capped) < len(ms)


def _check(p: Problem):  # noqa: ANN202
    def check(design: Design):  # noqa: ANN202
        bad = [v.clustering for v in enumerated_coverage(p, design) if not v.covered]
        return bad, [("key", c.id) for c in bad]
    return check


def test_a_weakened_optimal_design_is_repaired():
    """The optimum of A4, 3×regular, H = 4, d = 5 with one multiplicity lowered misses
    clusterings; the repair raises it back to a design that covers every clustering (by the
    enumerating checker, the independent route), at most what the optimum cost plus one raise."""
    p = Problem.create("A4", "3xregular", 4, 5)
    opt = optimize(p, 60)
    assert opt.status == "optimal"
    tried = 0
    for i, o in enumerate(opt.design.orbits):
        for tau, m in enumerate(o.W.mults):
            if not m:
                continue
            W = Rep(o.sub, tuple(x - (j == tau) for j, x in enumerate(o.W.mults)))
            weak = Design(p, opt.design.orbits[:i] + ((DesignOrbit(o.sub, W),) if W.dim else ()) + opt.design.orbits[i + 1 :])
            failing, _ = _check(p)(weak)
            if not failing:
                continue
            tried += 1
            budget = opt.design_params // 4 + max(u for u, _ in moves(p, weak, None))  # units
            fixed, keys = repair(weak, failing, _check(p), time.perf_counter() + 60, budget)
            if fixed is not None:
                assert all(v.covered for v in enumerated_coverage(p, fixed))
                assert opt.design_params <= fixed.params < 4 * budget
                return
    raise AssertionError(f"no weakened design was repaired ({tried} tried)")


def test_the_search_repairs_the_rounded_design(monkeypatch):
    """A4, 21×regular, H = 16, d = 31 (dim V 252): without the repair the LP bound crept by 63
    units a round and 60 s ended at the regular design (gap 55 %). With it the search proves
    the optimum: a repaired design covers, or the keys the repair met lift the LP bound to the
    next rounded design (which route wins depends on timing; the repair runs either way)."""
    from eqattn.optimize import repair as repair_module

    calls = []
    real = repair_module.repair

    def spy(*a, **kw):  # noqa: ANN002, ANN003, ANN202
        out = real(*a, **kw)
        calls.append(out)
        return out

    monkeypatch.setattr(oracle.greedy, "repair", spy)
    p = Problem.create("A4", "21xregular", 16, 31)
    r = optimize(p, 240)  # a safety limit, not the claim: the proof takes ~50 s unloaded (benchmarks/scale.py times it)
    assert (r.status, r.design_params, r.lower_bound) == ("optimal", 227052, 227052)
    assert calls and any(d is not None or keys for d, keys in calls)  # it ran: a design, or counterexamples met on the way


def test_host_moves_make_an_orbit_host_a_target():
    """A host move raises W to W ∨ P^a (SPEC §4.4): the raised orbit then hosts the target
    image through that double coset, by the hosting table; it costs what the count says."""
    from eqattn.attention.hosting import hosting
    from eqattn.optimize.repair import host_moves

    p = Problem.create("S4", "2xregular", 4, 3)
    d = Design.create(p, [("S4", "2x[4] + [2,2]"), ("A4", "2xA + E")])
    h = hosting(p)
    target = (p.group.subgroup_classes[-1].id, Rep(p.group.subgroup_classes[-1], (0, 0, 0, 0, 1)))  # P = [3,1], not hosted before
    assert not any(h.hosts(o.sub.id, o.W, *target) for o in d.orbits)
    ms = host_moves(p, d, [target], None)
    assert ms
    for units, r in ms:
        assert r.params - d.params == 4 * units > 0
        changed = [o for o, o0 in zip(r.orbits, d.orbits) if o != o0]
        assert changed
        o = changed[0]
        assert h.hosts(o.sub.id, o.W, target[0], target[1])  # it hosts the target now
