"""The representatives (docs/theory-scale.md C7) against the full list, past the list limit.

For D4h with H = 16 (374 416 clusterings, refused by `clusterings()`), the optimiser proves its
designs over a few hundred representative clusterings. This script lists *every* clustering
(the list limit raised for this run only) and checks the optimal design on each, then checks
that a design with one orbit removed misses some representatives. About 30 s per problem.

    PYTHONPATH=. python3 benchmarks/representatives_check.py [--head-dims 4,8]
"""

from __future__ import annotations

import argparse
import time

from eqattn.attention import Design, Problem
from eqattn.attention.symbolic import SymbolicChecker
from eqattn.optimize import optimize


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--group", default="D4h")
    ap.add_argument("--rep", default="16xA1g + 16xA2u + 16xEu")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--head-dims", default="4,8")
    args = ap.parse_args()
    import importlib

    listing = importlib.import_module("eqattn.attention.clusterings")
    bad_total = 0
    for d in (int(x) for x in args.head_dims.split(",")):
        p = Problem.create(args.group, args.rep, args.heads, d)
        r = optimize(p, 60)
        print(f"{p.group.name} {p.V} H={p.heads} d={d}: {r.status} {r.design_params}; {r.notes[-1]}", flush=True)
        if r.design is None:
            continue
        saved = listing.MAX_CLUSTERINGS
        listing.MAX_CLUSTERINGS = 10**7
        try:
            every = listing._enumerate(p)  # the full list, not cached on the problem
        finally:
            listing.MAX_CLUSTERINGS = saved
        chk = SymbolicChecker(p, r.design, shortfalls=False)
        t = time.perf_counter()
        bad = sum(chk.first_uncovered(c) is not None for c in every)
        bad_total += bad
        print(f"  every clustering: {len(every)}, uncovered {bad} ({time.perf_counter() - t:.0f} s)", flush=True)
        smaller = Design(p, r.design.orbits[1:])
        chk2 = SymbolicChecker(p, smaller, shortfalls=False)
        reps = chk2.representatives()
        missed = sum(chk2.first_uncovered(c) is not None for c in reps)
        print(f"  one orbit removed ({smaller.params} parameters): {missed} of {len(reps)} representatives uncovered", flush=True)
        bad_total += missed == 0
    return 1 if bad_total else 0


if __name__ == "__main__":
    raise SystemExit(main())
