"""Bring your own basis through escnn and e3nn (float64, <= 1e-10).

escnn runs in .venv-escnn (made by `make venv`; escnn's lie_learn needs numpy<2, see
requirements-escnn.txt): tests/torch/escnn_checks.py prints the measured errors as JSON.
e3nn runs here (it accepts the pinned torch).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

import eqattn
from eqattn.errors import InputError
from eqattn.torch import EquivariantAttention, EquivariantMultiheadAttention
from eqattn.torch.interop import from_e3nn, from_escnn

ROOT = Path(__file__).resolve().parents[2]
ESCNN_PY = Path(os.environ.get("EQATTN_ESCNN_PYTHON", ROOT / ".venv-escnn" / "bin" / "python"))
F64 = torch.float64
TOL = 1e-10


@pytest.fixture(scope="module")
def escnn_results() -> dict:
    assert ESCNN_PY.exists(), f"{ESCNN_PY} is missing: run `make venv` (it builds .venv-escnn)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([str(ESCNN_PY), str(ROOT / "tests" / "torch" / "escnn_checks.py")],
                         capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_interop_docstring_examples_run(escnn_results: dict) -> None:
    """The examples of eqattn.torch.interop (escnn's D4 regular field is 2xA1 + ... + 4xE1,
    as docs/site/interop.md says) are doctests, run in .venv-escnn by escnn_checks.py."""
    d = escnn_results["doctests"]
    assert d["attempted"] >= 20 and d["failed"] == 0, d["report"]


@pytest.mark.parametrize("name, rep", [
    ("C4", "2xA + 2xB + 2xE1"),
    ("D4", "2xA1 + 2xA2 + 2xB1 + 2xB2 + 4xE1"),
    ("C8", "2xA + 2xB + 2xE1 + 2xE2 + 2xE3"),
])
def test_escnn_regular_fields(escnn_results: dict, name: str, rep: str) -> None:
    """2 x escnn's permutation regular representation: recognised, and the layer built with
    the adapter's basis (or from the generator matrices alone) is equivariant for escnn's
    matrices of every element; eqattn's own basis is not (the test can fail)."""
    assert escnn_results["numpy"].startswith("1.")
    case = escnn_results["cases"][name]
    assert case["rep"] == rep
    assert case["change_error"] < TOL
    assert case["layer"] < TOL
    assert case["rep_matrices"] < TOL
    assert case["multihead"] < TOL
    assert case["without_adapter"] > 1e-3
    assert case["to_escnn_size"] == 2 * eqattn.group(name).order
    assert case["to_escnn_error"] < TOL
    assert case["representation"][:2] == [name, rep] and case["representation"][2] < TOL


def test_e3nn_irreps_on_oh() -> None:
    G, V, change = from_e3nn("8x0e + 8x1o", "Oh")
    assert (G.name, str(V)) == ("Oh", "8xA1g + 8xT1u")  # 0e -> A1g, 1o (the vector) -> T1u
    assert change.error < TOL and change.matrices.shape == (48, 32, 32)


def test_e3nn_vector_on_oh_equivariant() -> None:
    from e3nn import o3

    G, V, change = from_e3nn("1o", "Oh")
    assert str(V) == "T1u"
    prob = eqattn.Problem(G, V, heads=2, head_dim=2)
    design = eqattn.optimal_design(prob, time_limit=30)
    layer = EquivariantAttention.from_design(design, basis=change, dtype=F64)
    mha = EquivariantMultiheadAttention(design, basis=change, dtype=F64, batch_first=True)
    x = torch.randn(3, 6, 3, dtype=F64, generator=torch.Generator().manual_seed(1))
    default = torch.get_default_dtype()
    torch.set_default_dtype(F64)  # e3nn's D_from_matrix in float64
    try:
        Ds = [o3.Irreps("1o").D_from_matrix(torch.as_tensor(R, dtype=F64)) for R in np.asarray(G.matrices)]
    finally:
        torch.set_default_dtype(default)
    worst = 0.0
    with torch.no_grad():
        y, (z, w) = layer(x), mha(x, x, x)
        for D in Ds:
            worst = max(worst, float((layer(x @ D.T) - y @ D.T).abs().max()))
            zg, wg = mha(x @ D.T, x @ D.T, x @ D.T)
            worst = max(worst, float((zg - z @ D.T).abs().max()), float((wg - w).abs().max()))
    assert worst < TOL


def test_user_matrices_by_hand_c8() -> None:
    """escnn-style permutation regular rep of C8 built here (no escnn): rep_matrices finds the
    correspondence and Q; the group action the layer reports is the user's matrices."""
    P = np.roll(np.eye(8), 1, axis=0)
    G = eqattn.group("C8")
    prob = eqattn.Problem(G, eqattn.rep(G, "regular"), heads=2, head_dim=1)
    design = eqattn.optimal_design(prob, time_limit=30)
    layer = EquivariantAttention.from_design(design, rep_matrices=[P], dtype=F64)
    x = torch.randn(2, 5, 8, dtype=F64, generator=torch.Generator().manual_seed(2))
    Pt = torch.as_tensor(P)
    with torch.no_grad():
        powers = [torch.linalg.matrix_power(Pt, k) for k in range(8)]
        assert sorted(int(torch.argmax(layer.group_action(g)[:, 0])) for g in range(8)) == list(range(8))
        worst = max(float((layer(x @ M.T) - layer(x) @ M.T).abs().max()) for M in powers)
    assert worst < TOL


def test_adapter_errors() -> None:
    with pytest.raises(InputError, match="escnn"):
        from_escnn(object())
    with pytest.raises(InputError, match="point group"):
        from_e3nn("1o", "C4")
    G = eqattn.group("C4")
    design = eqattn.optimal_design(eqattn.Problem(G, eqattn.rep(G, "regular"), heads=1, head_dim=1))
    with pytest.raises(InputError, match="rep_matrices"):
        EquivariantAttention.from_design(design, rep_matrices=[np.eye(4)])
