"""The parity split along a direct factor of order 2 (parity.py, theory-scale O21): every
covering design of (A × C2, V, H, d) restricts to covering designs of (A, V₊, H, d) and
(A, V₋, H, d) whose parameters and attention costs add up to its own, with no more heads and
no larger head; so the fewest parameters (least cost, within any limits) of G are at least the
sum of the two parts'. Checked with the coverage checker and the exhaustive listing
(brute_force.py, no optimiser) on small direct products; and the search of a large group
takes the sum as its bound."""

from __future__ import annotations

from itertools import islice

import numpy as np
import pytest

from eqattn.attention import Design, Problem, check_coverage
from eqattn.attention.clusterings import clusterings
from eqattn.attention.enumerated import DesignSearch, demands_of, scenarios
from eqattn.optimize import optimize, search as search_module
from eqattn.optimize.budget import Budget as SearchBudget
from eqattn.optimize.limits import ComputeLimits, attention_cost
from eqattn.optimize.parity import lift_demand, lift_rep, parity_split, split_design
from eqattn.reps import Rep, irreps_of

from brute_force import BruteForce, Budget

SMALL = [("C2", "A + B", 1, 1), ("C2", "A + 2xB", 2, 1), ("C2", "2xA + 2xB", 2, 2), ("C6", "regular", 1, 1),
         ("C6", "A + B + E1", 2, 1), ("C2xC2", "regular", 1, 1), ("C2xC2", "A.A + A.B + B.A", 2, 1),
         ("D6", "A1 + B2 + E2", 1, 2), ("C2h", "Ag + Au + Bu", 2, 1), ("C2xS3", "A.[3] + B.[2,1]", 1, 2)]


def test_which_factor() -> None:
    s = parity_split(Problem.create("C2", "A + 2xB", 1, 1))
    assert (s.A.name, str(s.plus.V), str(s.minus.V), s.same) == ("C1", "A", "2xA", False)
    s = parity_split(Problem.create("Ih", "4xregular", 8, 60))
    assert s.A.name == "A5" and s.same and s.plus.V.dim == s.minus.V.dim == 240 and not s.A.mask[s.z]
    assert parity_split(Problem.create("C2", "2xB", 1, 1)).plus is None  # (z is -1 on all of V)
    for g in ("D4", "C4", "Q8", "S4", "A5", "C3"):  # no central involution with a complement
        assert parity_split(Problem.create(g, "regular", 1, 1)) is None, g
    assert parity_split(Problem.create("SO3", "1x1", 1, 1)) is None  # (a compact group's stand-in)


@pytest.mark.parametrize("g, v, H, d", SMALL)
def test_every_covering_design_splits_into_covering_designs_of_the_parts(g: str, v: str, H: int, d: int) -> None:
    p = Problem.create(g, v, H, d)
    s = parity_split(p)
    bf = BruteForce(p)
    parts = {sign: BruteForce(q) for sign, q in s.parts()}
    least = bf.optimum(Budget()).params
    covering = list(islice((k for k in bf.designs(Budget(max_params=least + 8), prune=bf.uncovering) if bf.covers(k)), 30))
    assert covering
    for k in covering:
        D = bf.design(k)
        plus, minus = split_design(s, D)
        halves = [x for x in (plus, minus) if x is not None]
        assert sum(x.params for x in halves) == D.params
        assert sum(attention_cost(x) for x in halves) == attention_cost(D)
        for x in halves:
            assert x.heads <= D.heads
            assert max((o.head_dim for o in x.orbits), default=0) <= max(o.head_dim for o in D.orbits)
            assert all(c.covered for c in check_coverage(x.problem, x)), f"{g} {v}: a part of {k} misses a clustering"
    # so the optimum is at least the parts' optima, for parameters and attention cost, and
    # within limits (a part without a design within them: G has none either)
    for objective in ("params", "attention_cost"):
        best = bf.optimum(Budget(), objective)
        ref = [b.optimum(Budget(), objective) for b in parts.values()]
        if objective == "params":
            assert best.params >= sum(r.params for r in ref)
        else:
            assert attention_cost(best.design) >= sum(attention_cost(r.design) for r in ref)
    for mh, md in ((1, 1), (2, 1), (H, d), (2 * H, d), (4 * H, d), (4 * H, 2 * d)):
        lim = Budget(max_heads=mh, max_head_dim=md)
        best = bf.optimum(lim)
        ref = [b.optimum(lim) for b in parts.values()]
        if any(r.status == "infeasible" for r in ref):
            assert best.status == "infeasible", (mh, md)
        elif best.status == "optimal":
            assert best.params >= sum(r.params for r in ref), (mh, md)


def test_the_bound_is_not_an_equality() -> None:
    """C2, 2×regular, H = 2, d = 4: the parts (C1, 2 dims each) need 32 parameters each, the
    whole 96: the orbit C2/C1 of the vanilla layer has QK matrices mixing V₊ and V₋, which no
    block-diagonal design expresses."""
    p = Problem.create("C2", "2xregular", 2, 4)
    s = parity_split(p)
    assert [optimize(q, 20).design.params for _, q in s.parts()] == [32, 32]
    assert optimize(p, 20).design.params == 96


def test_the_search_takes_the_split_as_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Oh (order 48 = S4 × C2), regular, H = 1, d = 2: the two S4 parts prove 16 parameters
    each, the optimum's bound, with its note. C2×S3, 2×regular, H = 4, d = 4 (the split
    switched on for its order 12): the two S3 parts prove 896 together, the optimum, and the
    note says the bound came from them."""
    p = Problem.create("Oh", "regular", 1, 2)
    parts = [optimize(q, 20).design.params for _, q in parity_split(p).parts()]
    assert parts == [16, 16]
    r = optimize(p, 20)
    assert (r.status, r.lower_bound) == ("optimal", 32)
    assert any("parity split over S4" in n and ">= 32 parameters" in n for n in r.to_json()["notes"])
    p = Problem.create("C2xS3", "2xregular", 4, 4)
    assert not any("parity" in n for n in optimize(p, 20, engine="symbolic").to_json()["notes"])  # (order 12 < PARITY_MIN_ORDER)
    monkeypatch.setattr(search_module, "PARITY_MIN_ORDER", 2)
    total = sum(optimize(q, 20).design.params for _, q in parity_split(p).parts())
    assert total == 896
    r = optimize(p, 20, engine="symbolic")
    assert r.lower_bound >= total and r.design.params >= total
    assert any(f">= {total} parameters" in n for n in r.to_json()["notes"])


def test_a_part_without_a_design_within_the_limits_proves_the_whole_infeasible(monkeypatch: pytest.MonkeyPatch) -> None:
    """C2, A + 2×B, H = 2, d = 1 within one head of dim 1: the part V₊ = A (of C1) needs two
    heads of dim 1 (its clustering C1 × 2 of rank-1 heads), so no design of C2 within the
    limits covers (checked by the exhaustive listing); the search says so with the part."""
    monkeypatch.setattr(search_module, "PARITY_MIN_ORDER", 2)
    p = Problem.create("C2", "A + 2xB", 2, 1)
    assert BruteForce(p).optimum(Budget(max_heads=1, max_head_dim=1)).status == "infeasible"
    plus = parity_split(p).plus
    assert BruteForce(plus).optimum(Budget(max_heads=1, max_head_dim=1)).status == "infeasible"
    r = optimize(p, 10, engine="symbolic", max_heads=1, max_head_dim=1)
    assert r.status == "infeasible"
    assert "central involution is +1 (C1, A, H = 2, d = 1)" in (r.reason or "")


def test_a_part_stopped_by_its_own_limit_leaves_the_other_parts_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Oh, A1g + T1u, H = 2, d = 2: the parts (S4, [4]) and (S4, [2,1,1]) need 8 and 4
    parameters; with the + part's search stopped by a limit of its own (None), the − part
    alone bounds (4), and the answer is still proven (12)."""
    p = Problem.create("Oh", "A1g + T1u", 2, 2)
    s = parity_split(p)
    assert [optimize(q, 20).design.params for _, q in s.parts()] == [8, 4]
    r = optimize(p, 20, engine="symbolic")
    assert (r.status, r.design.params) == ("optimal", 12)
    assert any(">= 12 parameters together" in n for n in r.to_json()["notes"])
    real = search_module._sub_search

    def stopped(sub, k, share, stage, *args, **kw):  # noqa: ANN001, ANN202
        return None if stage.startswith("parity +") else real(sub, k, share, stage, *args, **kw)

    monkeypatch.setattr(search_module, "_sub_search", stopped)
    r = optimize(p, 20, engine="symbolic")
    assert (r.status, r.design.params) == ("optimal", 12)
    assert any(">= 4 parameters together" in n for n in r.to_json()["notes"])


@pytest.mark.parametrize("g, v, H, d", SMALL)
def test_a_design_meets_a_lifted_scenario_exactly_when_its_part_meets_the_scenario(g: str, v: str, H: int, d: int) -> None:
    """Lemma O21d, with the assignment search of the coverage checker on both sides (no
    optimiser): every scenario of every clustering of each part, lifted to `G`, is met by a
    design of `G` iff the design's part (`split_design`) meets the scenario; over the first
    40 designs within 8 parameters of the optimum, covering or not. So every covering design
    meets the lifted keys (its parts cover, Lemma O21), and they are not vacuous: the designs
    that miss one are counted."""
    p = Problem.create(g, v, H, d)
    s = parity_split(p)
    bf = BruteForce(p)
    least = bf.optimum(Budget()).params
    designs = [bf.design(k) for k in islice(bf.designs(Budget(max_params=least + 8)), 40)]
    met = missed = 0
    for sign, q in s.parts():
        keys = {demands_of(q, opts) for c in clusterings(q) for opts in scenarios(q, c)}
        keys = [k for k in keys if k]
        lifted = [tuple(lift_demand(s, sign, dm) for dm in key) for key in keys]
        for key, up in zip(keys, lifted):
            for dm, lm in zip(key, up):  # K̄ × Z, and the same dims
                kbar = q.group.subgroup_classes[dm.kbar]
                assert p.group.subgroup_classes[lm.kbar].order == 2 * kbar.order
                assert (lm.P.dim, lm.D.dim, lm.pool) == (dm.P.dim, dm.D.dim, dm.pool)
        for D in designs:
            part = split_design(s, D)[0 if sign == "+" else 1]
            whole, mine = DesignSearch(p, D, reduce=False).search, DesignSearch(q, part, reduce=False).search
            for key, up in zip(keys, lifted):
                ok = whole.solve(up) is not None
                assert ok == (mine.solve(key) is not None), f"{g} {v}: {D} on the lifted {key}"
                met, missed = met + ok, missed + (not ok)
    assert met and missed


@pytest.mark.parametrize("g, v, H, d", [("Oh", "A1g + T1u", 2, 2), ("Oh", "T2g + A2u", 2, 2), ("D4h", "A1g + Eu + B1u", 2, 2)])
def test_lifted_scenarios_of_larger_groups(g: str, v: str, H: int, d: int) -> None:
    """The same law on groups past the exhaustive listing (Oh = S4 × C2, D4h = D4 × C2, where
    a subgroup `K̃ × Z` is mostly not its class's representative: the lift conjugates), over
    the regular design, the optimiser's design and that design less each one of its orbits."""
    p = Problem.create(g, v, H, d)
    s = parity_split(p)
    best = optimize(p, 20).design
    designs = [Design.regular(p, trimmed=True), best] + [Design(p, best.orbits[:i] + best.orbits[i + 1:]) for i in range(len(best.orbits))]
    met = missed = 0
    for sign, q in s.parts():
        keys = [k for k in {demands_of(q, opts) for c in clusterings(q) for opts in scenarios(q, c)} if k]
        for D in designs:
            part = split_design(s, D)[0 if sign == "+" else 1]
            whole, mine = DesignSearch(p, D, reduce=False).search, DesignSearch(q, part, reduce=False).search
            for key in keys:
                ok = whole.solve(tuple(lift_demand(s, sign, dm) for dm in key)) is not None
                assert ok == (mine.solve(key) is not None), f"{g} {v}: {D} on the lifted {key}"
                met, missed = met + ok, missed + (not ok)
    assert met and missed


@pytest.mark.parametrize("g", ["Oh", "Ih", "D4h", "C2xS3"])
def test_a_lifted_irrep_is_the_irrep_times_the_sign(g: str) -> None:
    """`lift_rep` of every irrep `τ` of every subgroup `K̃` of `A`: one irrep of its class's
    representative `K` (of order 2 |K̃|) whose character, read back on `K̃ × Z` through the
    conjugator `x` (elements `x k x⁻¹`), is `χ_τ` on `K̃` and `±χ_τ` on `K̃ z`."""
    p = Problem.create(g, "regular", 1, 1)
    s = parity_split(p)
    G, A = p.group, s.A
    conjugated = 0
    for Kt in A.std.subgroup_classes:
        base = A.phi[Kt.elements]
        above = G.table[base, s.z]
        for i in range(len(irreps_of(Kt))):
            tau = Rep(Kt, tuple(int(j == i) for j in range(len(irreps_of(Kt)))))
            for sign, f in (("+", 1.0), ("-", -1.0)):
                U = lift_rep(s, sign, tau)
                assert sum(U.mults) == 1 and U.dim == tau.dim and U.sub.order == 2 * Kt.order
                K = U.sub.elements
                _, x = G.lattice.locate(np.concatenate([base, above]))
                xinv = G.inv[x]
                back = {int(G.table[G.table[x, k], xinv]): U.character[k] for k in K}  # x k x⁻¹ -> χ_U(k)
                assert set(back) == set(base.tolist()) | set(above.tolist())
                for k, e, a in zip(Kt.elements, base, above):
                    assert back[int(e)] == pytest.approx(tau.character[k])
                    assert back[int(a)] == pytest.approx(f * tau.character[k])
                conjugated += int(not np.array_equal(np.sort(K), np.sort(np.concatenate([base, above]))))
    assert g in ("D4h", "C2xS3") or conjugated  # (Oh and Ih: some K̃ × Z are not their class's representative)


def test_the_search_takes_the_parts_keys_lifted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Oh, regular, H = 4, d = 4 (order 48: the split runs; V₊ ≅ V₋, so one S4 search, with an
    LP bound, answers both parts): after the split, every key of the part's search lifted
    with both signs (Lemma O21d) is a key of the search, those of the part's LP certificate
    are in its working set and LP start, and the part LP's fractional design, lifted, is
    among its LP columns; with `PARITY_LIFT` off (the benchmark's baseline) none is added.
    Oh, A1g + T1u, H = 2, d = 2: its parts are proven by their programs alone, with no LP
    bound, and nothing is lifted; nor is anything under compute limits."""
    parts: dict[str, object] = {}
    real = search_module._sub_search

    def spy(sub, k, share, stage, *args, **kw):  # noqa: ANN001, ANN202
        res = real(sub, k, share, stage, *args, **kw)
        if stage.startswith("parity "):
            parts[stage.split()[1]] = res
        return res

    monkeypatch.setattr(search_module, "_sub_search", spy)

    def split_state(p: Problem, limits: ComputeLimits | None = None):  # noqa: ANN202
        parts.clear()
        state = search_module.new_state(p, SearchBudget.starting(30), limits)
        assert search_module._open(state) is None
        before = len(state.keys)
        assert search_module._plant_parity(state, search_module.SubSearches()) is None
        lifted = {tuple(sorted(state.catalogue.intern(lift_demand(parity_split(p), sign, dm)) for dm in key)): key
                  for r in parts.values() for key in r.demand_keys() for sign in "+-"}
        return state, before, lifted

    p = Problem.create("Oh", "regular", 4, 4)
    state, before, lifted = split_state(p)
    (part,) = parts.values()
    assert list(parts) == ["+"] and part.status == "optimal" and part.best_lp is not None
    assert state.lower == 2 * part.lower_units
    keys = set(state.keys)
    assert len(state.keys) > before and set(lifted) <= keys
    cert = {part.demand_keys()[s] for s, _, _, _ in part.best_lp[1].certificate.mu}
    active = {state.keys[i] for i in state.lp_active}
    assert {k for k, v in lifted.items() if v in cert} <= active and active <= {state.keys[i] for i in state.working}
    s = parity_split(p)
    for sub, W in part.best_lp[1].support:
        for sign in "+-":
            U = lift_rep(s, sign, Rep(s.A.std.subgroup_classes[sub], tuple(W)))
            assert (U.sub.id, U.mults) in state.extra
    state, before, lifted = split_state(p, ComputeLimits(max_heads=4 * 48))  # (under limits: nothing)
    assert parts["+"].best_lp is not None and len(state.keys) == before and not state.lp_active and not state.extra
    monkeypatch.setattr(search_module, "PARITY_LIFT", False)
    state, before, lifted = split_state(p)
    assert len(state.keys) == before and not state.lp_active and not state.extra
    monkeypatch.setattr(search_module, "PARITY_LIFT", True)
    state, before, lifted = split_state(Problem.create("Oh", "A1g + T1u", 2, 2))
    assert all(r.best_lp is None for r in parts.values()) and len(state.keys) == before
