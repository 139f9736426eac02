"""docs/site/transformer.md runs as written: the 4-layer transformer in at most 15 lines (its
logits invariant, its encoder equivariant), the equivariance check and the e3nn example. The
escnn example runs in .venv-escnn (tests/torch/block_escnn_checks.py, with the GeometricTensor
round trips of the block modules)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "site" / "transformer.md"
ESCNN_PY = Path(os.environ.get("EQATTN_ESCNN_PYTHON", ROOT / ".venv-escnn" / "bin" / "python"))


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_builds_a_four_layer_transformer_in_15_lines() -> None:
    blocks = python_blocks()
    assert len(blocks) == 4
    assert len([line for line in blocks[0].splitlines() if line.strip()]) <= 15
    ns: dict = {}
    torch.manual_seed(0)
    exec(compile(blocks[0], str(PAGE), "exec"), ns)  # noqa: S102 - our own documentation
    encoder, x, logits = ns["encoder"], ns["x"], ns["logits"]
    assert len(encoder.layers) == 4 and tuple(logits.shape) == (8, 10)
    assert encoder.layers[0].self_attn.num_heads >= 2
    exec(compile(blocks[1], str(PAGE), "exec"), ns)  # noqa: S102 - the page's own check
    V, head, pool = ns["V"], ns["head"], ns["pool"]
    with torch.no_grad():
        for g in range(V.sub.group.order):
            R = torch.as_tensor(V.matrices()[g], dtype=torch.float32)
            assert torch.allclose(head(pool(encoder(x @ R.T)).mean(1)), head(pool(encoder(x)).mean(1)), atol=1e-4)
    exec(compile(blocks[2], str(PAGE), "exec"), ns)  # noqa: S102 - the e3nn example
    assert tuple(ns["y"].shape) == (10, 3, 16)


def test_the_escnn_example_and_geometric_tensors() -> None:
    assert ESCNN_PY.exists(), f"{ESCNN_PY} is missing: run `make venv` (it builds .venv-escnn)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([str(ESCNN_PY), str(ROOT / "tests" / "torch" / "block_escnn_checks.py")],
                         capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["page_type_kept"] and out["page_shape"] == [10, 16]
    for name in ("linear", "layer_norm", "pointwise", "encoder_layer", "encoder"):
        assert out["returns_geometric"][name], name
        assert out["errors"][name] < 1e-10, (name, out["errors"][name])
    assert out["pool_invariance"] < 1e-10 and out["pool_trivial_fields"]
    assert out["without_basis_refused"]
