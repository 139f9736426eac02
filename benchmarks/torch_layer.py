"""Forward+backward time of eqattn.torch.EquivariantAttention vs torch.nn.MultiheadAttention.

    python benchmarks/torch_layer.py                      # CPU (and CUDA when available)
    python benchmarks/torch_layer.py --heads 8 --head-dim 16 --batch 32 --tokens 128
    python benchmarks/torch_layer.py --json design.json   # a design printed by `eqattn optimize --json`

Setup (all layers: no biases, batch_first, same input X of shape (batch, tokens, dim V)):

* ``mha``      torch.nn.MultiheadAttention(embed_dim=dim V, num_heads=H, bias=False,
               batch_first=True), called as mha(X, X, X, need_weights=False). Its in/out
               projections ARE the per-head W_Q, W_K, W_V (d x n) and W_O (n x d), so with
               embed_dim = dim V = H*d it is exactly the vanilla layer of SPEC §1 up to the
               1/sqrt(d) scale (no input-projection-free variant is needed).
* ``vanilla``  eqattn.torch.VanillaAttention(H, d, dim V).
* ``design``   EquivariantAttention of a design with the SAME number of heads and head dim
               (default: G = C4 acting on V = (n/2) x E1 by rotations, design H/2 copies of
               (C2, d x B): H heads of dimension d, half the vanilla parameter count).
* ``regular``  EquivariantAttention of H copies of the regular orbit (C1, d x trivial):
               H*|G| heads of dimension d, the parameter count of vanilla (SPEC §3 "Check").

The default designs are realised with eqattn.torch.realize_from_matrices (no catalog needed);
with ``--json`` the design is realised through the core (eqattn.numeric.realize_design) and
MHA uses embed_dim = dim V, H = the design's head count when dim V is divisible by it.

Each timing is the median over --reps runs (after warm-up) of zero_grad + forward +
backward of sum(out * G) for a fixed random G ("fwd+bwd"), and of a no-grad forward ("fwd");
the layers are timed round robin and the ratios are taken within the same run: "/mha" is the
ratio of medians, "min/mha" the ratio of the fastest runs (more robust on a busy machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eqattn.torch import EquivariantAttention, VanillaAttention, realize_from_matrices  # noqa: E402


def rot(t: float) -> np.ndarray:
    return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])


def c4_on_e1_copies(n: int) -> np.ndarray:
    """C4 acting on R^n = (n/2) x E1 (block-diagonal rotations)."""
    if n % 2:
        raise SystemExit("dim V must be even for the default C4 benchmark (choose H*d even)")
    return np.stack([np.kron(np.eye(n // 2), rot(k * np.pi / 2)) for k in range(4)])


def default_layers(H: int, d: int, dtype: torch.dtype, device: str) -> dict[str, torch.nn.Module]:
    n = H * d
    G = c4_on_e1_copies(n)
    r2 = 2  # rotation by pi (acts as -1 on V)
    assert np.allclose(G[r2], -np.eye(n))
    if H % 2:
        raise SystemExit("--heads must be even for the default design (copies of the 2-head orbit (C2, dxB))")
    design = realize_from_matrices(G, [{r2: -np.eye(d)}] * (H // 2))
    regular = realize_from_matrices(G, [((), d)] * H)
    kw = {"dtype": dtype, "device": device}
    return {
        "mha": torch.nn.MultiheadAttention(n, H, bias=False, batch_first=True, **kw),
        "vanilla": VanillaAttention(H, d, n, **kw),
        "design": EquivariantAttention(design, **kw),
        "regular": EquivariantAttention(regular, **kw),
    }


def json_layers(path: str, dtype: torch.dtype, device: str) -> dict[str, torch.nn.Module]:
    """The design of a JSON report, against MHA / vanilla with the problem's H and d."""
    import json

    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    layer = EquivariantAttention.from_json(data, dtype=dtype, device=device)
    n, H, d = layer.dim_v, int(data["heads"]), int(data["head_dim"])
    out: dict[str, torch.nn.Module] = {}
    if n % H == 0:
        if n != H * d:
            print(f"# MHA head dim is dim V / H = {n // H}, not d = {d}")
        out["mha"] = torch.nn.MultiheadAttention(n, H, bias=False, batch_first=True, dtype=dtype, device=device)
    else:
        print(f"# dim V = {n} not divisible by H = {H}: no MHA baseline")
    out["vanilla"] = VanillaAttention(H, d, n, dtype=dtype, device=device)
    out["design"] = layer
    # H copies of the regular orbit (C1, d x trivial), through the core
    from eqattn.attention import Design, Problem

    problem = Problem.create(data["group"], data["rep"], H, d)
    regular = Design.create(problem, [(0, f"{d}xA")] * H)
    out["regular"] = EquivariantAttention.from_design(regular, dtype=dtype, device=device)
    return out


def make_step(layer: torch.nn.Module, x: torch.Tensor, grad: torch.Tensor, backward: bool):
    is_mha = isinstance(layer, torch.nn.MultiheadAttention)

    def call() -> torch.Tensor:
        return layer(x, x, x, need_weights=False)[0] if is_mha else layer(x)

    def step() -> None:
        if backward:
            layer.zero_grad(set_to_none=True)
            (call() * grad).sum().backward()
        else:
            with torch.no_grad():
                call()

    return step


def timings(steps: dict, reps: int, warmup: int, cuda: bool) -> dict[str, tuple[float, float]]:
    """(median, min) time per step; the layers are interleaved (round robin) so that a busy
    machine slows all of them alike and the ratios stay meaningful."""
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    for step in steps.values():
        for _ in range(warmup):
            step()
    times: dict[str, list[float]] = {k: [] for k in steps}
    for _ in range(reps):
        for name, step in steps.items():
            sync()
            t0 = time.perf_counter()
            step()
            sync()
            times[name].append(time.perf_counter() - t0)
    return {k: (statistics.median(v), min(v)) for k, v in times.items()}


def bench(device: str, args: argparse.Namespace) -> None:
    dtype = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16}[args.dtype]
    torch.manual_seed(0)
    layers = json_layers(args.json, dtype, device) if args.json else default_layers(args.heads, args.head_dim, dtype, device)
    n = layers["design"].dim_v
    x = torch.randn(args.batch, args.tokens, n, dtype=dtype, device=device)
    grad = torch.randn_like(x)
    print(f"\n## device={device} dtype={args.dtype} batch={args.batch} tokens={args.tokens} dim_v={n} "
          f"threads={torch.get_num_threads()} torch={torch.__version__}")
    print(f"{'layer':<9} {'heads':>5} {'hdim':>4} {'params':>7} | {'fwd+bwd ms':>10} {'/mha':>5} {'min/mha':>7}"
          f" | {'fwd ms':>7} {'/mha':>5} {'min/mha':>7}")
    fbs = timings({k: make_step(m, x, grad, True) for k, m in layers.items()}, args.reps, args.warmup, x.is_cuda)
    fws = timings({k: make_step(m, x, grad, False) for k, m in layers.items()}, args.reps, args.warmup, x.is_cuda)
    base = "mha" if "mha" in layers else None
    for name, layer in layers.items():
        if isinstance(layer, torch.nn.MultiheadAttention):
            heads, hdim = layer.num_heads, layer.head_dim
        else:
            heads, hdim = layer.heads, layer.head_dim
        params = sum(p.numel() for p in layer.parameters())
        cols = []
        for res in (fbs, fws):
            med, low = res[name]
            r_med = f"{med / res[base][0]:5.2f}" if base else "  n/a"
            r_min = f"{low / res[base][1]:7.2f}" if base else "    n/a"
            cols.append(f"{med * 1e3:>{10 if res is fbs else 7}.2f} {r_med} {r_min}")
        print(f"{name:<9} {heads:>5} {hdim:>4} {params:>7} | {cols[0]} | {cols[1]}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--head-dim", type=int, default=16)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64", "bfloat16"])
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--json", help="design JSON from `eqattn optimize --json` / `eqattn check --json`")
    ap.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's choice)")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    devices = ["cpu", "cuda"] if args.device == "auto" and torch.cuda.is_available() else [
        "cpu" if args.device == "auto" else args.device
    ]
    for dev in devices:
        bench(dev, args)


if __name__ == "__main__":
    main()
