"""The constrained optimiser against exhaustive enumeration (docs/theory-scale.md O2, O19).

    PYTHONPATH=.:tests/optimize python3 benchmarks/constrained_sweep.py            # the sweep below
    PYTHONPATH=.:tests/optimize python3 benchmarks/constrained_sweep.py --quick    # a third of it

For small problems (|G| <= 8, dim V <= 8, H <= 4, d <= 3) and budgets (max_heads,
max_head_dim, max_cost: each subset, at the layer's width and tighter) every answer of
`optimize` (both engines) is compared with the brute-force reference
(tests/optimize/brute_force.py: every design within the budget listed and checked by the
coverage checker): the status (optimal / infeasible) and P_opt must agree, the design must
be within the budget, and an infeasible answer must give its reason. Also for every
problem: the least attention cost against ⌈P_opt / ρ⌉ (O19c) and, for m x regular, P_opt =
4m x the least cost (O19b). Prints one line per problem and the totals.
"""

from __future__ import annotations

import argparse
import sys
import time

from brute_force import BruteForce, Budget
from eqattn.attention import Problem
from eqattn.optimize import optimize
from eqattn.optimize.limits import ComputeLimits, cost_lower_bound, uniform_ratio

PROBLEMS = [
    ("C2", "A + B", 1, 1), ("C2", "A + B", 2, 2), ("C2", "regular", 2, 2), ("C2", "2xregular", 2, 2), ("C3", "E1", 3, 1),
    ("C3", "A + E1", 2, 2), ("C4", "E1", 2, 1), ("C4", "regular", 2, 2), ("C4", "A + B + E1", 3, 1), ("D3", "E1", 2, 2),
    ("D3", "regular", 2, 1), ("D3", "A1 + E1", 2, 2), ("C2xC2", "A.A + B.B", 2, 1), ("C2xC2", "regular", 2, 2),
    ("D4", "E1", 2, 2), ("Q8", "H", 2, 2), ("C2", "A + 2xB", 3, 2), ("D4", "A1 + E1", 3, 1),
]


def budgets(p: Problem) -> list[tuple[int | None, int | None, int | None]]:
    H, d = p.heads, p.head_dim
    c = H * d
    return [(H, d, None), (2 * H, d, None), (H, 2 * d, None), (4 * H, d, None), (None, None, c), (None, None, 2 * c), (None, 1, None),
            (H, None, 3 * c)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    problems = PROBLEMS[::3] if args.quick else PROBLEMS
    runs = agree = infeasible = 0
    bad = []
    t0 = time.perf_counter()
    for g, v, H, d in problems:
        p = Problem.create(g, v, H, d)
        bf = BruteForce(p)
        n = 0
        for mh, md, mc in budgets(p):
            ref = bf.optimum(Budget(max_heads=mh, max_head_dim=md, max_cost=mc))
            for engine in ("enumerate", "symbolic"):
                r = optimize(p, 60, constrained=False, engine=engine, max_heads=mh, max_head_dim=md, max_cost=mc)
                ok = (r.status, r.design_params) == (ref.status, ref.params)
                ok = ok and (r.design is None or ComputeLimits(mh, md, mc).admits(r.design)) and (r.design is not None or bool(r.reason))
                runs += 1
                n += 1
                agree += ok
                infeasible += ref.status == "infeasible"
                if not ok:
                    bad.append((g, v, H, d, mh, md, mc, engine, r.status, r.design_params, ref.status, ref.params))
        best = bf.optimum(Budget())
        least = bf.least_widening().min_attention_cost
        rho_ok = cost_lower_bound(p, best.params) <= least
        uni = uniform_ratio(p)
        exact = uni is None or best.params == uni * best.attention_cost == uni * least
        print(f"{g:<6} {v:<12} H={H} d={d}: {n} runs, P_opt {best.params}, least cost {least}, ⌈P/ρ⌉ <= least cost: {rho_ok}"
              + ("" if uni is None else f", P = {uni} x cost: {exact}"), flush=True)
        if not (rho_ok and exact):
            bad.append((g, v, H, d, "rho"))
    print(f"\n{runs} constrained runs ({infeasible} of them infeasible by brute force) over {len(problems)} problems: "
          f"{agree} agree with the exhaustive reference; {time.perf_counter() - t0:.0f} s")
    for b in bad:
        print("DISAGREES:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
