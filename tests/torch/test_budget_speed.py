"""benchmarks/budget_speed.py on tiny problems: the rows it produces (which designs, their
counts, costs and statuses, the layer's weights equal to the design's count), not timings."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import budget_speed as bs  # noqa: E402
from eqattn.attention import Problem, check_coverage  # noqa: E402
from eqattn.errors import InputError  # noqa: E402
from eqattn.optimize import front  # noqa: E402


def covered(problem, design) -> int:  # noqa: ANN001
    return sum(v.covered for v in check_coverage(problem, design))


def test_rows_of_c4_on_e1():
    # C4 on E1, H = 2, d = 1: vanilla 4 H d dim V = 16 parameters, cost H d = 2. The front is
    # one point, 2 heads (C2, B) of cost 2 and 8 parameters (front's doctest): it fits every
    # budget below, so each partial row covers all 3 clusterings.
    p = Problem.create("C4", "E1", 2, 1)
    rows = bs.collect(p, 20)
    assert [r.kind for r in rows] == ["front 1/1", "partial (2, 1)", "partial (4, 1)", "partial (cost <= 2)", "regular"]
    f = front(p, 20)
    assert rows[0].design == f.points[0].design and rows[0].status == "optimal"
    js = [r.to_json(2, p.vanilla_params) for r in rows]
    assert (js[0]["attention_cost"], js[0]["params"], js[0]["cost_ratio"], js[0]["params_ratio"]) == (2, 8, 1.0, 0.5)
    for r, mh in ((rows[1], 2), (rows[2], 4)):
        d = r.design
        assert d.heads <= mh and all(o.head_dim <= 1 for o in d.orbits)
        assert r.status == "covers 3/3 (optimal)" and covered(p, d) == 3
        assert d.params == 8  # the fewest of the covering designs (the front's point)
    assert js[3]["attention_cost"] <= 2 and rows[3].status == "covers 3/3 (optimal)"
    assert js[4]["params"] == p.vanilla_params and js[4]["heads"] == 4 * 2 and js[4]["cost_ratio"] == 4.0


def test_measure_fills_every_designed_row():
    p = Problem.create("C2", "2xA + B", 2, 2)  # dim V 3: H = 2 does not divide it, the baseline is VanillaAttention
    rows = bs.collect(p, 20) + [bs.Row("partial (9, 9)", "refused", None, 0.0, "max_head_dim: too many")]
    base = bs.measure(p, rows, batch=1, tokens=4, reps=1, warmup=0)
    assert base["module"].startswith("VanillaAttention(2, 2, 3)")
    assert base["params"] == p.vanilla_params == 48
    for r in rows:
        if r.design is None:
            assert r.timing == {}
            continue
        assert r.timing["layer_params"] == r.design.params
        assert r.timing["ms_min"] > 0 and r.timing["time_ratio"] > 0
    text = bs.table(p, rows, base).split("\n\n")[0].splitlines()
    assert len(text) == 3 + len(rows)
    assert text[-1].startswith("| partial (9, 9) | - |") and "refused: max_head_dim" in text[-1]
    # (2, 2) holds 2 heads of dim 2; the front's point needs a head of dim 3 (C2, 2xA + B):
    # the best within the budget covers 2 of the 3 clusterings (proven), (4, 2) all of them
    by = {r.kind: r for r in rows}
    assert by["front 1/1"].design.params == 44 and max(o.head_dim for o in by["front 1/1"].design.orbits) == 3
    assert by["partial (2, 2)"].status == "covers 2/3 (optimal)" == f"covers {covered(p, by['partial (2, 2)'].design)}/3 (optimal)"
    assert by["partial (4, 2)"].status == "covers 3/3 (optimal)" and covered(p, by["partial (4, 2)"].design) == 3
    sys.path.insert(0, str(ROOT / "tests" / "optimize"))
    from brute_force import BruteForce, Budget  # the exhaustive reference

    bf = BruteForce(p)
    for kind, budget in (("partial (2, 2)", Budget(2, 2)), ("partial (4, 2)", Budget(4, 2)), ("partial (cost <= 4)", Budget(max_cost=4))):
        ref = bf.partial(budget)
        assert (by[kind].status.split()[1], by[kind].design.params) == (f"{ref.covered}/3", ref.params), kind


def test_main_writes_json(tmp_path):
    out = tmp_path / "speed.json"
    assert bs.main(["--only", "C4:E1:2:1", "--time-limit", "20", "--reps", "1", "--batch", "1", "--tokens", "4",
                    "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    (prob,) = data["problems"]
    assert prob["baseline"]["module"] == "nn.MultiheadAttention(embed_dim=2, num_heads=2, bias=False)"
    assert prob["baseline"]["params"] == prob["vanilla_params"] == 16  # H d = dim V: MHA is the vanilla layer
    kinds = [r["kind"] for r in prob["rows"]]
    assert kinds == ["front 1/1", "partial (2, 1)", "partial (4, 1)", "partial (cost <= 2)", "regular"]
    assert all(r["layer_params"] == r["params"] for r in prob["rows"])
    lines = bs.summary(data["problems"]).splitlines()
    assert len(lines) == 2 + len(kinds) and lines[2].startswith("| C4 E1 H2 d1 | front 1/1 | 2 | 0.50 | optimal |")
    assert bs.label("task:digits-C4") == "digits-C4 (8xregular H2 d16)"
    again = tmp_path / "again.json"  # --reuse: the same designs timed again, without the optimiser
    assert bs.main(["--reuse", str(out), "--reps", "1", "--batch", "1", "--tokens", "4", "--json", str(again)]) == 0
    rows2 = json.loads(again.read_text())["problems"][0]["rows"]
    keep = ("kind", "status", "params", "attention_cost", "orbits", "seconds")
    assert [{k: r.get(k) for k in keep} for r in rows2] == [{k: r.get(k) for k in keep} for r in prob["rows"]]


def test_bad_problem_names_the_field():
    with pytest.raises(InputError, match="--only"):
        bs.parse_problem("C4:E1:2")
    with pytest.raises(InputError, match="--only"):
        bs.parse_problem("task:nope")
