"""Which engine `optimize` should pick on problems of atlas size (optimizer.auto_engine).

    PYTHONPATH=. python3 benchmarks/engines.py                    # the slow atlas rows, auto vs enumerate, 30 s each (about 25 min)
    PYTHONPATH=. python3 benchmarks/engines.py --engines auto,enumerate,symbolic --only S4:regular:8:8,D11:regular:6:1
    PYTHONPATH=. python3 benchmarks/engines.py --csv /tmp/engines.csv

Problems: every row of docs/atlas.csv (the default grid, 30 s each) that took the atlas run
more than `--slower-than` seconds (default 5) or was not proven, plus problems of atlas size
past the grid (2×regular of D4, D6, C2xS3 and S4 regular at H 4–8, d 4–8) that the
enumerating engine refuses or leaves unproven. Each problem is solved once per engine, each
run in its own process and one after another, with the same time limit; "enumerate" is
the baseline (what "auto" ran on every problem of atlas size before it looked at the
scenario space). Every row prints status, parameters, lower bound, the constrained-vanilla
answer and wall time per engine; the summary counts the proven answers per engine and the
median and total wall-time ratio auto / enumerate over the problems both proved.

Run it alone on the machine: the answers are time-limited.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

from child import in_child

ATLAS = Path(__file__).resolve().parents[1] / "docs" / "atlas.csv"
PAST_GRID = [("D4", "2xregular", 4, 4), ("D4", "2xregular", 8, 8), ("D6", "2xregular", 4, 4), ("D6", "2xregular", 4, 8),
             ("C2xS3", "2xregular", 4, 4), ("S4", "regular", 4, 8), ("S4", "regular", 8, 8), ("Q8", "2xregular", 8, 8)]


def atlas_rows(slower_than: float) -> list[tuple]:
    out = []
    with open(ATLAS, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["status"] != "optimal" or float(r["time_s"] or 0) > slower_than:
                out.append((r["group_name"], r["rep_input"], int(r["heads"]), int(r["head_dim"])))
    return out


def _run(spec, tl: float, engine: str) -> tuple:  # noqa: ANN001
    from eqattn.attention import Problem
    from eqattn.optimize import optimize

    t0 = time.perf_counter()
    r = optimize(Problem.create(*spec), tl, engine=engine)
    cv = None if r.constrained is None else r.constrained.possible
    return (r.status, r.design_params, r.lower_bound, cv, time.perf_counter() - t0, "")


def run_one(spec, tl: float, engine: str) -> tuple:  # noqa: ANN001
    return in_child(_run, (spec, tl, engine), 2 * tl + 60, lambda st, msg, s: (st, None, None, None, s, msg))


def _fmt(r: tuple) -> str:
    status, params, lower, cv, secs, err = r
    if err:
        return f"{status} {err}"
    cvs = {None: "-", True: "yes", False: "no"}[cv]
    return f"{status:<8} {params!s:>6} >= {lower!s:<6} cv {cvs:<3} {secs:5.1f}s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=None, help="G:V:H:d[,G:V:H:d...]")
    ap.add_argument("--engines", default="auto,enumerate", help="comma-separated: auto, enumerate, symbolic")
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--slower-than", type=float, default=5.0, help="atlas rows that took longer than this (s) or were not proven")
    ap.add_argument("--csv", default=None)
    a = ap.parse_args()
    engines = a.engines.split(",")
    specs = (atlas_rows(a.slower_than) + PAST_GRID) if not a.only else [
        tuple(int(x) if i >= 2 else x for i, x in enumerate(s.split(":"))) for s in a.only.split(",")]
    rows = []
    for spec in specs:
        runs = {e: run_one(spec, a.time_limit, e) for e in engines}
        rows.append((spec, runs))
        print(f"{spec[0]:<6} {spec[1]:<10} H={spec[2]:<2} d={spec[3]:<2} " + " | ".join(f"{e}: {_fmt(r)}" for e, r in runs.items()), flush=True)
    print(f"\nsummary over {len(rows)} problems, {a.time_limit:g} s each:")
    for e in engines:
        proven = sum(1 for _, runs in rows if runs[e][0] in ("optimal", "infeasible"))
        errors = sum(1 for _, runs in rows if runs[e][0] in ("error", "killed"))
        cv = sum(1 for _, runs in rows if runs[e][3] is not None)
        print(f"  {e:<10} proven {proven}, errors {errors}, constrained-vanilla decided {cv}")
    if "auto" in engines and "enumerate" in engines:
        both = [(runs["auto"][4], runs["enumerate"][4]) for _, runs in rows
                if runs["auto"][0] == runs["enumerate"][0] == "optimal"]
        if both:
            ratios = [x / y for x, y in both]
            print(f"  auto / enumerate wall time where both proved ({len(both)}): median {statistics.median(ratios):.2f}, "
                  f"total {sum(x for x, _ in both) / sum(y for _, y in both):.2f}")
        differ = [spec for spec, runs in rows if runs["auto"][0] == runs["enumerate"][0] == "optimal"
                  and runs["auto"][1] != runs["enumerate"][1]]
        print(f"  different optima where both proved: {len(differ)} {differ if differ else ''}")
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["group", "rep", "heads", "head_dim", "engine", "status", "params", "lower_bound", "constrained_vanilla", "seconds"])
            for spec, runs in rows:
                for e, r in runs.items():
                    w.writerow([*spec, e, *r[:4], round(r[4], 2)])
    # (the baseline refusing a problem is a finding, not a failure of this benchmark)
    return 1 if any(r[0] in ("error", "killed") for _, runs in rows for e, r in runs.items() if e != "enumerate") else 0


if __name__ == "__main__":
    sys.exit(main())
