"""Probe the CLI and the Python API with bad and extreme input; classify every answer.

Run: .venv/bin/python benchmarks/probe_cli.py [--only cli|python] [--json FILE] [--show CLASS]

Each case runs in a forked child (the parent imports eqattn, numpy and torch once, so a case
costs no interpreter start-up) with a wall-clock limit; a child still running then is a hang.

CLI invocations (`eqattn.cli.main.main(argv)`, stdout/stderr captured, `/dev/full` or a
closed pipe as stdout where the case says so) are classified as

* ``one-line``: exit 2, stderr is exactly one line ``error: <field>: <message>``, stdout empty
  (with ``--json``: stdout one JSON object ``{"field", "message"}``) -- the promise;
* ``answer``: exit 0 or 1 for an extreme but valid input (a report; ``1`` = "no");
* ``silent``: exit 0/1 for input that is invalid (silently accepted);
* ``broken``: anything else: a traceback, several lines, an exit status outside 0/1/2;
* ``hang``: still running at the limit.

Python API calls are classified as ``clear`` (an ``eqattn.errors.InputError`` -- incl. its
``TypeError`` subclass -- naming the argument, one line), ``conventional`` (another exception
of the builtin families ``TypeError`` / ``ValueError`` / ``LookupError`` / ``OSError`` with a
one-line message: the torch layer's, ``json``'s, a missing file),
``accepted`` (a valid call that succeeded), ``unclear`` (any other exception, e.g. a raw
``AttributeError``, or a valid call refused), ``silent`` (bad input accepted) or ``hang``.

Each child may add at most 4 GiB of address space (a runaway allocation fails there instead
of exhausting the machine). Prints one line per category and the cases that broke the promise; run it on another
checkout with ``PYTHONPATH=/path/to/checkout`` to compare (the probe uses only public names).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from typing import Any, Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")  # the children fork from this process

import numpy as np  # noqa: E402
import torch  # noqa: E402

import eqattn  # noqa: E402
from eqattn.cli.main import main  # noqa: E402
from eqattn.errors import InputError  # noqa: E402

torch.set_num_threads(1)
LIMIT_S = 45.0
CHILD_MEMORY = 4 << 30  # bytes of address space a child may add (a runaway allocation fails, not the machine)


def _cap_memory() -> None:
    """In a child: at most CHILD_MEMORY more address space than the parent had."""
    import resource

    with open("/proc/self/statm") as f:
        vsz = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (vsz + CHILD_MEMORY, vsz + CHILD_MEMORY))
LINE = re.compile(r"^error: (\S+): (.+)$")

P = ["-G", "C4", "-V", "E1", "-H", "2", "-d", "1"]
C2 = ["-G", "C2", "-V", "A + B", "-H", "1", "-d", "1"]
PERM500 = "perm:(1,2,3,4),(5,6,7,8,9),(10,11,12,13,14),(15,16,17,18,19)"


# ----- the CLI cases ------------------------------------------------------------------------
def _grid(tmp: str, name: str, data: bytes) -> str:
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def cli_cases(tmp: str, busy_port: int) -> list[tuple[str, list[str], str]]:
    """(stdout kind, argv, expect): stdout "pipe" | "full" | "closed"; expect "reject" | "answer"."""
    bad_groups = [
        "Q9", "", " ", "C0", "C61", "C-1", "D31", "C2^9", "S6", "A6", "C60xC60", "C2 x", "x C2", "pg:S0", "pg:C13",
        "D4\x01", "Ｃ4", "C" * 10000, "perm:", "perm:(1,2", "perm:(1,2))", "perm:(0,1)", "perm:(1,31)",
        "perm:(1,1)", "perm:(a,b)", "perm:(1,2),,(3,4)", "perm:" + "(1,2)" * 5000, "mat:", "mat:[[cos(1e999)]]",
        "mat:[[1e999]]", "mat:[[2]]", "mat:[[1,0],[0]]", "mat:[[nan]]", "mat:[[inf]]", "mat:[[x]]",
        "mat:[[__import__('os')]]", "mat:[[sqrt(-1)]]", "mat:[[1/0]]", "mat:[[(-1)^0.5]]", "mat:[[2^99999]]",
        "mat:" + "[" * 5000, "mat:[[cos(1),-sin(1)],[sin(1),cos(1)]]", "mat:[[1]];[[1,0],[0,1]]",
        "mat:[[1e300*1e300-1e300*1e300]]", "mat:[[sin(1e308*10)]]",
    ]
    out: list[tuple[str, list[str], str]] = []
    out += [("pipe", ["group", g], "reject") for g in bad_groups]
    out += [("pipe", ["clusterings", "-G", g, "-V", "A", "-H", "1", "-d", "1"], "reject") for g in bad_groups[:30]]
    bad_reps = ["", "0", "E9", "2xE1 +", "+", "xE1", "2x", "1.5xA", "1e3xA", "2E1", "=-1xA", "999999999999xA",
                "A+" * 10000 + "A", "regular^2", "perm:Z", "vector", "E1 E1", "2*A", "A,B", "0xA", "nanxA"]
    for r in bad_reps:
        rep = ["-V" + r] if r.startswith("=") else ["-V", r]
        out.append(("pipe", ["clusterings", "-G", "C4", *rep, "-H", "1", "-d", "1"], "reject"))
    for v in ["0", "-1", "1.5", "inf", "nan", "1e3", "2**10", "", " ", "0x10", "9" * 5000, "٣٣٣"]:
        out.append(("pipe", ["clusterings", "-G", "C4", "-V", "E1", f"-H={v}", "-d", "1"], "reject"))
        out.append(("pipe", ["clusterings", "-G", "C4", "-V", "E1", "-H", "1", f"-d={v}"], "reject"))
    out.append(("pipe", ["clusterings", "-G", "C4", "-V", "E1", "-H", "65", "-d", "1"], "reject"))
    out.append(("pipe", ["clusterings", "-G", "C4", "-V", "E1", "-H", "1", "-d", "257"], "reject"))
    # extreme but valid: the trivial group, the largest d, a full-width digit (Python's int),
    # an orbit of dimension 0 (no heads' worth of parameters: not covered, exit 1)
    out.append(("pipe", ["group", "perm:()()"], "answer"))
    out.append(("pipe", ["clusterings", "-G", "C4", "-V", "E1", "-H", "1", "-d", "256"], "answer"))
    out.append(("pipe", ["clusterings", "-G", "C4", "-V", "２xA", "-H", "1", "-d", "1"], "answer"))
    out.append(("pipe", ["check", *C2, "-o", "C2:0"], "answer"))
    for o in ["C2", ":B", "C2:", "Z9:A", "99:A", "-5:A", "C2:Q", "C2:1000000000xB", "1.5:A",
              "C2.9:A", "C2:" + "B+" * 5000 + "B", "C1:9999xA"]:
        out.append(("pipe", ["check", *C2, f"-o={o}"], "reject"))
    out.append(("pipe", ["check", *C2, *(["-o", "C2:A"] * 65)], "reject"))
    for seed in ["-1", "abc", "4294967296", "1e3", ""]:
        out.append(("pipe", ["verify", *C2, "-o", "C2:A + B", f"--seed={seed}"], "reject"))
    for tl in ["nan", "inf", "-0", "", "abc", "0", "1e9", "-5"]:
        out.append(("pipe", ["optimize", *P, f"--time-limit={tl}"], "reject"))
    for flag, vals in (("--max-heads", ["0", "-1", "abc", "1e99"]), ("--max-head-dim", ["0", "x"]),
                       ("--work-limit", ["0", "-1", "abc", "1e99"]), ("--engine", ["bogus"]), ("--solver", ["gurobi"])):
        out += [("pipe", ["optimize", *P, f"{flag}={v}"], "reject") for v in vals]
    out.append(("pipe", ["optimize", "-G", PERM500, "-V", "trivial", "-H", "2", "-d", "2", "--time-limit", "1"], "reject"))
    out.append(("pipe", ["optimize", *P, "--time-limit", "0.001"], "answer"))
    out.append(("pipe", ["optimize", "-G", "C2", "-V", "6xA + 6xB", "-H", "2", "-d", "256", "--time-limit", "2"], "answer"))
    for argv in (["--port", "0"], ["--port", "65536"], ["--port", "abc"], ["--port", ""], ["--port", str(busy_port)],
                 ["--host", "999.999.999.999"], ["--host", "a" * 300], ["--host", "8.8.8.8"], ["--host", "::99999"],
                 ["--port", str(busy_port), "--json"], ["--host", "999.1.1.1", "--json"], ["--bogus"]):
        out.append(("pipe", ["serve", *argv], "reject"))
    grids = {
        "huge.toml": b'heads = [9223372036854775807]\n[[group]]\nname = "C2"\nreps = ["regular"]\n',
        "latin1.toml": b'title = "\xe9t\xe9"\n[[group]]\nname = "C2"\nreps = ["regular"]\n',
        "nothing.toml": b'[[group]]\nname = "C4"\nreps = ["irreps>=99999999999999999999"]\n',
        "none.toml": b'[[group]]\nname = "C4"\nreps = ["irreps>=3"]\n',
        "bad.toml": b'heads = [1,\n',
        "mat.toml": b'[[group]]\nname = "mat:[[cos(1e999)]]"\nreps = ["regular"]\n',
        "dims.toml": b'head_dims = [0]\n[[group]]\nname = "C2"\nreps = ["regular"]\n',
        "key.toml": b'colour = 1\n[[group]]\nname = "C2"\nreps = ["regular"]\n',
        "empty.toml": b'',
        "rep.toml": b'[[group]]\nname = "C2"\nreps = ["E9"]\n',
    }
    ok_grid = _grid(tmp, "ok.toml", b'[[group]]\nname = "C2"\nreps = ["A + B"]\n')
    atlas_out = os.path.join(tmp, "atlas-out")
    for name, data in grids.items():
        out.append(("pipe", ["atlas", _grid(tmp, name, data), "--out", atlas_out, "--workers", "0"], "reject"))
    for extra in (["--workers", "-1"], ["--workers", "100000"], ["--time-limit", "nan"], ["--time-limit", "-1"],
                  ["--time-limit", "abc"], ["--export", "xls"], ["--retry", "bogus"]):
        out.append(("pipe", ["atlas", ok_grid, "--out", atlas_out, *extra], "reject"))
    out.append(("pipe", ["atlas", os.path.join(tmp, "missing.toml")], "reject"))
    out.append(("pipe", ["atlas", tmp, "--out", atlas_out], "reject"))
    for argv in (["group", "D4", "--json"], ["groups"], ["clusterings", *P], ["check", *P, "-o", "C2:B", "--json"],
                 ["group", "Oh"]):
        out.append(("full", argv, "reject"))
    for argv in (["group", "S4", "--json"], ["groups"]):
        out.append(("closed", argv, "answer"))
    json_errors = [["group", "Q9"], ["clusterings", "-G", "C4"], ["clusterings", *C2[:-1], "0"],
                   ["check", *C2, "-o", "C2:Q"], ["optimize", *P, "--time-limit", "-1"], ["groups", "extra"],
                   ["verify", *C2, "--seed", "abc"], ["group", "mat:[[cos(1e999)]]"]]
    out += [("pipe", [*a, "--json"], "reject") for a in json_errors]
    out += [("pipe", ["frobnicate"], "reject"), ("pipe", [], "reject"), ("pipe", ["design", *P], "reject")]
    return out


def run_cli(kind: str, argv: list[str]) -> dict[str, Any]:
    """Fork; in the child run main(argv) with fds 1 and 2 on files (or /dev/full, a closed pipe)."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        sys.stdout.flush()
        sys.stderr.flush()
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:  # child
            _cap_memory()
            try:
                if kind == "full":
                    os.dup2(os.open("/dev/full", os.O_WRONLY), 1)
                elif kind == "closed":
                    r, w = os.pipe()
                    os.close(r)
                    os.dup2(w, 1)
                else:
                    os.dup2(fo.fileno(), 1)
                os.dup2(fe.fileno(), 2)
                code = main(list(argv))
                try:
                    sys.stdout.flush()
                except Exception:  # noqa: BLE001 - what Python's exit would report
                    code = 120
                os._exit(int(code) & 0xFF)
            except SystemExit as e:
                os._exit(int(e.code or 0) if isinstance(e.code, int) else 1)
            except BaseException:  # noqa: BLE001 - an escaped exception: a traceback, exit 1
                import traceback

                traceback.print_exc()
                sys.stderr.flush()
                os._exit(1)
        status = _wait(pid, LIMIT_S)
        took = time.monotonic() - t0
        fo.seek(0)
        fe.seek(0)
        return {"status": status, "out": fo.read().decode(errors="replace"), "err": fe.read().decode(errors="replace"),
                "s": round(took, 2)}


def _wait(pid: int, limit: float) -> int | None:
    """The child's exit status, or None (killed) if it ran past `limit` seconds."""
    deadline = time.monotonic() + limit
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.01)


def classify_cli(kind: str, argv: list[str], expect: str, r: dict[str, Any]) -> str:
    if r["status"] is None:
        return "hang"
    err = r["err"]
    if "Traceback" in err:
        return "broken"
    if r["status"] in (0, 1):
        if kind == "closed":
            return "answer" if err == "" else "broken"
        return "answer" if expect == "answer" else "silent"
    if r["status"] != 2:
        return "broken"
    lines = err.splitlines()
    if len(lines) != 1 or not err.endswith("\n") or not LINE.match(lines[0]):
        return "broken"
    if "--json" in argv and kind == "pipe":
        try:
            data = json.loads(r["out"])
        except ValueError:
            return "broken"
        if not isinstance(data, dict) or set(data) != {"field", "message"}:
            return "broken"
    elif r["out"] != "":
        return "broken"
    return "one-line"


# ----- the Python API cases -----------------------------------------------------------------
def python_cases() -> list[tuple[str, Callable[[], Any], str]]:
    """(name, call, expect "reject" | "accept")."""
    from eqattn.torch import EquivariantAttention as EA
    from eqattn.torch.interop import from_e3nn, from_escnn

    G = eqattn.group("C4")
    V = eqattn.rep(G, "E1")
    prob = eqattn.Problem(G, V, heads=2, head_dim=1)
    d = eqattn.Design.create(prob, [("C2", "B")])
    D = eqattn.Design
    J = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "orbits": [{"subgroup": "C2", "rep": "B"}]}

    def layer() -> Any:
        return EA.from_design(d, dtype=torch.float64)

    def j(**kw: Any) -> dict:
        return {**J, **kw}

    cases: list[tuple[str, Callable[[], Any], str]] = []
    add = cases.append
    for spec in [5, None, b"D4", ["D4"], 3.5, True, object(), "Q9", "", "mat:[[cos(1e999)]]", "perm:(1,1)",
                 "C" * 100000, "mat:[[1e999]]", "perm:(1,2", "mat:[[sqrt(-1)]]"]:
        add((f"group({spec!r:.30})", lambda s=spec: eqattn.group(s), "reject"))
    for g, text in [(None, "E1"), ("C4", "E1"), (G, None), (G, 5), (G, ""), (G, "E9"), (G, "1e9xA"), (G, b"A"),
                    (G, ["A"]), (G, "9" * 5000 + "xA"), (G, "2xE1 +"), (G, "vector")]:
        add((f"rep({g!r:.12}, {text!r:.20})", lambda g=g, t=text: eqattn.rep(g, t), "reject"))
    for k, v in [("heads", 0), ("heads", -1), ("heads", 1.5), ("heads", True), ("heads", "2"), ("heads", None),
                 ("heads", 10**9), ("heads", np.float64(2)), ("head_dim", 0), ("head_dim", 2.0), ("head_dim", "1"),
                 ("head_dim", 10**6), ("head_dim", [1])]:
        kw = {"heads": 2, "head_dim": 1, k: v}
        add((f"Problem({k}={v!r})", lambda kw=kw: eqattn.Problem(G, V, **kw), "reject"))
    add(("Problem(heads=np.int64(2))", lambda: eqattn.Problem(G, V, np.int64(2), 2), "accept"))
    add(("Problem(head_dim=np.int32(1))", lambda: eqattn.Problem(G, V, 2, np.int32(1)), "accept"))
    add(("Problem('C4', V)", lambda: eqattn.Problem("C4", V, 2, 1), "reject"))
    add(("Problem(G, 'E1')", lambda: eqattn.Problem(G, "E1", 2, 1), "reject"))
    add(("Problem(G, V of C2)", lambda: eqattn.Problem(G, eqattn.rep(eqattn.group("C2"), "A"), 2, 1), "reject"))
    add(("Problem(G, 0)", lambda: eqattn.Problem(G, eqattn.rep(G, "0"), 2, 1), "reject"))
    for args in [("C4", "E1", 0, 1), ("C4", "E1", "x", 1), ("C4", "", 1, 1), ("Q9", "A", 1, 1), ("C4", "E1", 1, "1e9")]:
        add((f"Problem.create{args!r}", lambda a=args: eqattn.Problem.create(*a), "reject"))
    for orbits in ["C2:B", None, 5, [("C2",)], [("Z9", "A")], [("C2", "Q")], [(None, "A")], [("C2", None)],
                   [("C2", "1000000000xB")], [("C2", "A")] * 65, [(1.5, "A")], [(True, "A")], [(-1, "A")],
                   [(10**20, "A")], [("C2", "100000xB")]]:
        add((f"Design.create(p, {orbits!r:.30})", lambda o=orbits: D.create(prob, o), "reject"))
    add(("Design.create('C4', ...)", lambda: D.create("C4", [("C2", "B")]), "reject"))
    add(("Design.create(G, ...)", lambda: D.create(G, [("C2", "B")]), "reject"))
    for data in [None, [], {"orbits": None}, {"orbits": [1]}, {"orbits": [{"subgroup": 0}]},
                 {"orbits": [{"subgroup": 0, "rep": "A", "count": 10**9}]},
                 {"orbits": [{"subgroup": 0, "rep": "A", "count": 0}]},
                 {"orbits": [{"subgroup": 0, "rep": "A", "count": True}]},
                 {"orbits": [{"subgroup": 0, "rep": "A", "count": 2.5}]},
                 {"orbits": [{"subgroup": 0, "rep": "A", "count": "3"}]},
                 {"orbits": [{"subgroup": 0, "rep": "A", "count": 40}] * 2}]:
        add((f"Design.from_json(p, {data!r:.40})", lambda x=data: D.from_json(prob, x), "reject"))
    add(("Design.regular(None)", lambda: D.regular(None), "reject"))
    add(("design.check('x')", lambda: d.check("x"), "reject"))
    add(("design.covers('x')", lambda: d.covers("x"), "reject"))
    add(("design.covers(G)", lambda: d.covers(G), "reject"))
    add(("design.covers(other problem)", lambda: d.covers(eqattn.Problem(G, V, 3, 1)), "reject"))
    add(("optimal_design(None)", lambda: eqattn.optimal_design(None), "reject"))
    add(("optimal_design('D4')", lambda: eqattn.optimal_design("D4"), "reject"))
    add(("optimal_design(design)", lambda: eqattn.optimal_design(d), "reject"))
    for tl in [True, "30", -1, 0, float("nan"), float("inf"), 1e9, []]:
        add((f"optimal_design(time_limit={tl!r})", lambda t=tl: eqattn.optimal_design(prob, time_limit=t), "reject"))
    for th in ["x", 0, -1, 1.5, True, 10**9]:
        add((f"optimal_design(threads={th!r})", lambda t=th: eqattn.optimal_design(prob, threads=t), "reject"))
    add(("from_design(problem)", lambda: EA.from_design(prob), "reject"))
    add(("from_design(None)", lambda: EA.from_design(None), "reject"))
    add(("from_design('x')", lambda: EA.from_design("x"), "reject"))
    add(("from_design(dtype='float64')", lambda: EA.from_design(d, dtype="float64"), "reject"))
    add(("from_design(dtype=torch.int64)", lambda: EA.from_design(d, dtype=torch.int64), "reject"))
    add(("from_design(basis='x')", lambda: EA.from_design(d, basis="x"), "reject"))
    add(("from_design(rep_matrices=['x'])", lambda: EA.from_design(d, rep_matrices=["x"]), "reject"))
    add(("from_design(rep_matrices=[eye(3)])", lambda: EA.from_design(d, rep_matrices=[np.eye(3)]), "reject"))
    add(("from_design(rep_matrices=[])", lambda: EA.from_design(d, rep_matrices=[]), "reject"))
    add(("from_design(device='nope')", lambda: EA.from_design(d, device="nope"), "reject"))
    for obj in [None, "{", "/nonexistent.json", {}, j(heads=2.7), j(heads=True), j(heads=0), j(group="Q9"),
                j(orbits=[{"subgroup": 0, "rep": "A", "count": 10**9}]), j(orbits=None), j(orbits=[{"rep": "A"}]),
                j(design_params=999)]:
        add((f"from_json({obj!r:.40})", lambda o=obj: EA.from_json(o), "reject"))
    add(("layer(numpy array)", lambda: layer()(np.zeros((1, 3, 2))), "reject"))
    add(("layer('x')", lambda: layer()("x"), "reject"))
    add(("layer(wrong last dim)", lambda: layer()(torch.zeros(1, 3, 5, dtype=torch.float64)), "reject"))
    for g in [1.5, -1, 100, "1", None, True]:
        add((f"group_action({g!r})", lambda g=g: layer().group_action(g), "reject"))
    add(("load_design_weights([])", lambda: layer().load_design_weights([]), "reject"))
    add(("from_vanilla(design, None)", lambda: EA.from_vanilla(d, None), "reject"))
    add(("from_escnn(object())", lambda: from_escnn(object()), "reject"))
    add(("from_e3nn('garbage')", lambda: from_e3nn("garbage"), "reject"))
    add(("from_e3nn('1o', 'C4')", lambda: from_e3nn("1o", "C4"), "reject"))
    add(("from_e3nn(5)", lambda: from_e3nn(5), "reject"))
    from eqattn.atlas import parse_grid

    for grid in [{}, {"group": 5}, {"heads": [2**63], "group": [{"name": "C2", "reps": ["regular"]}]},
                 {"title": 5, "group": [{"name": "C2", "reps": ["regular"]}]},
                 {"group": [{"name": "C4", "reps": ["irreps>=99999999999999999999"]}]},
                 {"group": [{"name": "mat:[[cos(1e999)]]", "reps": ["regular"]}]},
                 {"time_limit": float("nan"), "group": [{"name": "C2", "reps": ["regular"]}]},
                 {"group": [{"name": "C2", "reps": "regular"}]}]:
        add((f"parse_grid({grid!r:.40})", lambda x=grid: parse_grid(x), "reject"))
    return cases


def run_python(call: Callable[[], Any]) -> dict[str, Any]:
    """Fork; the child makes the call and writes (outcome, exception type, message) to a pipe."""
    r, w = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        _cap_memory()
        os.close(r)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            call()
            res = {"raised": None}
        except BaseException as e:  # noqa: BLE001 - classified by the parent
            conventional = isinstance(e, (TypeError, ValueError, LookupError, OSError))  # a builtin family
            res = {"raised": type(e).__name__, "input_error": isinstance(e, InputError), "conventional": conventional,
                   "field": getattr(e, "field", None), "message": str(e)[:500]}
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    status = _wait(pid, LIMIT_S)
    data = b""
    while select.select([r], [], [], 0)[0]:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    if status is None:
        return {"hang": True}
    return json.loads(data or b'{"raised": "crash"}')


def classify_python(expect: str, r: dict[str, Any]) -> str:
    if r.get("hang"):
        return "hang"
    if r["raised"] is None:
        return "accepted" if expect == "accept" else "silent"
    if expect == "accept":
        return "unclear"
    one = "\n" not in r["message"] and r["message"]
    if r["input_error"] and r["field"] and one:
        return "clear"
    if r.get("conventional") and one:
        return "conventional"
    return "unclear"


def main_probe() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=("cli", "python"), default=None)
    ap.add_argument("--json", default=None, help="write every case and its class to this file")
    ap.add_argument("--show", action="append", default=[], help="print the cases of this class (repeat)")
    args = ap.parse_args()
    report: dict[str, Any] = {"eqattn": os.path.dirname(eqattn.__file__)}
    print(f"eqattn from {report['eqattn']}")
    with tempfile.TemporaryDirectory() as tmp:
        busy = socket.socket()
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        if args.only in (None, "cli"):
            rows = []
            t0 = time.monotonic()
            for kind, argv, expect in cli_cases(tmp, busy.getsockname()[1]):
                r = run_cli(kind, argv)
                cls = classify_cli(kind, argv, expect, r)
                rows.append({"argv": argv, "stdout": kind, "expect": expect, "class": cls, "status": r["status"],
                             "s": r["s"], "err": r["err"][-400:]})
            counts = Counter(row["class"] for row in rows)
            bad = sum(counts[c] for c in ("broken", "silent", "hang"))
            print(f"CLI: {len(rows)} invocations in {time.monotonic() - t0:.0f} s: " +
                  ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f"; broke the one-line promise: {bad}")
            for row in rows:
                if row["class"] in ("broken", "silent", "hang") or row["class"] in args.show:
                    argv_text = " ".join(a if len(a) < 40 else a[:37] + "..." for a in row["argv"])
                    tail = row["err"].strip().splitlines()[-1:] if row["err"].strip() else [""]
                    print(f"  [{row['class']}] exit {row['status']} eqattn {argv_text}"
                          + (f" > /dev/{row['stdout']}" if row["stdout"] != "pipe" else "") + f"  :: {tail[0][:150]}")
            report["cli"] = rows
        busy.close()
    if args.only in (None, "python"):
        rows = []
        t0 = time.monotonic()
        for name, call, expect in python_cases():
            r = run_python(call)
            cls = classify_python(expect, r)
            rows.append({"call": name, "expect": expect, "class": cls, **r})
        counts = Counter(row["class"] for row in rows)
        bad = sum(counts[c] for c in ("unclear", "silent", "hang"))
        print(f"Python API: {len(rows)} calls in {time.monotonic() - t0:.0f} s: " +
              ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f"; unclear or silent: {bad}")
        for row in rows:
            if row["class"] in ("unclear", "silent", "hang") or row["class"] in args.show:
                print(f"  [{row['class']}] {row['call']}  :: {row.get('raised')}: {str(row.get('message'))[:150]}")
        report["python"] = rows
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main_probe()
