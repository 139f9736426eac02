"""`eqattn optimize`: the covering design with the fewest parameters, with its proof.

    eqattn optimize --group C4 --rep E1 --heads 2 --head-dim 1 [--time-limit S] [--json]

On a terminal a progress line on stderr shows the stage, the scenarios in the program, the
proven lower bound and the incumbent. `--json` prints `OptimizeResult.to_json()` (the keys
`group`, `rep`, `heads`, `head_dim` and `orbits: [{"subgroup", "rep"}]` are those `eqattn
check` and `EquivariantAttention.from_json` read).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..optimize.solver import BACKENDS


class _ProgressLine:
    """One rewritten line on stderr (only when stderr is a terminal)."""

    def __init__(self, stream=None) -> None:  # noqa: ANN001
        self.stream = stream or sys.stderr
        self.active = bool(getattr(self.stream, "isatty", lambda: False)())
        self.width = 0
        self.last = 0.0

    def __call__(self, e: dict) -> None:
        if not self.active:
            return
        now = time.perf_counter()
        if now - self.last < 0.1 and not e.get("done"):
            return
        self.last = now
        stage = {"optimum": "optimum", "ties": "tie-break", "constrained": "constrained vanilla", "recheck": "re-checking"}.get(
            str(e.get("stage")), str(e.get("stage"))
        )
        bound = e.get("bound")
        inc = e.get("incumbent")
        b = "-" if bound is None or bound == float("-inf") else f"{bound:g}"
        i = "-" if inc is None else f"{inc:g}"
        text = (
            f"{stage:<20} round {e.get('round', '-'):>3}  scenarios {e.get('scenarios', 0):>5}/{e.get('total_scenarios', 0)}  "
            f"bound {b:>8}  incumbent {i:>8}  {e.get('elapsed', 0.0):6.1f}s"
        )
        pad = max(0, self.width - len(text))
        self.width = len(text)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()

    def close(self) -> None:
        if self.active and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def add_parser(subparsers) -> argparse.ArgumentParser:  # noqa: ANN001
    p = subparsers.add_parser(
        "optimize",
        help="the covering design with the fewest parameters, proven optimal (or with its gap)",
        description="Find the design with the fewest parameters that covers every G-clustering "
        "(SPEC §5.5), prove it optimal, and answer whether the vanilla layer can just be constrained "
        "(a covering design with exactly H heads of dimension d).",
    )
    p.add_argument("--group", "-G", required=True, help="catalog name (eqattn groups) or perm:(1,2,3),(1,2)")
    p.add_argument("--rep", "-V", required=True, help="V as irrep multiplicities, e.g. '2xA1 + E1', or a preset")
    p.add_argument("--heads", "-H", required=True, help="number of heads H")
    p.add_argument("--head-dim", "-d", dest="head_dim", required=True, help="head dimension d")
    p.add_argument("--time-limit", "-t", dest="time_limit", default=None, help="seconds for the search (default 60)")
    p.add_argument("--solver", default="highs", choices=BACKENDS, help="integer programming solver (default highs)")
    p.add_argument("--no-constrained", dest="constrained", action="store_false", help="skip the constrained-vanilla question")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)
    return p


def _orbit_line(o: dict) -> str:
    heads = f"{o['heads']} head{'s' if o['heads'] != 1 else ''}"
    return f"  G/{o['name']:<10} W = {o['rep']:<28} {heads} of dimension {o['head_dim']}, {o['params']} parameters"


def run(args: argparse.Namespace) -> int:
    from ..attention import Problem
    from ..optimize import optimize

    problem = Problem.create(args.group, args.rep, args.heads, args.head_dim)
    bar = _ProgressLine()
    try:
        res = optimize(problem, args.time_limit, constrained=args.constrained, backend=args.solver, progress=bar)
    finally:
        bar.close()
    data = res.to_json()
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{data['group']}, V = {data['rep']} (dim {data['dim_v']}), H = {data['heads']}, d = {data['head_dim']}")
    print(f"vanilla parameters: {data['vanilla_params']}")
    if data["status"] == "optimal":
        print(f"optimal design: {data['design_params']} parameters (proven optimal; ratio {data['ratio']:.3f})")
    else:
        print(
            f"best design found: {data['design_params']} parameters, lower bound {data['lower_bound']} "
            f"(gap {100 * data['gap']:.1f}%; the time limit stopped the search)"
        )
    n_orb = len(data["orbits"])
    print(f"{data['heads_total']} heads in {n_orb} orbit{'s' if n_orb != 1 else ''}:" if n_orb else "the empty design (nothing to cover)")
    for o in data["orbits"]:
        print(_orbit_line(o))
    cv = data["constrained_vanilla_possible"]
    if cv is True:
        cd = data["constrained_vanilla_design"]
        print(f"constrained vanilla ({data['heads']} heads of dimension {data['head_dim']}): possible, with {cd['params']} parameters"
              + ("" if cd["status"] == "optimal" else " (not proven the cheapest)"))
        for o in cd["orbits"]:
            print(_orbit_line(o))
    elif cv is False:
        print(f"constrained vanilla ({data['heads']} heads of dimension {data['head_dim']}): impossible (proven)")
    elif "constrained_vanilla_status" in data and data["constrained_vanilla_status"] is not None:
        print("constrained vanilla: unknown (the time limit stopped the search)")
    v = data["verified"]
    num = v.get("numeric_worst_rel_error")
    print(
        f"re-checked: coverage of all {v['clusterings']} clusterings"
        + (f"; weight construction, worst relative error {num:.1e}" if num is not None else "")
        + f"   ({data['time_s']:.2f} s, solver {data['solver']})"
    )
    return 0
