"""Run by tests/torch/test_block_docs.py with .venv-escnn/bin/python (escnn needs numpy<2); not
collected by pytest. Runs the escnn example of docs/site/transformer.md and sends escnn
GeometricTensors through the block modules; prints one JSON object of measured errors."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

import torch  # noqa: E402
from escnn import group, gspaces  # noqa: E402
from escnn import nn as enn  # noqa: E402

import eqattn  # noqa: E402
from eqattn.torch import (  # noqa: E402
    EquivariantLayerNorm,
    EquivariantLinear,
    EquivariantTransformerEncoder,
    EquivariantTransformerEncoderLayer,
    InvariantPooling,
    PointwiseNonlinearity,
)
from eqattn.torch.interop import from_escnn, to_escnn  # noqa: E402

F64 = torch.float64
PAGE = Path(__file__).resolve().parents[2] / "docs" / "site" / "transformer.md"

out: dict = {}
blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
ns: dict = {"torch": torch, "EquivariantTransformerEncoderLayer": EquivariantTransformerEncoderLayer}
exec(compile(blocks[3], str(PAGE), "exec"), ns)  # noqa: S102 - the page's escnn example
out["page_type_kept"] = ns["y"].type == ns["ft"]
out["page_shape"] = list(ns["y"].shape)

D4 = group.dihedral_group(4)
ft = enn.FieldType(gspaces.no_base_space(D4), 2 * [D4.regular_representation])
G, V, _ = from_escnn(ft)
W = eqattn.rep(G, "regular + A1 + E1")
ft_w, change_w = to_escnn(G, W)
torch.manual_seed(0)
design = eqattn.Design.create(eqattn.Problem(G, V, heads=4, head_dim=2), [("C4", "A + B"), ("C2xC2.1", "A.A + B.B")])
layer = EquivariantTransformerEncoderLayer(V, design, dim_feedforward=2, dropout=0.0, basis=ft, dtype=F64).eval()
modules = {
    "linear": (EquivariantLinear(V, W, basis_in=ft, basis_out=ft_w, dtype=F64), ft_w),
    "layer_norm": (EquivariantLayerNorm(V, basis=ft, dtype=F64), ft),
    "pointwise": (PointwiseNonlinearity(G, copies=2, basis=ft, dtype=F64), ft),
    "encoder_layer": (layer, ft),
    "encoder": (EquivariantTransformerEncoder(layer, 4).eval(), ft),
}
x = ft(torch.randn(6, ft.size, dtype=F64))
out["errors"], out["returns_geometric"] = {}, {}
with torch.no_grad():
    for name, (m, target) in modules.items():
        y = m(x)
        out["returns_geometric"][name] = isinstance(y, enn.GeometricTensor) and y.type == target
        err = 0.0
        for g in D4.elements:
            err = max(err, float((m(x.transform(g)).tensor - y.transform(g).tensor).abs().max()))
        out["errors"][name] = err / float(y.tensor.abs().max())
    pool = InvariantPooling(V, basis=ft, dtype=F64)
    p = pool(x)
    out["pool_trivial_fields"] = isinstance(p, enn.GeometricTensor) and p.type.size == pool.out_features
    out["pool_invariance"] = max(float((pool(x.transform(g)).tensor - p.tensor).abs().max()) for g in D4.elements)
    try:
        EquivariantLayerNorm(V, dtype=F64)(x)
        out["without_basis_refused"] = False
    except ValueError:
        out["without_basis_refused"] = True
print(json.dumps(out))
