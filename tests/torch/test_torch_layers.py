"""EquivariantAttention / VanillaAttention on hand-made realisations (float64, tol 1e-10)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import torch
from .eqtorch_cases import heads_from_thetas, make_cases, reference_attention

from eqattn.torch import EquivariantAttention, VanillaAttention

TOL = 1e-10
CASES = make_cases()
IDS = [c.name for c in CASES]
F64 = torch.float64


def build(case, seed=0, dtype=F64, **kw):
    g = torch.Generator().manual_seed(seed)
    return EquivariantAttention(case.realized, dtype=dtype, generator=g, **kw)


def layer_bases(layer):
    """The layer's realisation as stored in its buffers (the basis may be the canonical one)."""
    orbits = [
        SimpleNamespace(head_dim=o.head_dim, **{b: getattr(o, b).numpy() for b in ("cosets", "hom_in", "hom_out")})
        for o in layer.orbits
    ]
    return SimpleNamespace(dim_v=layer.dim_v, orbits=orbits)


def rand_x(n, B=3, N=7, seed=1, dtype=F64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(B, N, n, generator=g, dtype=F64).to(dtype)


def thetas(layer):
    return [tuple(getattr(o, f"theta_{c}").detach().double().numpy() for c in "qkvo") for o in layer.orbits]


def max_err(a, b):
    return float((a - b).detach().abs().max())


def npy(t):
    return t.detach().numpy()


# ----- equivariance -----------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_equivariance_every_element(case):
    layer = build(case)
    X = rand_x(case.realized.dim_v)
    Y = layer(X)
    assert layer.group_order == len(case.group)
    scale = float(Y.detach().abs().max())
    assert scale > 1e-3, "degenerate test: output is ~0"
    for g in range(layer.group_order):
        rho = layer.group_action(g)
        assert rho.shape == (layer.dim_v, layer.dim_v)
        assert max_err(layer(X @ rho.T), Y @ rho.T) < TOL, f"g={g}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_equivariance_masked(case):
    layer = build(case, seed=3)
    X = rand_x(case.realized.dim_v, N=6, seed=4)
    causal = torch.ones(6, 6, dtype=torch.bool).tril()
    additive = torch.randn(2, 1, 6, 6, generator=torch.Generator().manual_seed(5), dtype=F64)
    X2 = X[:2]
    for g in range(layer.group_order):
        rho = layer.group_action(g)
        assert max_err(layer(X @ rho.T, attn_mask=causal), layer(X, attn_mask=causal) @ rho.T) < TOL
        assert max_err(layer(X2 @ rho.T, attn_mask=additive), layer(X2, attn_mask=additive) @ rho.T) < TOL


def test_random_vanilla_layer_is_not_equivariant():
    """Sanity: the equivariance test can fail."""
    case = CASES[0]
    v = VanillaAttention(2, 1, 2, dtype=F64, generator=torch.Generator().manual_seed(0))
    X = rand_x(2)
    rho = torch.as_tensor(case.group[1])
    assert max_err(v(X @ rho.T), v(X) @ rho.T) > 1e-3


# ----- the function computed -------------------------------------------------------------------
@pytest.mark.parametrize("canonical", [True, False])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_spec_reference(case, canonical):
    layer = build(case, seed=7, canonical_basis=canonical)
    X = rand_x(case.realized.dim_v, B=2, N=5, seed=8)
    if not canonical:  # the realisation's own basis is kept
        for o, r in zip(layer.orbits, case.realized.orbits):
            assert np.array_equal(o.hom_in.numpy(), r.hom_in) and np.array_equal(o.hom_out.numpy(), r.hom_out)
    Wq, Wk, Wv, Wo = heads_from_thetas(layer_bases(layer), thetas(layer))
    got = npy(layer(X))
    for b in range(2):
        np.testing.assert_allclose(got[b], reference_attention(X[b].numpy(), Wq, Wk, Wv, Wo), atol=TOL, rtol=0)
    # head_weights() is the same expansion
    for mine, ref in zip(layer.head_weights(), (Wq, Wk, Wv, Wo)):
        np.testing.assert_allclose(npy(mine), ref, atol=1e-13, rtol=0)


@pytest.mark.parametrize("case", CASES[:3] + CASES[5:6], ids=IDS[:3] + IDS[5:6])
def test_masked_matches_reference(case):
    layer = build(case, seed=9)
    N = 6
    X = rand_x(case.realized.dim_v, B=2, N=N, seed=10)
    Wq, Wk, Wv, Wo = heads_from_thetas(layer_bases(layer), thetas(layer))
    rng = np.random.default_rng(0)
    bool_mask = rng.random((N, N)) < 0.6
    np.fill_diagonal(bool_mask, True)  # no fully masked row
    float_mask = rng.normal(size=(N, N))
    for mask in (bool_mask, float_mask):
        got = npy(layer(X, attn_mask=torch.as_tensor(mask)))
        for b in range(2):
            np.testing.assert_allclose(got[b], reference_attention(X[b].numpy(), Wq, Wk, Wv, Wo, mask), atol=TOL, rtol=0)
    causal = np.tril(np.ones((N, N), dtype=bool))
    got = npy(layer(X, is_causal=True))
    np.testing.assert_allclose(got[0], reference_attention(X[0].numpy(), Wq, Wk, Wv, Wo, causal), atol=TOL, rtol=0)
    # float32 masks are cast to the layer dtype
    np.testing.assert_allclose(
        npy(layer(X, attn_mask=torch.as_tensor(float_mask, dtype=torch.float32))),
        npy(layer(X, attn_mask=torch.as_tensor(float_mask, dtype=torch.float32).double())),
        atol=TOL,
    )


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_canonical_basis_spans_the_same_space(case):
    """The canonical basis is orthonormal, spans Hom_K(V, W) and gives the same functions."""
    given, canon = build(case, seed=1, canonical_basis=False), build(case, seed=2)
    for o, r in zip(canon.orbits, case.realized.orbits):
        for mine, theirs in ((o.hom_in.numpy(), r.hom_in), (o.hom_out.numpy(), r.hom_out)):
            p = mine.shape[0]
            a, b = mine.reshape(p, -1 if p else 0), theirs.reshape(p, -1 if p else 0)
            np.testing.assert_allclose(a @ a.T, np.eye(p), atol=1e-12)
            np.testing.assert_allclose(a @ b.T @ b, a, atol=1e-12)  # a in span(b), same dimension
            assert np.count_nonzero(np.abs(a) > 1e-13) <= np.count_nonzero(np.abs(b) > 1e-13)
    canon.load_design_weights(given.design_weights())
    X = rand_x(case.realized.dim_v)
    assert max_err(canon(X), given(X)) < TOL


def test_sparse_and_dense_expansion_agree(monkeypatch):
    import eqattn.torch.dense as L

    case = CASES[5]
    dense = build(case, seed=3)
    monkeypatch.setattr(L, "SPARSE_MAX_DENSITY", 1.0)
    sparse = build(case, seed=3)
    assert all(o.hom_in_vals is not None and o.hom_out_vals is not None for o in sparse.orbits)
    assert any(o.hom_in_vals is None for o in dense.orbits)
    X = rand_x(6)
    assert max_err(sparse(X), dense(X)) < TOL
    for a, b in zip(sparse.head_weights(), dense.head_weights()):
        assert max_err(a, b) < 1e-14
    ((sparse(X) - 1) ** 2).sum().backward()
    ((dense(X) - 1) ** 2).sum().backward()
    for (name, a), b in zip(sparse.named_parameters(), dense.parameters()):
        assert max_err(a.grad, b.grad) < 1e-9, name


def test_identical_orbits_are_expanded_together():
    from eqattn.torch import realize_from_matrices

    case = CASES[1]
    spec = case.orbits[0]
    layer = EquivariantAttention(realize_from_matrices(case.group, [spec, spec, ((), 1), spec]), dtype=F64)
    assert layer._runs == [(0, 1), (2,), (3,)]
    separate = EquivariantAttention(realize_from_matrices(case.group, [spec, spec, ((), 1), spec]), dtype=F64)
    separate._runs = [(0,), (1,), (2,), (3,)]
    separate.load_state_dict(layer.state_dict())
    separate._runs = [(0,), (1,), (2,), (3,)]
    X = rand_x(2)
    assert max_err(layer(X), separate(X)) < TOL
    for a, b in zip(layer.head_weights(), separate.head_weights()):
        assert torch.equal(a, b)


def test_unbatched_input():
    case = CASES[2]
    layer = build(case)
    X = rand_x(2)
    assert max_err(layer(X[1]), layer(X)[1]) < TOL


def test_vanilla_layer_matches_reference_and_equivariant_layer():
    case = CASES[5]
    layer = build(case, seed=11)
    van = layer.to_vanilla()
    assert (van.heads, van.head_dim, van.dim_v) == (layer.heads, layer.head_dim, layer.dim_v)
    assert sum(p.numel() for p in van.parameters()) == 4 * van.heads * van.head_dim * van.dim_v == van.num_parameters
    X = rand_x(6, seed=12)
    assert max_err(van(X), layer(X)) < TOL
    W = [npy(p) for p in (van.Wq, van.Wk, van.Wv, van.Wo)]
    np.testing.assert_allclose(npy(van(X)[0]), reference_attention(X[0].numpy(), *W), atol=TOL, rtol=0)
    van2 = VanillaAttention.from_numpy(*W)
    assert van2.Wq.dtype == F64
    assert max_err(van2(X), van(X)) < TOL
    with pytest.raises(ValueError):
        VanillaAttention.from_numpy(W[0], W[1], W[2], W[3].transpose(0, 2, 1)[:, :1])


# ----- parameters -----------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_parameter_count(case):
    layer = build(case)
    total = sum(p.numel() for p in layer.parameters())
    assert total == case.params == layer.num_parameters
    names = {n for n, _ in layer.named_parameters()}
    assert names == {f"orbits.{i}.theta_{c}" for i in range(len(case.orbits)) for c in "qkvo"}
    for i, p in enumerate(case.expected_p):
        for c in "qkvo":
            assert getattr(layer.orbits[i], f"theta_{c}").shape == (p,)
    # bases are buffers, not parameters
    assert all(not b.requires_grad for b in layer.buffers())


def test_example2_counts():
    """SPEC §6 example 2: [(C2, B)] for C4 on E1 has 8 parameters vs vanilla 16, 2 heads of dim 1."""
    layer = build(CASES[1])
    assert layer.num_parameters == 8 and (layer.heads, layer.head_dim) == (2, 1)
    assert VanillaAttention(2, 1, 2).num_parameters == 16


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradients_reach_every_parameter(case):
    layer = build(case, seed=13)
    X = rand_x(case.realized.dim_v, seed=14)
    target = rand_x(case.realized.dim_v, seed=15)
    ((layer(X) - target) ** 2).sum().backward()
    for name, p in layer.named_parameters():
        if p.numel() == 0:
            continue
        assert p.grad is not None, name
        assert torch.isfinite(p.grad).all(), name
        assert float(p.grad.abs().max()) > 1e-8, name
    assert all(b.grad is None for b in layer.buffers())


def test_empty_design_computes_zero():
    from eqattn.torch import realize_from_matrices

    layer = EquivariantAttention(realize_from_matrices(CASES[0].group, []), dtype=F64)
    X = rand_x(2)
    assert layer.num_parameters == 0 and list(layer.parameters()) == []
    assert torch.equal(layer(X), torch.zeros_like(X))


# ----- state, dtypes, devices -------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES[2:3] + CASES[6:7], ids=IDS[2:3] + IDS[6:7])
def test_state_dict_round_trip(case):
    a, b = build(case, seed=1), build(case, seed=2)
    X = rand_x(case.realized.dim_v)
    assert max_err(a(X), b(X)) > 1e-3
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    state = torch.load(buf, weights_only=True)
    assert {k for k in state if "theta" not in k} == {"group_matrices"} | {
        f"orbits.{i}.{n}" for i in range(len(case.orbits)) for n in ("cosets", "hom_in", "hom_out")
    }
    b.load_state_dict(state)
    assert torch.equal(a(X), b(X))
    # a float32 layer loads the float64 bases exactly (only the coordinates are rounded)
    c = build(case, seed=3, dtype=torch.float32)
    c.load_state_dict(state)
    c.double()
    for k, v in state.items():
        if "theta" not in k:
            assert torch.equal(c.state_dict()[k], v), k
    assert max_err(c(X), a(X)) < 1e-5
    for g in range(c.group_order):
        rho = c.group_action(g)
        assert max_err(c(X @ rho.T), c(X) @ rho.T) < TOL


def test_design_weights_round_trip_and_rejection():
    case = CASES[2]
    a, b = build(case, seed=1), build(case, seed=2)
    mats = a.design_weights()
    assert [m[0].shape for m in mats] == [(2, 2), (1, 2), (2, 2)]
    b.load_design_weights(mats)
    X = rand_x(2)
    assert max_err(a(X), b(X)) < TOL
    bad = [list(m) for m in mats]
    bad[0][1] = bad[0][1] + 1e-3 * np.array([[1.0, 0.0], [0.0, 0.0]])  # A-row of (C2, A+B) must be 0
    with pytest.raises(ValueError, match="orbit 0: Wk"):
        b.load_design_weights(bad)
    bad = [list(m) for m in mats]
    bad[2][3] = bad[2][3] + 1e-3 * np.diag([1.0, -1.0])  # not C4-equivariant
    with pytest.raises(ValueError, match="orbit 2: Wo"):
        b.load_design_weights(bad)
    with pytest.raises(ValueError):
        b.load_design_weights(mats[:2])
    assert max_err(a(X), b(X)) < TOL  # failed loads change nothing


def test_double_after_float32_is_exact():
    """Bases are float64 masters: building in float32 then .double() loses nothing."""
    case = CASES[4]
    layer = build(case, dtype=torch.float32)
    keys = list(layer.state_dict())
    layer = layer.double()
    assert list(layer.state_dict()) == keys
    assert layer.orbits[0].hom_in.dtype == F64 and layer.orbits[0].hom_in_w.dtype == F64
    X = rand_x(2)
    for g in range(layer.group_order):
        rho = layer.group_action(g)
        assert max_err(layer(X @ rho.T), layer(X) @ rho.T) < TOL
    layer.float()
    assert layer.orbits[0].hom_in.dtype == F64 and layer.orbits[0].hom_in_w.dtype == torch.float32
    assert layer.orbits[0].theta_q.dtype == torch.float32


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_low_precision_runs(dtype):
    case = CASES[5]
    ref = build(case, seed=5)
    layer = build(case, seed=5).to(dtype)
    X = rand_x(6, seed=6)
    Y = layer(X.to(dtype))
    assert Y.dtype == dtype and torch.isfinite(Y).all()
    tol = 1e-5 if dtype == torch.float32 else 5e-2
    assert max_err(Y.double(), ref(X)) < tol * float(ref(X).detach().abs().max())
    Y.float().sum().backward()
    assert all(p.grad is not None and p.grad.dtype == dtype for p in layer.parameters())
    van = VanillaAttention(2, 3, 6, dtype=dtype)
    assert van(X.to(dtype)).dtype == dtype


# every available device (CUDA where there is one: the GPU machine's benchmark run)
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", DEVICES)
def test_device_matches_reference(device):
    case = CASES[5]
    ref = build(case, seed=5)
    dev = build(case, seed=5).to(device)
    X = rand_x(6, seed=6)
    assert max_err(dev(X.to(device)).cpu(), ref(X)) < 1e-8
    assert dev.orbits[0].hom_in.dtype == F64
    for dtype in (torch.float32, torch.bfloat16):
        assert torch.isfinite(dev.to(dtype)(X.to(device).to(dtype))).all()


def test_from_design_names_a_bad_device():
    """torch's own error for a device string is a RuntimeError listing every backend; the
    layer's constructor from a design says which field and what is allowed."""
    from eqattn import Problem, optimal_design
    from eqattn.errors import InputError, InputTypeError

    design = optimal_design(Problem.create("C4", "E1", 2, 1), 10)
    with pytest.raises(InputError, match=r"^device: a device such as 'cpu'.*got 'nope'$"):
        EquivariantAttention.from_design(design, device="nope")
    with pytest.raises(InputTypeError, match="^device: a torch.device"):
        EquivariantAttention.from_design(design, device=[0])
    layer = EquivariantAttention.from_design(design, device="cpu", dtype=torch.float64)
    assert all(p.device.type == "cpu" for p in layer.parameters())
    # the constructors themselves (the check's own place; from_design asks before realising)
    from eqattn.numeric import realize_design

    with pytest.raises(InputError, match=r"^device: a device such as 'cpu'.*got 'nope'$"):
        EquivariantAttention(realize_design(design.problem, design), device="nope")
    with pytest.raises(InputError, match=r"^device: a device such as 'cpu'.*got 'nope'$"):
        VanillaAttention(2, 1, 2, device="nope")
    assert VanillaAttention(2, 1, 2, device="cpu").Wq.device.type == "cpu"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_torch_compile():
    case = CASES[5]  # padded heads, dense and sparse (index_add) expansions
    layer = build(case, seed=1)
    assert any(o.hom_in_vals is not None for o in layer.orbits) and any(o.hom_in_vals is None for o in layer.orbits)
    X = rand_x(6, seed=2)
    mask = torch.ones(7, 7, dtype=torch.bool).tril()
    compiled = torch.compile(layer, fullgraph=True)
    Y = compiled(X, attn_mask=mask)  # compile time is a benchmark matter, not asserted here
    assert max_err(Y, layer(X, attn_mask=mask)) < TOL
    Y.sum().backward()
    assert all(p.grad is not None for p in layer.parameters() if p.numel())


# ----- packaging --------------------------------------------------------------------------------
def test_import_eqattn_without_torch():
    """`import eqattn` (and its non-torch layers) never import torch."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import eqattn, eqattn.errors, eqattn.groups\n"
        "try:\n    import eqattn.torch\nexcept ImportError as e:\n    print('ok', e)\n"
    )
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.startswith("ok") and "pip install" in out.stdout
