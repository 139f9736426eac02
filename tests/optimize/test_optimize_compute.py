"""Compute-aware designs (`max_heads`, `max_head_dim`), the attention cost, and the
deterministic work limit of the optimiser (issue 9, items 6 and 7).

Independent routes: an exhaustive search over every design within the constraints (finite:
at most `max_heads` orbits, W ≤ V|K' by SPEC §5.5), and the constrained-vanilla answer
(a covering design of exactly H heads of dimension d is one with at most H heads of
dimension at most d, so it bounds the constrained optimum)."""

from __future__ import annotations

import json
from itertools import product

import pytest

from eqattn.attention import Design, DesignOrbit, Problem, check_coverage
from eqattn.optimize import attention_cost, optimize
from eqattn.errors import InputError
from eqattn.numeric import verify_design
from eqattn.reps import Rep


def all_types(problem: Problem) -> list[tuple[int, DesignOrbit]]:
    """Every orbit type (K', W), 0 < W <= V|K', with its cost, cheapest first."""
    out = []
    for K in problem.group.subgroup_classes:
        for W in product(*(range(m + 1) for m in problem.restrict(K).mults)):
            if any(W):
                o = DesignOrbit(K, Rep(K, tuple(W)))
                out.append((o.params(problem), o))
    out.sort(key=lambda t: (t[0], t[1].sub.id, t[1].W.mults))
    return out


def assert_verified(problem: Problem, design: Design) -> None:
    verdicts = check_coverage(problem, design)
    assert all(v.covered for v in verdicts)
    assert verify_design(problem, design, verdicts=verdicts).worst_rel_error <= 1e-8


def exhaustive_within(problem: Problem, max_heads: int, max_head_dim: int | None) -> int | None:
    """The least cost of a covering design with at most max_heads heads, every head of
    dimension <= max_head_dim; None when no such design covers."""
    types = [(c, o) for c, o in all_types(problem) if o.heads <= max_heads and (max_head_dim is None or o.head_dim <= max_head_dim)]
    best: list[int | None] = [None]

    def rec(start: int, heads_left: int, cost: int, acc: tuple[DesignOrbit, ...]) -> None:
        if best[0] is None or cost < best[0]:
            if all(v.covered for v in check_coverage(problem, Design(problem, acc))):
                best[0] = cost
                return  # adding orbits only costs more
        for i in range(start, len(types)):
            c, o = types[i]
            if o.heads <= heads_left and (best[0] is None or cost + c < best[0]):
                rec(i, heads_left - o.heads, cost + c, acc + (o,))

    rec(0, max_heads, 0, ())
    return best[0]


CASES = [
    # (G, V, H, d, max_heads, max_head_dim)
    ("C4", "E1", 2, 1, 1, None),  # only G-orbits (one head): the clustering {(C2,1)} has no host
    ("C4", "E1", 2, 1, 2, 1),
    ("C4", "regular", 1, 1, 2, None),
    ("C4", "regular", 1, 1, 4, 1),
    ("C3", "A + E1", 2, 1, 2, None),
    ("C3", "A + E1", 2, 1, 3, 2),
    ("D3", "E1", 2, 1, 2, 2),
    ("D3", "A1 + E1", 1, 1, 3, 1),
    ("C2xC2", "A.B + B.A", 2, 1, 2, None),
    ("C2", "A + B", 2, 1, 2, 1),
    ("C4", "A + E1", 2, 1, 3, 1),
    # the constraints make the optimum dearer (unconstrained in brackets)
    ("C4", "regular", 1, 2, 4, 2),  # 32 (16)
    ("D3", "regular", 1, 2, 3, 2),  # 24 (16)
    ("D3", "A1 + E1", 1, 2, 3, 2),  # 12 (8)
    ("C2", "A + 2xB", 1, 2, 2, 2),  # 24 (20)
    ("C3", "A + E1", 1, 2, 3, 2),  # 24 (12)
]


@pytest.mark.parametrize("group, rep, heads, head_dim, max_heads, max_head_dim", CASES)
def test_constrained_optimum_equals_exhaustive_search(group, rep, heads, head_dim, max_heads, max_head_dim):
    p = Problem.create(group, rep, heads, head_dim)
    r = optimize(p, 30, constrained=False, max_heads=max_heads, max_head_dim=max_head_dim)
    expected = exhaustive_within(p, max_heads, max_head_dim)
    if expected is None:
        assert r.status == "infeasible" and r.design is None and r.design_params is None
        assert r.to_json()["orbits"] == [] and r.to_json()["gap"] is None
        return
    assert r.status == "optimal" and r.lower_bound == r.design_params == expected
    assert r.design_params >= optimize(p, 30, constrained=False).design_params
    assert r.design.heads <= max_heads
    assert max_head_dim is None or all(o.head_dim <= max_head_dim for o in r.design.orbits)
    assert_verified(p, r.design)


def test_unconstrained_infeasible_example_by_hand():
    # SPEC §6.2: a G-orbit (C4, W) hosts only demands with K̄ = C4; {(C2, 1)} has K̄ = C2
    r = optimize(Problem.create("C4", "E1", 2, 1), 10, max_heads=1)
    assert r.status == "infeasible" and r.stopped_by is None and r.lower_bound is None


@pytest.mark.parametrize("group, rep, heads, head_dim", [("C4", "E1", 3, 1), ("C2", "A + B", 2, 2), ("C4", "A + E1", 1, 2), ("D3", "E1", 3, 1)])
def test_constrained_vanilla_bounds_the_no_wider_optimum(group, rep, heads, head_dim):
    # a covering design of exactly H heads of dimension d is within max_heads=H, max_head_dim=d
    # (after W -> min(W, V|K'), which keeps coverage): the constrained optimum is at most its cost
    p = Problem.create(group, rep, heads, head_dim)
    full = optimize(p, 30)
    r = optimize(p, 30, constrained=False, max_heads=heads, max_head_dim=head_dim)
    assert full.constrained is not None
    if full.constrained.possible:
        assert r.status == "optimal"
        assert r.design_params <= full.constrained.design.params
        assert r.attention_cost <= heads * head_dim
    # and never cheaper than the unconstrained optimum
    if r.design_params is not None:
        assert r.design_params >= full.design_params


def test_attention_cost_in_result():
    p = Problem.create("C4", "regular", 2, 2)
    r = optimize(p, 30, constrained=False)
    j = r.to_json()
    assert j["attention_cost"] == sum(o["heads"] * o["head_dim"] for o in j["orbits"]) == attention_cost(r.design)
    assert j["vanilla_attention_cost"] == 4
    # the regular design: |G| H heads of dimension d
    assert attention_cost(Design.regular(p)) == 4 * 2 * 2


def test_work_limit_is_deterministic_and_reported():
    p = Problem.create("Q8", "regular", 3, 1)
    a = optimize(p, 120, constrained=False, work_limit=3)
    b = optimize(p, 120, constrained=False, work_limit=3)
    ja, jb = a.to_json(), b.to_json()
    for k in ("status", "design_params", "lower_bound", "orbits", "stopped_by", "work", "rounds"):
        assert ja[k] == jb[k], k
    if a.status != "optimal":
        assert a.stopped_by == "work_limit"
    assert all(v.covered for v in check_coverage(p, a.design))
    full = optimize(p, 120, constrained=False)
    assert full.status == "optimal" and full.stopped_by is None
    assert a.lower_bound <= full.design_params <= a.design_params


def test_work_limit_stops_the_search():
    p = Problem.create("C4", "regular", 2, 2)
    r = optimize(p, 60, constrained=False, work_limit=1)
    assert r.work >= 1
    assert r.status in ("optimal", "feasible")
    if r.status == "feasible":
        assert r.stopped_by == "work_limit" and r.lower_bound < r.design_params
    assert all(v.covered for v in check_coverage(p, r.design))


@pytest.mark.parametrize("field, value", [("max_heads", 0), ("max_head_dim", -2), ("work_limit", "many"), ("max_heads", True), ("max_head_dim", 1.5)])
def test_bad_constraints(field, value):
    p = Problem.create("C4", "E1", 2, 1)
    with pytest.raises(InputError) as e:
        optimize(p, 5, **{field: value})
    assert e.value.field == field


def test_cli_constraints(capsys):
    from eqattn.cli.main import main

    assert main(["optimize", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--max-heads", "1"]) == 0
    out = capsys.readouterr().out
    assert "no design within the constraints" in out and "max heads 1" in out
    assert main(["optimize", "-G", "C4", "-V", "regular", "-H", "2", "-d", "2", "--max-heads", "3", "--json", "--work-limit", "1000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["heads_total"] <= 3 and data["constraints"] == {"max_heads": 3, "max_head_dim": None}
    assert data["attention_cost"] == sum(o["heads"] * o["head_dim"] for o in data["orbits"])
    assert main(["optimize", "-G", "C4", "-V", "regular", "-H", "2", "-d", "2"]) == 0
    assert "attention cost" in capsys.readouterr().out
    assert main(["optimize", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--max-head-dim", "x"]) == 2
    assert "max_head_dim" in capsys.readouterr().err


def test_api_constraints():
    from fastapi.testclient import TestClient

    from eqattn.api.app import create_app

    client = TestClient(create_app())
    r = client.post("/api/optimize", json={"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "max_heads": 1})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "infeasible"
    r = client.post("/api/optimize", json={"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "max_head_dim": 0})
    assert r.status_code == 422
