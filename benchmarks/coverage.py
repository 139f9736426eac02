"""Clusterings + full coverage of the design "H regular orbits" over a fixed grid.

Run: .venv/bin/python benchmarks/coverage.py [--quick]
Grid: catalog groups with |G| <= 24 x V (regular when dim <= 24, the sum of the irreps
of dim >= 2, trivial + the largest irrep) x H in {1, 2, 4, 8} x d in {1, 2, 8}.
Each problem is built fresh (the group itself is built once, outside the timing).
Baseline, measured in the same run: the same check with every scenario enumerated
(no design-specific reduction), where that has at most 20000 scenarios.
Goal (issue 3): median under 100 ms, worst under 2 s on the 2-core machine.
"""

from __future__ import annotations

import statistics
import sys
import time

from eqattn.attention import Design, Problem, check_coverage, clusterings
from eqattn.attention.coverage import estimate_scenarios
from eqattn.errors import LimitError
from eqattn.groups.catalog import get_group
from eqattn.reps import irreps

GROUPS = ["C4", "C6", "C2^2", "D3", "D4", "Q8", "C12", "D6", "A4", "S4", "C2xC6", "D12"]
HEADS = [1, 2, 4, 8]
DIMS = [1, 2, 8]


def reps_for(G) -> list[str]:  # noqa: ANN001
    ir = irreps(G)
    out = []
    if G.order <= 24:
        out.append("regular")
    big = [lab for lab, d in zip(ir.labels, ir.dims) if d >= 2]
    if big:
        out.append(" + ".join(big))
    largest = ir.labels[int(ir.dims.argmax())]
    out.append(f"{ir.labels[0]} + {largest}")
    return list(dict.fromkeys(out))


def timed(f) -> float:  # noqa: ANN001
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def show(row: tuple) -> None:
    name, rep, H, d, nc, ns, t, base = row
    b = f"{base * 1e3:9.1f}" if base is not None else "      n/a"
    sp = f"{base / t:7.1f}x" if base is not None else "     n/a"
    print(f"{name:<6} {rep[:28]:<28} {H:>2} {d:>2} {nc:>5} {ns:>7} {t * 1e3:8.1f} {b} {sp}", flush=True)


def main() -> int:
    quick = "--quick" in sys.argv
    rows = []
    print(f"{'group':<6} {'V':<28} {'H':>2} {'d':>2} {'clust':>5} {'scen':>7} {'time ms':>8} {'naive ms':>9} {'speedup':>8}")
    for name in GROUPS if not quick else GROUPS[:4]:
        G = get_group(name)
        G.subgroup_classes
        for rep in reps_for(G):
            for H in HEADS:
                for d in DIMS:
                    def run(reduce: bool = True) -> None:
                        p = Problem.create(G, rep, H, d)
                        clusterings(p)
                        check_coverage(p, Design.regular(p), reduce=reduce)

                    try:
                        t = timed(run)
                    except LimitError as e:
                        print(f"refused {name} V={rep} H={H} d={d}: {e}")
                        continue
                    p = Problem.create(G, rep, H, d)
                    n_scen = estimate_scenarios(p)
                    base = timed(lambda: run(False)) if n_scen <= 20000 else None
                    row = (name, rep, H, d, len(clusterings(p)), n_scen, t, base)
                    rows.append(row)
                    show(row)
    times = [r[6] for r in rows]
    ratios = [r[7] / r[6] for r in rows if r[7] is not None]
    print(
        f"\n{len(rows)} problems: median {statistics.median(times) * 1e3:.1f} ms, worst {max(times) * 1e3:.1f} ms "
        f"(goal: median < 100 ms, worst < 2000 ms); median speedup over naive enumeration "
        f"{statistics.median(ratios):.1f}x over {len(ratios)} problems"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
