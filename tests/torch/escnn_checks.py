"""Run by tests/torch/test_interop.py with .venv-escnn/bin/python (escnn needs numpy<2, see
requirements-escnn.txt); not collected by pytest. Prints one JSON object of measured errors."""

from __future__ import annotations

import json
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from escnn import group, gspaces  # noqa: E402
from escnn import nn as enn  # noqa: E402

import eqattn  # noqa: E402
from eqattn.torch import EquivariantAttention, EquivariantMultiheadAttention  # noqa: E402
from eqattn.torch.interop import from_escnn, to_escnn  # noqa: E402

F64 = torch.float64


def worst_error(layer, ft, x) -> float:  # noqa: ANN001
    err = 0.0
    with torch.no_grad():
        y = layer(x)
        for g in ft.gspace.fibergroup.elements:
            R = torch.as_tensor(np.asarray(ft.representation(g)), dtype=F64)
            err = max(err, float((layer(x @ R.T) - y @ R.T).abs().max()))
    return err


out: dict = {"numpy": np.__version__, "cases": {}}
for G_e in (group.cyclic_group(4), group.dihedral_group(4), group.cyclic_group(8)):
    ft = enn.FieldType(gspaces.no_base_space(G_e), 2 * [G_e.regular_representation])
    G, V, change = from_escnn(ft)
    prob = eqattn.Problem(G, V, heads=2, head_dim=2)
    design = eqattn.Design.create(prob, [(G.subgroup_classes[1].id, "2xA"), (0, "2xA")])
    x = torch.randn(2, 5, ft.size, dtype=F64, generator=torch.Generator().manual_seed(0))
    layer = EquivariantAttention.from_design(design, basis=change, dtype=F64)
    plain = EquivariantAttention.from_design(design, dtype=F64)  # eqattn's own basis
    gens = [np.asarray(ft.representation(g)) for g in G_e.generators]
    by_matrices = EquivariantAttention.from_design(design, rep_matrices=gens, dtype=F64)
    mha = EquivariantMultiheadAttention(design, basis=change, dtype=F64, batch_first=True)

    class Self(torch.nn.Module):
        def forward(self, x):  # noqa: ANN001, ANN202
            return mha(x, x, x, need_weights=False)[0]

    back, back_change = to_escnn(G, V)
    G2, V2, change2 = from_escnn(group.directsum([G_e.regular_representation] * 2))  # a bare Representation
    out["cases"][G.name] = {
        "rep": str(V),
        "change_error": change.error,
        "layer": worst_error(layer, ft, x),
        "rep_matrices": worst_error(by_matrices, ft, x),
        "multihead": worst_error(Self(), ft, x),
        "without_adapter": worst_error(plain, ft, x),
        "to_escnn_size": back.size,
        "to_escnn_error": back_change.error,
        "to_escnn_irreps": [r.name for r in back.representations],
        "representation": [G2.name, str(V2), change2.error],
    }
# the docstring examples of eqattn.torch.interop (they need escnn, so they run here)
import contextlib  # noqa: E402
import doctest  # noqa: E402
import io  # noqa: E402

import eqattn.torch.interop as interop  # noqa: E402

report = io.StringIO()
with contextlib.redirect_stdout(report):
    res = doctest.testmod(interop, optionflags=doctest.ELLIPSIS)
out["doctests"] = {"failed": res.failed, "attempted": res.attempted, "report": report.getvalue()[-3000:]}
print(json.dumps(out))
