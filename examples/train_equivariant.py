"""Train a vanilla layer and a small equivariant design on a G-equivariant regression task.

    python examples/train_equivariant.py                                # C4, V = E1, H = 2, d = 1
    python examples/train_equivariant.py --group D3 --rep regular --heads 2 --head-dim 1
    python examples/train_equivariant.py --design "C2:B"                # your own design
    python examples/train_equivariant.py --design "C4:E1;C2:B"          # orbits separated by ';'

The teacher is a random G-equivariant VANILLA layer with H heads of dimension d: the core
samples one for a G-clustering and one of its scenarios (SPEC §2, §4.3; eqattn.numeric.
sample_vanilla). Students, trained with Adam on the same data:

  (a) VanillaAttention(H, d, dim V)              -- 4 H d dim V parameters, not equivariant;
  (b) EquivariantAttention of the design         -- the optimal design by default
      (eqattn.optimize), or --design.

When the design covers every G-clustering (SPEC §4.5) the teacher lies in its function class;
the script also converts the teacher's weights into the design's exactly
(EquivariantAttention.from_vanilla, built from the coverage witness) as a check. Runs in
about 15 s on 2 CPU cores with the defaults.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eqattn.attention import Design, Problem, check_coverage  # noqa: E402
from eqattn.numeric import sample_vanilla  # noqa: E402
from eqattn.torch import EquivariantAttention, VanillaAttention  # noqa: E402


def parse_design(text: str) -> list[tuple[str, str]]:
    orbits = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        sub, _, rep = part.partition(":")
        if not rep:
            raise SystemExit(f"--design: expected 'subgroup:rep' per orbit, got {part!r}")
        orbits.append((int(sub) if sub.strip().isdigit() else sub.strip(), rep.strip()))
    return orbits


def pick_design(problem: Problem, text: str | None) -> Design:
    if text:
        return Design.create(problem, parse_design(text))
    from eqattn.optimize import optimize_report

    rep = optimize_report(problem, 60)
    print(f"optimal design ({rep['status']}): " + "; ".join(f"{o['name']}:{o['rep']}" for o in rep["orbits"]))
    return Design.create(problem, [(o["subgroup"], o["rep"]) for o in rep["orbits"]])


def pick_teacher(problem: Problem, design: Design, rng: np.random.Generator):
    """A random equivariant vanilla layer (float64); prefer a clustering/scenario with
    non-trivial attention (a != 0) in as many orbits as possible."""
    candidates = []
    for v in check_coverage(problem, design):
        results = v.witnesses if v.covered else ((v.counterexample,) if v.counterexample else ())
        for r in results:
            score = sum(not o.zero for o in r.options)
            candidates.append((score, v, r))
    best = max(c[0] for c in candidates)
    _, verdict, result = [c for c in candidates if c[0] == best][rng.integers(sum(c[0] == best for c in candidates))]
    s = sample_vanilla(problem, verdict.clustering, result.options, rng)
    print(f"teacher: clustering {verdict.clustering.id} ({len(verdict.clustering.expanded())} orbit(s)), "
          f"covered by the design: {verdict.covered}")
    return VanillaAttention.from_numpy(s.Wq, s.Wk, s.Wv, s.Wo)  # float64 teacher


def train(model: torch.nn.Module, X, Y, Xt, Yt, steps: int, lr: float) -> tuple[float, float]:
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    var, var_t = float(Y.var()), float(Yt.var())
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        opt.step()
        sched.step()
    with torch.no_grad():
        return float(((model(X) - Y) ** 2).mean()) / var, float(((model(Xt) - Yt) ** 2).mean()) / var_t


def equivariance_error(model: torch.nn.Module, X: torch.Tensor, rho: np.ndarray) -> float:
    with torch.no_grad():
        Y = model(X)
        worst = 0.0
        for r in torch.as_tensor(rho, dtype=X.dtype):
            worst = max(worst, float((model(X @ r.T) - Y @ r.T).abs().max()))
        return worst / float(Y.abs().max())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--group", default="C4")
    ap.add_argument("--rep", default="E1")
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--head-dim", type=int, default=1)
    ap.add_argument("--design", help="orbits 'subgroup:rep;subgroup:rep' (default: the optimal design)")
    ap.add_argument("--samples", type=int, default=512)
    ap.add_argument("--tokens", type=int, default=8)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--lr", type=float, default=0.03)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (tiny tensors: 1 is fastest)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    t0 = time.perf_counter()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    problem = Problem.create(args.group, args.rep, args.heads, args.head_dim)
    design = pick_design(problem, args.design)
    teacher = pick_teacher(problem, design, rng)

    n = problem.dim_v
    X = torch.randn(args.samples, args.tokens, n)
    Xt = torch.randn(args.samples, args.tokens, n)
    with torch.no_grad():
        Y, Yt = teacher(X.double()).float(), teacher(Xt.double()).float()

    vanilla = VanillaAttention(args.heads, args.head_dim, n)
    equi = EquivariantAttention.from_design(problem, design)
    print(f"G = {args.group} (|G| = {equi.group_order}), V = {args.rep} (dim {n}), H = {args.heads}, d = {args.head_dim}")
    rows = []
    for name, model in (("vanilla", vanilla), ("design", equi)):
        tr, te = train(model, X, Y, Xt, Yt, args.steps, args.lr)
        rows.append((name, sum(p.numel() for p in model.parameters()), model.heads, tr, te, equivariance_error(model, Xt[:16], problem.rho)))
    # the exact solution: the teacher's own weights converted into design weights (SPEC §4.5)
    try:
        witness = EquivariantAttention.from_vanilla(problem, design, teacher, dtype=torch.float64)
    except ValueError as exc:  # the design does not cover the teacher's clustering
        witness = None
        print(f"no exact conversion: {exc}")
    if witness is not None:
        with torch.no_grad():
            Yw, Ytd = witness(Xt.double()), teacher(Xt.double())
        rel = float(((Yw - Ytd) ** 2).mean()) / float(Ytd.var())
        rows.append(("witness", witness.num_parameters, witness.heads, float("nan"), rel, equivariance_error(witness, Xt[:16].double(), problem.rho)))

    print(f"\n{'model':<9} {'params':>7} {'heads':>5} {'train loss':>11} {'test loss':>10} {'equiv. err':>10}   (losses: MSE / Var(target))")
    for name, params, heads, tr, te, eq in rows:
        print(f"{name:<9} {params:>7} {heads:>5} {tr:>11.2e} {te:>10.2e} {eq:>10.1e}")
    if witness is not None:
        print("witness = the design with the teacher's weights converted (EquivariantAttention.from_vanilla; no training)")
    print(f"\ntotal time {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
