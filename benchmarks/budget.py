"""Designs within a compute budget at the sizes people train (issue "Designs an ML user can run").

    PYTHONPATH=. python3 benchmarks/budget.py                      # every problem, every question, 60 s each (long)
    PYTHONPATH=. python3 benchmarks/budget.py --quick              # the six problems of the issue's table
    PYTHONPATH=. python3 benchmarks/budget.py --only D4:48xregular:6:64 --questions widening,constrained
    PYTHONPATH=. python3 benchmarks/budget.py --quick --time-limit 20 --csv /tmp/budget.csv
    PYTHONPATH=. python3 benchmarks/budget.py --sweep              # the exhaustive comparison on more small problems (minutes)
    PYTHONPATH=. python3 benchmarks/budget.py --questions partial --baseline coarse   # each row again with a switch off

Problems: the issue's table (C4 96xregular H6 d64, D4 48xregular H6 d64, D6 32xregular H6 d64,
D8 32xregular H8 d64, S4 16xregular H6 d64, Oh 64x(vector + trivial) H8 d32) and ViT-Base-like
sizes (dim V 768, H 12, d 64 for C4, D4; dim V 512, H 8, d 64 for C8, D8, Q8; Oh and D4h with
vector + trivial; S4, A5, Ih multiples of regular).

Questions, each in its own process (address space capped by --memory-gb, killed at 2 x time
limit + 30 s), each with the time limit:
* widening: `least_widening` (least attention cost, fewest heads at head dim <= d, least head
  dim at <= H heads), with status and bound;
* front: `front` (points, status, single point or not);
* partial: `partial_coverage` at (H, d) and (2H, d): covered / of, status, upper bound;
* constrained: `optimize_within` (the optimiser with max_heads / max_head_dim) at (H, d),
  (2H, d), (H, 2d), (4H, d): status, parameters / vanilla, gap, reason.
Every row prints the wall time of the whole call. The summary: rows per status, the largest
gap, the slowest row. `--baseline NAME`: each row is run again right after it with the
switch NAME off (`SWITCHES`: `coarse`, a design past the checker's limits answered by
checkable programs before its design above, `rounds.program.COARSE_FIRST`, O12; `sampled`,
such a design whose design above covers answered without drawing scenarios against it,
`rounds.program.SAMPLED_CHECK`, O12b; `quick`, the LP's rounded design checked by the
symbolic checker only, without drawn scenarios first, `rounds.rounded.QUICK_DRAWS`, O14),
printed below it as `baseline`.

`--sweep`: tests/optimize/brute_force.py against the budget answers (partial coverage by both
engines, the budget program and the subset searches; the least cost by the search priced by
cost, max_cost one below it, and the front's two ends, the routes past the budget program)
on a longer list of small problems (|G| <= 8, dim V <= 8, H <= 4, d <= 3); prints one line per problem and the
count of agreements.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import multiprocessing as mp
import resource
import sys
import time
from pathlib import Path

TABLE = [("C4", "96xregular", 6, 64), ("D4", "48xregular", 6, 64), ("D6", "32xregular", 6, 64),
         ("D8", "32xregular", 8, 64), ("S4", "16xregular", 6, 64), ("Oh", "64xvector + 64xtrivial", 8, 32)]
VIT = [("C4", "192xregular", 12, 64), ("D4", "96xregular", 12, 64), ("C8", "64xregular", 8, 64),
       ("D8", "32xregular", 8, 64), ("Q8", "64xregular", 8, 64), ("Oh", "64xvector + 64xtrivial", 8, 64),
       ("D4h", "64xvector + 64xtrivial", 8, 64), ("S4", "21xregular", 8, 64), ("A5", "8xregular", 8, 60),
       ("Ih", "4xregular", 8, 60)]
QUESTIONS = ("widening", "front", "partial", "constrained")

SWEEP = [("C2", "A+B", 2, 1), ("C2", "2xA+B", 1, 2), ("C2", "A+2xB", 2, 1), ("C3", "A+E1", 2, 1), ("C4", "A+E1", 1, 2),
         ("C4", "A+B", 2, 1), ("C4", "B+E1", 2, 1), ("C4", "E1", 3, 1), ("C4", "E1", 2, 2), ("S3", "regular", 2, 1),
         ("C4", "regular", 2, 1), ("C2xC2", "regular", 1, 1), ("D4", "E1", 2, 2), ("D4", "A1+E1", 1, 2),
         ("C6", "regular", 1, 1), ("C2", "3xA+B", 1, 2), ("C2", "2xA+2xB", 1, 2), ("C3", "E1", 4, 1),
         ("C2", "A+B", 4, 1), ("C4", "E1", 1, 3), ("D4", "B1+E1", 1, 2), ("C2xC2", "A.A + A.B + B.A", 1, 1)]


def _cap_memory(gb: float) -> None:
    limit = int(gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _problem(spec):  # noqa: ANN001, ANN202
    from eqattn.attention import Problem

    return Problem.create(*spec)


SWITCHES = {
    "coarse": ("eqattn.optimize.rounds.program", "COARSE_FIRST"),
    "sampled": ("eqattn.optimize.rounds.program", "SAMPLED_CHECK"),
    "quick": ("eqattn.optimize.rounds.rounded", "QUICK_DRAWS"),
    "same": ("eqattn.optimize.oracle", "SAME_EVERY_OTHER"),
}  # --baseline NAME sets this module constant to False


def _run(question: str, spec, tl: float, extra: tuple, gb: float, out, off: str | None = None) -> None:  # noqa: ANN001
    _cap_memory(gb)
    if off is not None:
        import importlib

        module, name = SWITCHES[off]
        setattr(importlib.import_module(module), name, False)
    t0 = time.perf_counter()
    try:
        p = _problem(spec)
        if question == "widening":
            from eqattn.optimize import least_widening

            w = least_widening(p, tl)
            e = w.min_attention_cost
            txt = (f"cost {e.value} ({e.status}, >= {e.lower_bound}; {'-' if e.value is None else f'{e.value / (p.heads * p.head_dim):.2f}'}x) "
                   f"heads<=d: {w.min_heads.value} ({w.min_heads.status}, >= {w.min_heads.lower_bound}) "
                   f"dim@<=H: {w.min_head_dim.value} ({w.min_head_dim.status}, >= {w.min_head_dim.lower_bound})")
            status, gap = e.status, None if e.value in (None, 0) else (e.value - e.lower_bound) / e.value
        elif question == "front":
            from eqattn.optimize import front

            f = front(p, tl)
            txt = f"{len(f.points)} point(s) " + " ".join(f"({q.to_json()['attention_cost']}, {q.design.params})" for q in f.points) + (
                " single" if f.single else "")
            status, gap = f.status, None
        elif question == "partial":
            from eqattn.optimize import partial_coverage

            mh, md = extra
            r = partial_coverage(p, tl, max_heads=mh, max_head_dim=md)
            txt = f"({mh}, {md}): covers {r.covered} of {r.of}, at most {r.upper_bound}; params {None if r.design is None else r.design.params}"
            status, gap = r.status, None if r.upper_bound == 0 else (r.upper_bound - r.covered) / r.upper_bound
        else:
            from eqattn.optimize import optimize_within

            mh, md = extra
            w = optimize_within(p, tl, max_heads=mh, max_head_dim=md)
            ratio = None if w.design is None else w.design.params / p.vanilla_params
            gap = None if w.design is None or w.lower_bound is None or not w.design.params else (w.design.params - w.lower_bound) / w.design.params
            txt = f"({mh}, {md}): {'-' if ratio is None else f'{ratio:.3f}x'}; {w.reason}"
            status = w.status
    except Exception as e:  # noqa: BLE001 - reported as a row
        status, gap, txt = ("refused" if type(e).__name__ in ("LimitError", "InputError") else "error"), None, f"{type(e).__name__}: {e}"
    out.put((status, gap, txt, time.perf_counter() - t0))


def run_one(question: str, spec, tl: float, extra: tuple, gb: float, off: str | None = None) -> tuple:  # noqa: ANN001
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    proc = ctx.Process(target=_run, args=(question, spec, tl, extra, gb, q, off))
    t0 = time.perf_counter()
    proc.start()
    proc.join(2 * tl + 30)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return ("killed", None, f"killed after {2 * tl + 30:.0f} s", time.perf_counter() - t0)
    try:
        return q.get(timeout=5)
    except Exception:  # noqa: BLE001
        return ("error", None, f"exit code {proc.exitcode}", time.perf_counter() - t0)


def jobs(spec, questions):  # noqa: ANN001, ANN201
    _, _, H, d = spec
    for qn in questions:
        if qn == "partial":
            for extra in ((H, d), (2 * H, d)):
                yield qn, extra
        elif qn == "constrained":
            for extra in ((H, d), (2 * H, d), (H, 2 * d), (4 * H, d)):
                yield qn, extra
        else:
            yield qn, ()


def sweep() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "optimize"))
    from brute_force import BruteForce, Budget

    from eqattn.optimize import front, least_widening, partial_coverage
    from eqattn.optimize.front import front_ends
    from eqattn.optimize.widening import cost_search, heads_by_bisection
    from eqattn.optimize.within import optimize_within

    agree = total = 0
    t_all = time.perf_counter()
    for spec in SWEEP:
        t0 = time.perf_counter()
        p = _problem(spec)
        bf = BruteForce(p)
        H, d = p.heads, p.head_dim
        ok = []
        w, ref = least_widening(p, 60), bf.least_widening()
        ok.append((w.min_attention_cost.value, w.min_heads.value, w.min_head_dim.value) == (ref.min_attention_cost, ref.min_heads, ref.min_head_dim))
        for mh, md in ((H, d), (2 * H, d), (H, 2 * d), (4 * H, d)):
            a, r = optimize_within(p, 60, max_heads=mh, max_head_dim=md), bf.optimum(Budget(mh, md))
            ok.append(a.status == r.status and (r.params is None or a.design.params == r.params))
        f = front(p, 60)
        bfront = [(b.attention_cost, b.params) for b in bf.front()]
        ok.append([(q.to_json()["attention_cost"], q.design.params) for q in f.points] == bfront)
        # the routes past the budget program, run here on small problems (theory-scale B1d, B5b):
        # the least cost by the search priced by cost, max_cost just below it infeasible, the
        # front's two ends
        least, _ = cost_search(p, 60)
        ok.append((least.value, least.status) == (ref.min_attention_cost, "optimal"))
        if ref.min_attention_cost > 1:
            ok.append(optimize_within(p, 60, max_cost=ref.min_attention_cost - 1).status == "infeasible")
        ends = [(q.to_json()["attention_cost"], q.design.params) for q in front_ends(p, 60, time.perf_counter()).points]
        ok.append(ends == (bfront if len(bfront) <= 2 else [bfront[0], bfront[-1]]))
        # the fewest heads at head dim <= d past the budget program (B2): the least cost at head
        # dim <= d (its bound ⌈c_d / d⌉ and its design), then the bisection
        at_d, _ = cost_search(p, 60, max_head_dim=d)
        ok.append((at_d.value, at_d.status) == (bf.optimum(Budget(max_head_dim=d), "attention_cost").attention_cost, "optimal"))
        heads = heads_by_bisection(p, 60)
        ok.append((heads.value, heads.status, heads.lower_bound) == (ref.min_heads, "optimal", ref.min_heads))
        for mh, md in ((H, d), (2 * H, d)):
            r = bf.partial(Budget(mh, md))
            for engine in ("auto", "search"):  # the budget program here; the subset searches of larger problems
                a = partial_coverage(p, 60, max_heads=mh, max_head_dim=md, engine=engine)
                ok.append((a.covered, a.design.params) == (r.covered, r.params))
        total += len(ok)
        agree += sum(ok)
        print(f"{spec[0]:<6} {spec[1]:<18} H={spec[2]} d={spec[3]}: {sum(ok)}/{len(ok)} agree  "
              f"(cost {ref.min_attention_cost}, front {len(f.points)} pt, {bf.checks} designs checked, {time.perf_counter() - t0:.1f} s)", flush=True)
    print(f"sweep: {agree}/{total} answers agree with the exhaustive enumeration over {len(SWEEP)} problems ({time.perf_counter() - t_all:.0f} s)")
    return 0 if agree == total else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="the six problems of the issue's table only")
    ap.add_argument("--only", default=None, help="G:V:H:d[,G:V:H:d...]")
    ap.add_argument("--questions", default=",".join(QUESTIONS), help="comma list of " + ", ".join(QUESTIONS))
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--memory-gb", type=float, default=4.0)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--sweep", action="store_true", help="the exhaustive comparison on small problems")
    ap.add_argument("--baseline", choices=sorted(SWITCHES), default=None, help="run each row again with this switch off")
    a = ap.parse_args()
    if a.sweep:
        return sweep()
    if a.baseline:
        import importlib

        module, name = SWITCHES[a.baseline]
        if not hasattr(importlib.import_module(module), name):
            print(f"--baseline {a.baseline}: {module}.{name} is gone (the switch no longer reaches the code)", file=sys.stderr)
            return 2
    if a.only:
        specs = [tuple(int(x) if i >= 2 else x for i, x in enumerate(s.split(":"))) for s in a.only.split(",")]
    else:
        specs = TABLE if a.quick else TABLE + [v for v in VIT if v not in TABLE]
    qs = [q for q in a.questions.split(",") if q]
    rows = []
    for spec in specs:
        for qn, extra in jobs(spec, qs):
            status, gap, txt, secs = run_one(qn, spec, a.time_limit, extra, a.memory_gb)
            g = "-" if gap is None else f"{100 * gap:.1f}%"
            print(f"{spec[0]:<4} {spec[1]:<24} H={spec[2]:<2} d={spec[3]:<3} {qn:<11} {status:<10} gap {g:>6} {secs:6.1f}s  {txt}", flush=True)
            rows.append((spec, qn, extra, status, gap, secs, txt))
            if a.baseline:
                bs, bgap, btxt, bsecs = run_one(qn, spec, a.time_limit, extra, a.memory_gb, a.baseline)
                bg = "-" if bgap is None else f"{100 * bgap:.1f}%"
                print(f"{'':<4} {'baseline ' + a.baseline + ' off':<24} {'':<4} {'':<5} {qn:<11} {bs:<10} gap {bg:>6} {bsecs:6.1f}s  {btxt}", flush=True)
    print("\nsummary:", ", ".join(f"{s} {sum(r[3] == s for r in rows)}" for s in sorted({r[3] for r in rows})))
    gaps = [r for r in rows if r[4] is not None]
    if gaps:
        worst = max(gaps, key=lambda r: r[4])
        print(f"largest gap {100 * worst[4]:.1f}% ({worst[0]} {worst[1]} {worst[2]})")
    slow = max(rows, key=lambda r: r[5])
    print(f"slowest {slow[5]:.1f} s ({slow[0]} {slow[1]} {slow[2]})")
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["group", "rep", "heads", "head_dim", "question", "budget", "status", "gap", "seconds", "answer"])
            for spec, qn, extra, status, gap, secs, txt in rows:
                w.writerow([*spec, qn, extra, status, gap, round(secs, 2), txt])
    return 0


if __name__ == "__main__":
    sys.exit(main())
