"""e3nn interop for the compact groups O3 and SO3 (torch/interop.py): ``from_e3nn`` and
``to_e3nn`` give the stand-in, V in the compact notation and a change of basis that holds at
every element of the compact group (checked against e3nn's own ``D_from_matrix`` at Haar
samples), and the layer on e3nn-layout features."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import eqattn
from eqattn.attention import Design, Problem
from eqattn.errors import InputError, LimitError
from eqattn.groups import get_group
from eqattn.numeric.ambient import ambient_rep
from eqattn.numeric.haar import haar_elements
from eqattn.torch import EquivariantAttention, EquivariantTransformerEncoderLayer
from eqattn.torch.interop import from_e3nn, to_e3nn

o3 = pytest.importorskip("e3nn.o3")

F64 = torch.float64
MUST_SHOW = ("16x0e + 8x1o + 4x2e", 8, 16, [("SO3", "16x0 + 5x1 + 3x2")] * 8)  # the optimiser's answer


def e3nn_D(irreps, g: np.ndarray) -> np.ndarray:  # noqa: ANN001
    default = torch.get_default_dtype()
    torch.set_default_dtype(F64)
    try:
        return o3.Irreps(irreps).D_from_matrix(torch.as_tensor(g)).numpy()
    finally:
        torch.set_default_dtype(default)


@pytest.mark.parametrize("irreps,group,kind,text,stand_in", [
    ("16x0e + 8x1o + 4x2e", "O3", "O3", "16x0e + 8x1o + 4x2e", "Ih"),
    ("1x1o + 2x0e + 1x1o + 1x1e + 1x0o", "O3", "O3", "2x0e + 1x0o + 2x1o + 1x1e", "Oh"),
    ("1x0e + 2x1o + 1x2e", "SO3", "SO3", "1x0 + 2x1 + 1x2", "I"),
    # l >= 3: the character-detecting stand-ins (Lemma 8), where Q is a permutation of blocks
    ("1x3o + 2x0e + 1x1o + 1x3e", "O3", "O3", "2x0e + 1x1o + 1x3o + 1x3e", "C6xCi"),
    ("1x4e + 1x0e + 1x4e", "SO3", "SO3", "1x0 + 2x4", "C8"),
])
def test_the_basis_change_holds_on_the_whole_compact_group(irreps: str, group: str, kind: str, text: str, stand_in: str) -> None:
    G, V, change = from_e3nn(irreps, group)
    assert (G.name, G.compact.kind, G.compact.stand_in, str(V)) == (kind, kind, stand_in, text)
    g = haar_elements(kind, 100, seed=4)
    Q, rho = change.Q, ambient_rep(V).matrices(g)
    assert np.abs(Q @ Q.T - np.eye(V.dim)).max() < 1e-12
    assert np.abs(e3nn_D(irreps, g) @ Q - Q @ rho).max() < 1e-12
    assert G is Problem.create(group, text, 1, 1).group  # the same stand-in as the problem's


def test_to_e3nn_and_back() -> None:
    G = eqattn.group("O3")
    V = eqattn.rep(G, "16x0e + 8x1o + 4x2e")
    irreps, change = to_e3nn(G, V)
    assert str(irreps) == "16x0e+8x1o+4x2e"
    G2, V2, _ = from_e3nn(irreps)
    assert G2 is G and V2.mults == V.mults
    g = haar_elements("O3", 50, seed=2)
    assert np.abs(e3nn_D(irreps, g) @ change.Q - change.Q @ ambient_rep(V).matrices(g)).max() < 1e-12
    S = get_group("SO3", band=2)
    assert str(to_e3nn(S, eqattn.rep(S, "1x0 + 1x1 + 1x2"))[0]) == "1x0e+1x1o+1x2e"


def test_the_layer_on_e3nn_features_equals_the_layer_through_from_e3nn_and_is_o3_equivariant() -> None:
    text, H, d, orbits = MUST_SHOW
    G, V, change = from_e3nn(text)
    design = Design.create(Problem.create(G, str(V), H, d), orbits)
    layer_e = EquivariantAttention.from_design(design, basis=change, dtype=F64, generator=torch.Generator().manual_seed(5))
    layer = EquivariantAttention.from_design(design, dtype=F64, generator=torch.Generator().manual_seed(5))
    Q = torch.as_tensor(change.Q)
    x_e = torch.randn(2, 6, V.dim, dtype=F64, generator=torch.Generator().manual_seed(0))  # e3nn layout
    with torch.no_grad():
        y_e = layer_e(x_e)
        assert float((y_e - layer(x_e @ Q) @ Q.T).abs().max()) < 1e-12 * max(1.0, float(y_e.abs().max()))
        D = torch.as_tensor(e3nn_D(text, haar_elements("O3", 100, seed=8)))
        xs = torch.einsum("btn,smn->sbtm", x_e, D).reshape(-1, 6, V.dim)
        ys = layer_e(xs).reshape(100, 2, 6, V.dim)
        err = float((ys - torch.einsum("btn,smn->sbtm", y_e, D)).abs().max()) / float(y_e.abs().max())
    assert err < 1e-10


def test_a_degree_3_layer_on_e3nn_features_is_o3_equivariant() -> None:
    """l = 3 (Lemma 8's stand-in C6 x Ci): the optimal layer on e3nn-layout features against
    e3nn's own D_from_matrix at Haar-random elements of O(3)."""
    text = "1x3o + 1x0e + 1x1o"
    G, V, change = from_e3nn(text)
    assert G.compact.stand_in == "C6xCi" and str(V) == "1x0e + 1x1o + 1x3o"
    design = eqattn.optimal_design(Problem.create(G, str(V), 2, 4))
    layer = EquivariantAttention.from_design(design, basis=change, dtype=F64, generator=torch.Generator().manual_seed(5))
    x = torch.randn(2, 5, V.dim, dtype=F64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        y = layer(x)
        D = torch.as_tensor(e3nn_D(text, haar_elements("O3", 50, seed=9)))
        ys = layer(torch.einsum("btn,smn->sbtm", x, D).reshape(-1, 5, V.dim)).reshape(50, 2, 5, V.dim)
        err = float((ys - torch.einsum("btn,smn->sbtm", y, D)).abs().max()) / float(y.abs().max())
    assert float(y.abs().max()) > 1e-3 and err < 1e-10


def test_an_encoder_layer_on_e3nn_features() -> None:
    G, V, change = from_e3nn("2x0e + 1x1o + 1x2e")
    layer = EquivariantTransformerEncoderLayer(V, 2, "1x0e + 1x1o + 1x2e", head_dim=3, dropout=0.0, basis=change,
                                               batch_first=True, dtype=F64).eval()
    x = torch.randn(3, 4, V.dim, dtype=F64, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        y = layer(x)
        for D in torch.as_tensor(e3nn_D("2x0e + 1x1o + 1x2e", haar_elements("O3", 20, seed=3))):
            assert float((layer(x @ D.T) - y @ D.T).abs().max()) < 1e-10 * float(y.abs().max())


def test_bad_irreps_and_groups_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="irreps: e3nn Irreps"):
        from_e3nn("garbage")
    with pytest.raises(LimitError, match="l <= 16"):
        from_e3nn("1x17o")
    with pytest.raises(InputError, match="O\\(3\\)"):
        from_e3nn("1x1o", "SO2")
    with pytest.raises(InputError, match="3x3"):
        from_e3nn("1x1o", "C4")
    with pytest.raises(InputError, match="SO3 and O3"):
        to_e3nn(eqattn.group("Oh"), eqattn.rep(eqattn.group("Oh"), "T1u"))
