"""Forward+backward time of the equivariant transformer-block modules against their torch
counterparts, in one run (ratios of medians; "min" ratios of the fastest runs, more robust on a
busy machine), and the construction time of each equivariant module.

    python benchmarks/block.py                          # D4 acting on m x regular, m = 4, 16, 48
    python benchmarks/block.py --group C8 --copies 8 32 --batch 16 --tokens 64 --threads 2

Pairs (same input X of shape (batch, tokens, dim V), dim V = m |G|):

* ``linear``  EquivariantLinear(V, V)                    vs nn.Linear(dim V, dim V)
* ``layernorm`` EquivariantLayerNorm(V)                  vs nn.LayerNorm(dim V)
* ``rmsnorm`` EquivariantRMSNorm(V)                      vs nn.RMSNorm(dim V)
* ``ffn``     the encoder layer's feed-forward block, 4m x regular hidden (relu)
                                                         vs linear2(relu(linear1(x))), hidden 4 dim V
* ``layer``   EquivariantTransformerEncoderLayer         vs nn.TransformerEncoderLayer
              (dropout 0, H heads of dim dim V / H; the design is H orbits (G, (m/H) x regular),
              one head each, so both have H heads of the same dim; its parameter count is not
              the optimum, the timing is what is compared)

Each timing is the median over --reps runs (after warm-up) of zero_grad + forward + backward of
``out.sum()``; the modules of a pair are timed round robin.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import eqattn  # noqa: E402
from eqattn.torch import (  # noqa: E402
    EquivariantLayerNorm,
    EquivariantLinear,
    EquivariantRMSNorm,
    EquivariantTransformerEncoderLayer,
)


def step(module: nn.Module, forward, x: torch.Tensor) -> float:  # noqa: ANN001
    module.zero_grad(set_to_none=True)
    t = time.perf_counter()
    forward(x).sum().backward()
    return time.perf_counter() - t


def pair_times(a, b, x: torch.Tensor, reps: int) -> tuple[list[float], list[float]]:  # noqa: ANN001
    """``a``, ``b``: a module, or ``(module, its function to time)``."""
    a = a if isinstance(a, tuple) else (a, a)
    b = b if isinstance(b, tuple) else (b, b)
    for _ in range(2):
        step(*a, x), step(*b, x)
    ta, tb = [], []
    for _ in range(reps):
        ta.append(step(*a, x))
        tb.append(step(*b, x))
    return ta, tb


def built(make):  # noqa: ANN001, ANN201
    t = time.perf_counter()
    m = make()
    return m, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--group", default="D4")
    ap.add_argument("--copies", type=int, nargs="+", default=[4, 16, 48])
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    G = eqattn.group(args.group)
    print(f"{args.group}, batch {args.batch}, tokens {args.tokens}, {torch.get_num_threads()} threads, torch {torch.__version__}")
    print("| m | dim V | module | build s | eqattn ms | torch ms | ratio | min ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for m in args.copies:
        V = eqattn.rep(G, f"{m}xregular")
        n, H = V.dim, args.heads
        if m % H:
            raise SystemExit(f"--heads {H} must divide every --copies value (got {m})")
        x = torch.randn(args.batch, args.tokens, n, requires_grad=True)
        prob = eqattn.Problem(G, V, heads=H, head_dim=n // H)
        design = eqattn.Design.create(prob, [(G.subgroup_classes[-1].name, f"{m // H}xregular")] * H)
        layer, t_layer = built(lambda: EquivariantTransformerEncoderLayer(V, design, 4 * m, dropout=0.0, batch_first=True))
        vanilla = nn.TransformerEncoderLayer(n, H, 4 * n, dropout=0.0, batch_first=True)
        rows = [
            ("linear", built(lambda: EquivariantLinear(V, V)), nn.Linear(n, n)),
            ("layernorm", built(lambda: EquivariantLayerNorm(V)), nn.LayerNorm(n)),
            ("rmsnorm", built(lambda: EquivariantRMSNorm(V)), nn.RMSNorm(n)),
            ("ffn", ((layer, layer._ff_block), t_layer), (vanilla, vanilla._ff_block)),
            ("layer", (layer, t_layer), vanilla),
        ]
        for name, (ours, t_build), theirs in rows:
            ta, tb = pair_times(ours, theirs, x, args.reps)
            ma, mb = statistics.median(ta), statistics.median(tb)
            build = "" if name == "ffn" else f"{t_build:.2f}"
            print(f"| {m} | {n} | {name} | {build} | {ma * 1e3:.2f} | {mb * 1e3:.2f} | {ma / mb:.2f} | {min(ta) / min(tb):.2f} |")


if __name__ == "__main__":
    main()
