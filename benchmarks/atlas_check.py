"""Reproduce the reference atlas (tests/data/atlas_reference.csv, the docs/atlas.csv of the old engine) with the current optimiser.

    PYTHONPATH=. python3 benchmarks/atlas_check.py                       # the whole CSV, 30 s per problem
    PYTHONPATH=. python3 benchmarks/atlas_check.py --sample 200          # the stratified sample of the tests
    PYTHONPATH=. python3 benchmarks/atlas_check.py --status feasible --time-limit 120   # the time-limited rows
    PYTHONPATH=. python3 benchmarks/atlas_check.py --groups D4,S4 --work-limit 20000 --out /tmp/check.csv

For every selected row `(G, V, H, d)` of the atlas it runs `optimize(problem, time_limit,
engine=...)` (default the symbolic engine; constrained-vanilla question and the weight
re-check off: the atlas's `P_opt` is the optimum alone, and every design is still re-checked
by the coverage checker) and compares:

* an atlas row `optimal`: the new run must be `optimal` with the same `P_opt` (`match`);
  `slower` when the new run stopped at its limit with a design of the same cost, `MISMATCH`
  when the costs differ and one of the two runs claims a proof that the other contradicts;
* an atlas row `feasible` (stopped by the atlas's time limit): `proven` when the new run
  proves an optimum, which must lie in [atlas lower bound, atlas P_opt] (else `MISMATCH`);
  `open` otherwise (the new bound and design are printed);
* an atlas row `refused`: whatever the new run gives (`proven`, `open`, `refused`).

It exits with status 1 when any row is a `MISMATCH` or an error. The selection `--sample N`
is the one `tests/optimize/test_atlas_sample.py` uses (`sample_rows`): atlas rows proven
optimal in at most 0.3 s, stratified by group, then spread over (V, H, d).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import multiprocessing as mp
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ATLAS = ROOT / "tests" / "data" / "atlas_reference.csv"  # the atlas as published before eqattn atlas (benchmarks/atlas.py, old engine)
SAMPLE_MAX_TIME_S = 0.3  # atlas time of the rows the sample draws from


def load_rows(path: Path = ATLAS) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def sample_rows(rows: list[dict], n: int) -> list[dict]:
    """A deterministic stratified sample of n atlas rows proven optimal in <= 0.3 s: the rows
    of each group in turn (round robin over the groups), within a group evenly spread over
    its rows sorted by (V, H, d)."""
    fast = [r for r in rows if r["status"] == "optimal" and float(r["time_s"]) <= SAMPLE_MAX_TIME_S]
    by_group: dict[str, list[dict]] = defaultdict(list)
    for r in fast:
        by_group[r["group"]].append(r)
    for g in by_group:
        by_group[g].sort(key=lambda r: (r["rep"], int(r["H"]), int(r["d"])))
    groups = sorted(by_group)
    quota = {g: 0 for g in groups}
    left = min(n, len(fast))
    while left:
        for g in groups:
            if left and quota[g] < len(by_group[g]):
                quota[g] += 1
                left -= 1
    out = []
    for g in groups:
        rs, q = by_group[g], quota[g]
        if q:
            out.extend(rs[(i * len(rs)) // q] for i in range(q))
    return out


def run_one(args: tuple[dict, float, int | None, str]) -> dict:
    row, time_limit, work_limit, engine = args
    from eqattn.attention import Problem
    from eqattn.errors import InputError, LimitError
    from eqattn.optimize import optimize

    t0 = time.perf_counter()
    out = {"group": row["group"], "V": row["V"], "H": row["H"], "d": row["d"], "atlas_status": row["status"],
           "atlas_P": row["P_opt"], "atlas_bound": row["lower_bound"]}
    try:
        problem = Problem.create(row["group"], row["V"], int(row["H"]), int(row["d"]))
        res = optimize(problem, time_limit, constrained=False, threads=1, work_limit=work_limit, engine=engine, numeric_check=False)
        out.update(status=res.status, P=res.design_params, bound=res.lower_bound, stopped_by=res.stopped_by or "")
    except LimitError as e:
        out.update(status="refused", P="", bound="", stopped_by="", detail=f"{e.field}: {e.message}")
    except InputError as e:
        out.update(status="error", P="", bound="", stopped_by="", detail=f"{e.field}: {e.message}")
    except Exception as e:  # noqa: BLE001 - recorded
        out.update(status="error", P="", bound="", stopped_by="", detail=f"{type(e).__name__}: {e}")
    out["time_s"] = round(time.perf_counter() - t0, 2)
    out["verdict"] = verdict(out)
    return out


def verdict(r: dict) -> str:
    """match / slower / proven / open / refused / MISMATCH / error (see the docstring)."""
    st = r["status"]
    if st == "error":
        return "error"
    if st == "refused":
        return "MISMATCH" if r["atlas_status"] == "optimal" else "refused"
    P, lb = int(r["P"]), int(r["bound"])
    if r["atlas_status"] == "optimal":
        aP = int(r["atlas_P"])
        if st == "optimal":
            return "match" if P == aP else "MISMATCH"
        return "slower" if P >= aP >= lb else "MISMATCH"
    if r["atlas_status"] == "feasible":
        aP, alb = int(r["atlas_P"]), int(r["atlas_bound"])
        if st == "optimal":
            return "proven" if alb <= P <= aP else "MISMATCH"
        return "open" if lb <= aP else "MISMATCH"
    return "proven" if st == "optimal" else "open"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--atlas", type=Path, default=ATLAS)
    ap.add_argument("--sample", type=int, default=0, help="the stratified sample of N fast optimal rows (0: every row)")
    ap.add_argument("--status", default="", help="only atlas rows with these statuses (comma separated)")
    ap.add_argument("--groups", default="", help="only these groups (comma separated)")
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--work-limit", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--engine", default="symbolic", help="optimiser engine: symbolic (the new one, default), enumerate, auto")
    ap.add_argument("--out", type=Path, default=None, help="write the per-row results as CSV")
    args = ap.parse_args(argv)
    rows = load_rows(args.atlas)
    if args.sample:
        rows = sample_rows(rows, args.sample)
    if args.status:
        rows = [r for r in rows if r["status"] in args.status.split(",")]
    if args.groups:
        rows = [r for r in rows if r["group"] in args.groups.split(",")]
    t0 = time.perf_counter()
    tasks = [(r, args.time_limit, args.work_limit, args.engine) for r in rows]
    results: list[dict] = []
    counts: dict[str, int] = defaultdict(int)
    with mp.Pool(args.jobs) as pool:
        for i, r in enumerate(pool.imap(run_one, tasks)):
            results.append(r)
            counts[r["verdict"]] += 1
            if r["verdict"] not in ("match",):
                print(f"[{i + 1}/{len(tasks)}] {r['group']} {r['V']} H={r['H']} d={r['d']}: {r['verdict']} "
                      f"(atlas {r['atlas_status']} {r['atlas_P']} >= {r['atlas_bound']}; now {r['status']} "
                      f"{r.get('P', '')} >= {r.get('bound', '')}, {r['time_s']} s) {r.get('detail', '')}", flush=True)
    wall = time.perf_counter() - t0
    times = [r["time_s"] for r in results]
    print(f"rows {len(results)}; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if times:
        print(f"wall {wall:.1f} s; per row median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    if args.out:
        keys = ["group", "V", "H", "d", "atlas_status", "atlas_P", "atlas_bound", "status", "P", "bound", "stopped_by", "time_s", "verdict", "detail"]
        with open(args.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
            w.writeheader()
            w.writerows(results)
    return 1 if counts["MISMATCH"] or counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
