"""The atlas of optimal designs: `eqattn optimize` over a fixed grid of problems.

    PYTHONPATH=. python3 benchmarks/atlas.py                 # writes docs/atlas.md and docs/atlas.csv
    PYTHONPATH=. python3 benchmarks/atlas.py --jobs 2 --time-limit 30 --solver highs
    PYTHONPATH=. python3 benchmarks/atlas.py --only D4 --out /tmp/atlas   # a part of the grid

The grid (fixed; see GRID below):

* groups: the catalog's listed groups of order <= 24 among cyclic C2..C12, dihedral D3..D12,
  Q8, A4, S4 and C2xC2;
* V: the regular representation; each irrep of dimension >= 2; trivial + a faithful irrep
  (A + E1 for C_n, n >= 3 and A1 + E1 for D_n; A + B for C2; A + H for Q8, A + T for A4,
  [4] + [3,1] for S4; C2xC2 has no faithful irrep); and the vector representation of the
  point groups that realise these groups in 3D when it is not already on the list
  (pg:C2, pg:D2 = C2xC2, pg:D3..pg:D12; for C_n, n >= 3, it is A + E1, for T = A4 it is T and
  for O = S4 it is an irrep of dimension 3);
* H in {1, 2, 3, 4, 6} and d in {1, 2, 4}.

Each problem runs `optimize(problem, time_limit)` in its own process (a pool of --jobs
processes, one solver thread each) and records P_vanilla, P_opt, the ratio, the heads and
head dimensions of the optimum, the constrained-vanilla answer, the status (optimal,
feasible with its gap, or refused with the limit that refused it) and the time.
"""

from __future__ import annotations

import os

# one thread per worker process: the pool runs one process per core
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import multiprocessing as mp
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HEADS = (1, 2, 3, 4, 6)
HEAD_DIMS = (1, 2, 4)
FIELDS = [
    "group", "rep", "V", "dim_v", "H", "d", "P_vanilla", "P_opt", "ratio", "lower_bound", "gap", "status",
    "heads_total", "head_dims", "design", "constrained_vanilla", "constrained_params", "time_s", "scenarios", "numeric_error", "detail",
]


def grid_reps() -> list[tuple[str, str]]:
    """(group, V) pairs of the grid, in a fixed order."""
    from eqattn.groups.catalog import get_group
    from eqattn.reps import irreps_of

    out: list[tuple[str, str]] = []

    def irreps(name: str) -> list[tuple[str, int]]:
        G = get_group(name)
        irr = irreps_of(G.subgroup_classes[-1])
        return [(lab, int(dm)) for lab, dm in zip(irr.labels, irr.dims)]

    for n in range(2, 13):
        g = f"C{n}"
        out.append((g, "regular"))
        out += [(g, lab) for lab, dm in irreps(g) if dm >= 2]
        out.append((g, "A + B" if n == 2 else "A + E1"))
        if n == 2:
            out.append(("pg:C2", "vector"))
    for n in range(3, 13):
        g = f"D{n}"
        out.append((g, "regular"))
        out += [(g, lab) for lab, dm in irreps(g) if dm >= 2]
        out.append((g, "A1 + E1"))
        out.append((f"pg:D{n}", "vector"))
    out += [("Q8", "regular"), ("Q8", "H"), ("Q8", "A + H")]
    out += [("A4", "regular")] + [("A4", lab) for lab, dm in irreps("A4") if dm >= 2] + [("A4", "A + T")]
    out += [("S4", "regular")] + [("S4", lab) for lab, dm in irreps("S4") if dm >= 2] + [("S4", "[4] + [3,1]")]
    out += [("C2xC2", "regular"), ("pg:D2", "vector")]
    return out


def grid() -> list[tuple[str, str, int, int]]:
    return [(g, v, H, d) for g, v in grid_reps() for H in HEADS for d in HEAD_DIMS]


def _design_text(orbits: list[dict]) -> str:
    parts: list[str] = []
    for o in orbits:
        item = f"{o['name']}:{o['rep']}"
        if parts and parts[-1].split(" x ", 1)[-1] == item:
            k = int(parts[-1].split(" x ", 1)[0]) + 1 if " x " in parts[-1] else 2
            parts[-1] = f"{k} x {item}"
        else:
            parts.append(item)
    return "; ".join(parts) if parts else "(empty)"


def _head_dims(orbits: list[dict]) -> str:
    dims: dict[int, int] = {}
    for o in orbits:
        dims[o["head_dim"]] = dims.get(o["head_dim"], 0) + o["heads"]
    return " ".join(f"{k}x{dm}" for dm, k in sorted(dims.items(), reverse=True)) or "-"


def run_one(args: tuple[str, str, int, int, float, str]) -> dict:
    g, v, H, d, time_limit, solver = args
    from eqattn.attention import Problem
    from eqattn.optimize import optimize
    from eqattn.errors import InputError, LimitError

    t0 = time.perf_counter()
    row: dict = {"group": g, "rep": v, "H": H, "d": d}
    try:
        problem = Problem.create(g, v, H, d)
        row.update(V=str(problem.V), dim_v=problem.dim_v, P_vanilla=problem.vanilla_params)
        res = optimize(problem, time_limit, backend=solver, threads=1)
        j = res.to_json()
        cv = j["constrained_vanilla_possible"]
        cd = j["constrained_vanilla_design"]
        row.update(
            P_opt=j["design_params"],
            ratio=round(j["design_params"] / j["vanilla_params"], 4),
            lower_bound=j["lower_bound"],
            gap=j["gap"],
            status=j["status"],
            heads_total=j["heads_total"],
            head_dims=_head_dims(j["orbits"]),
            design=_design_text(j["orbits"]),
            constrained_vanilla={True: "yes", False: "no", None: "unknown"}[cv],
            constrained_params=cd["params"] if cd else "",
            scenarios=j["scenarios"]["total"],
            numeric_error=("" if j["verified"]["numeric_worst_rel_error"] is None else f"{j['verified']['numeric_worst_rel_error']:.1e}"),
            detail="; ".join(j["notes"]),
        )
    except LimitError as e:
        row.update(status="refused", detail=f"{e.field}: {e.message}")
    except InputError as e:
        row.update(status="error", detail=f"{e.field}: {e.message}")
    except Exception as e:  # noqa: BLE001 - recorded in the atlas
        row.update(status="error", detail=f"{type(e).__name__}: {e}")
    row["time_s"] = round(time.perf_counter() - t0, 2)
    return row


def _bar(done: int, total: int, counts: dict[str, int], t0: float) -> str:
    width = 30
    k = int(width * done / max(total, 1))
    tally = " ".join(f"{s} {n}" for s, n in sorted(counts.items()))
    return f"\r[{'#' * k}{'.' * (width - k)}] {done}/{total}  {time.perf_counter() - t0:7.1f}s  {tally}"


def summary(rows: list[dict], wall: float, args: argparse.Namespace) -> str:
    solved = [r for r in rows if r.get("status") in ("optimal", "feasible")]
    optimal = [r for r in rows if r.get("status") == "optimal"]
    feasible = [r for r in rows if r.get("status") == "feasible"]
    refused = [r for r in rows if r.get("status") == "refused"]
    errors = [r for r in rows if r.get("status") == "error"]
    slow = [r for r in optimal if float(r["time_s"]) > args.time_limit]
    ratios = sorted(float(r["ratio"]) for r in optimal)
    cpu = sum(float(r["time_s"]) for r in rows)
    lines = [
        "# Atlas of optimal equivariant attention designs",
        "",
        "Generated by `PYTHONPATH=. python3 benchmarks/atlas.py"
        + (f" --jobs {args.jobs}" if args.jobs != 2 else "")
        + (f" --time-limit {args.time_limit:g}" if args.time_limit != 30 else "")
        + (f" --solver {args.solver}" if args.solver != "highs" else "")
        + "` (see the docstring of `benchmarks/atlas.py` for the grid).",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"{args.jobs} worker processes, one solver thread each; solver `{args.solver}`; time limit {args.time_limit:g} s per problem "
        "(the re-checks by the coverage checker and, for small problems, by the weight construction come on top, "
        "and so may setting up the program and repairing an answer the limit stopped).",
        "",
        "For each problem `(G, V, H, d)`: `P_vanilla = 4 H d dim V`; `P_opt` the fewest parameters of a design covering",
        "every G-clustering (SPEC §5.5); `status` `optimal` (proven by the solver's bound), `feasible` (time limit;",
        "`gap` = (P_opt - lower bound) / P_opt) or `refused` (the problem exceeds the coverage checker's limits:",
        "200000 scenarios in all, 20000 in one clustering); heads and head dimensions of the optimum",
        "(`4x2` = four heads of dimension 2; ties go to fewer heads, then a smaller largest head dimension);",
        "`cv` = constrained vanilla: is there a covering design with exactly H heads, all of dimension d",
        "(`yes` with its cheapest parameter count, `no` proven).",
        "",
        "## Summary",
        "",
        f"* problems: {len(rows)}; optimal: {len(optimal)}; feasible (time limit): {len(feasible)}; refused: {len(refused)}; errors: {len(errors)}",
        f"* wall time {wall:.0f} s with {args.jobs} processes; sum of per-problem times {cpu:.0f} s; "
        f"slowest solved problem {max((float(r['time_s']) for r in solved), default=0):.1f} s; "
        f"optimal but over {args.time_limit:g} s in all (re-check included): {len(slow)}",
    ]
    if ratios:
        buckets = [(0.0, 0.125), (0.125, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0), (1.0, 1.0001)]
        names = ["< 1/8", "1/8 .. < 1/4", "1/4 .. < 1/2", "1/2 .. < 3/4", "3/4 .. < 1", "= 1 (no saving)"]
        hist = ", ".join(f"{nm}: {sum(lo <= x < hi for x in ratios)}" for (lo, hi), nm in zip(buckets, names))
        lines += [
            f"* savings P_opt / P_vanilla over the {len(ratios)} optimal problems: min {ratios[0]:.4f}, "
            f"median {statistics.median(ratios):.4f}, mean {statistics.mean(ratios):.4f}, max {ratios[-1]:.4f}",
            f"* distribution: {hist}",
        ]
    numeric = [r for r in solved if r.get("numeric_error") not in ("", None)]
    if numeric:
        worst = max(float(r["numeric_error"]) for r in numeric)
        lines.append(
            f"* re-checked by the coverage checker: all {len(solved)} answers; also by the weight construction "
            f"(dim V <= 12, at most 300 witnesses): {len(numeric)}, worst relative error {worst:.1e}"
        )
    cv_yes = sum(r.get("constrained_vanilla") == "yes" for r in solved)
    cv_no = sum(r.get("constrained_vanilla") == "no" for r in solved)
    cv_unk = sum(r.get("constrained_vanilla") == "unknown" for r in solved)
    lines.append(f"* constrained vanilla possible: yes {cv_yes}, no {cv_no}, unknown (time limit) {cv_unk}")
    if feasible:
        lines += ["", "### Stopped by the time limit", "", "| G | V | H | d | P_opt | lower bound | gap |", "|---|---|---|---|---|---|---|"]
        for r in feasible:
            lines.append(f"| {r['group']} | {r['rep']} | {r['H']} | {r['d']} | {r['P_opt']} | {r['lower_bound']} | {float(r['gap']):.3f} |")
    if refused or errors:
        lines += ["", "### Refused or failed", "", "| G | V | H | d | status | detail |", "|---|---|---|---|---|---|"]
        for r in refused + errors:
            lines.append(f"| {r['group']} | {r['rep']} | {r['H']} | {r['d']} | {r['status']} | {str(r.get('detail', '')).replace('|', '/')} |")
    if getattr(args, "compare", None):
        lines += compare_section(rows, args)
    lines += ["", "## Results", ""]
    by_group: dict[str, list[dict]] = {}
    for r in rows:
        by_group.setdefault(r["group"], []).append(r)
    for g, rs in by_group.items():
        lines += [f"### {g}", "", "| V | H | d | P_vanilla | P_opt | ratio | status | heads | head dims | design | cv | time s |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            if r.get("status") in ("optimal", "feasible"):
                st = r["status"] if r["status"] == "optimal" else f"feasible (gap {float(r['gap']):.3f})"
                cv = r["constrained_vanilla"] + (f" ({r['constrained_params']})" if r.get("constrained_params") not in ("", None) else "")
                lines.append(
                    f"| {r['V']} | {r['H']} | {r['d']} | {r['P_vanilla']} | {r['P_opt']} | {float(r['ratio']):.3f} | {st} | "
                    f"{r['heads_total']} | {r['head_dims']} | {r['design']} | {cv} | {r['time_s']} |"
                )
            else:
                lines.append(
                    f"| {r.get('V', r['rep'])} | {r['H']} | {r['d']} | {r.get('P_vanilla', '')} | | | {r.get('status')} | | | | | {r['time_s']} |"
                )
        lines.append("")
    return "\n".join(lines) + "\n"


def compare_section(rows: list[dict], args: argparse.Namespace) -> list[str]:
    """The same grid solved by the other solver (a CSV written by this script): status counts,
    times, and a cross-check of the optima both solvers proved."""
    with open(args.compare, newline="") as f:
        other = {(r["group"], r["rep"], int(r["H"]), int(r["d"])): r for r in csv.DictReader(f)}
    mine = {(r["group"], r["rep"], int(r["H"]), int(r["d"])): r for r in rows}
    common = sorted(set(mine) & set(other), key=lambda k: list(mine).index(k))
    name_o = args.compare_solver or "other"

    def stats(table: dict, keys: list) -> tuple[int, int, float, float]:
        opt = sum(table[k]["status"] == "optimal" for k in keys)
        feas = sum(table[k]["status"] == "feasible" for k in keys)
        times = [float(table[k]["time_s"]) for k in keys if table[k]["status"] in ("optimal", "feasible")]
        return opt, feas, sum(times), max(times, default=0.0)

    o1, f1, t1, m1 = stats(mine, common)
    o2, f2, t2, m2 = stats(other, common)
    both = [k for k in common if mine[k]["status"] == "optimal" and other[k]["status"] == "optimal"]
    differ = [k for k in both if int(mine[k]["P_opt"]) != int(other[k]["P_opt"])]
    hard = [k for k in both if max(float(mine[k]["time_s"]), float(other[k]["time_s"])) >= 1.0]
    h1 = sum(float(mine[k]["time_s"]) for k in hard)
    h2 = sum(float(other[k]["time_s"]) for k in hard)
    out = [
        "",
        f"## Solvers: {args.solver} (this run) and {name_o}",
        "",
        f"The same {len(common)} problems, the same settings ({args.jobs} processes, one solver thread each, "
        f"{args.time_limit:g} s limit):",
        "",
        "| solver | optimal | feasible (time limit) | sum of times (s) | slowest (s) | time on the problems both solve, >= 1 s in one |",
        "|---|---|---|---|---|---|",
        f"| {args.solver} | {o1} | {f1} | {t1:.0f} | {m1:.1f} | {h1:.0f} ({len(hard)} problems) |",
        f"| {name_o} | {o2} | {f2} | {t2:.0f} | {m2:.1f} | {h2:.0f} |",
        "",
        f"Optima proven by both solvers: {len(both)}; equal: {len(both) - len(differ)}"
        + (f"; DIFFERENT: {', '.join(f'{k[0]} {k[1]} H={k[2]} d={k[3]}' for k in differ)}" if differ else "."),
    ]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds per problem (default 30)")
    from eqattn.optimize import BACKENDS

    p.add_argument("--solver", default="highs", choices=BACKENDS)
    p.add_argument("--out", default=str(ROOT / "docs"), help="directory for atlas.md and atlas.csv")
    p.add_argument("--only", default=None, help="comma-separated group names to run (a part of the grid)")
    p.add_argument("--name", default="atlas", help="file name stem (default atlas)")
    p.add_argument("--compare", default=None, help="a CSV of this script from another solver: adds a comparison section")
    p.add_argument("--compare-solver", default=None, help="the name of that solver (for the comparison section)")
    p.add_argument("--from-csv", default=None, help="do not solve: rewrite the markdown from this CSV (with --compare)")
    p.add_argument("--wall", default=None, help="with --from-csv: the wall time of that run, for the summary")
    args = p.parse_args(argv)

    if args.from_csv:
        with open(args.from_csv, newline="") as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            r["H"], r["d"] = int(r["H"]), int(r["d"])
        wall = float(args.wall or 0)
        out = Path(args.out)
        (out / f"{args.name}.md").write_text(summary(rows, wall, args))
        return 0
    jobs = grid()
    if args.only:
        keep = set(args.only.split(","))
        jobs = [j for j in jobs if j[0] in keep]
    work = [(g, v, H, d, args.time_limit, args.solver) for g, v, H, d in jobs]
    order = {(g, v, H, d): i for i, (g, v, H, d) in enumerate(jobs)}
    rows: list[dict] = []
    counts: dict[str, int] = {}
    tty = sys.stderr.isatty()
    t0 = time.perf_counter()
    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    with ctx.Pool(args.jobs, maxtasksperchild=50) as pool:
        for row in pool.imap_unordered(run_one, work):
            rows.append(row)
            counts[row["status"]] = counts.get(row["status"], 0) + 1
            if tty:
                print(_bar(len(rows), len(work), counts, t0), end="", file=sys.stderr, flush=True)
            else:
                print(
                    f"[{len(rows)}/{len(work)}] {row['group']} {row['rep']} H={row['H']} d={row['d']}: "
                    f"{row['status']} {row.get('P_opt', '')}/{row.get('P_vanilla', '')} {row['time_s']}s",
                    file=sys.stderr,
                    flush=True,
                )
    if tty:
        print(file=sys.stderr)
    wall = time.perf_counter() - t0
    rows.sort(key=lambda r: order[(r["group"], r["rep"], r["H"], r["d"])])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{args.name}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
    (out / f"{args.name}.md").write_text(summary(rows, wall, args))
    print(f"wrote {out / (args.name + '.md')} and {out / (args.name + '.csv')} ({len(rows)} problems, {wall:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
