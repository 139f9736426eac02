"""`eqattn optimize`: the covering design with the fewest parameters, with its proof.

    eqattn optimize --group C4 --rep E1 --heads 2 --head-dim 1 [--time-limit S] [--json]
    eqattn optimize -G C8 -V 4xregular -H 4 -d 8 --max-heads 4 --max-head-dim 8   # no wider than the layer
    eqattn optimize -G D4 -V 2xregular -H 2 -d 8 --work-limit 20000               # reproducible answer

On a terminal a progress line on stderr shows the stage, the scenarios in the program, the
proven lower bound and the incumbent. `--json` prints `OptimizeResult.to_json()` (the keys
`group`, `rep`, `heads`, `head_dim` and `orbits: [{"subgroup", "rep"}]` are those `eqattn
check` and `EquivariantAttention.from_json` read).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time

from contextlib import contextmanager
from typing import Iterator

from ..errors import InputError, LimitError
from ..optimize.optimizer import DEFAULT_TIME_LIMIT, MAX_TIME_LIMIT
from ..optimize.optimizer import ENGINES as CHECKER_ENGINES
from ..optimize.partial import ENGINES as PARTIAL_ENGINES
from ..optimize.solver import BACKENDS
from .budget_cmd import add_partial_flags, run_partial


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
    p.add_argument("--time-limit", "-t", dest="time_limit", default=None, help="seconds for the whole command: the search gets 80 %%, the re-checks the rest (default 60)")
    p.add_argument("--max-heads", dest="max_heads", default=None, help="at most this many heads in all (compute-aware designs)")
    p.add_argument("--max-head-dim", dest="max_head_dim", default=None, help="every head of at most this dimension")
    p.add_argument(
        "--work-limit", dest="work_limit", default=None,
        help="deterministic limit: solver branch-and-bound nodes for the whole search (same answer on every run)",
    )
    p.add_argument("--solver", default="highs", choices=BACKENDS, help="integer programming solver (default highs)")
    p.add_argument(
        "--engine", default="auto", choices=CHECKER_ENGINES + tuple(e for e in PARTIAL_ENGINES if e not in CHECKER_ENGINES),
        help="auto (default): symbolic past the atlas sizes and where the scenarios are too many to list (more than 500 demand values); "
             "at atlas size the enumerating engine first, the symbolic search on when it has not proven the optimum; enumerate: scenarios listed up front; symbolic: from "
             "counterexamples; with --partial: auto, program (one indicator per clustering) or search (subsets of the clusterings)",
    )
    p.add_argument("--no-constrained", dest="constrained", action="store_false", help="skip the constrained-vanilla question")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_partial_flags(p)
    p.set_defaults(func=run)
    return p


SEARCH_SHARE = 0.8  # of --time-limit for the search; the rest for the re-checks (as the API)
KILL_MARGIN_S = 0.3  # the command stops this long after --time-limit
HARD_STOP_S = 0.5  # ... or, when C code holds up the signal, this much later (os._exit)
MIN_SEARCH_S = 0.01  # the search's time when building the problem used (nearly) all of it


def _total_seconds(value: object) -> float | None:
    """--time-limit as a number of seconds (default DEFAULT_TIME_LIMIT); None if it is not a
    positive number at most MAX_TIME_LIMIT (then optimize() raises the InputError)."""
    if value is None:
        return DEFAULT_TIME_LIMIT
    try:
        tl = float(str(value))
    except ValueError:
        return None
    return tl if 0 < tl <= MAX_TIME_LIMIT else None


def _search_seconds(total: float, spent: float) -> float:
    """The search's share of what is left of `total` after `spent` seconds (building the
    problem): SEARCH_SHARE of the remainder, never less than MIN_SEARCH_S (the wall clock
    limit still stops the command at `total`).

    >>> _search_seconds(10.0, 0.0), _search_seconds(10.0, 5.0), _search_seconds(10.0, 9.999)
    (8.0, 4.0, 0.01)
    """
    return max(MIN_SEARCH_S, SEARCH_SHARE * (total - spent))


@contextmanager
def wall_clock_limit(seconds: float | None, field: str, message: str) -> Iterator[None]:
    """Raise LimitError(field, message) in this (main) thread after `seconds` of wall clock,
    whatever phase the work is in (SIGALRM; numpy and HiGHS return within their own limits)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise LimitError(field, message)

    def hard_stop() -> None:  # the main thread is stuck in C code: leave anyway
        print(f"error: {field}: {message}", file=sys.stderr, flush=True)
        os._exit(2)

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog = threading.Timer(seconds + HARD_STOP_S, hard_stop)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _orbit_line(o: dict) -> str:
    heads = f"{o['heads']} head{'s' if o['heads'] != 1 else ''}"
    return f"  G/{o['name']:<10} W = {o['rep']:<28} {heads} of dimension {o['head_dim']}, {o['params']} parameters"


def run(args: argparse.Namespace) -> int:
    from ..attention import Problem
    from ..optimize import optimize

    if args.partial:
        return run_partial(args)
    if args.engine not in CHECKER_ENGINES:
        raise InputError("engine", f"{args.engine} is an engine of --partial; without it: one of {', '.join(CHECKER_ENGINES)}")
    total = _total_seconds(args.time_limit)
    bar = _ProgressLine()
    start = time.monotonic()
    try:
        with wall_clock_limit(
            None if total is None else total + KILL_MARGIN_S,
            "time_limit",
            f"building the group, the search and its re-checks did not finish within {total:g} s; "
            f"give a larger --time-limit" if total else "",
        ):
            # the limit covers building the group and V too: a custom group can take seconds
            problem = Problem.create(args.group, args.rep, args.heads, args.head_dim)
            search = args.time_limit if total is None else _search_seconds(total, time.monotonic() - start)
            res = optimize(
                problem, search, constrained=args.constrained, backend=args.solver, progress=bar,
                max_heads=args.max_heads, max_head_dim=args.max_head_dim, max_cost=args.max_cost,
                work_limit=args.work_limit, engine=args.engine,
            )
    finally:
        bar.close()
    data = res.to_json()
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{data['group']}, V = {data['rep']} (dim {data['dim_v']}), H = {data['heads']}, d = {data['head_dim']}")
    print(f"vanilla: {data['vanilla_params']} parameters, attention cost {data['vanilla_attention_cost']} (heads x head dim)")
    cons = [f"{k.replace('_', ' ')} {v}" for k, v in data["constraints"].items() if v is not None]
    if cons:
        print("constraints: " + ", ".join(cons))
    stop = {"time_limit": "the time limit", "work_limit": "the work limit", "scenario_limit": "the scenario limit",
            "type_limit": "the limit on head representations", "solver_error": "a solver failure"}.get(
        str(data["stopped_by"]), "a limit"
    )
    if data["status"] == "optimal":
        print(f"optimal design: {data['design_params']} parameters (proven optimal; ratio {data['ratio']:.3f}), "
              f"attention cost {data['attention_cost']}")
    elif data["status"] == "infeasible":
        print("no design within the constraints covers every clustering (proven)"
              + (f": {data['reason']}" if data.get("reason") else ""))
    elif data["status"] == "unknown":
        print(f"no covering design found within the constraints before {stop} stopped the search")
    else:
        print(
            f"best design found: {data['design_params']} parameters, attention cost {data['attention_cost']}, "
            f"lower bound {data['lower_bound']} (gap {100 * data['gap']:.1f}%; {stop} stopped the search)"
        )
    n_orb = len(data["orbits"])
    if data["design_params"] is None:
        n_orb = -1
    elif n_orb:
        print(f"{data['heads_total']} heads in {n_orb} orbit{'s' if n_orb != 1 else ''}:")
    else:
        print("the empty design (nothing to cover)")
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
    if v["coverage"]:
        print(
            (f"re-checked: coverage of all {v['clusterings']} clusterings" if v["clusterings"] >= v.get("of_clusterings", 0)
             else f"re-checked: coverage of {v['clusterings']} representative clusterings, for all {v['of_clusterings']}")
            + (f"; weight construction, worst relative error {num:.1e}" if num is not None else "")
            + f"   ({data['time_s']:.2f} s, solver {data['solver']}, {data['work']} solver nodes)"
        )
    else:
        print(f"({data['time_s']:.2f} s, solver {data['solver']}, {data['work']} solver nodes)")
    for note in data.get("notes", []):
        print(f"note: {note}")
    return 0
