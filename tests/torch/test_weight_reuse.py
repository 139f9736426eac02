"""Expanded weights are reused without autograd while the coordinates are unchanged, and
rebuilt after any change; gradients are those of a fresh expansion."""

import copy

import torch

import eqattn
from eqattn.torch import EquivariantAttention, EquivariantMultiheadAttention

F64 = torch.float64


def layer_and_design():  # noqa: ANN201
    G = eqattn.group("D4")
    prob = eqattn.Problem(G, eqattn.rep(G, "2xregular"), heads=4, head_dim=4)
    design = eqattn.Design.create(prob, [("C2.1", "2xA + 2xB"), ("C4", "A + B + E1")])
    return EquivariantAttention.from_design(design, dtype=F64, generator=torch.Generator().manual_seed(0)), design


def counting(layer):  # noqa: ANN001, ANN201
    calls = []
    build = layer._projections

    def counted():  # noqa: ANN202
        calls.append(1)
        return build()

    layer._projections = counted
    return calls


def test_no_grad_forward_reuses_and_rebuilds_after_a_change():
    layer, _ = layer_and_design()
    calls = counting(layer)
    x = torch.randn(2, 5, 16, dtype=F64)
    with torch.no_grad():
        a = layer(x)
        b = layer(x)
    assert len(calls) == 1 and torch.equal(a, b)
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    layer(x).square().sum().backward()  # autograd: always expanded afresh
    assert len(calls) == 2
    opt.step()
    with torch.no_grad():
        c = layer(x)
    assert len(calls) == 3
    fresh, _ = layer_and_design()
    fresh.load_state_dict(layer.state_dict())
    with torch.no_grad():
        assert torch.allclose(c, fresh(x), atol=1e-13) and not torch.allclose(a, c)
    with torch.no_grad():
        layer.orbits[0].theta_q.mul_(2.0)  # any in-place change
        d = layer(x)
    assert len(calls) == 4 and not torch.allclose(c, d)
    with torch.inference_mode():  # nothing changed since: still the same copy
        assert torch.equal(layer(x), d)
    assert len(calls) == 4


def test_gradients_equal_those_without_reuse():
    layer, _ = layer_and_design()
    other = copy.deepcopy(layer)
    other.weight_cache.enabled = other.head_cache.enabled = False
    x = torch.randn(2, 5, 16, dtype=F64)
    with torch.no_grad():
        layer(x)  # a cached copy exists; the training step below must not use it
    for m in (layer, other):
        m(x).square().sum().backward()
    for p, q in zip(layer.parameters(), other.parameters()):
        assert p.grad is not None and torch.allclose(p.grad, q.grad, atol=1e-12)


def test_casts_and_loads_rebuild():
    layer, _ = layer_and_design()
    x = torch.randn(1, 3, 16, dtype=F64)
    with torch.no_grad():
        y64 = layer(x)
        layer.float()
        y32 = layer(x.float())
        assert y32.dtype == torch.float32 and torch.allclose(y32.double(), y64, atol=1e-5)
        layer.double()
        state = {k: v.clone() for k, v in layer.state_dict().items()}
        for k in state:
            if "theta" in k:
                state[k] = state[k] * 0.5
        layer.load_state_dict(state)
        assert not torch.allclose(layer(x), y64)


def test_the_drop_in_reuses_its_key_and_value_rows():
    _, design = layer_and_design()
    m = EquivariantMultiheadAttention(design, kdim="2xA1 + E1", vdim="regular + A2", batch_first=True, dtype=F64)
    m.eval()
    q, k, v = torch.randn(1, 3, 16, dtype=F64), torch.randn(1, 4, 4, dtype=F64), torch.randn(1, 4, 9, dtype=F64)
    with torch.no_grad():
        a = m(q, k, v, need_weights=False)[0]
        rows = m.key_proj.rows()
        assert m.key_proj.rows() is rows  # reused
        m.key_proj.theta.add_(0.1)
        assert m.key_proj.rows() is not rows
        b = m(q, k, v, need_weights=False)[0]
    assert not torch.allclose(a, b)
    m.train()
    out = m(q, k, v, need_weights=False)[0]
    out.sum().backward()
    assert m.key_proj.theta.grad is not None
