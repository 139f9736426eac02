"""The equivariant transformer encoder: a 4-layer stack equivariant end to end (float64,
<= 1e-10; eval, and training with the same random state), with masks and position biases;
parameter counts from characters and the design's count; nn.TransformerEncoderLayer's
conventions (batch_first, norm_first, dtype/device, reset_parameters)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from .block_cases import copies, elements, hom_dim, invariant_dim, rho

import eqattn
from eqattn.torch import (
    AbsolutePositionBias,
    EquivariantLayerNorm,
    EquivariantLinear,
    EquivariantTransformerEncoder,
    EquivariantTransformerEncoderLayer,
    RelativePositionBias,
)
from eqattn.errors import InputError, InputTypeError
from eqattn.torch.interop import from_e3nn

F64 = torch.float64
TOL = 1e-10


def d4_design():  # noqa: ANN201
    G = eqattn.group("D4")
    prob = eqattn.Problem(G, eqattn.rep(G, "2xregular"), heads=4, head_dim=2)
    return eqattn.Design.create(prob, [("C4", "A + B"), ("C2xC2.1", "A.A + B.B")])


def x_of(shape, seed: int = 0) -> torch.Tensor:  # noqa: ANN001
    return torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


def stack_error(f, V, G: str, x: torch.Tensor, seed: int | None = None) -> float:  # noqa: ANN001
    def run(z: torch.Tensor) -> torch.Tensor:
        if seed is not None:
            torch.manual_seed(seed)
        return f(z)

    with torch.no_grad():
        y = run(x)
        err = max(float((run(x @ rho(V, g).T) - y @ rho(V, g).T).abs().max()) for g in elements(G))
    return err / float(y.abs().max())


@pytest.fixture(scope="module")
def stack() -> EquivariantTransformerEncoder:
    design = d4_design()
    V = design.problem.V
    layer = EquivariantTransformerEncoderLayer(
        V, design, dim_feedforward=3, dropout=0.2, batch_first=True, dtype=F64,
        positional=RelativePositionBias(max_distance=3, dtype=F64),
    )
    enc = EquivariantTransformerEncoder(layer, 4, norm=EquivariantLayerNorm(V, dtype=F64),
                                        positional=AbsolutePositionBias(16, 4, dtype=F64))
    enc.reset_parameters(generator=torch.Generator().manual_seed(3))
    with torch.no_grad():  # non-zero biases, gains and position terms everywhere
        for name, p in enc.named_parameters():
            if "bias" in name or "norm" in name or "positional" in name:
                p.add_(0.3 * torch.randn(p.shape, dtype=F64, generator=torch.Generator().manual_seed(len(name))))
    return enc


def test_four_layer_stack_is_equivariant(stack: EquivariantTransformerEncoder) -> None:
    V = stack.rep
    x = x_of((2, 6, V.dim))
    pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
    stack.eval()
    assert stack_error(stack, V, "D4", x) < TOL
    assert stack_error(lambda z: stack(z, src_key_padding_mask=pad, is_causal=True), V, "D4", x) < TOL
    positions = torch.tensor([[0, 2, 3, 5, 8, 9], [1, 2, 3, 4, 5, 6]])
    assert stack_error(lambda z: stack(z, positions=positions), V, "D4", x) < TOL
    stack.train()  # dropout of whole copies and of attention weights: the same draws, exactly
    assert stack_error(stack, V, "D4", x, seed=11) < TOL
    stack.eval()


def test_masks_and_positions_act(stack: EquivariantTransformerEncoder) -> None:
    """Padded keys do not reach the other tokens; causal attention hides the future; the
    position biases change the output (so they are really added)."""
    stack.eval()
    V = stack.rep
    x = x_of((1, 5, V.dim))
    pad = torch.tensor([[False, False, False, True, True]])
    z = x.clone()
    z[0, 3:] += 5.0
    with torch.no_grad():
        a = stack(x, src_key_padding_mask=pad)[0, :3]
        b = stack(z, src_key_padding_mask=pad)[0, :3]
        assert torch.allclose(a, b, atol=1e-12)
        c = stack(x, is_causal=True)[0, :2]
        d = stack(z, is_causal=True)[0, :2]
        assert torch.allclose(c, d, atol=1e-12)
        shifted = stack(x, positions=torch.tensor([3, 4, 5, 6, 7]))
        assert float((shifted - stack(x)).abs().max()) > 1e-6


def test_parameter_count_against_the_formula() -> None:
    design = d4_design()
    V = design.problem.V
    G = eqattn.group("D4")
    hidden = eqattn.rep(G, "3xregular")
    layer = EquivariantTransformerEncoderLayer(V, design, dim_feedforward=3, dtype=F64)
    # attention: the design's count, plus biases in W^K (per orbit, from K's characters) and V^G
    w_fixed = sum(int(round(float(np.mean(o.W.character[o.sub.elements])))) for o in design.orbits)
    attention = design.params + 3 * w_fixed + invariant_dim(V)
    ffn = hom_dim(V, hidden) + invariant_dim(hidden) + hom_dim(hidden, V) + invariant_dim(V)
    norms = 2 * (copies(V) + invariant_dim(V))
    assert layer.num_parameters == attention + ffn + norms
    assert layer.self_attn.num_weight_parameters == design.params
    assert layer.design_status == "given"
    enc = EquivariantTransformerEncoder(layer, 4)
    assert enc.num_parameters == 4 * layer.num_parameters
    # the copies share the group-level values (not four copies of D4's lattice), not the weights
    for copy_ in enc.layers:
        assert copy_.rep.sub is V.sub and copy_.linear1.hom is not None and copy_.design is design
        assert copy_.linear1.theta is not layer.linear1.theta
    vanilla = torch.nn.TransformerEncoderLayer(V.dim, 4, dim_feedforward=hidden.dim)
    assert layer.num_parameters < sum(p.numel() for p in vanilla.parameters()) / 8


def test_head_count_through_the_optimiser_and_gated_feedforward() -> None:
    G = eqattn.group("C4")
    V = eqattn.rep(G, "2xregular")
    U = eqattn.rep(G, "2xA + 3xE1 + B")
    layer = EquivariantTransformerEncoderLayer(V, 2, U, head_dim=2, activation="gelu", norm="rms",
                                               norm_first=True, dtype=F64, time_limit=20)
    best = eqattn.optimal_design(eqattn.Problem(G, V, heads=2, head_dim=2), 20)
    assert layer.self_attn.num_weight_parameters == best.params
    assert layer.design_status == "optimal"
    assert layer.activation.in_rep.dim == U.dim + 4  # 3 E1 + 1 B copies get a gate each
    layer.eval()
    x = x_of((5, 3, V.dim))  # batch_first=False: (tokens, batch, features)
    assert stack_error(layer, V, "C4", x) < TOL
    same = EquivariantTransformerEncoderLayer(V, layer.design, "2xA + 3xE1 + B", dtype=F64)
    assert same.hidden_rep.mults == U.mults
    ffn = hom_dim(V, layer.activation.in_rep) + invariant_dim(layer.activation.in_rep) + hom_dim(U, V) + invariant_dim(V)
    assert layer.linear1.num_parameters + layer.linear2.num_parameters == ffn
    assert layer.norm1.num_parameters == copies(V)


def test_torch_conventions() -> None:
    design = d4_design()
    V = design.problem.V
    kw = {"dim_feedforward": 2, "dropout": 0.0}
    first = EquivariantTransformerEncoderLayer(V, design, batch_first=True, **kw, dtype=F64,
                                               generator=torch.Generator().manual_seed(0))
    second = EquivariantTransformerEncoderLayer(V, design, batch_first=False, **kw, dtype=F64)
    second.load_state_dict(first.state_dict())
    x = x_of((2, 5, V.dim))
    assert torch.allclose(first(x), second(x.transpose(0, 1)).transpose(0, 1), atol=1e-12)
    assert torch.allclose(first(x[0]), first(x)[0], atol=1e-12)  # unbatched
    pre = EquivariantTransformerEncoderLayer(V, design, batch_first=True, norm_first=True, **kw, dtype=F64)
    pre.load_state_dict(first.state_dict())
    assert float((pre(x) - first(x)).detach().abs().max()) > 1e-3
    f32 = EquivariantTransformerEncoderLayer(V, design, **kw, positional=RelativePositionBias(3))
    assert {p.dtype for p in f32.parameters()} == {torch.float32}
    # built in float32, cast to float64: the fixed bases are float64 masters, so exact again
    assert stack_error(f32.double().eval(), V, "D4", x) < TOL
    for module in (EquivariantLinear(V, V, device="meta"), EquivariantLayerNorm(V, device="meta"),
                   RelativePositionBias(4, device="meta")):
        assert {p.device.type for p in module.parameters()} == {"meta"}
    before = [p.detach().clone() for p in first.parameters()]
    first.reset_parameters(generator=torch.Generator().manual_seed(1))
    assert any(not torch.equal(a, b) for a, b in zip(before, first.parameters()))
    assert "d_model='2xA1 + 2xA2 + 2xB1 + 2xB2 + 4xE1'" in repr(first)
    with pytest.raises(InputError, match="nhead"):
        EquivariantTransformerEncoderLayer(V, 0)
    with pytest.raises(InputTypeError, match="nhead"):
        EquivariantTransformerEncoderLayer(V, 2.5)
    with pytest.raises(InputError, match="dim_feedforward"):
        EquivariantTransformerEncoderLayer(V, design, dim_feedforward=0)
    with pytest.raises(InputError, match="num_layers"):
        EquivariantTransformerEncoder(first, 0)
    with pytest.raises(ValueError, match="design is for"):
        EquivariantTransformerEncoderLayer(eqattn.rep(eqattn.group("D4"), "regular"), design)


def test_encoder_in_e3nn_coordinates() -> None:
    """V = 2x0e + 2x1o of O_h in e3nn's real basis (basis=from_e3nn(...)): the stack is
    equivariant for e3nn's own matrices D_from_matrix(R_g)."""
    G, V, change = from_e3nn("2x0e + 2x1o", "Oh")
    design = eqattn.Design.create(eqattn.Problem(G, V, heads=1, head_dim=4), [("Oh", "A1g + T1u")])
    layer = EquivariantTransformerEncoderLayer(V, design, dim_feedforward=1, dropout=0.0, basis=change,
                                               batch_first=True, dtype=F64)
    enc = EquivariantTransformerEncoder(layer, 2).eval()
    x = x_of((2, 4, V.dim))
    D = torch.as_tensor(change.matrices, dtype=F64)
    with torch.no_grad():
        y = enc(x)
        err = max(float((enc(x @ D[g].T) - y @ D[g].T).abs().max()) for g in elements("Oh"))
        plain = EquivariantTransformerEncoder(
            EquivariantTransformerEncoderLayer(V, layer.design, dim_feedforward=1, dropout=0.0, batch_first=True, dtype=F64), 2
        ).eval()
        plain.load_state_dict({k: v for k, v in enc.state_dict().items() if "coords" not in k}, strict=False)
        wrong = max(float((plain(x @ D[g].T) - plain(x) @ D[g].T).abs().max()) for g in elements("Oh"))
    assert err < TOL * float(y.abs().max())
    assert wrong > 1e-3  # without the basis the layer is not equivariant in e3nn's coordinates


def test_feedforward_in_the_permutation_basis_is_the_composition() -> None:
    """The regular-copies FFN (weights moved into the permutation basis) computes exactly
    linear2(activation(linear1(x)))."""
    design = d4_design()
    V = design.problem.V
    layer = EquivariantTransformerEncoderLayer(V, design, dim_feedforward=3, activation="gelu", dtype=F64).eval()
    x = x_of((4, V.dim))
    with torch.no_grad():
        composed = layer.linear2(layer.activation(layer.linear1(x)))
        assert torch.allclose(layer._ff_block(x), composed, atol=1e-12)


def test_the_layer_works_inside_torch_transformer_encoder() -> None:
    """A drop-in: nn.TransformerEncoder stacks it (masks, padding, eval) and stays equivariant."""
    design = d4_design()
    V = design.problem.V
    layer = EquivariantTransformerEncoderLayer(V, design, dim_feedforward=2, batch_first=True, dtype=F64)
    enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = x_of((3, 5, V.dim))
    causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
    pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
    assert stack_error(lambda z: enc(z, mask=causal, is_causal=True, src_key_padding_mask=pad), V, "D4", x) < TOL
