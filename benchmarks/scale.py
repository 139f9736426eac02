"""The optimiser at real transformer sizes (issue 9): dim V 64-256, H 4-16, d 8-128.

    PYTHONPATH=. python3 benchmarks/scale.py --quick                 # 18 problems: dim V 64, H in {4, 8}, d = dim V / H
    PYTHONPATH=. python3 benchmarks/scale.py --groups C4,D4 --dims 64,128
    PYTHONPATH=. python3 benchmarks/scale.py                         # the whole grid (long: run it niced in the background)
    PYTHONPATH=. python3 benchmarks/scale.py --quick --time-limit 30 --csv /tmp/scale.csv
    git worktree add /tmp/old <commit>; PYTHONPATH=. python3 benchmarks/scale.py --quick --baseline /tmp/old --atlas-ratio 0

The grid:

* G in {C2, C4, C8, D4, D8, Q8, C2xC2, A4, S4} with V = m x regular, dim V = m |G| in
  {64, 128, 256} (A4 and S4, whose orders do not divide these, take the largest m with
  m |G| <= dim V: 60, 120, 252 and 48, 120, 240);
* Oh and D4h with V = k x vector + k x trivial (dim V = 4k in {64, 128, 256});
* steerable mixes for D4: `16xA1 + 16xE1 + 8xB1` (dim 56) and `8xA1 + 8xA2 + 8xB1 + 8xB2 + 16xE1` (dim 64);
* H in {4, 8, 16}; d = dim V / H and 2 dim V / H.

Each problem runs `optimize(problem, time_limit, constrained=False)` in its own process
(address space capped by --memory-gb, killed at 2 x time limit + 30 s) and prints the wall
time of the whole call, the status (optimal / feasible / refused with the limit's reason /
killed / error), P_opt / P_vanilla, the gap, what stopped the search and the process's peak
memory. The summary gives the median and worst time, the number proven optimal, the
largest gap and the largest peak memory.

`--baseline DIR` runs every problem with the eqattn of another checkout too (its own
process, right after this tree's), and prints per problem whether the status and P_opt
agree, and the time ratio this tree / baseline (median and total): a regression check in
one run.

`--atlas-ratio N` (default 40; 0 to skip) first runs the stratified sample of N small atlas
problems (benchmarks/atlas_check.py `sample_rows`) with both engines in this process, the new
(`engine="symbolic"`) and the old (`engine="enumerate"`), and prints the time ratio new / old
(median and total) and whether every cost agrees.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import multiprocessing as mp
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

REGULAR_GROUPS = ("C2", "C4", "C8", "D4", "D8", "Q8", "C2xC2", "A4", "S4")
VECTOR_GROUPS = ("Oh", "D4h")
ORDERS = {"C2": 2, "C4": 4, "C8": 8, "D4": 8, "D8": 16, "Q8": 8, "C2xC2": 4, "A4": 12, "S4": 24}
MIXES = (("D4", "16xA1 + 16xE1 + 8xB1", 56), ("D4", "8xA1 + 8xA2 + 8xB1 + 8xB2 + 16xE1", 64))
DIMS = (64, 128, 256)
HEADS = (4, 8, 16)


def grid(groups: list[str], dims: list[int], heads: list[int], wide: bool) -> list[tuple[str, str, int, int]]:
    """(G, V, H, d) of the grid, in a fixed order (smallest dim V first)."""
    out = []
    for n in dims:
        reps = []
        for g in REGULAR_GROUPS:
            if g in groups:
                m = n // ORDERS[g]
                reps.append((g, f"{m}xregular", m * ORDERS[g]))
        for g in VECTOR_GROUPS:
            if g in groups:
                k = n // 4
                reps.append((g, f"{k}xvector + {k}xtrivial", 4 * k))
        if n == min(dims):
            reps.extend(mx for mx in MIXES if mx[0] in groups and "mixes" in groups)
        for g, v, dim in reps:
            for H in heads:
                for d in ((dim // H, 2 * dim // H) if wide else (dim // H,)):
                    if d >= 1:
                        out.append((g, v, H, d))
    return out


def _child(args: tuple, q) -> None:  # noqa: ANN001
    g, v, H, d, time_limit, work_limit, mem_gb, root = args
    if root is not None:  # the baseline's eqattn (nothing of eqattn is imported before the fork)
        sys.path[:] = [root] + [x for x in sys.path if Path(x or ".").resolve() != ROOT]
    if mem_gb:
        lim = int(mem_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    from eqattn.attention import Problem
    from eqattn.errors import InputError, LimitError
    from eqattn.optimize import optimize

    t0 = time.perf_counter()
    row: dict = {"group": g, "V": v, "H": H, "d": d}
    try:
        p = Problem.create(g, v, H, d)
        row.update(dim_v=p.dim_v, P_vanilla=p.vanilla_params)
        r = optimize(p, time_limit, constrained=False, threads=1, work_limit=work_limit)
        row.update(status=r.status, P=r.design_params, bound=r.lower_bound, gap=r.gap, stopped_by=r.stopped_by or "",
                   ratio=None if r.design_params is None else r.design_params / p.vanilla_params, heads_total=r.heads_total,
                   attention_cost=r.attention_cost)
    except LimitError as e:
        row.update(status="refused", detail=f"{e.field}: {e.message}")
    except InputError as e:
        row.update(status="error", detail=f"{e.field}: {e.message}")
    except MemoryError:
        row.update(status="memory", detail=f"over {mem_gb} GB")
    except Exception as e:  # noqa: BLE001 - recorded
        row.update(status="error", detail=f"{type(e).__name__}: {e}"[:300])
    row["time_s"] = round(time.perf_counter() - t0, 2)
    row["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    q.put(row)


def run_one(args: tuple) -> dict:
    g, v, H, d, time_limit = args[:5]
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    proc = ctx.Process(target=_child, args=(args, q))
    t0 = time.perf_counter()
    proc.start()
    hard = 2 * time_limit + 30
    row = None
    try:
        row = q.get(timeout=hard)
    except Exception:  # noqa: BLE001 - queue.Empty: the child ran past the hard limit
        pass
    proc.join(timeout=5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    if row is None:
        row = {"group": g, "V": v, "H": H, "d": d, "status": "killed" if proc.exitcode in (None, -9) else "crashed",
               "detail": f"no answer after {time.perf_counter() - t0:.0f} s (exit code {proc.exitcode})",
               "time_s": round(time.perf_counter() - t0, 2)}
    return row


def atlas_ratio(n: int, time_limit: float) -> None:
    """Time of the new engine / the old one on n small atlas problems, same process, same run."""
    import importlib.util

    from eqattn.attention import Problem
    from eqattn.optimize import optimize

    spec = importlib.util.spec_from_file_location("atlas_check", ROOT / "benchmarks" / "atlas_check.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = mod.sample_rows(mod.load_rows(), n)
    ratios, t_new, t_old, agree = [], 0.0, 0.0, 0
    for r in rows:
        p = Problem.create(r["group"], r["V"], int(r["H"]), int(r["d"]))
        times, costs = {}, {}
        for engine in ("enumerate", "symbolic"):
            t0 = time.perf_counter()
            res = optimize(p, time_limit, constrained=False, numeric_check=False, threads=1, engine=engine)
            times[engine] = time.perf_counter() - t0
            costs[engine] = (res.status, res.design_params)
        agree += costs["enumerate"] == costs["symbolic"] == ("optimal", int(r["P_opt"]))
        ratios.append(times["symbolic"] / times["enumerate"])
        t_new += times["symbolic"]
        t_old += times["enumerate"]
    print(f"atlas sample ({len(rows)} problems), new (symbolic) / old (enumerate) engine time: median ratio "
          f"{statistics.median(ratios):.2f}, total {t_new:.1f} s / {t_old:.1f} s = {t_new / t_old:.2f}; "
          f"costs equal to the atlas optimum with both engines: {agree}/{len(rows)}", flush=True)


def fmt(r: dict) -> str:
    ratio = "" if r.get("ratio") is None else f"{r['ratio']:.4f}"
    gap = "" if r.get("gap") is None else f"{100 * r['gap']:.2f}%"
    return (f"{r['group']:<6} {r['V']:<34} H={r['H']:<3} d={r['d']:<4} {r['time_s']:>7.1f}s  {r['status']:<10} "
            f"P/Pvan={ratio:<7} gap={gap:<8} {r.get('stopped_by', '') or '':<12} {r.get('peak_mb', '')}MB  {r.get('detail', '')}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="dim V 64, H in {4, 8}, d = dim V / H (18 problems)")
    ap.add_argument("--groups", default=",".join(REGULAR_GROUPS + VECTOR_GROUPS) + ",mixes",
                    help="comma separated; 'mixes' adds the D4 steerable mixes")
    ap.add_argument("--dims", default="64,128,256")
    ap.add_argument("--heads", default="4,8,16")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--work-limit", type=int, default=None)
    ap.add_argument("--memory-gb", type=float, default=4.0)
    ap.add_argument("--csv", type=Path, default=None)
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout whose eqattn runs every problem too")
    ap.add_argument("--atlas-ratio", type=int, default=40, help="small atlas problems timed with both engines (0: skip)")
    args = ap.parse_args(argv)
    groups = args.groups.split(",")
    dims = [int(x) for x in args.dims.split(",")]
    heads = [int(x) for x in args.heads.split(",")]
    wide = True
    if args.quick:
        dims, heads, wide = [64], [4, 8], False
        groups = [g for g in groups if g in REGULAR_GROUPS]
    if args.atlas_ratio:
        atlas_ratio(args.atlas_ratio, args.time_limit)
    problems = grid(groups, dims, heads, wide)
    print(f"{len(problems)} problems, time limit {args.time_limit:g} s each", flush=True)
    rows = []
    pairs = []
    for g, v, H, d in problems:
        r = run_one((g, v, H, d, args.time_limit, args.work_limit, args.memory_gb, None))
        rows.append(r)
        print(fmt(r), flush=True)
        if args.baseline is not None:
            b = run_one((g, v, H, d, args.time_limit, args.work_limit, args.memory_gb, str(args.baseline.resolve())))
            same = (r.get("status"), r.get("P")) == (b.get("status"), b.get("P"))
            pairs.append((r, b, same))
            print(f"  baseline {b['time_s']:>7.1f}s  {b.get('status', ''):<10} P={b.get('P')}  {'same' if same else 'DIFFERENT'}  "
                  f"ratio {r['time_s'] / max(b['time_s'], 1e-9):.2f}", flush=True)
    if pairs:
        ratios = [r["time_s"] / max(b["time_s"], 1e-9) for r, b, _ in pairs]
        both = [(r, b) for r, b, _ in pairs if r.get("status") == b.get("status") == "optimal"]
        print(f"\nbaseline {args.baseline}: same status and P_opt {sum(s for _, _, s in pairs)}/{len(pairs)}; proven optimal by both "
              f"{len(both)} (equal P_opt: {sum(r['P'] == b['P'] for r, b in both)}); time ratio this tree / baseline: median "
              f"{statistics.median(ratios):.2f}, total {sum(r['time_s'] for r, _, _ in pairs):.1f} s / "
              f"{sum(b['time_s'] for _, b, _ in pairs):.1f} s", flush=True)
    times = [r["time_s"] for r in rows]
    opt = [r for r in rows if r["status"] == "optimal"]
    gaps = [r["gap"] for r in rows if r.get("gap") is not None]
    mems = [r["peak_mb"] for r in rows if r.get("peak_mb")]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"\nproblems {len(rows)}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if times:
        print(f"time median {statistics.median(times):.1f} s, worst {max(times):.1f} s; proven optimal {len(opt)}/{len(rows)}; "
              f"largest gap (answered) {100 * max(gaps, default=0):.2f}%; peak memory max {max(mems, default=0):.0f} MB")
        over = [r for r in rows if r["time_s"] > args.time_limit]
        print(f"over the time limit (whole call): {len(over)}")
    if args.csv:
        keys = ["group", "V", "H", "d", "dim_v", "P_vanilla", "status", "P", "bound", "gap", "ratio", "stopped_by", "heads_total",
                "attention_cost", "time_s", "peak_mb", "detail"]
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
