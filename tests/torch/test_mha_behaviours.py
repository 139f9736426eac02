"""nn.MultiheadAttention's behaviours (from PyTorch's own tests of the module), each run
against torch.nn.MultiheadAttention AND the drop-in EquivariantMultiheadAttention.

A behaviour is a function of a factory ``make(**kwargs)`` with nn.MultiheadAttention's keyword
arguments (embed_dim 4, 2 heads); the drop-in's factory builds the C4-regular design with the
same shape. Behaviours marked ``ours`` exist only for the drop-in (masks shared by the heads,
the export).
"""

from __future__ import annotations

import copy
import io
import pickle

import pytest
import torch
from torch import nn

import eqattn
from eqattn.torch import EquivariantMultiheadAttention

F64 = torch.float64
E, H = 4, 2


def make_torch(**kw):  # noqa: ANN003, ANN201
    kw.setdefault("dtype", F64)
    for name in ("kdim", "vdim"):  # keys/values in a representation of C4: PyTorch takes its dimension
        if isinstance(kw.get(name), str):
            kw[name] = eqattn.rep(eqattn.group("C4"), kw[name]).dim
    return nn.MultiheadAttention(E, H, **kw)


def c4_design():  # noqa: ANN201
    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "regular"), heads=2, head_dim=2)
    return eqattn.Design.create(prob, [("C2", "A + B")])


def make_ours(**kw):  # noqa: ANN003, ANN201
    kw.setdefault("dtype", F64)
    m = EquivariantMultiheadAttention(c4_design(), **kw)
    with torch.no_grad():  # non-zero biases, so that they are exercised
        g = torch.Generator().manual_seed(5)
        for p in (m.bias_qkv, m.bias_out):
            if p is not None:
                p.copy_(torch.randn(p.shape, generator=g, dtype=F64))
    return m


def x(*shape, seed=0):  # noqa: ANN001, ANN002, ANN201
    return torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


def out_bias(m) -> torch.Tensor:  # noqa: ANN001
    if isinstance(m, nn.MultiheadAttention):
        return m.out_proj.bias.detach()
    return (m.bias_out @ m.bias_out_basis_w).detach()


# ----- the behaviours --------------------------------------------------------------------------
def shapes_batch_first(make):  # noqa: ANN001, ANN201
    for bf in (False, True):
        m = make(batch_first=bf)
        q = x(3, 5, E) if bf else x(5, 3, E)
        out, w = m(q, q, q)
        assert out.shape == q.shape and w.shape == (3, 5, 5)


def unbatched(make):  # noqa: ANN001, ANN201
    m = make()
    q = x(5, E)
    out, w = m(q, q, q)
    assert out.shape == (5, E) and w.shape == (5, 5)
    b, _ = m(q.unsqueeze(1), q.unsqueeze(1), q.unsqueeze(1))
    assert torch.allclose(b.squeeze(1), out, atol=1e-12)


def weights_per_head(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True)
    q = x(2, 5, E)
    _, w = m(q, q, q, average_attn_weights=False)
    _, avg = m(q, q, q)
    assert w.shape == (2, H, 5, 5) and torch.allclose(w.mean(1), avg, atol=1e-12)
    assert torch.allclose(w.sum(-1), torch.ones(2, H, 5, dtype=F64), atol=1e-12)


def no_weights(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True)
    q = x(2, 5, E)
    out, w = m(q, q, q, need_weights=False)
    assert w is None and torch.allclose(out, m(q, q, q)[0], atol=1e-10)


def key_padding_bool_and_float(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True)
    q = x(2, 5, E)
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[0, 3:] = True
    a, wa = m(q, q, q, key_padding_mask=pad)
    b, _ = m(q, q, q, key_padding_mask=torch.zeros(2, 5, dtype=F64).masked_fill(pad, float("-inf")))
    assert torch.allclose(a, b, atol=1e-12) and float(wa[0, :, 3:].abs().max()) == 0.0
    c, _ = m(q, q, q, key_padding_mask=pad, need_weights=False)
    assert torch.allclose(a, c, atol=1e-10)


def attn_mask_2d(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True)
    q = x(2, 5, E)
    mask = torch.rand(5, 5, generator=torch.Generator().manual_seed(1)) < 0.4
    mask[:, 0] = False
    a, w = m(q, q, q, attn_mask=mask)
    b, _ = m(q, q, q, attn_mask=torch.zeros(5, 5, dtype=F64).masked_fill(mask, float("-inf")))
    assert torch.allclose(a, b, atol=1e-12) and float(w[:, mask].abs().max()) == 0.0


def attn_mask_3d_per_head(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True)
    q = x(2, 5, E)
    mask = torch.zeros(2 * H, 5, 5, dtype=F64)
    mask[::H] = x(2, 5, 5, seed=3)  # head 0 of each batch element differs
    a, w = m(q, q, q, attn_mask=mask, average_attn_weights=False)
    b, _ = m(q, q, q, attn_mask=mask, need_weights=False)
    assert w.shape == (2, H, 5, 5) and torch.allclose(a, b, atol=1e-10)


def causal(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True)
    q = x(2, 5, E)
    mask = nn.Transformer.generate_square_subsequent_mask(5, dtype=F64)
    a, w = m(q, q, q, attn_mask=mask, is_causal=True)
    assert float(w.triu(1).abs().max()) == 0.0
    b, _ = m(q, q, q, attn_mask=mask)
    assert torch.allclose(a, b, atol=1e-12)


def cross_attention(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True)
    out, w = m(x(2, 3, E), x(2, 7, E, seed=1), x(2, 7, E, seed=2))
    assert out.shape == (2, 3, E) and w.shape == (2, 3, 7)


def kdim_vdim(make):  # noqa: ANN001, ANN201
    m = make(kdim=E, vdim=E, batch_first=True)
    out, _ = m(x(2, 3, E), x(2, 7, E, seed=1), x(2, 7, E, seed=2))
    assert out.shape == (2, 3, E) and m.kdim == m.vdim == E


def kdim_vdim_other(make):  # noqa: ANN001, ANN201 - keys and values of other dimensions (reps of C4 for the drop-in)
    m = make(kdim="E1 + 3xA", vdim="2xE1 + B", batch_first=True)
    assert (m.kdim, m.vdim) == (5, 5)
    k, v = x(2, 7, 5, seed=1), x(2, 7, 5, seed=2)
    pad = torch.zeros(2, 7, dtype=torch.bool)
    pad[0, -2:] = True
    out, w = m(x(2, 3, E), k, v, key_padding_mask=pad)
    assert out.shape == (2, 3, E) and w.shape == (2, 3, 7) and float(w[0, :, -2:].abs().max()) == 0.0
    out.sum().backward()
    assert all(p.grad is not None for p in m.parameters() if p.requires_grad)
    with pytest.raises(Exception):  # keys of the wrong width
        m(x(2, 3, E), x(2, 7, E), v)


def bias_kv_and_zero_attn(make):  # noqa: ANN001, ANN201
    for kw, extra in (({"add_bias_kv": True}, 1), ({"add_zero_attn": True}, 1), ({"add_bias_kv": True, "add_zero_attn": True}, 2)):
        m = make(batch_first=True, **kw)
        q = x(2, 5, E)
        pad = torch.zeros(2, 5, dtype=torch.bool)
        pad[1, 4] = True
        out, w = m(q, q, q, key_padding_mask=pad, attn_mask=torch.zeros(5, 5, dtype=torch.bool))
        assert out.shape == (2, 5, E) and w.shape == (2, 5, 5 + extra)
        assert torch.allclose(w.sum(-1), torch.ones(2, 5, dtype=F64), atol=1e-12)
        assert float(w[1, :, 4].abs().max()) == 0.0 and float(w[..., 5:].min()) > 0


def dropout_train_eval(make):  # noqa: ANN001, ANN201
    m = make(dropout=0.5, batch_first=True)
    q = x(2, 5, E)
    torch.manual_seed(0)
    a = m(q, q, q)[0]
    b = m(q, q, q)[0]
    assert not torch.allclose(a, b)
    m.eval()
    assert torch.equal(m(q, q, q)[0], m(q, q, q)[0])


def state_dict_round_trip(make):  # noqa: ANN001, ANN201
    a, b = make(batch_first=True), make(batch_first=True)
    with torch.no_grad():
        for p in a.parameters():
            p.add_(x(*p.shape, seed=9))
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    b.load_state_dict(torch.load(buf, weights_only=True))
    q = x(2, 5, E)
    assert torch.allclose(a(q, q, q)[0], b(q, q, q)[0], atol=1e-12)


def reset_parameters(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True, add_bias_kv=True)
    q = x(2, 5, E)
    before = m(q, q, q)[0]
    torch.manual_seed(1)
    m._reset_parameters()
    mid = m(q, q, q)[0]
    assert not torch.allclose(before, mid)
    if hasattr(m, "reset_parameters"):
        m.reset_parameters()
    assert torch.isfinite(m(q, q, q)[0]).all()


def dtypes(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True, dtype=torch.float32)
    q = x(2, 5, E).float()
    assert m(q, q, q)[0].dtype == torch.float32
    m = m.double()
    assert m(q.double(), q.double(), q.double())[0].dtype == F64


def meta_device(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True, device="meta")
    assert all(p.device.type == "meta" for p in m.parameters())
    m = m.to_empty(device="cpu")
    m._reset_parameters()
    q = x(2, 5, E)
    assert torch.isfinite(m(q, q, q)[0]).all()


def encoder_layer(make, train: bool):  # noqa: ANN001, ANN201
    layer = nn.TransformerEncoderLayer(E, H, dim_feedforward=8, dropout=0.0, batch_first=True, dtype=F64)
    layer.self_attn = make(batch_first=True)
    src = x(2, 5, E)
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[0, 4] = True
    layer.train(train)
    out = layer(src, src_key_padding_mask=pad)
    assert out.shape == src.shape and torch.isfinite(out).all()
    if train:
        out.sum().backward()
        assert all(p.grad is not None for p in layer.self_attn.parameters())
    else:
        with torch.no_grad():  # the fused fast path is tried here
            again = layer(src, src_key_padding_mask=pad)
        assert torch.allclose(again, out, atol=1e-10)
        stack = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
        with torch.no_grad():
            assert torch.isfinite(stack(src, src_key_padding_mask=pad)).all()


def encoder_layer_train(make):  # noqa: ANN001, ANN201
    encoder_layer(make, True)


def encoder_layer_eval(make):  # noqa: ANN001, ANN201
    encoder_layer(make, False)


def decoder_layer(make):  # noqa: ANN001, ANN201
    layer = nn.TransformerDecoderLayer(E, H, dim_feedforward=8, dropout=0.0, batch_first=True, dtype=F64)
    layer.self_attn, layer.multihead_attn = make(batch_first=True), make(batch_first=True)
    tgt, mem = x(2, 4, E), x(2, 6, E, seed=1)
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=F64)
    for mode in (True, False):
        out = layer.train(mode)(tgt, mem, tgt_mask=mask, tgt_is_causal=True)
        assert out.shape == tgt.shape and torch.isfinite(out).all()


def fully_masked_rows(make):  # noqa: ANN001, ANN201
    """nn.MultiheadAttention (training mode): NaN with need_weights, the output bias without."""
    m = make(batch_first=True)
    q = x(1, 3, E)
    mask = torch.zeros(3, 3, dtype=torch.bool)
    mask[1] = True
    out, w = m(q, q, q, attn_mask=mask)
    assert torch.isnan(out[0, 1]).all() and torch.isnan(w[0, 1]).all() and torch.isfinite(out[0, [0, 2]]).all()
    out, _ = m(q, q, q, attn_mask=mask, need_weights=False)
    assert torch.allclose(out[0, 1], out_bias(m), atol=1e-12)
    pad = torch.ones(1, 3, dtype=torch.bool)
    out, _ = m(q, q, q, key_padding_mask=pad, need_weights=False)
    assert torch.allclose(out[0], out_bias(m).expand(3, E), atol=1e-12)


def gradients(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True, add_bias_kv=True)
    q = x(2, 5, E).requires_grad_()
    for nw in (True, False):
        m.zero_grad()
        m(q, q, q, need_weights=nw)[0].square().sum().backward()
        assert all(p.grad is not None and float(p.grad.abs().max()) > 0 for p in m.parameters())
    assert q.grad is not None


def copy_and_pickle(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True)
    q = x(2, 5, E)
    for other in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert torch.allclose(other(q, q, q)[0], m(q, q, q)[0], atol=1e-12)


def jit_script(make):  # noqa: ANN001, ANN201
    m = make(batch_first=True, add_bias_kv=True)
    q, k = x(2, 5, E), x(2, 6, E, seed=1)
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[1, :2] = True
    s = torch.jit.script(m)
    for kw in ({}, {"key_padding_mask": pad}, {"need_weights": False}, {"attn_mask": torch.ones(5, 6, dtype=torch.bool).triu(1)}):
        a, b = s(q, k, k, **kw)[0], m(q, k, k, **kw)[0]
        assert torch.allclose(a, b, atol=1e-12)
    s(q, k, k)[0].square().sum().backward()  # the scripted module trains the same parameters
    assert all(p.grad is not None for p in m.parameters() if p.requires_grad)
    if not isinstance(m, nn.MultiheadAttention):  # ours: the export is scriptable too
        r = torch.jit.script(m.to_multihead_attention())
        assert torch.allclose(r(q, k, k)[0], m(q, k, k)[0], atol=1e-10)


def shared_3d_mask(make):  # noqa: ANN001, ANN201 - ours: (N, L, S), no head count needed
    m = make(batch_first=True)
    q = x(2, 5, E)
    mask = x(2, 5, 5, seed=4)
    a, w = m(q, q, q, attn_mask=mask)
    per_head = mask.repeat_interleave(m.num_heads, dim=0)
    b, wb = m(q, q, q, attn_mask=per_head)
    c, _ = m(q, q, q, attn_mask=mask, need_weights=False)
    assert torch.allclose(a, b, atol=1e-12) and torch.allclose(w, wb, atol=1e-12) and torch.allclose(a, c, atol=1e-10)


def export(make):  # noqa: ANN001, ANN201 - ours: a real nn.MultiheadAttention with the same function
    for kw in ({}, {"add_bias_kv": True, "add_zero_attn": True}, {"bias": False}):
        m = make(batch_first=True, **kw)
        ref = m.to_multihead_attention()
        assert type(ref) is nn.MultiheadAttention
        q, k = x(2, 5, E), x(2, 6, E, seed=1)
        pad = torch.zeros(2, 6, dtype=torch.bool)
        pad[1, 0] = True
        a, wa = m(q, k, k, key_padding_mask=pad, average_attn_weights=False)
        b, wb = ref(q, k, k, key_padding_mask=pad, average_attn_weights=False)
        assert torch.allclose(a, b, atol=1e-10) and torch.allclose(wa, wb, atol=1e-10)


BEHAVIOURS = [
    shapes_batch_first, unbatched, weights_per_head, no_weights, key_padding_bool_and_float, attn_mask_2d,
    attn_mask_3d_per_head, causal, cross_attention, kdim_vdim, kdim_vdim_other, bias_kv_and_zero_attn, dropout_train_eval,
    state_dict_round_trip, reset_parameters, dtypes, meta_device, encoder_layer_train, encoder_layer_eval,
    decoder_layer, fully_masked_rows, gradients, copy_and_pickle, jit_script,
]
OURS_ONLY = [shared_3d_mask, export]
MAKERS = {"nn.MultiheadAttention": make_torch, "EquivariantMultiheadAttention": make_ours}


@pytest.mark.parametrize("who", list(MAKERS))
@pytest.mark.parametrize("behaviour", BEHAVIOURS, ids=[b.__name__ for b in BEHAVIOURS])
def test_behaviour(behaviour, who):  # noqa: ANN001
    behaviour(MAKERS[who])


@pytest.mark.parametrize("behaviour", OURS_ONLY, ids=[b.__name__ for b in OURS_ONLY])
def test_drop_in_only(behaviour):  # noqa: ANN001
    behaviour(make_ours)


def test_export_refuses_uneven_heads():
    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "regular"), heads=2, head_dim=2)
    m = EquivariantMultiheadAttention(eqattn.Design.create(prob, [("C2", "A + B"), ("C4", "A")]))
    with pytest.raises(ValueError, match="dimensions"):
        m.to_multihead_attention()
    m = EquivariantMultiheadAttention(eqattn.Design.create(prob, [("C4", "A + B")]))
    with pytest.raises(ValueError, match="embed_dim"):
        m.to_multihead_attention()
    with pytest.raises(ValueError, match="kdim"):
        EquivariantMultiheadAttention(eqattn.Design.create(prob, [("C4", "A + B")]), kdim=3)
