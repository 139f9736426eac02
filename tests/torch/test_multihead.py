"""EquivariantMultiheadAttention: nn.MultiheadAttention's call conventions, equivariance, biases.

The comparison loads the drop-in's expanded weights and biases into a real
``torch.nn.MultiheadAttention`` (W_Q scaled by sqrt(head_dim), which it divides by) and checks
outputs and attention weights for every combination of the call's options (float64).
"""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

import eqattn
from eqattn.torch import EquivariantAttention, EquivariantMultiheadAttention

F64 = torch.float64
TOL = 1e-10


def c4_regular(**kw: object) -> EquivariantMultiheadAttention:
    """C4 on its regular representation (n = 4), one orbit C4/C2 with W = A + B: 2 heads of dim 2."""
    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "regular"), heads=2, head_dim=2)
    design = eqattn.Design.create(prob, [("C2", "A + B")])
    return EquivariantMultiheadAttention(design, dtype=F64, generator=torch.Generator().manual_seed(0), **kw)


def randomise_biases(mha: EquivariantMultiheadAttention, seed: int = 1) -> None:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in (mha.bias_qkv, mha.bias_out):
            p.copy_(torch.randn(p.shape, generator=g, dtype=F64))


def reference(mha: EquivariantMultiheadAttention) -> nn.MultiheadAttention:
    """nn.MultiheadAttention with the same weights (it scales the scores by 1/sqrt(head_dim))."""
    H, D, n = mha.num_heads, mha.head_dim, mha.embed_dim
    assert H * D == n
    ref = nn.MultiheadAttention(n, H, bias=mha.has_bias, batch_first=mha.batch_first, dtype=F64)
    Wq, Wk, Wv, Wo = (w.detach() for w in mha.core.head_weights())
    s = math.sqrt(D)
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([Wq.reshape(H * D, n) * s, Wk.reshape(H * D, n), Wv.reshape(H * D, n)]))
        ref.out_proj.weight.copy_(Wo.permute(1, 0, 2).reshape(n, H * D))
        if mha.has_bias:
            b_qkv, b_out = (b.detach() for b in mha._biases())
            ref.in_proj_bias.copy_(torch.cat([b_qkv[0].reshape(-1) * s, b_qkv[1].reshape(-1), b_qkv[2].reshape(-1)]))
            ref.out_proj.bias.copy_(b_out)
    return ref


def close(a: torch.Tensor | None, b: torch.Tensor | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and bool(torch.allclose(a, b, atol=TOL, rtol=0, equal_nan=True))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("masks", ["none", "bool-attn", "float-attn", "3d-attn", "padding", "both", "causal"])
def test_matches_nn_multihead_attention(batch_first: bool, need_weights: bool, average: bool, masks: str) -> None:
    mha = c4_regular(batch_first=batch_first)
    randomise_biases(mha)
    ref = reference(mha)
    g = torch.Generator().manual_seed(3)
    N, L, S, n = 3, 5, 6, 4
    if masks == "causal":
        S = L
    shape = (lambda t: (N, t, n)) if batch_first else (lambda t: (t, N, n))
    q = torch.randn(shape(L), generator=g, dtype=F64)
    k = torch.randn(shape(S), generator=g, dtype=F64)
    v = torch.randn(shape(S), generator=g, dtype=F64)
    kw: dict = {"need_weights": need_weights, "average_attn_weights": average}
    bool_attn = torch.rand(L, S, generator=g) < 0.3
    bool_attn[:, 0] = False  # every query keeps a key
    pad = torch.zeros(N, S, dtype=torch.bool)
    pad[0, -2:] = True
    if masks == "bool-attn":
        kw["attn_mask"] = bool_attn
    elif masks == "float-attn":
        kw["attn_mask"] = torch.randn(L, S, generator=g, dtype=F64)
    elif masks == "3d-attn":
        kw["attn_mask"] = torch.randn(N * mha.num_heads, L, S, generator=g, dtype=F64)
    elif masks == "padding":
        kw["key_padding_mask"] = pad
    elif masks == "both":
        kw["attn_mask"], kw["key_padding_mask"] = bool_attn, pad
    elif masks == "causal":
        kw["attn_mask"], kw["is_causal"] = nn.Transformer.generate_square_subsequent_mask(L, dtype=F64), True
    out, w = mha(q, k, v, **kw)
    want, want_w = ref(q, k, v, **kw)
    assert out.shape == want.shape
    assert close(out, want)
    assert close(w, want_w)


def test_unbatched_and_self_attention() -> None:
    mha = c4_regular()
    randomise_biases(mha, seed=4)
    ref = reference(mha)
    x = torch.randn(7, 4, dtype=F64, generator=torch.Generator().manual_seed(5))
    pad = torch.tensor([False] * 5 + [True] * 2)
    for kw in ({}, {"key_padding_mask": pad}, {"need_weights": False}):
        out, w = mha(x, x, x, **kw)
        want, want_w = ref(x, x, x, **kw)
        assert out.shape == (7, 4) and close(out, want) and close(w, want_w)


def test_causal_without_mask_builds_it() -> None:
    mha = c4_regular(batch_first=True)
    x = torch.randn(2, 6, 4, dtype=F64, generator=torch.Generator().manual_seed(6))
    causal = torch.ones(6, 6, dtype=torch.bool).triu(1)
    a, wa = mha(x, x, x, is_causal=True)
    b, wb = mha(x, x, x, attn_mask=causal)
    assert close(a, b) and close(wa, wb)
    assert float(wa.detach()[:, 0, 1:].abs().max()) == 0.0


def test_parameter_counts() -> None:
    """By hand (SPEC §3): V|C2 = 2A + 2B, W = A + B: dim Hom = 2 + 2 = 4, so 16 weights;
    W^C2 = A (1-dim) gives 3 q/k/v biases, V^C4 = A (1-dim) one output bias."""
    with_bias = c4_regular()
    assert with_bias.num_weight_parameters == 16
    assert with_bias.num_bias_parameters == 4
    assert with_bias.num_parameters == 20 == sum(p.numel() for p in with_bias.parameters())
    without = c4_regular(bias=False)
    assert without.num_bias_parameters == 0
    assert without.num_parameters == 16 == sum(p.numel() for p in without.parameters())


def d4_layer(**kw: object) -> EquivariantMultiheadAttention:
    """D4 on 2 x regular (n = 16) with orbits of three kinds (G, a reflection C2, trivial K)."""
    G = eqattn.group("D4")
    prob = eqattn.Problem(G, eqattn.rep(G, "2xregular"), heads=4, head_dim=3)
    design = eqattn.Design.create(prob, [("D4", "A1 + E1"), ("C2.1", "2xA + B"), ("C1", "2xA")])
    return EquivariantMultiheadAttention(design, dtype=F64, generator=torch.Generator().manual_seed(8), **kw)


def test_bias_counts_by_hand() -> None:
    """W^K: A1 + E1 over D4 -> 1; 2xA + B over C2 -> 2; 2xA over C1 -> 2: 3 * 5 = 15 q/k/v
    biases; V^G for 2 x regular: 2 (the trivial irrep twice)."""
    mha = d4_layer()
    assert mha.bias_dims == (1, 2, 2)
    assert mha.num_bias_parameters == 15 + 2
    assert mha.num_heads == 1 + 4 + 8


@pytest.mark.parametrize("bias", [True, False])
def test_equivariant_cross_attention_with_masks_and_dropout(bias: bool) -> None:
    mha = d4_layer(bias=bias, dropout=0.3, batch_first=True)
    if bias:
        randomise_biases(mha, seed=9)
    mha.train()
    g = torch.Generator().manual_seed(10)
    q = torch.randn(2, 5, 16, generator=g, dtype=F64)
    k = torch.randn(2, 7, 16, generator=g, dtype=F64)
    v = torch.randn(2, 7, 16, generator=g, dtype=F64)
    pad = torch.zeros(2, 7, dtype=torch.bool)
    pad[1, 5:] = True
    attn = torch.randn(5, 7, generator=g, dtype=F64)
    worst = 0.0
    for e in range(8):
        rho = mha.core.group_action(e)
        torch.manual_seed(123)
        out, w = mha(q, k, v, key_padding_mask=pad, attn_mask=attn)
        torch.manual_seed(123)
        out_g, w_g = mha(q @ rho.T, k @ rho.T, v @ rho.T, key_padding_mask=pad, attn_mask=attn)
        worst = max(worst, float((out_g - out @ rho.T).detach().abs().max()), float((w_g - w).detach().abs().max()))
    assert worst < TOL
    # the dropout did act (else the test above would not test it)
    torch.manual_seed(1)
    a, _ = mha(q, k, v)
    torch.manual_seed(2)
    b, _ = mha(q, k, v)
    assert float((a - b).detach().abs().max()) > 1e-3


def test_from_json_and_shared_core() -> None:
    data = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "orbits": [{"subgroup": "C2", "rep": "B"}]}
    mha = EquivariantMultiheadAttention.from_json(data, dtype=F64, batch_first=True)
    assert mha.num_weight_parameters == 8 and mha.embed_dim == 2
    core = EquivariantAttention.from_json(data, dtype=F64)
    wrapped = EquivariantMultiheadAttention(core, bias=False, batch_first=True)
    x = torch.randn(2, 4, 2, dtype=F64)
    out, _ = wrapped(x, x, x, need_weights=False)
    assert close(out, core(x))  # no biases: the drop-in computes the SPEC §1 layer


def test_bad_calls() -> None:
    mha = c4_regular(batch_first=True)
    x = torch.randn(2, 3, 4, dtype=F64)
    with pytest.raises(ValueError, match="embed_dim"):
        mha(torch.randn(2, 3, 5, dtype=F64), x, x)
    with pytest.raises(ValueError, match="key_padding_mask"):
        mha(x, x, x, key_padding_mask=torch.zeros(3, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="attn_mask"):
        mha(x, x, x, attn_mask=torch.zeros(4, 4))
    with pytest.raises(ValueError, match="dropout"):
        c4_regular(dropout=1.5)


def test_dtype_and_state_dict_round_trip() -> None:
    mha = c4_regular()
    randomise_biases(mha, seed=11)
    other = c4_regular()
    other.load_state_dict(mha.state_dict())
    x = torch.randn(4, 2, 4, dtype=F64)
    assert close(other(x, x, x)[0], mha(x, x, x)[0])
    low = c4_regular().float()
    low.load_state_dict(mha.state_dict())
    assert float((low(x.float(), x.float(), x.float())[0].double() - mha(x, x, x)[0]).detach().abs().max()) < 1e-5
