"""Training, metrics and CSV rows shared by the task scripts (equal budget for every model).

Every model of a task gets the same depth, width ``d_model = H d = |G| m``, feed-forward width
``4 d_model``, optimiser (Adam, cosine schedule), epochs, batch size and data order for a seed;
the test metric is taken at the epoch with the best validation metric. Per run the row holds:
trainable parameters (all; of the attention layers, biases included; for eqattn also the
design's weights alone, ``attention_weights``, which must equal the optimiser's count), the attention cost per layer
(``sum heads x head dim``), the test metric(s), wall time per training epoch (1 thread; also its CPU time, ``epoch_cpu_s``, steadier on a shared machine) and the
measured equivariance error of the trained model,
``max_g |f(g.X) - g.f(X)| / |f(X)|`` (Frobenius norms over a test batch, float32, every element g).
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from torch import nn

from benchmarks.tasks import designs as dz
from benchmarks.tasks.models import EqModel, VanillaModel, count, eqattn_layer
from benchmarks.tasks.symmetry import TaskGroup

ROOT = Path(__file__).resolve().parents[2]
MODELS = ("vanilla", "vanilla+aug", "symm-learning", "eqattn-fewest", "eqattn-partial", "eqattn-regular")
PEER_VENV = ROOT / ".venv-peers"
COLUMNS = ["task", "group", "model", "seed", "status", "params", "attention_params", "attention_weights", "attention_cost", "heads",
           "metric", "value", "value_transformed", "epoch_s", "epoch_cpu_s", "epochs", "equivariance_error", "design", "note"]


class Unavailable(Exception):
    """A model that cannot be built here (the reason goes into the CSV row)."""


@dataclass
class Task:
    """One task at one group. ``data[split] = (X, Y)`` float32 arrays; ``extra_tests[name]``
    more test sets (e.g. rotated digits). ``out`` is ``"tokens"`` (per-token outputs of
    dimension ``b`` transforming by ``rho_out``) or the number of classes (invariant logits).
    ``base(X)`` is added to the model output (N-body: the input positions)."""

    name: str
    group: str
    tg: TaskGroup
    problem: tuple[str, int, int, int]
    data: dict
    out: str | int
    b: int = 0
    metric: str = "mse"
    base: Callable[[torch.Tensor], torch.Tensor] | None = None
    extra_tests: dict = field(default_factory=dict)
    transformed_name: str = ""

    @property
    def heads(self) -> int:
        return self.problem[2]

    @property
    def head_dim(self) -> int:
        return self.problem[3]

    @property
    def m(self) -> int:
        return self.problem[1]


@dataclass(frozen=True)
class Budget:
    epochs: int
    batch: int
    lr: float
    depth: int = 2


def act(task: Task, X: torch.Tensor, Y: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Apply group elements ``g (B,)`` to a batch: inputs by ``rho_in``, per-token outputs by ``rho_out``."""
    rin = torch.as_tensor(task.tg.rho_in, dtype=X.dtype)[g]  # (B, a, a)
    Xg = torch.einsum("bij,btj->bti", rin, X)
    if task.out != "tokens":
        return Xg, Y
    rout = torch.as_tensor(task.tg.rho_out, dtype=Y.dtype)[g]
    return Xg, torch.einsum("bij,btj->bti", rout, Y)


def predict(task: Task, model: nn.Module, X: torch.Tensor) -> torch.Tensor:
    y = model(X)
    return y + task.base(X) if task.base is not None else y


def loss_fn(task: Task, pred: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    if task.metric == "mse":
        return ((pred - Y) ** 2).mean()
    return nn.functional.cross_entropy(pred, Y.long())


@torch.no_grad()
def evaluate(task: Task, model: nn.Module, X: np.ndarray, Y: np.ndarray, batch: int = 500) -> float:
    total, n = 0.0, 0
    for s in range(0, len(X), batch):
        x, y = torch.as_tensor(X[s:s + batch]), torch.as_tensor(Y[s:s + batch])
        p = predict(task, model, x)
        total += float(((p - y) ** 2).mean()) * len(x) if task.metric == "mse" else float((p.argmax(-1) == y.long()).float().mean()) * len(x)
        n += len(x)
    return total / n


@torch.no_grad()
def equivariance_error(task: Task, model: nn.Module, X: np.ndarray, Y: np.ndarray, n: int = 128) -> float:
    x, y = torch.as_tensor(X[:n]), torch.as_tensor(Y[:n])
    ref = predict(task, model, x)
    worst = 0.0
    for g in range(task.tg.order):
        gs = torch.full((len(x),), g, dtype=torch.long)
        xg, _ = act(task, x, y, gs)
        want = act(task, x, ref, gs)[1] if task.out == "tokens" else ref
        worst = max(worst, float((predict(task, model, xg) - want).norm() / ref.norm()))
    return worst


def train(task: Task, model: nn.Module, budget: Budget, seed: int, augment: bool) -> dict:
    """Adam + cosine schedule; the test metric at the best validation epoch."""
    Xtr, Ytr = (torch.as_tensor(a) for a in task.data["train"])
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=budget.lr)
    steps = budget.epochs * math.ceil(len(Xtr) / budget.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=budget.lr, total_steps=steps, pct_start=0.05)
    better = (lambda a, b: a < b) if task.metric == "mse" else (lambda a, b: a > b)
    best, best_state, train_s, cpu_s = None, None, 0.0, 0.0
    for _ in range(budget.epochs):
        t0, c0 = time.perf_counter(), time.process_time()
        model.train()
        perm = torch.randperm(len(Xtr), generator=gen)
        for s in range(0, len(Xtr), budget.batch):
            idx = perm[s:s + budget.batch]
            x, y = Xtr[idx], Ytr[idx]
            if augment:
                x, y = act(task, x, y, torch.randint(task.tg.order, (len(idx),), generator=gen))
            opt.zero_grad(set_to_none=True)
            loss_fn(task, predict(task, model, x), y).backward()
            opt.step()
            sched.step()
        train_s += time.perf_counter() - t0
        cpu_s += time.process_time() - c0
        model.eval()
        val = evaluate(task, model, *task.data["val"])
        if best is None or better(val, best):
            best, best_state = val, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    model.eval()
    out = {"value": evaluate(task, model, *task.data["test"]), "epoch_s": train_s / budget.epochs,
           "epoch_cpu_s": cpu_s / budget.epochs,
           "equivariance_error": equivariance_error(task, model, *task.data["test"])}
    if task.extra_tests:
        out["value_transformed"] = float(np.mean([evaluate(task, model, X, Y) for X, Y in task.extra_tests.values()]))
    return out


def build(task: Task, kind: str, depth: int) -> tuple[nn.Module, dict]:
    """The model ``kind`` of :data:`MODELS` for ``task`` and what the row says about it."""
    spec, m, H, d = task.problem
    if kind in ("vanilla", "vanilla+aug"):
        model = VanillaModel(task.data["train"][0].shape[-1], H, d, depth, task.out, task.b)
        return model, {"attention_cost": H * d, "heads": H, "design": f"nn.TransformerEncoderLayer H={H} d={d}"}
    if kind == "symm-learning":
        from benchmarks.tasks.peer import peer_model

        return peer_model(task, depth)
    entry = dz.entry(spec, m, H, d)
    item = entry[kind.split("-", 1)[1]]
    if "unavailable" in item:
        raise Unavailable(item["unavailable"])
    prob = dz.problem(spec, m, H, d)
    design = dz.design_of(prob, item)
    model = EqModel(task.tg, m, depth, lambda i: eqattn_layer(design, task.tg, m), task.out)
    orbits = "; ".join(f"{o['heads']}x{o['head_dim']} ({o['name']})" for o in item["orbits"])
    return model, {"attention_cost": item["attention_cost"], "heads": item["heads"], "design_params": item["params"],
                   "design": f"{item['params']} params/layer, {item['status']}: {orbits}"}


def run_models(task: Task, models: list[str], seeds: list[int], budget: Budget, log=print) -> list[dict]:  # noqa: ANN001
    """One row per (model, seed); the symm-learning rows run in the peer venv (:mod:`peer`)."""
    torch.set_num_threads(1)
    rows = []
    for kind in models:
        if kind == "symm-learning" and not _in_peer_venv():
            rows += run_peer_subprocess(task, seeds, budget, log)
            continue
        for seed in seeds:
            row = {"task": task.name, "group": task.group, "model": kind, "seed": seed, "metric": task.metric,
                   "epochs": budget.epochs}
            try:
                torch.manual_seed(seed)
                model, info = build(task, kind, budget.depth)
            except Unavailable as exc:
                rows.append({**row, "status": "unavailable", "note": str(exc)})
                log(f"{task.name}/{task.group} {kind}: unavailable ({exc})")
                break
            attn = sum(count(a) for a in model.attention_modules())
            weights = sum(a.core.num_parameters for a in model.attention_modules()) if "design_params" in info else ""
            row.update(status="ok", params=count(model), attention_params=attn, attention_weights=weights, attention_cost=info["attention_cost"],
                       heads=info["heads"], design=info["design"])
            if "design_params" in info:
                per_layer = [a.core.num_parameters for a in model.attention_modules()]
                assert all(p == info["design_params"] for p in per_layer), (per_layer, info["design_params"])
            row.update(train(task, model, budget, seed, augment=kind == "vanilla+aug"))
            rows.append(row)
            log(f"{task.name}/{task.group} {kind} seed {seed}: {task.metric} {row['value']:.4g}"
                + (f" (transformed {row['value_transformed']:.4g})" if "value_transformed" in row else "")
                + f", {row['params']} params, {row['epoch_s']:.2f} s/epoch, equivariance error {row['equivariance_error']:.1e}")
    return rows


def _in_peer_venv() -> bool:
    return os.environ.get("EQATTN_TASKS_PEER") == "1"


def run_peer_subprocess(task: Task, seeds: list[int], budget: Budget, log=print) -> list[dict]:  # noqa: ANN001
    """Run the symm-learning rows in ``.venv-peers`` (made as benchmarks/peers.py makes it) on
    the same arrays (passed through an .npz file); a failure becomes an ``unavailable`` row."""
    base = {"task": task.name, "group": task.group, "model": "symm-learning", "seed": seeds[0], "metric": task.metric,
            "epochs": budget.epochs, "status": "unavailable"}
    try:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from peers import ensure_venv  # noqa: PLC0415

        py = ensure_venv(PEER_VENV)
    except Exception as exc:  # noqa: BLE001 - the reason is the result
        return [{**base, "note": f"symm-learning's venv could not be made: {exc}"}]
    with tempfile.TemporaryDirectory() as tmp:
        arrays = {f"{k}_{i}": v for k, (X, Y) in task.data.items() for i, v in enumerate((X, Y))}
        arrays.update({f"extra:{k}_{i}": v for k, (X, Y) in task.extra_tests.items() for i, v in enumerate((X, Y))})
        np.savez(Path(tmp) / "data.npz", **arrays)
        spec = {"task": task.name, "group": task.group, "seeds": seeds, "budget": budget.__dict__}
        (Path(tmp) / "spec.json").write_text(json.dumps(spec))
        cmd = [str(py), str(ROOT / "benchmarks" / "tasks" / "peer.py"), tmp]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "EQATTN_TASKS_PEER": "1"}
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        for line in proc.stderr.splitlines():
            if line.startswith("[peer]"):
                log(line[7:])
        out = Path(tmp) / "rows.json"
        if proc.returncode != 0 or not out.exists():
            tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            return [{**base, "note": f"symm-learning run failed: {tail[0][:300]}"}]
        return json.loads(out.read_text())


def merge_rows(rows: list[dict], path: Path) -> list[dict]:
    """``rows`` plus the rows of ``path`` (if it exists) for the (group, model) pairs not in
    ``rows``: re-running some models replaces only their rows."""
    if not path.exists():
        return rows
    with path.open(encoding="utf-8") as fh:
        old = list(csv.DictReader(fh))
    fresh = {(r["group"], r["model"]) for r in rows}
    kept = [r for r in old if (r["group"], r["model"]) not in fresh]
    return kept + rows


def write_csv(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


BUDGET_KEYS = ("epochs", "batch", "lr", "depth", "sizes")


def write_run(path: Path, argv: list[str], seconds: float, budget: Budget, sizes: tuple[int, ...], notes: list[str] = (),
              merged: bool = False) -> None:
    """``<task>.json`` next to the CSV: the command, its wall time and the budget (docs page).

    ``merged``: this run re-ran some models into a CSV that keeps rows of an earlier run; the
    earlier run's command, time and budget stay, and this run is appended to ``reruns`` (its
    command, wall time, date and whether its budget is the same: ``same_budget``)."""
    info = {"command": f"benchmarks/tasks/{path.stem}.py" + (" " + " ".join(argv) if argv else ""),
            "seconds": round(seconds), "epochs": budget.epochs, "batch": budget.batch, "lr": budget.lr, "depth": budget.depth,
            "sizes": list(sizes), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(), "notes": list(notes)}
    where = path.with_suffix(".json")
    if merged and where.exists():
        old = json.loads(where.read_text(encoding="utf-8"))
        same = all(old.get(k) == info[k] for k in BUDGET_KEYS)
        rerun = {k: info[k] for k in ("command", "seconds", "date")} | {"same_budget": same}
        if not same:
            rerun["budget"] = {k: info[k] for k in BUDGET_KEYS}
        old.setdefault("reruns", []).append(rerun)
        info = old
    where.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def arguments(doc: str, full: Budget, quick: Budget) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="CI-sized: small data, few epochs, one seed, output under artifacts/")
    ap.add_argument("--models", default=",".join(MODELS), help=f"comma-separated subset of {','.join(MODELS)}")
    ap.add_argument("--seeds", default=None, help="comma-separated seeds (default 0,1,2; --quick: 0)")
    ap.add_argument("--epochs", type=int, default=None, help=f"default {full.epochs} ({quick.epochs} with --quick)")
    ap.add_argument("--out", default=None, help="CSV path (default docs/site/tasks/<task>.csv; --quick: artifacts/tasks-quick/)")
    ap.add_argument("--replace", action="store_true",
                    help="write only this run's rows (default: keep the CSV's rows of the groups/models not re-run)")
    return ap


def settings(args: argparse.Namespace, full: Budget, quick: Budget) -> tuple[Budget, list[int], list[str]]:
    budget = quick if args.quick else full
    if args.epochs:
        budget = Budget(args.epochs, budget.batch, budget.lr, budget.depth)
    seeds = [int(s) for s in (args.seeds or ("0" if args.quick else "0,1,2")).split(",")]
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    bad = [m for m in models if m not in MODELS]
    if bad:
        raise SystemExit(f"--models: unknown {bad}; choose from {', '.join(MODELS)}")
    return budget, seeds, models


def csv_path(args: argparse.Namespace, name: str) -> Path:
    if args.out:
        return Path(args.out)
    return ROOT / ("artifacts/tasks-quick" if args.quick else "docs/site/tasks") / f"{name}.csv"
