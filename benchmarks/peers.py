"""eqattn against the closest published peer, symm-learning's eMultiheadAttention (escnn-based).

    .venv/bin/python benchmarks/peers.py            # C4, D4, C8; m in {1, 2}; H in {1, 2} (~5-10 min)
    .venv/bin/python benchmarks/peers.py --full     # m in {1, 2, 4}, H in {1, 2, 4}

Not a test (CI skips it). It makes its own venv `.venv-peers` (escnn as in
requirements-escnn.txt, plus symm-learning==0.8.1, both --no-deps; it sees the main venv's
torch and eqattn after its own numpy 1.26), re-runs itself there, prints a markdown table
and writes it into docs/site/interop.md between the `peers` markers.

Per (G, V = m x regular, H heads of dimension d = m|G|/H): the peer's trainable entries (it
re-projects a dense weight each step); eqattn's count for the peer's structure (H orbits
(G, (m/H) x regular), when H divides m) and how many G-clusterings that design covers
(`Design.check`); the optimal design's count (30 s; "(bound b)" when the time limit stopped
the proof, "refused" when the optimiser's up-front size test refuses); and fwd+bwd time / nn.MultiheadAttention's (CPU float32, batch 16,
64 tokens, median of 7 after 2 warm-ups; measured in the same run, noisy on a shared machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEER = "symm-learning==0.8.1"
BEGIN, END = "<!-- peers:begin -->", "<!-- peers:end -->"


def ensure_venv(venv: Path) -> Path:
    py = venv / "bin" / "python"
    if not (venv / ".peers-ready").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "-r", str(ROOT / "requirements-escnn.txt"), PEER], check=True)
        main = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        own = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
        Path(own, "zz_eqattn_main_venv.pth").write_text(f"import site; site.addsitedir({main!r})\n")
        (venv / ".peers-ready").touch()
    return py


def timed(fn, reps: int = 7) -> float:  # noqa: ANN001
    for _ in range(2):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2]


def inner(full: bool) -> str:
    import warnings

    warnings.filterwarnings("ignore")
    import torch
    from escnn import group as egroup
    from symm_learning.nn import eMultiheadAttention

    import eqattn
    from eqattn.errors import LimitError
    from eqattn.optimize import optimize
    from eqattn.torch import EquivariantMultiheadAttention
    from eqattn.torch.interop import from_escnn

    torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))
    ms = (1, 2, 4) if full else (1, 2)
    hs = (1, 2, 4) if full else (1, 2)
    rows = []
    for gname, make in (("C4", lambda: egroup.cyclic_group(4)), ("D4", lambda: egroup.dihedral_group(4)), ("C8", lambda: egroup.cyclic_group(8))):
        G_e = make()
        for m in ms:
            in_rep = egroup.directsum([G_e.regular_representation] * m)
            G, V, change = from_escnn(in_rep)
            n = in_rep.size
            for H in hs:
                if m % H:
                    continue
                d = n // H
                prob = eqattn.Problem(G, V, heads=H, head_dim=d)
                peer = eMultiheadAttention(in_rep, num_heads=H)
                peer_raw = sum(p.numel() for p in peer.parameters() if p.requires_grad)
                struct = eqattn.Design.of(eqattn.Design.create(prob, [(G.subgroup_classes[-1].id, f"{m // H}xregular")] * H))
                verdicts = struct.check(prob)
                covered = f"{sum(v.covered for v in verdicts)}/{len(verdicts)}"
                try:
                    res = optimize(prob, 30, constrained=False)
                    opt = eqattn.Design.of(res.design)
                    opt_params = str(res.design_params) + ("" if res.status == "optimal" else f" (bound {res.lower_bound})")
                except LimitError:
                    opt = None
                    opt_params = "refused"
                x = torch.randn(64, 16, n)  # (tokens, batch, n): batch_first=False everywhere
                ref = torch.nn.MultiheadAttention(n, H)
                mine = EquivariantMultiheadAttention(struct, basis=change)
                best = EquivariantMultiheadAttention(opt, basis=change) if opt is not None else None

                def step(layer):  # noqa: ANN001, ANN202
                    return lambda: layer(x, x, x, need_weights=False)[0].sum().backward()

                t_ref = timed(step(ref))
                ratio = lambda layer: f"{timed(step(layer)) / t_ref:.2f}"  # noqa: E731
                rows.append([
                    gname, str(m), str(H), str(d), str(4 * n * n), str(peer_raw), str(mine.num_weight_parameters),
                    covered, opt_params, ratio(peer), ratio(mine), ratio(best) if best is not None else "-",
                ])
                print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    head = ["G", "m", "H", "d", "vanilla", "peer trainable", "eqattn, peer's structure", "clusterings covered",
            "eqattn optimal", "peer time", "eqattn (peer's structure) time", "eqattn optimal time"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--venv", default=str(ROOT / ".venv-peers"))
    args = ap.parse_args()
    if args.inner:
        print(inner(args.full))
        return
    py = ensure_venv(Path(args.venv))
    cmd = [str(py), __file__, "--inner"] + (["--full"] if args.full else [])
    table = subprocess.run(cmd, capture_output=False, stdout=subprocess.PIPE, text=True, check=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.strip()
    print(table)
    doc = ROOT / "docs" / "site" / "interop.md"
    text = doc.read_text(encoding="utf-8")
    stamp = f"(`benchmarks/peers.py{' --full' if args.full else ''}`, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs; times are fwd+bwd ÷ nn.MultiheadAttention)"
    if BEGIN in text and END in text:
        text = text.split(BEGIN)[0] + BEGIN + "\n" + stamp + "\n\n" + table + "\n" + END + text.split(END, 1)[1]
        doc.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
