"""SO(3), O(3) through their two stand-ins (docs/theory-continuous.md §5 and §8): the optimiser
at e3nn sizes, and the character-detecting route against the detecting one in the same run.

    .venv/bin/python benchmarks/compact_routes.py            # the table below, 60 s limit each
    .venv/bin/python benchmarks/compact_routes.py --quick    # the l <= 2 pairs and l = 3 only

Each problem runs in its own process (one BLAS thread): ``eqattn.optimize`` then the coverage
re-check it does itself. For l <= 2 the problem runs twice, on the detecting stand-in (O, I,
Oh, Ih: Lemma 7) and on the character-detecting one (``compact_group(kind, l,
route="characters")``: C_2l, C_2l x Ci, Lemma 8); the line gives both times, their ratio and
whether both answers agree (status and parameters). For l >= 3 only the second route exists.
Figures go in the session note; nothing here is a timed test.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (kind, V, H, d): e3nn-style features, l_max 1 to 6
PROBLEMS = [
    ("O3", "2x0e + 1x1o", 2, 1),
    ("SO3", "16x0 + 8x1", 8, 16),
    ("O3", "16x0e + 8x1o + 4x2e", 8, 16),          # issue 28's must-show
    ("O3", "32x0e + 16x1o + 8x2e", 8, 32),
    ("O3", "16x0e + 8x1o + 4x2e + 2x3o", 8, 16),
    ("SO3", "32x0 + 16x1 + 8x2 + 4x3", 8, 32),
    ("O3", "64x0e + 32x1o + 16x2e + 8x3o", 8, 32),
    ("O3", "8x0e + 4x1o + 4x1e + 2x2e + 2x3o + 1x4e", 4, 16),
    ("SO3", "8x0 + 4x1 + 2x2 + 2x3 + 1x4 + 1x6", 8, 16),
    ("O3", "32x0e + 8x1o + 4x2e + 2x3o + 2x4e + 1x5o + 1x6e", 8, 32),
]
QUICK = PROBLEMS[:5]

CHILD = r"""
import json, sys, time
from eqattn.attention import Problem
from eqattn.groups.compact import band_of
from eqattn.groups.stand_in import compact_group
from eqattn.optimize import optimize
spec = json.loads(sys.argv[1])
t = time.perf_counter()
if spec["route"] == "characters":
    G = compact_group(spec["kind"], band_of(spec["kind"], spec["rep"]), route="characters")
    p = Problem.create(G, spec["rep"], spec["heads"], spec["head_dim"])
else:
    p = Problem.create(spec["kind"], spec["rep"], spec["heads"], spec["head_dim"])
r = optimize(p, time_limit=spec["time_limit"])
print(json.dumps({"stand_in": p.group.compact.stand_in, "order": p.group.order, "status": r.status,
                  "params": r.design.params if r.design is not None else None, "vanilla": p.vanilla_params,
                  "time_s": round(time.perf_counter() - t, 2)}))
"""


def run(spec: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    from eqattn.groups.compact import L_DETECT, band_of

    print("| group | V | H | d | l | stand-in | status | params / vanilla | time s | detecting route | time s | ratio | same |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, rep, H, d in (QUICK if args.quick else PROBLEMS):
        base = {"kind": kind, "rep": rep, "heads": H, "head_dim": d, "time_limit": args.time_limit}
        l = band_of(kind, rep)
        c = run({**base, "route": "characters"})
        if "error" in c:
            print(f"| {kind} | {rep} | {H} | {d} | {l} | | error: {c['error']} | | | | | | |")
            continue
        cells = [kind, rep, H, d, l, f"{c['stand_in']} ({c['order']})", c["status"], f"{c['params']} / {c['vanilla']}", c["time_s"]]
        if l <= L_DETECT:
            i = run({**base, "route": "irreps"})
            same = i.get("status") == c["status"] and i.get("params") == c["params"]
            cells += [f"{i.get('stand_in')} ({i.get('order')}): {i.get('status')} {i.get('params')}", i.get("time_s"),
                      f"{c['time_s'] / i['time_s']:.2f}" if i.get("time_s") else "", "yes" if same else "NO"]
        else:
            cells += ["—", "", "", ""]
        print("| " + " | ".join(str(x) for x in cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
