"""`eqattn front`, `eqattn widening` and `eqattn optimize ... --partial`: designs within a
compute budget (eqattn.optimize.front / widening / partial).

    eqattn front -G C2 -V "2xA + B" -H 2 -d 2 [--time-limit S] [--json]
    eqattn widening -G D4 -V 48xregular -H 6 -d 64 --time-limit 60
    eqattn optimize -G D4 -V 2xregular -H 2 -d 2 --max-heads 2 --max-head-dim 2 --partial [--curve]
"""

from __future__ import annotations

import argparse
import json

from ..errors import InputError, whole_number


def _seconds(value: object) -> float | None:
    if value is None:
        return None
    try:
        tl = float(str(value))
    except ValueError:
        raise InputError("time_limit", f"must be a number of seconds, got {value!r}") from None
    if not 0 < tl <= 3600:
        raise InputError("time_limit", f"must be a positive number of seconds, at most 3600, got {value!r}")
    return tl


def _bound(value: object, field: str) -> int | None:
    return None if value is None else whole_number(value, field, text=True)


def _problem_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--group", "-G", required=True, help="catalog name (eqattn groups) or perm:(1,2,3),(1,2)")
    p.add_argument("--rep", "-V", required=True, help="V as irrep multiplicities, e.g. '2xA1 + E1', or a preset")
    p.add_argument("--heads", "-H", required=True, help="number of heads H")
    p.add_argument("--head-dim", "-d", dest="head_dim", required=True, help="head dimension d")
    p.add_argument("--time-limit", "-t", dest="time_limit", default=None, help="seconds (default 60)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def add_parsers(subparsers) -> None:  # noqa: ANN001
    p = subparsers.add_parser("front", help="the Pareto front of (attention cost, parameters) over covering designs")
    _problem_args(p)
    p.set_defaults(func=run_front)
    p = subparsers.add_parser("widening", help="the least widening: the least attention cost, heads and head dim of a covering design")
    _problem_args(p)
    p.set_defaults(func=run_widening)


def add_partial_flags(p: argparse.ArgumentParser) -> None:
    """`--partial`, `--curve` (and `--max-cost` when the optimize command has none yet)."""
    p.add_argument("--partial", action="store_true",
                   help="with a budget: the design within it that covers the most clusterings, then the fewest parameters")
    p.add_argument("--curve", action="store_true", help="with --partial: also the covered clusterings as the cost budget grows to the least widening")
    if "--max-cost" not in p._option_string_actions:  # noqa: SLF001 - argparse has no public query
        p.add_argument("--max-cost", dest="max_cost", default=None, help="attention cost (Σ heads × head dim) at most this")


def _problem(args: argparse.Namespace):  # noqa: ANN202
    from ..attention import Problem

    return Problem.create(args.group, args.rep, args.heads, args.head_dim)


def run_front(args: argparse.Namespace) -> int:
    from ..optimize.reports import front_report

    data = front_report(_problem(args), _seconds(args.time_limit))
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{data['group']}, V = {data['rep']}, H = {data['heads']}, d = {data['head_dim']}: vanilla {data['vanilla_params']} "
          f"parameters, attention cost {data['vanilla_attention_cost']}")
    print(f"front ({data['status']}): {data['reason']}")
    for q in data["points"]:
        lb = "proven" if q["status"] == "optimal" else "not proven" + ("" if q["lower_bound"] is None else f" (bound {q['lower_bound']})")
        print(f"  attention cost {q['attention_cost']:>6}  {q['design_params']:>8} parameters  {q['heads']} heads, "
              f"largest head {q['max_head_dim']}  ({lb})")
    return 0


def run_widening(args: argparse.Namespace) -> int:
    from ..optimize.reports import widening_report

    data = widening_report(_problem(args), _seconds(args.time_limit))
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(data["statement"])
    for key, what in (("min_attention_cost", "least attention cost"), ("min_heads", f"fewest heads (head dim <= {data['head_dim']})"),
                      ("min_head_dim", f"smallest largest head dim (<= {data['heads']} heads)")):
        e = data[key]
        val = "none covers" if e["status"] == "infeasible" else e["value"]
        bound = "" if e["status"] in ("optimal", "infeasible") or e["lower_bound"] is None else f", at least {e['lower_bound']}"
        print(f"  {what}: {val} ({e['status']}{bound})")
    return 0


def run_partial(args: argparse.Namespace) -> int:
    """`eqattn optimize ... --partial`."""
    from ..optimize.partial import ENGINES as PARTIAL_ENGINES
    from ..optimize.reports import partial_report
    from ..optimize.widening import least_widening

    problem = _problem(args)
    tl = _seconds(args.time_limit)
    kw = {"max_heads": _bound(args.max_heads, "max_heads"), "max_head_dim": _bound(args.max_head_dim, "max_head_dim"),
          "max_cost": _bound(getattr(args, "max_cost", None), "max_cost")}
    curve_to = None
    if args.curve:
        w = least_widening(problem, None if tl is None else tl / 3)
        curve_to = w.min_attention_cost.value
    engine = getattr(args, "engine", "auto")
    if engine not in PARTIAL_ENGINES:
        raise InputError("engine", f"with --partial: one of {', '.join(PARTIAL_ENGINES)} (got {engine}, an engine of the coverage checker)")
    data = partial_report(problem, tl, curve_to=curve_to, work_limit=_bound(getattr(args, "work_limit", None), "work_limit"),
                          engine=engine, **kw)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    part = data["partial"]
    print(part["statement"])
    print(f"design: {data['design_params']} parameters, {data['heads_total']} heads, attention cost {data['attention_cost']}")
    for o in data["orbits"]:
        print(f"  G/{o['name']:<10} W = {o['rep']:<24} {o['heads']} heads of dimension {o['head_dim']}")
    if part["uncovered"]:
        print("not covered: clusterings " + ", ".join(str(c) for c in part["uncovered"]) + " (eqattn check shows a counterexample each)")
    for q in data.get("curve", []):
        print(f"  cost budget {q['max_cost']:>6}: {q['covered']} covered (at most {q['upper_bound']}, {q['status']})")
    return 0
