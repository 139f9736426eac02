"""Time to build subgroup classes and real irreps (with matrices) from nothing.

Run: .venv/bin/python benchmarks/groups.py
Each group is built in a fresh process. Baseline, measured in the same run: building the
multiplication table alone. Goal (issue 2): each total under 1 s on the 2-core machine.
"""

from __future__ import annotations

import json
import subprocess
import sys

GROUPS = ["S5", "Oh", "Ih", "D24", "C2^4"]

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from eqattn.groups.catalog import get_group
from eqattn.reps import irreps_of
t_import = time.perf_counter() - t0
t0 = time.perf_counter()
G = get_group(sys.argv[1])
t_table = time.perf_counter() - t0
t0 = time.perf_counter()
classes = G.subgroup_classes
t_sub = time.perf_counter() - t0
t0 = time.perf_counter()
n_irreps = 0
for c in classes:
    ir = irreps_of(c)
    ir.matrices
    n_irreps += len(ir)
t_irr = time.perf_counter() - t0
print(json.dumps({"order": G.order, "classes": len(classes), "irreps": n_irreps,
                  "table": t_table, "subgroups": t_sub, "irreps_s": t_irr}))
"""


def main() -> int:
    print(f"{'group':<6} {'order':>5} {'classes':>7} {'table s':>8} {'subgroups s':>11} {'irreps s':>9} {'total s':>8} {'total/table':>11} {'vs 1 s goal':>11}")
    worst = 0.0
    for name in GROUPS:
        out = subprocess.run([sys.executable, "-c", CHILD, name], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        total = r["table"] + r["subgroups"] + r["irreps_s"]
        worst = max(worst, total)
        print(
            f"{name:<6} {r['order']:>5} {r['classes']:>7} {r['table']:>8.3f} {r['subgroups']:>11.3f} "
            f"{r['irreps_s']:>9.3f} {total:>8.3f} {total / max(r['table'], 1e-9):>10.1f}x {total:>10.2f}x"
        )
    print(f"worst total: {worst:.3f} s ({'within' if worst < 1 else 'ABOVE'} the 1 s goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
