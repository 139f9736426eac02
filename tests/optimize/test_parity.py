"""The parity split along a direct factor of order 2 (parity.py, theory-scale O21): every
covering design of (A × C2, V, H, d) restricts to covering designs of (A, V₊, H, d) and
(A, V₋, H, d) whose parameters and attention costs add up to its own, with no more heads and
no larger head; so the fewest parameters (least cost, within any limits) of G are at least the
sum of the two parts'. Checked with the coverage checker and the exhaustive listing
(brute_force.py, no optimiser) on small direct products; and the search of a large group
takes the sum as its bound."""

from __future__ import annotations

from itertools import islice

import pytest

from eqattn.attention import Problem, check_coverage
from eqattn.optimize import optimize, search as search_module
from eqattn.optimize.limits import attention_cost
from eqattn.optimize.parity import parity_split, split_design

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
