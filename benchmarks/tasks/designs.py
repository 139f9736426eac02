"""The eqattn designs of the task benchmarks, computed once and cached in designs.json.

    PYTHONPATH=. .venv/bin/python benchmarks/tasks/designs.py            # the problems of every task
    PYTHONPATH=. .venv/bin/python benchmarks/tasks/designs.py --force --only nbody-Oh --time-limit 240

Per problem ``(G, m x regular, H, d)`` three designs (SPEC §3, §5):

* ``fewest`` — the covering design with the fewest parameters (``eqattn.optimize.optimize``,
  unconstrained; its status says whether optimality is proven within the time limit);
* ``partial`` — the best partial-coverage design whose attention cost ``sum heads x head dim``
  is at most the vanilla layer's ``H d`` (``eqattn.optimize.partial_coverage(problem,
  max_cost=H d)``: the most G-clusterings covered, then the fewest parameters); when the
  installed eqattn has no partial coverage the entry says so (``unavailable``);
* ``regular`` — ``H`` copies of the regular orbit ``(C1, d x trivial)``: the vanilla count,
  covering every clustering.

The cache stores each design's orbits (subgroup id, rep text), its parameter count, heads,
attention cost and the optimiser's status, so a task run (and the ``--quick`` tests) builds
layers without re-running the optimiser; tests/tasks/test_designs.py re-derives a cached
entry with the optimiser and checks the counts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import eqattn  # noqa: E402

CACHE = Path(__file__).with_name("designs.json")
KINDS = ("fewest", "partial", "regular")
TIME_LIMIT = 60.0

#: every problem the tasks use: (group spec, m, heads, head_dim)
C4 = "mat:[[0,-1],[1,0]]"
D4 = "mat:[[0,-1],[1,0]];[[1,0],[0,-1]]"
PROBLEMS = {
    "nbody-Oh": ("Oh", 1, 2, 24),
    "nbody-D4h": ("D4h", 3, 2, 24),
    "digits-C4": (C4, 8, 2, 16),
    "digits-D4": (D4, 4, 2, 16),
    "pointcloud-O": ("O", 2, 4, 12),
}


def problem(spec: str, m: int, heads: int, head_dim: int) -> eqattn.Problem:
    return eqattn.Problem.create(spec, f"{m}xregular", heads, head_dim)


def key(spec: str, m: int, heads: int, head_dim: int) -> str:
    return f"{spec}|{m}xregular|H={heads}|d={head_dim}"


def summary(design, status: str, seconds: float, **extra) -> dict:  # noqa: ANN001
    """What the cache keeps of a design (orbits expanded, one entry per orbit)."""
    js = design.to_json()
    orbits = [{"subgroup": o["subgroup"], "name": o["name"], "rep": o["rep"], "heads": o["heads"], "head_dim": o["head_dim"]}
              for o in js["orbits"]]
    return {"orbits": orbits, "params": int(design.params), "heads": sum(o["heads"] for o in orbits),
            "attention_cost": sum(o["heads"] * o["head_dim"] for o in orbits), "status": status,
            "seconds": round(seconds, 1), **extra}


def fewest(prob: eqattn.Problem, time_limit: float) -> dict:
    from eqattn.optimize import optimize

    t0 = time.perf_counter()
    res = optimize(prob, time_limit, constrained=False, threads=1)
    return summary(res.design, res.status, time.perf_counter() - t0, lower_bound=None if res.lower_bound is None else int(res.lower_bound))


def partial(prob: eqattn.Problem, time_limit: float) -> dict:
    """The best partial-coverage design within the vanilla attention cost
    (``eqattn.optimize.partial_coverage(problem, max_cost=H d)``), or why there is none."""
    try:
        from eqattn.optimize import partial_coverage
    except ImportError as exc:
        return {"unavailable": f"this eqattn has no partial coverage ({exc}); it is eqattn.optimize.partial_coverage "
                               "of the budget work (CONTRACT-25)"}
    from eqattn.errors import LimitError

    budget = prob.heads * prob.head_dim
    t0 = time.perf_counter()
    try:
        res = partial_coverage(prob, time_limit, max_cost=budget)
    except LimitError as exc:
        return {"unavailable": f"partial_coverage refuses this size: {exc}"}
    if res.design is None or not res.design.orbits:
        return {"unavailable": f"partial_coverage found no design covering a clustering within attention cost {budget} "
                               f"in {time_limit:g} s ({res.status}, stopped by {res.stopped_by}; upper bound "
                               f"{res.upper_bound} of {res.of} clusterings)"}
    cover = {"covered": res.covered, "of": res.of, "status": res.status, "upper_bound": res.upper_bound,
             "uncovered": list(res.uncovered), "params_proven": res.params_proven, "stopped_by": res.stopped_by}
    return summary(res.design, f"covers {res.covered}/{res.of} ({res.status})", time.perf_counter() - t0, partial=cover)


def regular(prob: eqattn.Problem) -> dict:
    return summary(eqattn.Design.regular(prob), "covers (regular)", 0.0)


def compute(spec: str, m: int, heads: int, head_dim: int, time_limit: float = TIME_LIMIT) -> dict:
    prob = problem(spec, m, heads, head_dim)
    return {"vanilla_params": int(prob.vanilla_params), "vanilla_attention_cost": heads * head_dim,
            "fewest": fewest(prob, time_limit), "partial": partial(prob, time_limit), "regular": regular(prob)}


def load_cache() -> dict:
    return json.loads(CACHE.read_text(encoding="utf-8")) if CACHE.exists() else {}


def entry(spec: str, m: int, heads: int, head_dim: int) -> dict:
    """The cached designs of a problem; computed (and cached) when missing."""
    cache = load_cache()
    k = key(spec, m, heads, head_dim)
    if k not in cache:
        cache[k] = compute(spec, m, heads, head_dim)
        CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return cache[k]


def design_of(prob: eqattn.Problem, item: dict) -> eqattn.Design:
    """The ``eqattn.Design`` of a cached entry (``item`` has ``orbits``)."""
    return eqattn.Design.create(prob, [(o["subgroup"], o["rep"]) for o in item["orbits"]])


def add_partial(time_limit: float = TIME_LIMIT) -> None:
    """Recompute only the ``partial`` entries (e.g. with an eqattn that has partial coverage)."""
    cache = load_cache()
    for name, (spec, m, H, d) in PROBLEMS.items():
        k = key(spec, m, H, d)
        cache[k]["partial"] = partial(problem(spec, m, H, d), time_limit)
        print(name, cache[k]["partial"], flush=True)
        CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--force", action="store_true", help="recompute the chosen problems even when cached")
    ap.add_argument("--only", help="comma-separated problem names (default: all of PROBLEMS)")
    ap.add_argument("--time-limit", type=float, default=TIME_LIMIT)
    ap.add_argument("--partial-only", action="store_true", help="recompute only the partial-coverage designs")
    args = ap.parse_args(argv)
    if args.partial_only:
        add_partial(args.time_limit)
        return
    cache = load_cache()
    names = args.only.split(",") if args.only else list(PROBLEMS)
    for name in names:
        spec, m, H, d = PROBLEMS[name]
        k = key(spec, m, H, d)
        if k not in cache or args.force:
            cache[k] = compute(spec, m, H, d, args.time_limit)
            CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        e = cache[k]
        print(name, k, "vanilla", e["vanilla_params"], "|",
              "; ".join(f"{kind}: " + (f"{e[kind]['params']} params, {e[kind]['heads']} heads, cost {e[kind]['attention_cost']}, {e[kind]['status']}"
                                       if "params" in e[kind] else e[kind]["unavailable"][:60]) for kind in KINDS), flush=True)


if __name__ == "__main__":
    main()
