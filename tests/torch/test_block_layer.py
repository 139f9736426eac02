"""The block path of EquivariantAttention (isotypic structure, head-dim buckets) against the
dense path (explicit bases) and the numpy reference, float64, tolerance 1e-10."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import torch
from .eqtorch_cases import reference_attention

from eqattn.errors import InputTypeError, LimitError
from eqattn.attention import Design, Problem, check_report
from eqattn.numeric import realize_design
from eqattn.numeric.expansion import HeadLayout, base_expansion, expansion_bound, layer_memory
from eqattn.torch import EquivariantAttention

F64 = torch.float64
TOL = 1e-10

DESIGNS = [  # real, complex and quaternionic irreps of K; uneven head dims; repeated orbits
    ("C4", "E1", 2, 1, [("C2", "B")]),
    ("D3", "regular", 2, 1, [("C2", "A+B"), ("C3", "E1"), ("C1", "A")]),
    ("C4", "2xregular", 2, 2, [("C4", "E1 + A"), ("C2", "2xA + B"), ("C2", "2xA + B"), ("C1", "A")]),
    ("Q8", "regular", 2, 4, [("Q8", "H"), ("C4.1", "E1 + A"), ("C1", "2xA")]),
    ("A4", "T + E", 2, 2, [("C3", "E1"), ("C2", "A + B"), ("A4", "T")]),
    ("D4", "2xregular", 2, 4, [("D4", "A1 + E1"), ("C2.1", "3xA + B"), ("C1", "4xA")]),
]
IDS = [f"{g}-{v}" for g, v, *_ in DESIGNS]


def make(spec):  # noqa: ANN001, ANN201
    g, v, h, d, orbits = spec
    p = Problem.create(g, v, h, d)
    return p, Design.create(p, orbits)


def pair(spec, seed=0):  # noqa: ANN001, ANN201
    """(block layer, dense layer) of one design with the same coordinates' functions."""
    p, d = make(spec)
    real = realize_design(p, d)
    block = EquivariantAttention(real, dtype=F64, generator=torch.Generator().manual_seed(seed))
    dense = EquivariantAttention(replace(real, blocks=None), dtype=F64, canonical_basis=False)
    assert block.block and not dense.block
    dense.load_design_weights(block.design_weights())
    return p, d, block, dense


def x_of(n, B=2, N=5, seed=1):  # noqa: ANN001, ANN201
    return torch.randn(B, N, n, dtype=F64, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("spec", DESIGNS, ids=IDS)
def test_block_equals_dense_and_reference(spec):
    p, d, block, dense = pair(spec)
    X = x_of(p.dim_v)
    assert float((block(X) - dense(X)).detach().abs().max()) < TOL
    for a, b in zip(block.head_weights(), dense.head_weights()):
        assert float((a - b).detach().abs().max()) < 1e-12
    Wq, Wk, Wv, Wo = (t.detach().numpy() for t in block.head_weights())
    np.testing.assert_allclose(block(X)[0].detach().numpy(), reference_attention(X[0].numpy(), Wq, Wk, Wv, Wo), atol=TOL)
    # gradients of the same coordinates agree (the bases are the same orthonormal basis)
    target = x_of(p.dim_v, seed=2)
    ((block(X) - target) ** 2).sum().backward()
    ((dense(X) - target) ** 2).sum().backward()
    for (name, a), b in zip(block.named_parameters(), dense.parameters()):
        assert float((a.grad - b.grad).detach().abs().max()) < 1e-9, name


@pytest.mark.parametrize("spec", DESIGNS, ids=IDS)
def test_block_equivariance_and_parameter_count(spec):
    p, d, block, _ = pair(spec, seed=3)
    assert block.num_parameters == sum(t.numel() for t in block.parameters()) == d.params
    assert block.num_parameters == check_report(p, d)["design_params"]
    X = x_of(p.dim_v, seed=4)
    Y = block(X)
    assert float(Y.detach().abs().max()) > 1e-3
    for g in range(p.group.order):
        R = block.group_action(g)
        assert float((block(X @ R.T) - Y @ R.T).detach().abs().max()) < TOL, g


def test_block_layer_in_a_user_basis():
    """rep_matrices: the change of basis is applied to the input and output, same function."""
    spec = DESIGNS[5]
    p, d = make(spec)
    rng = np.random.default_rng(0)
    U = np.linalg.qr(rng.normal(size=(p.dim_v, p.dim_v)))[0]
    gens = [U @ p.rho[g] @ U.T for g in p.group.generators]
    mine = EquivariantAttention.from_design(d, rep_matrices=gens, dtype=F64, generator=torch.Generator().manual_seed(5))
    assert mine.block and mine.has_change
    X = x_of(p.dim_v, seed=6)
    for g in range(p.group.order):
        R = mine.group_action(g)
        assert float((mine(X @ R.T) - mine(X) @ R.T).detach().abs().max()) < TOL
    Wq, Wk, Wv, Wo = (t.detach().numpy() for t in mine.head_weights())
    np.testing.assert_allclose(mine(X)[1].detach().numpy(), reference_attention(X[1].numpy(), Wq, Wk, Wv, Wo), atol=TOL)
    other = EquivariantAttention.from_design(d, rep_matrices=gens, dtype=F64)
    other.load_design_weights(mine.design_weights())
    assert float((other(X) - mine(X)).detach().abs().max()) < TOL


def test_buckets_split_uneven_heads_and_agree_with_one_call():
    p, d = make(DESIGNS[2])  # heads of dims 3, 4, 4, 1
    real = realize_design(p, d)
    layer = EquivariantAttention(real, dtype=F64, generator=torch.Generator().manual_seed(7))
    assert len(layer.buckets) >= 1
    merged = HeadLayout.of(layer.layout.widths, call_cost=10**9)
    split = HeadLayout.of(layer.layout.widths, call_cost=0)
    assert len(merged.buckets) == 1 and len(split.buckets) == len(set(w for w in layer.layout.widths if w))
    X = x_of(p.dim_v, seed=8)
    mask = torch.randn(2, layer.heads, 5, 5, dtype=F64, generator=torch.Generator().manual_seed(9))
    want = {}
    for name, lay in (("merged", merged), ("split", split)):
        import eqattn.torch.layers as L

        other = EquivariantAttention(real, dtype=F64)
        other.load_design_weights(layer.design_weights())
        other.layout, other.buckets = lay, list(lay.buckets)
        members = [L._bucket_members(lay, i) for i in range(len(lay.buckets))]
        other._buffers["_bucket_heads_all"] = torch.as_tensor(np.concatenate(members))
        other._bucket_starts = [0] + [int(c) for c in np.cumsum([len(m) for m in members])]
        other.layout_total = lay.total
        # the block expansion writes in its own layout; rebuild it for this one
        from eqattn.torch.expansion import BlockExpansion

        other.expansion = BlockExpansion(real, lay, F64, None)
        padded = lay.padded_rows(other.head_dim)
        real_rows = np.nonzero(padded >= 0)[0]
        other._layout_rows, other._padded_rows = torch.as_tensor(real_rows), torch.as_tensor(padded[real_rows])
        want[name] = (other(X), other(X, attn_mask=mask))
    for got in want.values():
        assert float((got[0] - layer(X)).detach().abs().max()) < TOL
        assert float((got[1] - layer(X, attn_mask=mask)).detach().abs().max()) < TOL
    # per-head masks: the reference with each head's own mask
    Wq, Wk, Wv, Wo = (t.detach().numpy() for t in layer.head_weights())
    ref = sum(reference_attention(X[0].numpy(), Wq[h : h + 1], Wk[h : h + 1], Wv[h : h + 1], Wo[h : h + 1], mask[0, h].numpy())
              for h in range(layer.heads))
    np.testing.assert_allclose(layer(X, attn_mask=mask)[0].detach().numpy(), ref, atol=TOL)


def test_layout_buckets():
    lay = HeadLayout.of([64] * 6 + [2] * 3)
    assert lay.buckets == ((0, 3, 2), (6, 6, 64))  # sorted by head dim
    assert HeadLayout.of([4, 4, 3]).buckets == ((0, 3, 4),)  # one head padded by 1 beats a call
    assert HeadLayout.of([0, 5]).total == 5 and HeadLayout.of([0, 5]).row[1] == 0


@pytest.mark.parametrize("spec", DESIGNS, ids=IDS)
def test_expansion_within_the_estimate(spec):
    p, d = make(spec)
    real = realize_design(p, d)
    ds = int(max(dd for dd, m in zip(p.V.irreps.dims, p.V.mults) if m))
    ex = base_expansion(real)
    assert ex.nnz <= expansion_bound(real.orbits, ds)
    mem = layer_memory(p, d)
    assert ex.nnz <= mem.nnz and mem.total_rows >= sum(w for o in d.orbits for w in [o.head_dim] * o.heads if o.params)


@pytest.mark.parametrize("group,V,k,W", [("Q8", "2xregular", 2, "2xE1 + A"), ("A4", "T + E", 2, "E1 + A"), ("D4", "regular", 7, "E1 + B2")])
def test_hom_expansion_matches_compose(group, V, k, W):
    from eqattn.numeric.isotypic import HomBlocks, Isotypic, isotypic_of_rep
    from eqattn.reps import parse_rep
    from eqattn.torch.blocks import HomExpansion

    p = Problem.create(group, V, 1, 1)
    K = p.group.subgroup_classes[k]
    WK = parse_rep(W, K)
    rng = np.random.default_rng(0)
    U = np.linalg.qr(rng.normal(size=(WK.dim, WK.dim)))[0]
    for target in (Isotypic.standard(WK), Isotypic.standard(WK).in_basis(U)):
        hom = HomBlocks(isotypic_of_rep(p.V, K), target)
        ex = HomExpansion(hom, dtype=F64)
        theta = torch.randn(3, hom.dim, dtype=F64, generator=torch.Generator().manual_seed(1), requires_grad=True)
        A = ex(theta)
        np.testing.assert_allclose(A.detach().numpy(), hom.compose(theta.detach().numpy()), atol=1e-12)
        A.square().sum().backward()  # d/dθ |A|^2 = 2θ (orthonormal coordinates)
        np.testing.assert_allclose(theta.grad.numpy(), 2 * theta.detach().numpy(), atol=1e-11)


def test_optimiser_design_count_and_equivariance():
    """D4 on 2 x regular, H = 2, d = 2: the optimiser's proven design (``eqattn optimize -G D4
    -V 2xregular -H 2 -d 2 --json``: optimal, 208 parameters) as a layer; from_json checks the
    stated count."""
    data = {"group": "D4", "rep": "2xregular", "heads": 2, "head_dim": 2, "design_params": 208, "status": "optimal",
            "orbits": [{"subgroup": 7, "rep": "2xA1 + 2xA2 + 2xB1 + 2xB2 + E1"}, {"subgroup": 1, "rep": "2xA + 2xB"}]}
    layer = EquivariantAttention.from_json(data, dtype=F64, generator=torch.Generator().manual_seed(0))
    assert layer.block and layer.num_parameters == 208 == sum(t.numel() for t in layer.parameters())
    X = x_of(layer.dim_v, seed=3)
    Y = layer(X).detach()
    for g in range(layer.group_order):
        R = layer.group_action(g)
        assert float((layer(X @ R.T).detach() - Y @ R.T).abs().max()) < TOL
    with pytest.raises(LimitError, match=f"g: at most {layer.group_order - 1} is supported"):
        layer.group_action(layer.group_order)
    with pytest.raises(InputTypeError, match="g: must be a whole number from 0 to"):
        layer.group_action(1.0)
