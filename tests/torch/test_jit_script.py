"""torch.jit.script of the block-path layers: same outputs and gradients as the eager modules,
savable TorchScript (no Python calls left), keys/values in other representations."""

import io
import warnings

import pytest
import torch

import eqattn
from eqattn.torch import EquivariantAttention, EquivariantMultiheadAttention

F64 = torch.float64
warnings.filterwarnings("ignore", category=DeprecationWarning)


def design():  # noqa: ANN201
    G = eqattn.group("D4")
    prob = eqattn.Problem(G, eqattn.rep(G, "2xregular"), heads=4, head_dim=4)
    return eqattn.Design.create(prob, [("C2.1", "2xA + 2xB"), ("C4", "A + B + E1"), ("D4", "A1 + E1")])


def round_trip(s):  # noqa: ANN001, ANN201
    buf = io.BytesIO()
    torch.jit.save(s, buf)
    buf.seek(0)
    return torch.jit.load(buf)


def test_the_layer_scripts_saves_and_trains_alike():
    layer = EquivariantAttention.from_design(design(), dtype=F64, generator=torch.Generator().manual_seed(1))
    s = round_trip(torch.jit.script(layer))
    x = torch.randn(2, 5, 16, dtype=F64)
    mask = torch.randn(5, 5, dtype=F64)
    assert torch.allclose(s(x), layer(x), atol=1e-12)
    assert torch.allclose(s(x, attn_mask=mask), layer(x, attn_mask=mask), atol=1e-12)
    scripted = torch.jit.script(layer)
    scripted(x).square().sum().backward()
    g1 = [p.grad.clone() for p in layer.parameters()]
    layer.zero_grad()
    layer(x).square().sum().backward()
    for a, p in zip(g1, layer.parameters()):
        assert torch.allclose(a, p.grad, atol=1e-12)


def test_the_drop_in_with_key_and_value_reps_scripts():
    m = EquivariantMultiheadAttention(design(), kdim="2xA1 + E1", vdim="regular + A2", batch_first=True, dtype=F64)
    with torch.no_grad():
        m.bias_qkv.normal_()
        m.bias_out.normal_()
    s = round_trip(torch.jit.script(m))
    q, k, v = torch.randn(2, 3, 16, dtype=F64), torch.randn(2, 4, 4, dtype=F64), torch.randn(2, 4, 9, dtype=F64)
    for need in (True, False):
        a, wa = s(q, k, v, need_weights=need)
        b, wb = m(q, k, v, need_weights=need)
        assert torch.allclose(a, b, atol=1e-12)
        assert (wa is None) == (wb is None) and (wa is None or torch.allclose(wa, wb, atol=1e-12))
    with pytest.raises(Exception, match="kdim"):  # the eager module's checks are compiled in
        s(q, torch.randn(2, 4, 16, dtype=F64), v)


def test_layers_from_explicit_bases_say_they_are_not_scriptable():
    """The dense path (explicit bases) scripts, but calling it raises: its expansion is Python."""
    from dataclasses import replace

    from eqattn.numeric import realize_design

    G = eqattn.group("C2")
    prob = eqattn.Problem(G, eqattn.rep(G, "A + B"), heads=1, head_dim=1)
    real = realize_design(prob, eqattn.Design.create(prob, [("C2", "A + B")]))
    dense = EquivariantAttention(replace(real, orbits=tuple(replace(o, hom=None, basis=o.hom_in) for o in real.orbits)), dtype=F64)
    assert not dense.block
    s = torch.jit.script(dense)
    with pytest.raises(Exception, match="Python function"):
        s(torch.randn(1, 3, 2, dtype=F64))
