"""The optimiser (SPEC §5.5): SPEC §6 optima, optimality against an exhaustive search over
designs in increasing cost, re-checks, the constrained-vanilla question, the time limit,
bad input, the CLI and the API route."""

from __future__ import annotations

import json
from itertools import product

import numpy as np
import pytest

from eqattn.attention import Design, DesignOrbit, Problem, check_coverage
from eqattn.optimize import optimize
from eqattn.attention.hosting import hosting
from eqattn.optimize.separation import ScenarioSpace
from eqattn.optimize.head_types import HeadType, TypeTable
from eqattn.errors import InputError
from eqattn.numeric import verify_design
from eqattn.reps import Rep, irreps_of


# ----- an exhaustive search over designs, in increasing cost ---------------------------------
def all_types(problem: Problem, dim: int | None = None) -> list[tuple[int, DesignOrbit]]:
    """Every orbit type (K', W), 0 < W <= V|K' (or, with `dim`, every W of dimension `dim`,
    not necessarily inside V|K'), with its cost."""
    out = []
    for K in problem.group.subgroup_classes:
        VK = problem.restrict(K)
        if dim is None:
            ranges = [range(m + 1) for m in VK.mults]
        else:
            dims = irreps_of(K).dims
            ranges = [range(dim // int(x) + 1) for x in dims]
        for W in product(*ranges):
            if not any(W):
                continue
            if dim is not None and int(np.dot(irreps_of(K).dims, W)) != dim:
                continue
            o = DesignOrbit(K, Rep(K, tuple(W)))
            out.append((o.params(problem), o))
    out.sort(key=lambda t: (t[0], t[1].sub.id, t[1].W.mults))
    return out


def designs_of_cost(types: list[tuple[int, DesignOrbit]], cost: int, start: int = 0):
    """Multisets of types with total cost exactly `cost`."""
    if cost == 0:
        yield ()
        return
    for i in range(start, len(types)):
        c, o = types[i]
        if c == 0:
            continue
        if c > cost:
            continue
        for rest in designs_of_cost(types, cost - c, i):
            yield (o,) + rest


def covers(problem: Problem, orbits: tuple[DesignOrbit, ...]) -> bool:
    return all(v.covered for v in check_coverage(problem, Design(problem, orbits)))


def exhaustive_optimum(problem: Problem) -> int:
    """The least cost of a covering design, trying every design in increasing cost."""
    types = all_types(problem)
    for cost in range(0, problem.vanilla_params + 1, 4):
        for orbits in designs_of_cost(types, cost):
            if covers(problem, orbits):
                return cost
    raise AssertionError("the regular design covers at cost <= P_vanilla")


def exhaustive_constrained(problem: Problem) -> bool:
    """Is there a covering design with exactly H heads, all of dimension d (any W of dim d)?"""
    types = [o for _, o in all_types(problem, dim=problem.head_dim) if o.heads <= problem.heads]

    def rec(start: int, heads: int, acc: tuple) -> bool:
        if heads == 0:
            return covers(problem, acc)
        return any(rec(i, heads - types[i].heads, acc + (types[i],)) for i in range(start, len(types)) if types[i].heads <= heads)

    return rec(0, problem.heads, ())


def assert_verified(problem: Problem, design: Design) -> None:
    verdicts = check_coverage(problem, design)
    assert all(v.covered for v in verdicts)
    rep = verify_design(problem, design, verdicts=verdicts)
    assert rep.worst_rel_error <= 1e-8


# ----- SPEC §6 --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "group, rep, heads, head_dim, optimum, constrained",
    [
        ("C4", "E1", 1, 2, 8, True),  # example 1: [(C4, E1)]
        ("C4", "E1", 2, 1, 8, True),  # example 2: [(C2, B)], 2 heads of dimension 1
        ("C2", "A + B", 1, 1, 8, False),  # example 3: [(C2, A+B)]; one head of dimension 1 cannot cover
        ("C3", "E1", 4, 1, 8, True),  # example 4: the regular orbit [(C1, A)] covers the whole problem
    ],
)
def test_spec_examples(group, rep, heads, head_dim, optimum, constrained):
    p = Problem.create(group, rep, heads, head_dim)
    r = optimize(p, 30)
    assert r.status == "optimal"
    assert r.design_params == optimum == r.lower_bound
    assert r.gap == 0
    assert r.constrained is not None and r.constrained.possible is constrained
    assert_verified(p, r.design)
    j = r.to_json()
    assert j["design_params"] == optimum and j["vanilla_params"] == p.vanilla_params
    assert j["constrained_vanilla_possible"] is constrained


def test_example_2_design_is_two_heads_of_dimension_one():
    p = Problem.create("C4", "E1", 2, 1)
    r = optimize(p, 30)
    assert [(o.sub.name, str(o.W)) for o in r.design.orbits] == [("C2", "B")]
    assert r.heads_total == 2 and r.head_dims == [1, 1][:1]


def test_example_4_covered_by_the_regular_orbit():
    p = Problem.create("C3", "E1", 4, 1)
    r = optimize(p, 30)
    assert [(o.sub.name, str(o.W)) for o in r.design.orbits] == [("C1", "A")]
    assert r.heads_total == 3


def test_ties_prefer_fewer_heads():
    # [(C2, A+B)] (1 head) and [(C1, A)] (2 heads) both cost 8
    p = Problem.create("C2", "A + B", 1, 1)
    r = optimize(p, 30)
    assert r.design_params == 8 and r.heads_total == 1 and r.ties_proven
    assert covers(p, Design.create(p, [("C1", "A")]).orbits)


def test_constrained_design_has_h_heads_of_dimension_d():
    p = Problem.create("C3", "E1", 4, 1)
    r = optimize(p, 30)
    c = r.constrained
    assert c.possible and c.design is not None
    assert c.design.heads == 4 and all(o.head_dim == 1 for o in c.design.orbits)
    assert covers(p, c.design.orbits)


# ----- optimality against the exhaustive search --------------------------------------------
SMALL = [
    ("C2", "A + B", 2, 1),
    ("C2", "A + 2xB", 1, 2),
    ("C3", "A + E1", 1, 1),
    ("C3", "A + E1", 2, 1),
    ("C3", "E1", 3, 1),
    ("C4", "E1", 3, 1),
    ("C4", "A + E1", 1, 2),
    ("C4", "regular", 1, 1),
    ("D3", "E1", 2, 1),
    ("D3", "E1", 3, 2),
    ("D3", "A1 + E1", 1, 1),
    ("D3", "A2 + E1", 2, 1),
    ("C2xC2", "regular", 1, 1),
    ("C2xC2", "A.B + B.A", 2, 1),
    ("C2xC2", "A.A + B.B", 2, 1),
    ("C2xC2", "A.A + B.B", 3, 1),
    ("C3", "regular", 2, 1),
    ("C3", "A + E1", 2, 2),
    ("C4", "regular", 2, 1),
    ("C4", "A + E1", 2, 1),
    ("D3", "regular", 1, 1),
    ("D3", "E1", 4, 1),
    ("D3", "A1 + E1", 2, 2),
]


@pytest.mark.parametrize("group, rep, heads, head_dim", SMALL)
def test_optimum_equals_exhaustive_search(group, rep, heads, head_dim):
    p = Problem.create(group, rep, heads, head_dim)
    r = optimize(p, 30)
    assert r.status == "optimal" and r.lower_bound == r.design_params
    assert r.design_params == exhaustive_optimum(p)
    assert r.design.params == r.design_params
    assert_verified(p, r.design)


@pytest.mark.parametrize(
    "group, rep, heads, head_dim",
    [("C2", "A + B", 1, 1), ("C2", "A + B", 2, 1), ("C3", "A + E1", 2, 1), ("C4", "E1", 3, 1), ("D3", "A1 + E1", 1, 1),
     ("D3", "E1", 3, 1), ("C2xC2", "A.B + B.A", 2, 1), ("C4", "A + E1", 1, 2)],
)
def test_constrained_vanilla_equals_exhaustive_search(group, rep, heads, head_dim):
    # the exhaustive search allows any W of dimension d, also outside V|K'
    p = Problem.create(group, rep, heads, head_dim)
    r = optimize(p, 30)
    assert r.constrained is not None and r.constrained.possible is exhaustive_constrained(p)
    if r.constrained.design is not None:
        assert r.constrained.design.heads == heads
        assert all(o.head_dim == head_dim for o in r.constrained.design.orbits)


# ----- the separation oracle agrees with the coverage checker -------------------------------
@pytest.mark.parametrize("group, rep, heads, head_dim", [("C4", "regular", 2, 1), ("D3", "A1 + E1", 3, 1), ("C2xC2", "regular", 2, 1)])
def test_separation_agrees_with_checker(group, rep, heads, head_dim):
    p = Problem.create(group, rep, heads, head_dim)
    space = ScenarioSpace(p)
    types = all_types(p)
    table = TypeTable(p, space, hosting(p), [HeadType(o.sub.id, o.W.mults, c, o.heads, o.head_dim) for c, o in types])
    rng = np.random.default_rng(1)
    verdicts = set()
    for _ in range(25):
        k = int(rng.integers(1, 4))
        pick = sorted(int(i) for i in rng.integers(0, len(types), size=k))
        counts: dict[int, int] = {}
        for i in pick:
            counts[i] = counts.get(i, 0) + 1
        mine = not table.checker(counts).violated(10)
        design = Design(p, tuple(types[i][1] for i in pick))
        assert mine == all(v.covered for v in check_coverage(p, design)), [(types[i][1].sub.name, str(types[i][1].W)) for i in pick]
        verdicts.add(mine)
    assert verdicts == {True, False}  # both answers were compared


# ----- time limit, bad input -----------------------------------------------------------------
def test_time_limit_gives_a_consistent_answer():
    p = Problem.create("Q8", "regular", 3, 1)
    r = optimize(p, 0.05, constrained=False)
    assert r.status in ("optimal", "feasible")
    assert 0 <= r.lower_bound <= r.design_params <= p.vanilla_params
    if r.status == "optimal":
        assert r.lower_bound == r.design_params and r.gap == 0
    else:
        assert r.gap == pytest.approx((r.design_params - r.lower_bound) / r.design_params)
    assert all(v.covered for v in check_coverage(p, r.design))


@pytest.mark.parametrize("bad", [0, -1, "abc", float("nan"), 1e9])
def test_bad_time_limit(bad):
    p = Problem.create("C4", "E1", 1, 2)
    with pytest.raises(InputError) as e:
        optimize(p, bad)
    assert e.value.field == "time_limit"


def test_bad_problem_input():
    with pytest.raises(InputError):
        Problem.create("C4", "X1", 1, 1)
    with pytest.raises(InputError) as e:
        optimize(Problem.create("C4", "E1", 1, 1), 10, backend="nope")
    assert e.value.field == "solver"


# ----- the CLI and the API route ------------------------------------------------------------
def test_cli_json(capsys):
    from eqattn.cli.main import main

    assert main(["optimize", "--group", "C4", "--rep", "E1", "--heads", "2", "--head-dim", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("group", "rep", "heads", "head_dim", "status", "design_params", "lower_bound", "vanilla_params",
                "gap", "time_s", "heads_total", "orbits", "constrained_vanilla_possible", "constrained_vanilla_design"):
        assert key in data
    assert data["status"] == "optimal" and data["design_params"] == 8 and data["vanilla_params"] == 16
    assert data["orbits"] == [{"subgroup": 1, "name": "C2", "rep": "B", "heads": 2, "head_dim": 1, "params": 8}]
    # the orbits feed `eqattn check` unchanged
    p = Problem.create(data["group"], data["rep"], data["heads"], data["head_dim"])
    assert covers(p, Design.create(p, [(o["subgroup"], o["rep"]) for o in data["orbits"]]).orbits)


def test_cli_text_and_bad_input(capsys):
    from eqattn.cli.main import main

    assert main(["optimize", "-G", "C2", "-V", "A + B", "-H", "1", "-d", "1"]) == 0
    out = capsys.readouterr().out
    assert "proven optimal" in out and "impossible" in out
    assert main(["optimize", "-G", "C2", "-V", "A + B", "-H", "1", "-d", "1", "--time-limit", "-3"]) == 2
    assert "error: time_limit" in capsys.readouterr().err


def test_api_route():
    from fastapi.testclient import TestClient

    from eqattn.api.app import create_app

    client = TestClient(create_app())
    r = client.post("/api/optimize", json={"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "time_limit": 10})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["status"] == "optimal" and data["design_params"] == 8 and data["lower_bound"] == 8
    assert data["orbits"][0]["rep"] == "B"
    bad = client.post("/api/optimize", json={"group": "C4", "rep": "X", "heads": 2, "head_dim": 1})
    assert bad.status_code == 422
    assert bad.json()["field"] == "rep"  # the API error model {field, message} (issue 11)
    # the route answers what the CLI prints (same problem, same JSON)
    assert data["orbits"] == [{"subgroup": 1, "name": "C2", "rep": "B", "heads": 2, "head_dim": 1, "params": 8}]


def test_numeric_recheck_is_skipped_when_its_memory_estimate_is_over_budget(monkeypatch):
    """The weight re-check would be refused (LimitError) above the budget: the optimiser skips
    it and says so (numeric_worst_rel_error None) instead of failing (issue 11)."""
    from eqattn.optimize import finish as optimizer

    p = Problem.create("C4", "E1", 2, 1)
    assert optimize(p, 10).to_json()["verified"]["numeric_worst_rel_error"] is not None
    monkeypatch.setattr(optimizer, "MAX_VERIFY_BYTES", 1)
    data = optimize(p, 10).to_json()
    assert data["verified"]["numeric_worst_rel_error"] is None and data["design_params"] == 8
