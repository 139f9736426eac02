"""The `eqattn` command line. Every command takes --json; bad input exits 2 with one line.

Exit statuses (README "Errors and exit statuses"):

* 0: done; for `check` and `verify`: the design covers every clustering / every check passed.
* 1: the answer is "no": `check` found a clustering the design does not cover, `verify` a
  numeric check that failed (the report is printed as usual).
* 2: the command could not run as asked: bad input, a limit, an unusable host or port, output
  that cannot be written. stderr gets ONE line `error: <field>: <what is allowed>`; with
  `--json` stdout also gets that error as JSON, `{"field": ..., "message": ...}` (the API's
  error model), so a script reads stdout either way.
* 70: a bug (an unexpected exception): its traceback, then `error: internal: ...`.
* 130: interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import traceback
from typing import Callable, NoReturn, TextIO

from ..errors import InputError, whole_number
from ..groups.compact import L_MAX
from .atlas_cmd import add_parser as add_atlas
from .budget_cmd import add_parsers as add_budget
from .optimize_cmd import add_parser as add_optimize

MAX_PORT = 65535
MAX_SEED = 2**32 - 1
MAX_JOBS = 256  # eqattn.numeric.verify.MAX_JOBS

EXIT_OK = 0
EXIT_NO = 1  # the answer is "no": not covered, a numeric check failed
EXIT_ERROR = 2  # bad input, a limit, the environment (one line `error: field: ...`)
EXIT_BUG = 70  # an unexpected exception (EX_SOFTWARE)
EXIT_INTERRUPTED = 130


class UsageError(InputError):
    """An argparse usage error as (field, message)."""


class OutputError(Exception):
    """Writing the command's output failed (disk full, closed pipe, ...)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is an InputError `<field>: <what is allowed>` (exit 2)."""

    def error(self, message: str) -> NoReturn:
        field, text = argparse_field(message)
        raise UsageError(field, text)


class GuardedOutput:
    """stdout for one command: a failing write or flush raises OutputError (not a bare
    OSError that any other failure could also raise), so main() can say what failed."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as e:
            raise OutputError(e) from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as e:
            raise OutputError(e) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


def _option_field(names: str) -> str:
    """`--head-dim/-d` -> `head_dim`; a positional `name` stays `name`."""
    parts = names.split("/")
    long = [p for p in parts if p.startswith("--")]
    name = (long or parts)[0].lstrip("-")
    return name.replace("-", "_") or "arguments"


def argparse_field(message: str) -> tuple[str, str]:
    """(field, one-line message) from an argparse error message."""
    message = " ".join(message.split())
    m = re.match(r"^argument (\S+): (.*)$", message)
    if m:
        names, text = m.group(1), m.group(2)
        field = _option_field(names)
        c = re.match(r"^invalid choice: (.*?) \(choose from (.*)\)$", text)
        if c:
            return field, f"must be one of {c.group(2).replace(chr(39), '')}, got {c.group(1)}"
        if text.startswith("expected one argument"):
            flag = names.split("/")[0]
            return field, f"{flag} needs a value (a value that starts with '-' is written {flag}=VALUE)"
        v = re.match(r"^invalid \w+ value: (.*)$", text)
        if v:
            return field, f"must be a number, got {v.group(1)}"
        return field, text
    m = re.match(r"^the following arguments are required: (.*)$", message)
    if m:
        names = [n.strip() for n in m.group(1).split(",")]
        return _option_field(names[0]), "is required (" + ", ".join(names) + " missing)"
    m = re.match(r"^unrecognized arguments: (.*)$", message)
    if m:
        return "arguments", f"unknown argument(s) {m.group(1)}; see eqattn <command> --help"
    return "arguments", message


def _int_in(name: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high], with a message saying so."""

    def parse(text: str) -> int:
        try:
            return whole_number(text, name, low, high, text=True)
        except InputError as e:
            raise argparse.ArgumentTypeError(e.message) from None

    parse.__name__ = name
    return parse


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
            if e.get("family") == "compact":
                print(f"{e['name']:<14} compact    {e['description']}")
            else:
                print(f"{e['name']:<14} order {e['order']:<4} {e.get('family', '')}")
    return 0


def cmd_group(args: argparse.Namespace) -> int:
    from ..groups.catalog import get_group, group_for_rep
    from ..reps.group_views import group_json

    G = get_group(args.name) if args.rep is None else group_for_rep(args.name, args.rep)
    data = group_json(G)
    if args.json:
        _dump(data)
        return 0
    cpt = data.get("compact")
    if cpt is not None:
        print(f"{data['name']}: {cpt['description']}; compact, component group {cpt['component_group']}")
        print(f"computed through its finite stand-in {cpt['stand_in']} (order {cpt['stand_in_order']}) for the band "
              f"{cpt['band_text']}, {cpt['stand_in_role']}; with -V the band is read off V (SO3/O3: l <= {L_MAX})")
        print("\nSubgroup classes G° <= K <= G (id, name, index, conjugates):")
        for s in data["subgroups"]:
            print(f"  {s['id']:>3}  {s['name']:<14} index {s['index']:<4} conjugates {s['conjugates']}   {s['description']}")
        print("\nReal irreps in the band (label, type, dim):")
        for ir in data["irreps"]:
            print(f"  {ir['label']:<12} {ir['type']:<13} {ir['dim']:>3}   {ir['description']}")
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
    """Exit 0 when the design covers every clustering, 1 when it does not."""
    from ..attention import Design, check_report

    problem = _problem(args)
    design = Design.parse_specs(problem, args.orbit)
    rep = check_report(problem, design)
    code = EXIT_OK if rep["covered"] == rep["total"] else EXIT_NO
    if args.json:
        _dump(rep)
        return code
    print(f"vanilla parameters: {rep['vanilla_params']}   design parameters: {rep['design_params']}")
    print(f"covered: {rep['covered']} of {rep['total']} clusterings")
    for c in rep["clusterings"]:
        print(f"  [{c['id']}] {'covered    ' if c['covered'] else 'NOT covered'}  {c['text']}")
        if c["covered"] and args.verbose:
            for w in c["witness"]:
                print(f"        witness: {w['text']}")
        if not c["covered"]:
            print(f"        counterexample: {c['counterexample']['text']}")
    return code


def cmd_verify(args: argparse.Namespace) -> int:
    from ..attention import Design
    from ..numeric import verify_design

    problem = _problem(args)
    design = Design.parse_specs(problem, args.orbit)
    report = verify_design(problem, design, seed=args.seed, jobs=args.jobs)
    ok = report.ok
    rep = {**report.to_json(), "ok": ok}
    if args.json:
        _dump(rep)
    else:
        haar = rep.get("haar_samples", 0)
        under = f" (both layers, under the generators and {haar} Haar-random elements of {problem.group.name})" if haar else ""
        print(
            f"verified {rep['scenarios_verified']} scenarios in {rep['clusterings_verified']} covered clusterings: "
            f"worst relative error {rep['worst_rel_error']:.2e}, worst {'vanilla ' if not haar else ''}equivariance error "
            f"{rep['worst_equivariance_error']:.2e}{under} -> {'OK' if ok else 'FAILED'}"
        )
    return EXIT_OK if ok else EXIT_NO


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve

    if args.atlas:  # the store GET /api/atlas and /static/atlas.html show
        import os

        os.environ["EQATTN_ATLAS"] = args.atlas
    serve(args.host, args.port, allow_hosts=tuple(args.allow_host), as_json=args.json)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    p = OneLineParser(prog="eqattn", description="Design G-equivariant multi-head attention.")
    p.add_argument("--version", action="version", version=f"eqattn {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("groups", help="list the group catalog")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_groups)

    s = sub.add_parser("group", help="a group's subgroup classes and real irreps")
    s.add_argument("name")
    s.add_argument("-V", "--rep", default=None,
                   help="V: a compact group (SO2, O2, SO3, O3) is shown at the band V names, as every problem of that V "
                        "is computed (as /api/group's rep=); ignored for a finite group")
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
    s.add_argument("--seed", type=_int_in("seed", 0, MAX_SEED), default=0, help=f"random seed, 0 to {MAX_SEED}")
    s.add_argument("--jobs", "-j", type=_int_in("jobs", 1, MAX_JOBS), default=1,
                   help=f"worker processes, 1 to {MAX_JOBS} (the report does not depend on it)")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("serve", help="launch the designer web page")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=_int_in("port", 1, MAX_PORT), default=8000, help=f"TCP port, 1 to {MAX_PORT}")
    s.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a further Host header the server answers (default: localhost names only; repeat)",
    )
    s.add_argument("--atlas", default=None, metavar="STORE", help="an atlas store (DIR/atlas.sqlite) for the atlas view")
    s.add_argument("--json", action="store_true", help="print the address as JSON; errors as JSON")
    s.set_defaults(func=cmd_serve)

    add_optimize(sub)
    add_budget(sub)
    add_atlas(sub)
    return p


def wants_json(argv: list[str]) -> bool:
    """Whether `--json` is among the options (before a `--`), known before parsing succeeds."""
    options = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in options


def report_error(field: str, message: str, as_json: bool) -> None:
    """The one line on stderr; with --json also `{"field", "message"}` on stdout."""
    message = " ".join(str(message).split())
    if as_json:
        try:
            print(json.dumps({"field": field, "message": message}), flush=True)
        except (OSError, OutputError):  # stdout is what failed: stderr still says so
            _quiet_stdout()
    print(f"error: {field}: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit status (0, 1 "no", 2 error; module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = wants_json(argv)
    stdout = sys.stdout
    sys.stdout = GuardedOutput(stdout)  # type: ignore[assignment]
    try:
        return _run(argv, as_json)
    finally:
        sys.stdout = stdout


def _run(argv: list[str], as_json: bool) -> int:
    try:
        args = build_parser().parse_args(argv)
        func: Callable[[argparse.Namespace], int] = args.func
        code = func(args)
        sys.stdout.flush()
        return code
    except SystemExit as e:  # --help / --version (0)
        return int(e.code or 0) if not isinstance(e.code, str) else EXIT_ERROR
    except InputError as e:
        report_error(e.field, e.message, as_json)
        return EXIT_ERROR
    except MemoryError:
        report_error("request", "not enough memory for this input; use a smaller problem or design", as_json)
        return EXIT_ERROR
    except OutputError as e:
        _quiet_stdout()
        if isinstance(e.error, BrokenPipeError):  # `eqattn ... | head`: the reader left
            return EXIT_OK
        why = e.error.strerror or str(e.error)
        report_error("output", f"cannot write the output: {why} (errno {e.error.errno})", False)
        return EXIT_ERROR
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:  # a bug: show it, and say so on the last line
        traceback.print_exc()
        report_error("internal", f"{type(e).__name__}: {e} (a bug in eqattn; please report it with the command)", as_json)
        return EXIT_BUG


def _quiet_stdout() -> None:
    """The reader closed stdout (`eqattn ... | head`): drop what is left, exit quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (tests)
        pass


if __name__ == "__main__":
    sys.exit(main())
