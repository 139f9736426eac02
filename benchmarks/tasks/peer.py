"""symm-learning's equivariant transformer on the same tasks (run inside ``.venv-peers``).

    .venv-peers/bin/python benchmarks/tasks/peer.py DIR      # DIR: data.npz + spec.json (harness writes them)

The harness (:func:`harness.run_peer_subprocess`) makes the venv as benchmarks/peers.py does
(escnn and symm-learning==0.8.1 installed --no-deps; no Fortran compiler is needed: escnn falls
back to a numerical method without py3nj), writes the task's arrays and calls this script,
which trains the model with the same harness and writes ``rows.json``.

The model: the task's lift and readout (:mod:`models`), and per layer symm-learning's
``eTransformerEncoderLayer(in_rep, eMultiheadAttention(in_rep, num_heads=H), 4 dim V,
dropout=0, GELU, norm_first=True, norm_module="rmsnorm")`` (its default norm: with
``"layernorm"`` the trained and untrained models measured equivariance errors of ~1e-2 on the
N-body inputs, its ``eLayerNorm`` alone ~1e-4, against ~1e-6 with ``eRMSNorm``; its
``num_heads`` must divide ``m``: the
largest divisor of ``m`` not above ``H`` is used, and the row says so) on ``in_rep = m x`` escnn's regular
representation. escnn's group is matched to the task's by an explicit isomorphism
(``find_isomorphism`` on the regular representation's closure) and the features are moved
into escnn's basis by the orthogonal ``Q`` with ``R_escnn(g) Q = Q P(g)``, so the whole
model is equivariant for the task's action (measured like every other model).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

#: escnn's counterpart of each task group (isomorphic; matched element by element below)
ESCNN = {"Oh": ("full_octa_group", ()), "O": ("octa_group", ()), "D4h": ("full_cylinder_discrete_group", (4,)),
         "C4": ("cyclic_group", (4,)), "D4": ("dihedral_group", (4,))}


class InBasis(nn.Module):
    """``h -> layer(h Q^T) Q``: a module acting in escnn's basis, seen in the task's basis."""

    def __init__(self, layer: nn.Module, Q: np.ndarray) -> None:
        super().__init__()
        self.layer = layer
        self.register_buffer("Q", torch.as_tensor(Q, dtype=torch.get_default_dtype()))
        self.self_attn = layer.self_attn

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.layer(h @ self.Q.T) @ self.Q


def escnn_basis(task, m: int):  # noqa: ANN001, ANN201
    """escnn's ``m x regular`` representation and ``Q`` with ``R_escnn(g) Q = Q P(g)``."""
    from escnn import group as eg

    from benchmarks.tasks.symmetry import regular_perms
    from eqattn.groups import FiniteGroup
    from eqattn.groups.identify import find_isomorphism
    from eqattn.numeric.basis import basis_from_elements

    name, args = ESCNN[task.group]
    Ge = getattr(eg, name)(*args)
    reg = Ge.regular_representation
    gens = list(Ge.generators)
    S = FiniteGroup.from_matrices("escnn", [np.asarray(reg(g), dtype=np.float64) for g in gens])
    G = task.tg.G
    phi = find_isomorphism(S, G, np.arange(G.order))
    if phi is None:
        raise RuntimeError(f"escnn's {Ge.name} is not isomorphic to {task.group}")
    in_rep = eg.directsum([reg] * m)
    mats = np.zeros((G.order, in_rep.size, in_rep.size))
    for s in range(S.order):
        e = Ge.identity
        for w in S.word(s):
            e = e @ gens[w]
        mats[int(phi[s])] = np.asarray(in_rep(e), dtype=np.float64)
    P = regular_perms(G, m)
    change = basis_from_elements(G, P, mats)  # mats[g] Q = Q P[g]
    return in_rep, change.Q


def peer_model(task, depth: int):  # noqa: ANN001, ANN201
    """symm-learning's encoder stack between the task's lift and readout."""
    warnings.filterwarnings("ignore")
    from symm_learning.nn import eMultiheadAttention, eTransformerEncoderLayer

    from benchmarks.tasks.models import EqModel

    spec, m, H, d = task.problem
    in_rep, Q = escnn_basis(task, m)
    heads = max(h for h in range(1, H + 1) if m % h == 0)  # its heads must divide the regular copies

    def block(_: int) -> nn.Module:
        attn = eMultiheadAttention(in_rep, num_heads=heads)
        layer = eTransformerEncoderLayer(in_rep, attn, dim_feedforward=4 * in_rep.size, dropout=0.0,
                                         activation=nn.GELU(), norm_first=True, norm_module="rmsnorm")
        return InBasis(layer, Q)

    model = EqModel(task.tg, m, depth, block, task.out)
    note = "" if heads == H else f"; H={heads}, not {H}: its num_heads must divide the {m} regular copies"
    return model, {"attention_cost": in_rep.size, "heads": heads,
                   "design": f"symm-learning 0.8.1 eMultiheadAttention H={heads} d={in_rep.size // heads}{note}"}


def main(folder: str) -> None:
    import importlib

    from benchmarks.tasks import harness

    tmp = Path(folder)
    spec = json.loads((tmp / "spec.json").read_text())
    z = np.load(tmp / "data.npz")
    data = {k: (z[f"{k}_0"], z[f"{k}_1"]) for k in ("train", "val", "test")}
    extra = {k[6:-2]: (z[k], z[k[:-1] + "1"]) for k in z.files if k.startswith("extra:") and k.endswith("_0")}
    module = importlib.import_module(f"benchmarks.tasks.{spec['task']}")
    task = module.make_task(spec["group"], data, extra)
    budget = harness.Budget(**spec["budget"])
    rows = harness.run_models(task, ["symm-learning"], spec["seeds"], budget,
                              log=lambda s: print("[peer] " + s, file=sys.stderr, flush=True))
    (tmp / "rows.json").write_text(json.dumps(rows))


if __name__ == "__main__":
    main(sys.argv[1])
