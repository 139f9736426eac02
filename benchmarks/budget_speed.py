"""Measured speed next to the count: the designs of a problem's front and its best
partial-coverage designs, each as a PyTorch layer timed against nn.MultiheadAttention.

    PYTHONPATH=. .venv/bin/python benchmarks/budget_speed.py                  # the default problems (long)
    PYTHONPATH=. .venv/bin/python benchmarks/budget_speed.py --only C4:96xregular:6:64
    PYTHONPATH=. .venv/bin/python benchmarks/budget_speed.py --only task:digits-C4 --json /tmp/speed.json
    PYTHONPATH=. .venv/bin/python benchmarks/budget_speed.py --device cuda    # on a GPU
    PYTHONPATH=. .venv/bin/python benchmarks/budget_speed.py --reuse /tmp/speed.json   # time those designs again

Per problem ``(G, V, H, d)`` (``--only G:V:H:d`` or ``task:<name>`` of
benchmarks/tasks/designs.py; default: C4 96xregular H6 d64, D4 48xregular H6 d64, Oh
64x(vector + trivial) H8 d32 and every task problem), the designs shown to a user:

* ``front k/n``: every point of ``eqattn.optimize.front`` (attention cost, parameters; its
  status, optimal or feasible);
* ``partial (H, d)`` and ``partial (2H, d)``: ``eqattn.optimize.partial_coverage`` with
  ``max_heads`` and ``max_head_dim`` (covered of all clusterings, proven or not), and
  ``partial (cost <= H d)`` with ``max_cost = H d`` (the design benchmarks/tasks trains as
  ``eqattn-partial``); a size the budget program refuses, or a budget within which no design
  was found, is a row that says so (no time);
* ``regular``: H copies of the regular orbit (C1, d x trivial), the vanilla count, as a
  reference.

Each question runs in its own spawned process (address space capped by ``--memory-gb``, killed
after 2 x the time limit + 30 s). Then, in one run, the forward+backward time of every design's
``EquivariantAttention`` and of ``nn.MultiheadAttention(embed_dim = dim V, num_heads = H,
bias=False)`` (the vanilla shape; ``VanillaAttention(H, d, dim V)`` when H does not divide dim V)
on the same input (batch x tokens x dim V), timed round robin (benchmarks/torch_layer.py
``timings``): ``time ratio`` is the design's fastest run over MHA's fastest (the median ratio is
in the JSON), ``cost ratio`` the design's attention cost ``Σ heads x head dim`` over ``H d``.
Columns: attention cost, heads, widest head, the design's parameters (= the layer's weights),
parameters over the vanilla count, status, ms, time ratio, cost ratio, and the wall time of
the optimiser's call that gave the row (the front's, for each of its points).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import multiprocessing as mp
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT = ["C4:96xregular:6:64", "D4:48xregular:6:64", "Oh:64xvector + 64xtrivial:8:32",
           "task:nbody-Oh", "task:nbody-D4h", "task:digits-C4", "task:digits-D4", "task:pointcloud-O"]


@dataclass
class Row:
    """One design shown for a problem (``design`` None: none to time; ``status`` says why)."""

    kind: str
    status: str
    design: object = None  # eqattn.Design
    seconds: float = 0.0  # the optimiser's wall time for this row's question
    note: str = ""
    timing: dict = field(default_factory=dict)  # ms (median, min) and ratios, after measure()

    def to_json(self, vanilla_cost: int, vanilla_params: int) -> dict:
        out = {"kind": self.kind, "status": self.status, "seconds": round(self.seconds, 2), "note": self.note}
        if self.design is not None:
            from eqattn.optimize.limits import attention_cost

            d = self.design
            out.update(attention_cost=attention_cost(d), heads=d.heads,
                       max_head_dim=max((o.head_dim for o in d.orbits), default=0), params=d.params,
                       params_ratio=d.params / vanilla_params, cost_ratio=attention_cost(d) / vanilla_cost,
                       orbits=d.to_json()["orbits"])
        return {**out, **self.timing}


def parse_problem(text: str):  # noqa: ANN201
    """``G:V:H:d`` (G may contain colons, e.g. ``mat:...``) or ``task:<name>``."""
    from eqattn.attention import Problem
    from eqattn.errors import InputError

    if text.startswith("task:"):
        from benchmarks.tasks import designs as dz

        name = text[5:]
        if name not in dz.PROBLEMS:
            raise InputError("--only", f"unknown task problem {name!r}; choose from {', '.join(dz.PROBLEMS)}")
        return dz.problem(*dz.PROBLEMS[name])
    parts = text.rsplit(":", 3)
    if len(parts) != 4 or not parts[2].isdigit() or not parts[3].isdigit():
        raise InputError("--only", f"{text!r}: write G:V:H:d, e.g. C4:96xregular:6:64, or task:<name>")
    return Problem.create(parts[0], parts[1], int(parts[2]), int(parts[3]))


def _front_rows(problem, time_limit: float) -> list[Row]:  # noqa: ANN001
    from eqattn.optimize import front

    t0 = time.perf_counter()
    f = front(problem, time_limit)
    secs = time.perf_counter() - t0
    if not f.points:
        return [Row("front", f"none ({f.status})", None, secs, f.reason)]
    n = len(f.points)
    tail = "" if f.status == "optimal" else f"; front {f.status}"
    return [Row(f"front {k + 1}/{n}", q.status + (tail if k == n - 1 else ""), q.design, secs, f.reason if k == n - 1 else "")
            for k, q in enumerate(f.points)]


def _partial_row(problem, time_limit: float, **budget: int) -> Row:  # noqa: ANN001
    """``partial_coverage`` within ``budget`` (max_heads and max_head_dim, or max_cost)."""
    from eqattn.errors import LimitError
    from eqattn.optimize import partial_coverage

    kind = (f"partial (cost <= {budget['max_cost']})" if "max_cost" in budget
            else f"partial ({budget['max_heads']}, {budget['max_head_dim']})")
    t0 = time.perf_counter()
    try:
        r = partial_coverage(problem, time_limit, **budget)
    except LimitError as exc:
        return Row(kind, "refused", None, time.perf_counter() - t0, str(exc))
    secs = time.perf_counter() - t0
    if r.design is None or not r.design.orbits:
        if r.upper_bound == 0:  # proven: no design within the budget covers a clustering
            return Row(kind, f"covers 0/{r.of} ({r.status})", None, secs,
                       "no design within this budget covers any clustering" + (" (proven)" if r.status == "optimal" else ""))
        return Row(kind, f"no design ({r.status})", None, secs,
                   (f"stopped by {r.stopped_by}; " if r.stopped_by else "") + f"at most {r.upper_bound} of {r.of} clusterings")
    return Row(kind, f"covers {r.covered}/{r.of} ({r.status})", r.design, secs, r.statement())


QUESTIONS = ("front", "partial-H", "partial-2H", "partial-cost", "regular")


def collect(problem, time_limit: float = 60.0, questions=QUESTIONS) -> list[Row]:  # noqa: ANN001
    """The rows of a problem, in process: the front's points (``front``), the best partial
    coverage at (H, d), (2H, d) and attention cost <= H d (``partial-H``, ``partial-2H``,
    ``partial-cost``), the regular design (``regular``); each question with ``time_limit``."""
    from eqattn.attention import Design

    H, d = problem.heads, problem.head_dim
    budgets = {"partial-H": {"max_heads": H, "max_head_dim": d}, "partial-2H": {"max_heads": 2 * H, "max_head_dim": d},
               "partial-cost": {"max_cost": H * d}}
    rows: list[Row] = []
    for question in questions:
        if question == "front":
            rows += _front_rows(problem, time_limit)
        elif question == "regular":
            rows.append(Row("regular", "covers (reference)", Design.regular(problem)))
        else:
            rows.append(_partial_row(problem, time_limit, **budgets[question]))
    return rows


def _child(text: str, question: str, time_limit: float, gb: float, out) -> None:  # noqa: ANN001
    limit = int(gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        rows = collect(parse_problem(text), time_limit, (question,))
        out.put([(r.kind, r.status, None if r.design is None else r.design.to_json(), r.seconds, r.note) for r in rows])
    except Exception as exc:  # noqa: BLE001 - reported as a row
        refused = type(exc).__name__ in ("LimitError", "InputError")
        out.put([(question, "refused" if refused else "error", None, 0.0, f"{type(exc).__name__}: {exc}")])


def collect_isolated(text: str, time_limit: float, gb: float) -> list[Row]:
    """:func:`collect`, each question but ``regular`` in a fresh (spawned) process: a memory
    cap, killed after 2 tl + 30 s. Spawned, not forked: a fork of a process whose solver or
    torch threads ran can hang in the child."""
    from eqattn.attention import Design

    problem = parse_problem(text)
    rows: list[Row] = []
    ctx = mp.get_context("spawn")
    for question in QUESTIONS[:-1]:
        q = ctx.Queue()
        proc = ctx.Process(target=_child, args=(text, question, time_limit, gb, q))
        t0 = time.perf_counter()
        proc.start()
        try:
            got = q.get(timeout=2 * time_limit + 30)
        except Exception:  # noqa: BLE001 - the child died or hung
            got = [(question, "killed", None, time.perf_counter() - t0,
                    f"no answer within {2 * time_limit + 30:.0f} s (exit code {proc.exitcode})")]
        proc.kill()
        proc.join()
        rows += [Row(k, s, None if js is None else Design.from_json(problem, js), secs, note) for k, s, js, secs, note in got]
    return rows + collect(problem, time_limit, ("regular",))


def reused(path: str, only: list[str] | None) -> list[tuple[str, list[Row]]]:
    """The problems and rows of an earlier ``--json`` output (designs from their orbits;
    status, note and optimiser time as they were), for timing again without the optimiser."""
    from eqattn.attention import Design

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for entry in data["problems"]:
        if only is not None and entry["problem"] not in only:
            continue
        problem = parse_problem(entry["problem"])
        rows = [Row(r["kind"], r["status"], Design.from_json(problem, r) if "orbits" in r else None, r["seconds"], r["note"])
                for r in entry["rows"]]
        out.append((entry["problem"], rows))
    return out


def measure(problem, rows: list[Row], *, batch: int = 8, tokens: int = 128, reps: int = 7, warmup: int = 2,  # noqa: ANN001
            device: str = "cpu", dtype: str = "float32") -> dict:
    """Time every row's layer and the vanilla-shape baseline round robin in one run; fill
    ``row.timing``; return the baseline's description and times."""
    import torch

    from benchmarks.torch_layer import make_step, timings
    from eqattn.torch import EquivariantAttention, VanillaAttention

    dt = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16}[dtype]
    torch.manual_seed(0)
    n, H, d = problem.dim_v, problem.heads, problem.head_dim
    if n % H == 0:
        base = torch.nn.MultiheadAttention(n, H, bias=False, batch_first=True, dtype=dt, device=device)
        name = f"nn.MultiheadAttention(embed_dim={n}, num_heads={H}, bias=False)"
    else:
        base = VanillaAttention(H, d, n, dtype=dt, device=device)
        name = f"VanillaAttention({H}, {d}, {n}) (H does not divide dim V)"
    x = torch.randn(batch, tokens, n, dtype=dt, device=device)
    grad = torch.randn_like(x)
    steps = {"mha": make_step(base, x, grad, True)}
    layers = {}
    for i, r in enumerate(rows):
        if r.design is not None:
            layers[i] = EquivariantAttention.from_design(r.design, dtype=dt, device=device)
            steps[i] = make_step(layers[i], x, grad, True)
    res = timings(steps, reps, warmup, x.is_cuda)
    for i, layer in layers.items():
        (med, low), (bmed, blow) = res[i], res["mha"]
        rows[i].timing = {"ms": med * 1e3, "ms_min": low * 1e3, "time_ratio": low / blow, "time_ratio_median": med / bmed,
                          "layer_params": layer.num_parameters}
    bmed, blow = res["mha"]
    return {"module": name, "params": sum(p.numel() for p in base.parameters()), "ms": bmed * 1e3, "ms_min": blow * 1e3}


def table(problem, rows: list[Row], baseline: dict) -> str:  # noqa: ANN001
    """The markdown table of one problem (the baseline first)."""
    vc, vp = problem.heads * problem.head_dim, problem.vanilla_params
    lines = ["| design | attention cost | heads | widest head | params | params / vanilla | status | fwd+bwd ms | time ratio | cost ratio"
             " | optimiser s |",
             "|---|---|---|---|---|---|---|---|---|---|---|",
             f"| vanilla shape: {baseline['module']} | {vc} | {problem.heads} | {problem.head_dim} | {vp} | 1.00 | - | "
             f"{baseline['ms_min']:.1f} | 1.00 | 1.00 | - |"]
    for r in rows:
        js = r.to_json(vc, vp)
        if r.design is None:
            lines.append(f"| {r.kind} | - | - | - | - | - | {r.status}: {r.note[:140]} | - | - | - | {r.seconds:.1f} |")
            continue
        lines.append(f"| {r.kind} | {js['attention_cost']} | {js['heads']} | {js['max_head_dim']} | {js['params']} | "
                     f"{js['params_ratio']:.2f} | {r.status} | {js['ms_min']:.1f} | {js['time_ratio']:.2f} | {js['cost_ratio']:.2f} | "
                     f"{r.seconds:.1f} |")
    notes = [f"- {r.kind}: {r.note}" for r in rows if r.note and r.design is not None]
    return "\n".join(lines + ([""] + notes if notes else []))


def label(text: str) -> str:
    """A short name of a problem: ``C4 96xregular H6 d64``, ``digits-C4 (8xregular H2 d16)``."""
    if text.startswith("task:"):
        from benchmarks.tasks import designs as dz

        _, m, H, d = dz.PROBLEMS[text[5:]]
        return f"{text[5:]} ({m}xregular H{H} d{d})"
    g, v, H, d = text.rsplit(":", 3)
    return f"{g} {v} H{H} d{d}"


def summary(problems: list[dict]) -> str:
    """One line per timed design over every problem (the JSON of main), and a line per
    problem whose partial rows were all refused or empty."""
    lines = ["| problem | design | attention cost | params / vanilla | status | time ratio | cost ratio | time / cost |",
             "|---|---|---|---|---|---|---|---|"]
    for p in problems:
        name = label(p["problem"])
        for r in p["rows"]:
            if "time_ratio" in r:
                lines.append(f"| {name} | {r['kind']} | {r['attention_cost']} | {r['params_ratio']:.2f} | {r['status']} | "
                             f"{r['time_ratio']:.2f} | {r['cost_ratio']:.2f} | {r['time_ratio'] / r['cost_ratio']:.2f} |")
            else:
                lines.append(f"| {name} | {r['kind']} | - | - | {r['status']} | - | - | - |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=None, help="G:V:H:d or task:<name>, ';'-separated (default: the problems above)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per question (front; each partial budget)")
    ap.add_argument("--memory-gb", type=float, default=4.0)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32", choices=("float32", "float64", "bfloat16"))
    ap.add_argument("--json", default=None, help="write every row (and the settings) to this path")
    ap.add_argument("--reuse", default=None, help="time the designs of an earlier --json output again (no optimiser)")
    a = ap.parse_args(argv)
    import torch

    torch.set_num_threads(a.threads)
    specs = a.only.split(";") if a.only else DEFAULT
    earlier = dict(reused(a.reuse, a.only.split(";") if a.only else None)) if a.reuse else None
    if earlier is not None:
        specs = list(earlier)
    print(f"device={a.device} dtype={a.dtype} batch={a.batch} tokens={a.tokens} reps={a.reps} threads={a.threads} "
          f"torch={torch.__version__}; time limit {a.time_limit:g} s per question", flush=True)
    out = []
    for text in specs:
        problem = parse_problem(text)
        t0 = time.perf_counter()
        rows = earlier[text] if earlier is not None else collect_isolated(text, a.time_limit, a.memory_gb)
        t_opt = time.perf_counter() - t0
        baseline = measure(problem, rows, batch=a.batch, tokens=a.tokens, reps=a.reps, device=a.device, dtype=a.dtype)
        print(f"\n### {problem.group.name}, V = {problem.V} (dim {problem.dim_v}), H = {problem.heads}, d = {problem.head_dim}"
              f" ({text}; optimiser {t_opt:.0f} s, timing {time.perf_counter() - t0 - t_opt:.0f} s)\n", flush=True)
        print(table(problem, rows, baseline), flush=True)
        vc, vp = problem.heads * problem.head_dim, problem.vanilla_params
        out.append({"problem": text, "group": problem.group.name, "rep": str(problem.V), "dim_v": problem.dim_v,
                    "heads": problem.heads, "head_dim": problem.head_dim, "vanilla_params": vp, "vanilla_attention_cost": vc,
                    "baseline": baseline, "rows": [r.to_json(vc, vp) for r in rows]})
    print("\n### Summary (time ratio: fwd+bwd over nn.MultiheadAttention's; cost ratio: attention cost over H d)\n")
    print(summary(out), flush=True)
    if a.json:
        settings = {k: getattr(a, k) for k in ("time_limit", "batch", "tokens", "reps", "threads", "device", "dtype", "reuse")}
        Path(a.json).write_text(json.dumps({"settings": {**settings, "torch": torch.__version__}, "problems": out}, indent=1) + "\n",
                                encoding="utf-8")
        print(f"\nwrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
