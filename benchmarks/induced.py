"""The induced design's effect on the optimiser (theory-scale O20, issue "Designs an ML user can run").

    PYTHONPATH=. python3 benchmarks/induced.py                         # every problem below, 60 s each run (about 20 min)
    PYTHONPATH=. python3 benchmarks/induced.py --only Ih:4xregular:8:60 --time-limit 120
    PYTHONPATH=. python3 benchmarks/induced.py --csv /tmp/induced.csv
    PYTHONPATH=. python3 benchmarks/induced.py --switch lift           # the parity split's lifted keys on / off (O21d)
    PYTHONPATH=. python3 benchmarks/induced.py --switch pricing        # the pricing programs' shared W on / off (O11)
    PYTHONPATH=. python3 benchmarks/induced.py --switch checks         # the checkers' shared hosting classes and the hosts' box cut on / off
    PYTHONPATH=. python3 benchmarks/induced.py --switch coarse         # a design past the checker's limits: its design above first / checkable programs first (O12)
    PYTHONPATH=. python3 benchmarks/induced.py --switch sampled        # such a design whose design above covers: drawn scenarios against it on / off (O12b)

Each problem is solved by `optimize` twice, each run in its own process and one after the
other: as shipped (a finite group of order >= INDUCE_MIN_ORDER with an index-2 subgroup takes
the design induced from that subgroup's search as a candidate, `search._plant_induced`), and
the baseline with the induced design switched off (the child process raises
`induced.INDUCE_MIN_ORDER` above every order; nothing else changes). With `--switch lift`
the baseline keeps the induced design and the parity split's bound (O21) but not the parts'
keys lifted into the search (`search.PARITY_LIFT`, Lemma O21d); with `--switch pricing` the
baseline's pricing programs read all of W in every slot of a scenario (`lp_bound.DISAGGREGATE`
off, the earlier formulation; O11, "A key's slots share W"); with `--switch checks` the
baseline's checkers list every orbit's hosting classes afresh (`oracle.SHARED_MEMO` off) and
the cheapest hosts search the whole box P^a ≤ W ≤ V|K' (`hosts.CUT_HOST_BOX` off); with
`--switch coarse` the baseline answers a program's design past the checker's limits by
asking the restricted programs for checkable designs first, its design above after
(`rounds.program.COARSE_FIRST` off, the earlier order; O12); with `--switch sampled` the
baseline does not draw scenarios against such a design when its design above covers
(`rounds.program.SAMPLED_CHECK` off; O12b). Every row prints status,
parameters, lower bound, gap and wall time of both runs, and the ratios with / without of
the parameters and of the bound.

Run it alone on the machine: the answers are time-limited, and two optimisers sharing the
cores find less in the same time (on a two-core machine a concurrent run halved what one
side found).

Problems: the large groups of the issue's table and ViT-like sizes (Ih, S5, A5xC2 4xregular
H8 d60; S4xC2 10xregular H8 d60; Oh 64x(vector + trivial) H8 d32 and d64; Oh regular and
2xregular H8); D4h 64x(vector + trivial) H8 d64 (order 16: no induced design, both runs are
the same search, a check of the run-to-run spread).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import sys
import time

from child import in_child

PROBLEMS = [("Ih", "4xregular", 8, 60), ("S5", "4xregular", 8, 60), ("A5xC2", "4xregular", 8, 60),
            ("S4xC2", "10xregular", 8, 60), ("Oh", "64xvector + 64xtrivial", 8, 32), ("Oh", "64xvector + 64xtrivial", 8, 64),
            ("Oh", "regular", 8, 16), ("Oh", "2xregular", 8, 32), ("D4h", "64xvector + 64xtrivial", 8, 64)]


def _run(spec, tl: float, induce: bool, switch: str = "induced") -> tuple:  # noqa: ANN001
    from eqattn.attention import Problem
    from eqattn.optimize import hosts, induced, lp_bound, optimize, oracle, search
    from eqattn.optimize.rounds import program

    t0 = time.perf_counter()
    p = Problem.create(*spec)
    if switch == "lift":
        search.PARITY_LIFT = induce  # the baseline: the parity split's bound without its lifted keys
    elif switch == "pricing":
        lp_bound.DISAGGREGATE = induce  # the baseline: every slot of a scenario reads all of W
    elif switch == "checks":
        oracle.SHARED_MEMO = hosts.CUT_HOST_BOX = induce  # the baseline: hosting classes listed afresh, the hosts' whole box
    elif switch == "coarse":
        program.COARSE_FIRST = induce  # the baseline: checkable programs before the design above
    elif switch == "sampled":
        program.SAMPLED_CHECK = induce  # the baseline: no scenarios drawn against a design past the checker's limits
    elif not induce:
        induced.INDUCE_MIN_ORDER = 10**9  # the baseline: no group is large enough to be induced to
        if induced.induce_from(p) is not None:  # the switch no longer reaches the search (a renamed constant)
            raise RuntimeError("the baseline still induces: induced.INDUCE_MIN_ORDER is not what induce_from reads")
    r = optimize(p, tl)
    j = r.to_json()
    used = any("induced from" in n for n in j.get("notes", []))
    return (r.status, j.get("design_params"), j.get("lower_bound"), used, time.perf_counter() - t0, "")


def run_one(spec, tl: float, induce: bool, switch: str = "induced") -> tuple:  # noqa: ANN001
    return in_child(_run, (spec, tl, induce, switch), 2 * tl + 60, lambda st, msg, s: (st, None, None, False, s, msg))


def _fmt(r: tuple) -> str:
    status, params, lower, used, secs, err = r
    if err:
        return f"{status} {err}"
    gap = "-" if not params or lower is None else f"{100 * (params - lower) / params:.1f}%"
    return f"{status:<8} {params!s:>7} >= {lower!s:<7} gap {gap:>6} {secs:5.1f}s{' (induced)' if used else ''}"


def _ratio(a: int | None, b: int | None) -> str:
    return "-" if a is None or not b else f"{a / b:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=None, help="G:V:H:d[,G:V:H:d...]")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--switch", choices=("induced", "lift", "pricing", "checks", "coarse", "sampled"), default="induced",
                    help="what the baseline turns off: the induced design (O20), the parity split's lifted keys (O21d), the pricing's shared W (O11) or the checks' memo and box cut")
    a = ap.parse_args()
    specs = PROBLEMS if not a.only else [tuple(int(x) if i >= 2 else x for i, x in enumerate(s.split(":"))) for s in a.only.split(",")]
    rows = []
    for spec in specs:
        with_ = run_one(spec, a.time_limit, True, a.switch)
        without = run_one(spec, a.time_limit, False, a.switch)
        rows.append((spec, with_, without))
        print(f"{spec[0]:<6} {spec[1]:<24} H={spec[2]:<2} d={spec[3]:<3} with: {_fmt(with_)} | without: {_fmt(without)} | "
              f"params {_ratio(with_[1], without[1])}, bound {_ratio(with_[2], without[2])}", flush=True)
    ran = [(w, o) for _, w, o in rows if w[0] not in ("error", "killed") and o[0] not in ("error", "killed")]
    better = sum(1 for w, o in ran if w[1] is not None and (o[1] is None or w[1] < o[1]))
    worse = sum(1 for w, o in ran if o[1] is not None and (w[1] is None or w[1] > o[1]))
    print(f"\nsummary: {len(rows)} problems, {len(ran)} with both runs answered; with {a.switch} on: fewer parameters on {better}, more on {worse}; "
          f"proven: {sum(w[0] == 'optimal' for w, _ in ran)} with, {sum(o[0] == 'optimal' for _, o in ran)} without")
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["group", "rep", "heads", "head_dim", "run", "status", "params", "lower_bound", "induced_used", "seconds"])
            for spec, *runs in rows:
                for name, r in zip(("with", "without"), runs):
                    w.writerow([*spec, name, *r[:4], round(r[4], 2)])
    return 1 if any(r[0] == "error" for _, *runs in rows for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
