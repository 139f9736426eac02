"""The `eqattn` command line. Every command takes --json; bad input exits 2 with one line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

from ..errors import InputError
from .atlas_cmd import add_parser as add_atlas
from .optimize_cmd import add_parser as add_optimize


def _dump(obj: object) -> None:
    print(json.dumps(obj, indent=2))


def _problem(args: argparse.Namespace):  # noqa: ANN202
    from ..attention import Problem

    return Problem.create(args.group, args.rep, args.heads, args.head_dim)


def _add_problem_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--group", "-G", required=True, help="catalog name (eqattn groups) or perm:(1,2,3),(1,2)")
    p.add_argument("--rep", "-V", required=True, help="V as irrep multiplicities, e.g. '2xA1 + E1', or a preset")
    p.add_argument("--heads", "-H", required=True, help="number of heads H")
    p.add_argument("--head-dim", "-d", dest="head_dim", required=True, help="head dimension d")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _add_design_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--orbit",
        "-o",
        action="append",
        default=[],
        metavar="K:W",
        help="a design orbit: subgroup (id or name) and its rep, e.g. C2.1:B or 0:2xA (repeat)",
    )


# ----- commands ---------------------------------------------------------------------------
def cmd_groups(args: argparse.Namespace) -> int:
    from ..groups.catalog import catalog_entries

    entries = catalog_entries()
    if args.json:
        _dump(entries)
    else:
        for e in entries:
            print(f"{e['name']:<14} order {e['order']:<4} {e.get('family', '')}")
    return 0


def cmd_group(args: argparse.Namespace) -> int:
    from ..groups.catalog import get_group
    from ..reps.group_views import group_json

    G = get_group(args.name)
    data = group_json(G)
    if args.json:
        _dump(data)
        return 0
    print(f"{data['name']}: order {data['order']}, {len(data['subgroups'])} subgroup classes, {len(data['irreps'])} real irreps")
    print("\nSubgroup classes (id, name, order, index, conjugates):")
    for s in data["subgroups"]:
        print(f"  {s['id']:>3}  {s['name']:<14} order {s['order']:<4} index {s['index']:<4} conjugates {s['conjugates']}")
    print("\nConjugacy classes (size / element order): " + ", ".join(f"{c['size']}/{c['order']}" for c in data["classes"]))
    print("\nReal irreps (label, type, dim, character by class):")
    for ir in data["irreps"]:
        chars = " ".join(f"{v:g}" for v in ir["character"])
        print(f"  {ir['label']:<12} {ir['type']:<13} {ir['dim']:>3}   {chars}")
    return 0


def cmd_clusterings(args: argparse.Namespace) -> int:
    from ..attention import clusterings_report

    rep = clusterings_report(_problem(args))
    if args.json:
        _dump(rep)
        return 0
    print(f"{rep['group']}, V = {rep['rep']} (dim {rep['dim_v']}), H = {rep['heads']}, d = {rep['head_dim']}")
    print(f"vanilla parameters: {rep['vanilla_params']}")
    print(f"{rep['count']} G-clusterings:")
    for c in rep["clusterings"]:
        mark = "  (degenerate)" if c["degenerate"] else ""
        print(f"  [{c['id']}] {c['text']}{mark}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from ..attention import Design, check_report

    problem = _problem(args)
    design = Design.parse_specs(problem, args.orbit)
    rep = check_report(problem, design)
    if args.json:
        _dump(rep)
        return 0
    print(f"vanilla parameters: {rep['vanilla_params']}   design parameters: {rep['design_params']}")
    print(f"covered: {rep['covered']} of {rep['total']} clusterings")
    for c in rep["clusterings"]:
        print(f"  [{c['id']}] {'covered    ' if c['covered'] else 'NOT covered'}  {c['text']}")
        if c["covered"] and args.verbose:
            for w in c["witness"]:
                print(f"        witness: {w['text']}")
        if not c["covered"]:
            print(f"        counterexample: {c['counterexample']['text']}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from ..attention import Design
    from ..numeric import verify_design

    problem = _problem(args)
    design = Design.parse_specs(problem, args.orbit)
    rep = verify_design(problem, design, seed=args.seed).to_json()
    ok = rep["worst_rel_error"] <= 1e-8 and rep["worst_equivariance_error"] <= 1e-8
    rep["ok"] = ok
    if args.json:
        _dump(rep)
    else:
        print(
            f"verified {rep['scenarios_verified']} scenarios in {rep['clusterings_verified']} covered clusterings: "
            f"worst relative error {rep['worst_rel_error']:.2e}, worst vanilla equivariance error "
            f"{rep['worst_equivariance_error']:.2e} -> {'OK' if ok else 'FAILED'}"
        )
    return 0 if ok else 1


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve

    if args.atlas:  # the store GET /api/atlas and /static/atlas.html show
        import os

        os.environ["EQATTN_ATLAS"] = args.atlas
    serve(args.host, args.port)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="eqattn", description="Design G-equivariant multi-head attention.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("groups", help="list the group catalog")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_groups)

    s = sub.add_parser("group", help="a group's subgroup classes and real irreps")
    s.add_argument("name")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_group)

    s = sub.add_parser("clusterings", help="vanilla parameter count and the G-clusterings")
    _add_problem_args(s)
    s.set_defaults(func=cmd_clusterings)

    s = sub.add_parser("check", help="which clusterings a design covers, with witnesses / counterexamples")
    _add_problem_args(s)
    _add_design_args(s)
    s.add_argument("--verbose", "-v", action="store_true", help="print every witness")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("verify", help="numerically confirm every 'covered' verdict by building the weights")
    _add_problem_args(s)
    _add_design_args(s)
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("serve", help="launch the designer web page")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--atlas", default=None, metavar="STORE", help="an atlas store (DIR/atlas.sqlite) for the atlas view")
    s.set_defaults(func=cmd_serve)

    add_optimize(sub)
    add_atlas(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except InputError as e:
        print(f"error: {e.field}: {e.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
