"""`eqattn verify` at the sizes people train: time per scenario and worst errors of the weight
construction, this tree against another checkout in the same run.

    PYTHONPATH=. python3 benchmarks/verify_scale.py                       # D4 m x regular, m in {16, 32, 96}, 24 scenarios each
    PYTHONPATH=. python3 benchmarks/verify_scale.py --sizes 96 --scenarios 60
    git archive <commit> | tar -x -C /tmp/old; PYTHONPATH=. python3 benchmarks/verify_scale.py --old /tmp/old
    PYTHONPATH=. python3 benchmarks/verify_scale.py --o3                  # also the O3 must-show design, every scenario

Each problem is the optimiser's proven-optimal design (the CONSTRUCT table of
benchmarks/torch_layer.py: D4 m x regular, d = 64, H = 6 or 12; ``eqattn optimize -G D4 -V
<m>xregular -H <H> -d 64 --json``). Its covered scenarios are taken with a fixed stride (the
same ones for every checkout) and each checkout's ``verify_scenario`` runs them in its own
process with one BLAS thread, scenario k drawing from ``default_rng([0, 2, k])``; the line
gives the scenarios, the total and per-scenario time, the worst relative output error and the
worst equivariance error, and with ``--old`` the time ratio this tree / old and both worst
errors. ``--o3`` adds O(3) on ``16x0e + 8x1o + 4x2e``, H = 8, d = 16 (the optimal design of
``eqattn optimize``, ``O3_ORBITS``) with every scenario and 16 Haar samples.
The whole D4 96 x regular run is ``eqattn verify ... -j N`` (see the printed command).
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

#: m -> (H, [(subgroup, W, orbit count)]): the optimiser's designs (benchmarks/torch_layer.py CONSTRUCT)
DESIGNS = {
    8: (12, [("D4", "8xA1 + 8xA2 + 8xB1 + 8xB2 + 16xE1", 2), ("C4", "16xA + 16xB + 16xE1", 2), ("C2.1", "32xA + 32xB", 3),
             ("C2.2", "32xA + 32xB", 2), ("C2.3", "32xA + 32xB", 2), ("C1", "64xA", 1)]),
    16: (6, [("D4", "16xA1 + 16xA2 + 16xB1 + 16xB2 + 32xE1", 3), ("C1", "64xA", 3)]),
    32: (12, [("D4", "32xA1 + 32xA2 + 32xB1 + 32xB2 + 32xE1", 6), ("C1", "64xA", 6)]),
    48: (6, [("D4", "48xA1 + 48xA2 + 48xB1 + 48xB2 + 32xE1", 3), ("C1", "64xA", 3)]),
    96: (12, [("D4", "64xA1 + 64xA2 + 64xB1 + 64xB2 + 32xE1", 6), ("C1", "64xA", 6)]),
}

#: ``eqattn optimize -G O3 -V "16x0e + 8x1o + 4x2e" -H 8 -d 16 --json`` (optimal, 9856 parameters)
O3_ORBITS = [("O3", "16x0e + 5x1o + 3x2e")] * 6 + [("SO3", "16x0 + 5x1 + 3x2")] * 2

CHILD = r"""
import json, sys, time
import numpy as np
from eqattn.attention import Design, Problem, check_coverage
from eqattn.numeric import verify as V
spec = json.loads(sys.argv[1])
p = Problem.create(spec["group"], spec["rep"], spec["heads"], spec["head_dim"])
des = Design.create(p, [tuple(o) for o in spec["orbits"]])
items = [(v.clustering, r) for v in check_coverage(p, des) if v.covered for r in v.witnesses]
pick = list(range(len(items)))[:: max(1, len(items) // spec["scenarios"])][: spec["scenarios"]] if spec["scenarios"] else list(range(len(items)))
rho = None
if V.compact_info(p.group) is not None:
    rho = V.check_matrices(p, V.HAAR_SAMPLES, np.random.default_rng([0, 1]))
rel = eq = 0.0
t0 = time.perf_counter()
for k in pick:
    c, r = items[k]
    a, b = V.verify_scenario(p, des, c, r, np.random.default_rng([0, 2, k]), rho=rho)
    rel, eq = max(rel, a), max(eq, b)
dt = time.perf_counter() - t0
print(json.dumps({"total": len(items), "n": len(pick), "time_s": dt, "rel": rel, "eq": eq}))
"""


def _run(tree: Path, spec: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], env=env, cwd=tree, capture_output=True, text=True)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fmt(r: dict) -> str:
    if "error" in r:
        return f"error: {r['error'][:60]}"
    return f"{r['n']:>4}/{r['total']:<5} {r['time_s']:8.1f} s {r['time_s'] / max(r['n'], 1):7.3f} s/sc  rel {r['rel']:.1e}  eq {r['eq']:.1e}"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="16,32,96", help="m of D4 m x regular, comma separated")
    ap.add_argument("--scenarios", type=int, default=24, help="scenarios per size (a fixed stride); 0: all")
    ap.add_argument("--old", help="another checkout (e.g. git archive <commit> | tar -x -C /tmp/old)")
    ap.add_argument("--o3", action="store_true", help="also the O3 must-show design, every scenario")
    args = ap.parse_args(argv)
    specs = []
    for m in (int(x) for x in args.sizes.split(",")):
        H, orbits = DESIGNS[m]
        specs.append((f"D4 {m}xregular H{H} d64", {"group": "D4", "rep": f"{m}xregular", "heads": H, "head_dim": 64,
                                                     "orbits": [(k, w) for k, w, c in orbits for _ in range(c)], "scenarios": args.scenarios}))
    if args.o3:
        specs.append(("O3 16x0e+8x1o+4x2e H8 d16", {"group": "O3", "rep": "16x0e + 8x1o + 4x2e", "heads": 8, "head_dim": 16,
                                                    "orbits": O3_ORBITS, "scenarios": 0}))
    for name, spec in specs:
        new = _run(ROOT, spec)
        line = f"{name:<28} new {_fmt(new)}"
        if args.old:
            old = _run(Path(args.old), spec)
            line += f" | old {_fmt(old)}"
            if "error" not in new and "error" not in old and new["n"]:
                line += f" | new/old time {new['time_s'] / old['time_s']:.3f}"
        print(line, flush=True)
    m = max(int(x) for x in args.sizes.split(","))
    H, orbits = DESIGNS[m]
    flags = " ".join(f"-o {k}:{w.replace(' ', '')}" for k, w, c in orbits for _ in range(c))
    print(f"whole run: eqattn verify -G D4 -V {m}xregular -H {H} -d 64 {flags} -j <cores>")


if __name__ == "__main__":
    main()
