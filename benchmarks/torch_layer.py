"""Forward+backward time of eqattn.torch.EquivariantAttention vs torch.nn.MultiheadAttention,
and the construction of the layer at the sizes people train.

    python benchmarks/torch_layer.py                      # CPU (and CUDA when available)
    python benchmarks/torch_layer.py --heads 8 --head-dim 16 --batch 32 --tokens 128
    python benchmarks/torch_layer.py --json design.json   # a design printed by `eqattn optimize --json`
    python benchmarks/torch_layer.py construct [--old /tmp/old-torch]   # build time / peak memory
    python benchmarks/torch_layer.py designs              # fwd+bwd ratios for ~10 designs
    python benchmarks/torch_layer.py reuse                # eval forward: weights reused vs rebuilt

``construct``: D4 acting on m x regular (dim V = 8m), m in {8, 16, 32, 48, 96}, each with the
optimiser's proven-optimal design at H = 6..12, d = 64 (``CONSTRUCT``, from ``eqattn optimize
--json``; the status is printed). Each build runs in a fresh subprocess (``--child``) that
reports the wall time of ``EquivariantAttention.from_json`` and its peak RSS above the RSS
just before the build; the estimate of ``eqattn.numeric.expansion.layer_memory`` is printed next to
it. With ``--old DIR`` (a checkout of the code before the block structure, e.g.
``git worktree add /tmp/old-torch 0c19314``) the same child runs there under an address-space
cap of ``--old-cap-gb`` (8); sizes whose old construction memory is estimated above the cap
(``16 p dim W dim V`` bytes per orbit: its dense Hom bases) are skipped and said so. The
largest design is also checked: equivariant for every group element to 1e-5 in float32 and
1e-10 in float64 (relative to the output), and parameter count equal to the optimiser's.

``reuse``: the eval-mode forward under ``torch.no_grad()`` with the expanded weights reused
while the coordinates are unchanged (``layer.weight_cache``, :mod:`eqattn.torch.reuse`) against
expanding them on every call, at batch 1 x 16 tokens and 8 x 128, ratio in the same run.

``designs``: forward+backward of ~10 designs against ``nn.MultiheadAttention`` with the
vanilla shape (embed_dim = dim V, H heads) in one run, and against the same design's
attention cost (``Σ_heads head dim`` over ``H d``): ``/mha`` near ``cost`` means the time
follows the attention cost, not the head count.

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
import os
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


def _orbits(*spec: tuple[str, str, int, int]) -> list[dict]:
    """(subgroup, W, head count per orbit, how many such orbits) -> design JSON orbits."""
    return [{"subgroup": k, "rep": w, "count": c} for k, w, _, c in spec]


def _d4(m: int, H: int, params: int, status: str, orbits: list[dict]) -> dict:
    return {"group": "D4", "rep": f"{m}xregular", "heads": H, "head_dim": 64, "design_params": params,
            "status": status, "orbits": orbits}


#: the optimiser's designs (``eqattn optimize -G D4 -V <m>xregular -H <H> -d 64 --json``)
CONSTRUCT = {
    8: _d4(8, 12, 86016, "optimal", _orbits(
        ("D4", "8xA1 + 8xA2 + 8xB1 + 8xB2 + 16xE1", 1, 2), ("C4", "16xA + 16xB + 16xE1", 2, 2),
        ("C2.1", "32xA + 32xB", 4, 3), ("C2.2", "32xA + 32xB", 4, 2), ("C2.3", "32xA + 32xB", 4, 2), ("C1", "64xA", 8, 1))),
    16: _d4(16, 6, 122880, "optimal", _orbits(("D4", "16xA1 + 16xA2 + 16xB1 + 16xB2 + 32xE1", 1, 3), ("C1", "64xA", 8, 3))),
    32: _d4(32, 12, 540672, "optimal", _orbits(("D4", "32xA1 + 32xA2 + 32xB1 + 32xB2 + 32xE1", 1, 6), ("C1", "64xA", 8, 6))),
    48: _d4(48, 6, 442368, "optimal", _orbits(("D4", "48xA1 + 48xA2 + 48xB1 + 48xB2 + 32xE1", 1, 3), ("C1", "64xA", 8, 3))),
    96: _d4(96, 12, 1916928, "optimal", _orbits(("D4", "64xA1 + 64xA2 + 64xB1 + 64xB2 + 32xE1", 1, 6), ("C1", "64xA", 8, 6))),
}


def _child(path: str, check: bool) -> None:
    """Build the layer of one design JSON; print one JSON line (time, peak RSS growth, checks)."""
    import json
    import resource

    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    with open("/proc/self/statm", encoding="ascii") as fh:  # resident pages now (the build's baseline)
        base = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    t0 = time.perf_counter()
    layer = EquivariantAttention.from_json(data)
    build = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {"build_s": build, "peak_mb": (peak - base) / 1024, "params": layer.num_parameters}
    if check:
        out.update(_check_large(layer, data))
    print(json.dumps(out))


def _check_large(layer: EquivariantAttention, data: dict) -> dict:
    """Equivariance for every group element (float32 and float64), relative to the output."""
    res = {"optimiser_params": data.get("design_params")}
    for name, dtype in (("float32", torch.float32), ("float64", torch.float64)):
        layer = layer.to(dtype)
        x = torch.randn(2, 8, layer.dim_v, dtype=dtype, generator=torch.Generator().manual_seed(0))
        with torch.no_grad():
            y = layer(x)
            worst = max(float((layer(x @ layer.group_action(g).T) - y @ layer.group_action(g).T).abs().max())
                        for g in range(layer.group_order))
        res[f"equivariance_{name}"] = worst / float(y.abs().max())
    return res


def _old_bytes(data: dict) -> int:
    """The old construction's dense Hom bases: 16 p dim W dim V bytes per orbit (two copies)."""
    from eqattn.attention import Design, Problem
    from eqattn.torch.layers import design_from_json

    design, _ = design_from_json(data)
    p = design.problem
    return sum(16 * p.restrict(o.sub).hom_dim(o.W) * o.head_dim * p.dim_v for o in design.orbits)


def construct(args: argparse.Namespace) -> None:
    import json
    import subprocess
    import tempfile

    from eqattn.numeric.expansion import layer_memory
    from eqattn.torch.layers import design_from_json

    here = Path(__file__).resolve()
    print(f"| m | dim V | H | design | params | status | estimate MB | new s | new MB | old s | old MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    largest = max(CONSTRUCT)
    for m, data in sorted(CONSTRUCT.items()):
        design, _ = design_from_json(data)
        est = layer_memory(design.problem, design).peak / 2**20
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(data, fh)
        cmd = [sys.executable, str(here), "--child", fh.name] + (["--check"] if m == largest else [])
        new = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
        old_s = old_mb = "-"
        if args.old:
            need = _old_bytes(data)
            cap = int(args.old_cap_gb * 2**30)
            if need > cap:
                old_s, old_mb = "skipped", f"needs > {need / 2**30:.0f} GB (estimate), cap {args.old_cap_gb:g} GB"
            else:
                env = {**os.environ, "PYTHONPATH": args.old}
                copy = Path(args.old) / "benchmarks" / "_torch_layer_child.py"
                copy.write_text(here.read_text())
                child = [sys.executable, "-c", _CAPPED.format(cap=cap, script=str(copy)), "--child", fh.name]
                r = subprocess.run(child, capture_output=True, text=True, env=env, cwd=args.old)
                if r.returncode == 0:
                    old = json.loads(r.stdout.strip().splitlines()[-1])
                    old_s, old_mb = f"{old['build_s']:.1f}", f"{old['peak_mb']:.0f}"
                else:
                    why = "MemoryError" if "MemoryError" in r.stderr else (r.stderr.strip().splitlines() or ["killed"])[-1][:40]
                    old_s, old_mb = "-", f"over the {args.old_cap_gb:g} GB cap ({why})"
        heads = sum(o.heads for o in design.orbits)
        print(f"| {m} | {design.problem.dim_v} | {data['heads']} | {len(design.orbits)} orbits, {heads} heads | "
              f"{new['params']} | {data['status']} | {est:.0f} | {new['build_s']:.1f} | {new['peak_mb']:.0f} | {old_s} | {old_mb} |")
        if "equivariance_float32" in new:
            print(f"\nm = {m}: params {new['params']} (optimiser {new['optimiser_params']}); equivariance "
                  f"float32 {new['equivariance_float32']:.1e}, float64 {new['equivariance_float64']:.1e}\n")
        os.unlink(fh.name)


#: run the child of ``construct`` in another checkout under an address-space cap
_CAPPED = (
    "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap})); "
    "sys.argv = [{script!r}] + sys.argv[1:]; runpy.run_path({script!r}, run_name='__main__')"
)


def _small(group: str, rep: str, H: int, d: int, time_limit: float = 30) -> dict:
    """The optimiser's design of a small problem, run here (seconds)."""
    from eqattn import optimize
    from eqattn.attention import Problem

    rep_json = optimize.optimize_report(Problem.create(group, rep, H, d), time_limit)
    return {**rep_json, "group": group, "rep": rep, "heads": H, "head_dim": d}


def designs(args: argparse.Namespace) -> None:
    """fwd+bwd of each design vs nn.MultiheadAttention(dim V, H) and vs its attention cost."""
    from eqattn.torch.layers import design_from_json

    torch.set_num_threads(args.threads)
    cases = [
        ("D4 2xreg H2 d4 (optimal)", _small("D4", "2xregular", 2, 4)),
        ("D4 2xreg H8 d2 (optimal)", _small("D4", "2xregular", 8, 2)),
        ("C4 16xreg H4 d16 (optimal)", _small("C4", "16xregular", 4, 16)),
        ("C8 8xreg H4 d16 (optimal)", _small("C8", "8xregular", 4, 16)),
        ("Q8 8xreg H4 d16 (optimal)", _small("Q8", "8xregular", 4, 16)),
        ("D4 8xreg H12 d64 regular", {**CONSTRUCT[8], "orbits": [{"subgroup": "C1", "rep": "64xA", "count": 12}], "status": "regular"}),
    ] + [(f"D4 {m}xreg H{d['heads']} d64 ({d['status']})", d) for m, d in sorted(CONSTRUCT.items())]
    print(f"batch={args.batch} tokens={args.tokens} threads={args.threads} reps={args.reps} torch={torch.__version__}")
    print("baseline: nn.MultiheadAttention(dim V, H) when H d = dim V, else VanillaAttention(H, d, dim V) (marked *)")
    print("| design | dim V | heads | buckets | params | mha ms | design ms | /mha | cost ratio | /cost |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, data in cases:
        design, _ = design_from_json(data)
        prob = design.problem
        layer = EquivariantAttention.from_design(design)
        n, H, d = prob.dim_v, prob.heads, prob.head_dim
        # the vanilla shape: nn.MultiheadAttention when H d = dim V, else the same SPEC §1 layer
        mha = torch.nn.MultiheadAttention(n, H, bias=False, batch_first=True) if H * d == n else VanillaAttention(H, d, n)
        x = torch.randn(args.batch, args.tokens, n)
        grad = torch.randn_like(x)
        res = timings({"mha": make_step(mha, x, grad, True), "design": make_step(layer, x, grad, True)}, args.reps, 2, False)
        cost = sum(o.head_dim * o.heads for o in design.orbits if o.params) / (H * d)
        ratio = res["design"][1] / res["mha"][1]
        star = "" if isinstance(mha, torch.nn.MultiheadAttention) else "*"
        print(f"| {name}{star} | {n} | {layer.heads} | {len(layer.buckets)} | {layer.num_parameters} | {res['mha'][1] * 1e3:.1f} | "
              f"{res['design'][1] * 1e3:.1f} | {ratio:.2f} | {cost:.2f} | {ratio / cost:.2f} |")


def reuse(args: argparse.Namespace) -> None:
    """Eval-mode, no-grad forward with the expanded weights reused (``weight_cache``) against
    expanding them on every call, same layer, same input, timed round robin in one run."""
    from eqattn.torch.layers import design_from_json

    torch.set_num_threads(args.threads)
    cases = [(f"D4 {m}xreg H{CONSTRUCT[m]['heads']} d64", CONSTRUCT[m]) for m in (8, 16, 48)]
    print(f"threads={args.threads} reps={args.reps} torch={torch.__version__}; forward under torch.no_grad(), eval mode")
    print("| design | batch x tokens | expand every call ms | reused ms | speed-up |")
    print("|---|---|---|---|---|")
    for name, data in cases:
        design, _ = design_from_json(data)
        layer = EquivariantAttention.from_design(design).eval()
        n = design.problem.dim_v
        for batch, tokens in ((1, 16), (8, 128)):
            x = torch.randn(batch, tokens, n)

            def call(enabled: bool):  # noqa: ANN202
                def step() -> None:
                    layer.weight_cache.enabled = enabled
                    with torch.no_grad():
                        layer(x)
                return step

            res = timings({"fresh": call(False), "reused": call(True)}, args.reps, 2, False)
            fresh, reused = res["fresh"][1], res["reused"][1]
            print(f"| {name} | {batch} x {tokens} | {fresh * 1e3:.2f} | {reused * 1e3:.2f} | {fresh / reused:.1f} |")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _child(argv[1], "--check" in argv)
        return
    if argv[:1] == ["construct"]:
        cp = argparse.ArgumentParser(description="construction time and peak memory")
        cp.add_argument("--old", help="checkout of the old code (git worktree add /tmp/old-torch 0c19314)")
        cp.add_argument("--old-cap-gb", type=float, default=8.0)
        construct(cp.parse_args(argv[1:]))
        return
    if argv[:1] == ["designs"]:
        dp = argparse.ArgumentParser(description="fwd+bwd ratios for several designs")
        dp.add_argument("--batch", type=int, default=8)
        dp.add_argument("--tokens", type=int, default=128)
        dp.add_argument("--reps", type=int, default=7)
        dp.add_argument("--threads", type=int, default=1)
        designs(dp.parse_args(argv[1:]))
        return
    if argv[:1] == ["reuse"]:
        rp = argparse.ArgumentParser(description="eval forward: expanded weights reused vs rebuilt")
        rp.add_argument("--reps", type=int, default=15)
        rp.add_argument("--threads", type=int, default=1)
        reuse(rp.parse_args(argv[1:]))
        return
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
