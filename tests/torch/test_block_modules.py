"""The transformer-block modules: equivariance (random group elements, float64, <= 1e-10) and
parameter counts against formulas read off characters alone (an independent route:
``dim Hom_G(V, W) = (1/|G|) sum_g chi_V(g) chi_W(g)``, ``dim V^G = (1/|G|) sum_g chi_V(g)``,
the number of irreducible copies ``sum_tau <chi_V, chi_tau> / <chi_tau, chi_tau>``).

Groups cover the three real types: D4 and O (real), C3 / C4 (complex E1, e = 2), Q8
(quaternionic H, e = 4).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import eqattn
from .block_cases import chi, copies, elements, hom_dim, invariant_dim, rep, rho, trivial_copies_of  # noqa: F401
from eqattn.torch.components import components
from eqattn.torch import (
    AbsolutePositionBias,
    EquivariantDropout,
    EquivariantGate,
    EquivariantLayerNorm,
    EquivariantLinear,
    EquivariantRMSNorm,
    InvariantPooling,
    PointwiseNonlinearity,
    RelativePositionBias,
)

F64 = torch.float64
TOL = 1e-10

CASES = [  # (group, V, W)
    ("D4", "2xregular", "regular + 3xA1 + B2"),
    ("C4", "A + 3xE1 + B", "2xE1 + 2xA"),
    ("C3", "2xregular", "A + 3xE1"),
    ("Q8", "2xH + A + B1", "H + 2xA + B3"),
    ("O", "regular", "2xT1 + A1 + E"),
]


def x_of(n: int, shape=(3, 5), seed: int = 1) -> torch.Tensor:  # noqa: ANN001
    return torch.randn(*shape, n, dtype=F64, generator=torch.Generator().manual_seed(seed))


@torch.no_grad()
def equivariance_error(f, V_in, V_out, G: str, x: torch.Tensor) -> float:  # noqa: ANN001
    y = f(x)
    err = 0.0
    for g in elements(G):
        err = max(err, float((f(x @ rho(V_in, g).T) - y @ rho(V_out, g).T).abs().max()))
    return err / max(float(y.abs().max()), 1e-300)


@pytest.mark.parametrize("G, v, w", CASES)
def test_linear(G: str, v: str, w: str) -> None:
    V, W = rep(G, v), rep(G, w)
    for bias in (True, False):
        lin = EquivariantLinear(V, W, bias=bias, dtype=F64, generator=torch.Generator().manual_seed(2))
        with torch.no_grad():
            lin.theta.normal_()
            if bias:
                lin.bias.normal_()
        assert equivariance_error(lin, V, W, G, x_of(V.dim)) < TOL
        assert lin.num_parameters == hom_dim(V, W) + (invariant_dim(W) if bias else 0)
    # the weights span all of Hom_G(V, W): rank p, every basis matrix equivariant
    basis = []
    for i in range(lin.hom.dim):
        with torch.no_grad():
            lin.theta.zero_()
            lin.theta[i] = 1.0
        basis.append(lin.weight.detach().numpy().ravel())
    assert np.linalg.matrix_rank(np.array(basis), tol=1e-9) == hom_dim(V, W)


def test_linear_matches_the_schur_blocks_and_has_nn_linear_scale() -> None:
    V, W = rep("D4", "4xregular"), rep("D4", "3xregular")
    lin = EquivariantLinear(V, W, dtype=F64, generator=torch.Generator().manual_seed(0))
    A = lin.hom.compose(lin.theta.detach().numpy())
    assert np.abs(A - lin.weight.detach().numpy()).max() < 1e-14
    x = x_of(V.dim, (7,))
    assert torch.allclose(lin(x), x @ lin.weight.T + lin.bias_vector(), atol=1e-12)
    # nn.Linear's scale: each output row has squared norm 1/3 in expectation
    rows = (lin.weight.detach() ** 2).sum(1)
    assert abs(float(rows.mean()) * 3 - 1) < 0.2


def test_modules_in_a_user_basis() -> None:
    """basis_in / basis_out / basis (orthogonal Q): f_u(x) = f(x Q) Q^T, equivariant for
    rho_u(g) = Q rho(g) Q^T."""
    V, W = rep("D4", "2xregular"), rep("D4", "regular + E1")
    rng = np.random.default_rng(0)
    Qv, Qw = (np.linalg.qr(rng.normal(size=(n, n)))[0] for n in (V.dim, W.dim))
    tv, tw = torch.as_tensor(Qv), torch.as_tensor(Qw)
    x = x_of(V.dim)
    for plain, user in (
        (EquivariantLinear(V, W, dtype=F64), EquivariantLinear(V, W, basis_in=Qv, basis_out=Qw, dtype=F64)),
        (EquivariantLayerNorm(V, dtype=F64), EquivariantLayerNorm(V, basis=Qv, dtype=F64)),
        (PointwiseNonlinearity(eqattn.group("D4"), 2, dtype=F64), PointwiseNonlinearity(eqattn.group("D4"), 2, basis=Qv, dtype=F64)),
    ):
        user.load_state_dict({k: v for k, v in plain.state_dict().items() if "coords" not in k}, strict=False)
        out_q = tw if isinstance(plain, EquivariantLinear) else tv
        with torch.no_grad():
            assert torch.allclose(user(x), plain(x @ tv) @ out_q.T, atol=1e-12)
    only_in = EquivariantLinear(V, W, basis_in=Qv, dtype=F64)
    only_in.load_state_dict(plain_state := EquivariantLinear(V, W, dtype=F64).state_dict(), strict=False)
    ref = EquivariantLinear(V, W, dtype=F64)
    ref.load_state_dict(plain_state)
    with torch.no_grad():
        assert torch.allclose(only_in(x), ref(x @ tv), atol=1e-12)
    pool = InvariantPooling(V, basis=Qv, dtype=F64)
    assert torch.allclose(pool(x), InvariantPooling(V, dtype=F64)(x @ tv), atol=1e-12)


@pytest.mark.parametrize("G, v, w", CASES)
def test_norms(G: str, v: str, w: str) -> None:
    V = rep(G, v)
    x = x_of(V.dim) * 3 + 1
    for scope in ("vector", "isotypic"):
        ln = EquivariantLayerNorm(V, scope=scope, dtype=F64)
        rms = EquivariantRMSNorm(V, scope=scope, dtype=F64)
        with torch.no_grad():
            ln.weight.uniform_(0.5, 2)
            ln.bias.normal_()
            rms.weight.uniform_(0.5, 2)
        assert equivariance_error(ln, V, V, G, x) < TOL
        assert equivariance_error(rms, V, V, G, x) < TOL
        assert ln.num_parameters == copies(V) + trivial_copies_of(V)
        assert rms.num_parameters == copies(V)
    assert EquivariantLayerNorm(V, elementwise_affine=False).num_parameters == 0
    assert EquivariantLayerNorm(V, bias=False).num_parameters == copies(V)


def test_layer_norm_is_nn_layer_norm_on_the_trivial_component() -> None:
    """V = 5 x trivial: every coordinate is invariant, so it is exactly nn.LayerNorm; and the
    RMS of the output is 1 on every component with scope='isotypic'."""
    V = rep("C4", "5xA")
    x = x_of(5)
    ours = EquivariantLayerNorm(V, dtype=F64)
    ref = torch.nn.LayerNorm(5, dtype=F64)
    assert torch.allclose(ours(x), ref(x), atol=1e-12)
    V = rep("D4", "3xA1 + 2xE1 + B1 + 4xB2")
    y = EquivariantRMSNorm(V, scope="isotypic", dtype=F64)(x_of(V.dim))
    for c in components(V):
        part = y[..., c.start : c.stop]
        assert torch.allclose(part.square().mean(-1), torch.ones_like(part[..., 0]), atol=1e-6)


@pytest.mark.parametrize("G, v, w", CASES)
def test_gate(G: str, v: str, w: str) -> None:
    V = rep(G, w)
    gate = EquivariantGate(V, activation="gelu")
    assert gate.in_rep.dim == V.dim + copies(V) - trivial_copies_of(V)
    assert invariant_dim(gate.in_rep) == invariant_dim(V) + gate.num_gates
    assert equivariance_error(gate, gate.in_rep, V, G, x_of(gate.in_rep.dim)) < TOL
    assert sum(p.numel() for p in gate.parameters()) == 0


@pytest.mark.parametrize("G, sub, k", [("D4", None, 2), ("C3", None, 3), ("O", None, 1), ("D4", "C2xC2.1", 3), ("O", "C4", 2)])
def test_pointwise(G: str, sub, k: int) -> None:  # noqa: ANN001
    group = eqattn.group(G)
    act = PointwiseNonlinearity(group, copies=k, subgroup=sub, activation="relu", dtype=F64)
    V = act.rep
    index = group.order // (1 if sub is None else group.lattice.resolve(sub).order)
    assert V.dim == k * index
    expected = eqattn.rep(group, f"{k}x" + ("regular" if sub is None else f"perm:{sub}"))
    assert V.mults == expected.mults
    assert equivariance_error(act, V, V, G, x_of(V.dim)) < TOL
    # not linear: relu really acts (a linear map would give f(-x) = -f(x))
    x = x_of(V.dim)
    assert float((act(-x) + act(x)).abs().max()) > 0.1


def test_pointwise_is_relu_in_the_permutation_basis() -> None:
    """In escnn-style coordinates (the permutation basis of the regular representation, found by
    basis_from_elements) the module is literally relu."""
    from eqattn.numeric.basis import basis_from_elements
    from eqattn.torch.nonlinearity import permutation_matrices

    G = eqattn.group("D4")
    P = permutation_matrices(G)
    V = eqattn.rep(G, "regular")
    change = basis_from_elements(G, V.matrices(), P)
    act = PointwiseNonlinearity(G, activation="relu", basis=change, dtype=F64)
    x = x_of(8)
    assert torch.allclose(act(x), torch.relu(x), atol=1e-12)


@pytest.mark.parametrize("G, v, w", CASES)
def test_dropout_and_pooling(G: str, v: str, w: str) -> None:
    V = rep(G, v)
    drop = EquivariantDropout(V, p=0.5).train()
    x = x_of(V.dim)

    def seeded(z: torch.Tensor) -> torch.Tensor:
        torch.manual_seed(5)
        return drop(z)

    assert equivariance_error(seeded, V, V, G, x) < TOL
    y = seeded(x)
    assert 0.2 < float((y == 0).double().mean()) < 0.8  # it does drop
    assert torch.equal(drop.eval()(x), x)
    for mode, size in (("both", copies(V)), ("trivial", invariant_dim(V)), ("norms", copies(V) - invariant_dim(V))):
        pool = InvariantPooling(V, mode=mode)
        out = pool(x)
        assert out.shape[-1] == size == pool.out_features
        err = max(float((pool(x @ rho(V, g).T) - out).abs().max()) for g in elements(G))
        assert err < TOL * max(1.0, float(out.abs().max()))


def test_position_biases_count_and_shape() -> None:
    rel = RelativePositionBias(max_distance=3, dtype=F64)
    assert rel.num_parameters == 7
    with torch.no_grad():
        rel.weight.copy_(torch.arange(7, dtype=F64))
    B = rel(torch.tensor([0, 1, 5]))
    assert B.tolist() == [[3, 4, 6], [2, 3, 6], [0, 0, 3]]  # clip(p_j - p_i, -3, 3) + 3
    one_sided = RelativePositionBias(max_distance=3, bidirectional=False)
    assert one_sided.num_parameters == 4
    ab = AbsolutePositionBias(max_len=10, dim=4, dtype=F64)
    assert ab.num_parameters == 10 * 4 + 2 * 16
    pos = torch.tensor([[0, 3, 9], [1, 1, 2]])
    B = ab(pos).detach()
    assert B.shape == (2, 3, 3)
    E = ab.embedding.detach()
    expect = (E[3] @ ab.query.detach().T) @ (E[9] @ ab.key.detach().T) / 2
    assert abs(float(B[0, 1, 2]) - float(expect)) < 1e-12
    with pytest.raises(ValueError, match="positions must lie"):
        ab(torch.tensor([10]))


def test_bad_input_is_refused_clearly() -> None:
    from eqattn.errors import InputError

    with pytest.raises(InputError, match="in_rep"):
        EquivariantLinear("2xregular", rep("D4", "regular"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="different groups"):
        EquivariantLinear(rep("D4", "regular"), rep("C4", "regular"))
    with pytest.raises(ValueError, match="scope"):
        EquivariantLayerNorm(rep("D4", "regular"), scope="channel")
    with pytest.raises(InputError, match="basis"):
        EquivariantLayerNorm(rep("D4", "regular"), basis=np.eye(3))
    with pytest.raises(ValueError, match="dropout probability"):
        EquivariantDropout(rep("D4", "regular"), p=1.0)
    with pytest.raises(ValueError, match="activation"):
        PointwiseNonlinearity(eqattn.group("D4"), activation="swishy")


def test_hand_worked_c4_on_a_plus_e1() -> None:
    """C4 on V = 2xA + E1, coordinates [a, b | u, v] (trivial copies first, then the rotation
    plane): every module's output written out by hand."""
    V = rep("C4", "2xA + E1")
    a, b, u, v = 1.0, 3.0, 3.0, -4.0
    x = torch.tensor([[a, b, u, v]], dtype=F64)
    pool = InvariantPooling(V, eps=0.0)(x)
    assert pool.tolist() == [[a, b, 5.0]]  # the trivial coordinates, |(u, v)| = 5
    # LayerNorm: centre a, b by their mean 2 -> (-1, 1), then divide by sqrt(mean of squares)
    ln = EquivariantLayerNorm(V, eps=0.0, dtype=F64)
    rms = ((1 + 1 + 9 + 16) / 4) ** 0.5
    assert torch.allclose(ln(x), torch.tensor([[-1, 1, u, v]], dtype=F64) / rms, atol=1e-14)
    with torch.no_grad():
        ln.weight.copy_(torch.tensor([2.0, 3.0, 0.5], dtype=F64))  # per copy: a, b, the E1 copy
        ln.bias.copy_(torch.tensor([10.0, 20.0], dtype=F64))
    assert torch.allclose(ln(x), torch.tensor([[10 - 2 / rms, 20 + 3 / rms, 0.5 * u / rms, 0.5 * v / rms]], dtype=F64), atol=1e-14)
    iso = EquivariantRMSNorm(V, eps=0.0, scope="isotypic", dtype=F64)
    assert torch.allclose(iso(x), torch.tensor([[a / 5 ** 0.5, b / 5 ** 0.5, u / 12.5 ** 0.5, v / 12.5 ** 0.5]], dtype=F64), atol=1e-14)
    # gate: V = A + E1 takes [s, g | u, v] (V's scalar, then the E1 copy's gate)
    gate = EquivariantGate(rep("C4", "A + E1"), activation="relu")
    s, g = -2.0, 0.5
    sig = 1 / (1 + torch.exp(torch.tensor(-g, dtype=F64)))
    out = gate(torch.tensor([[s, g, u, v]], dtype=F64))
    assert torch.allclose(out, torch.stack([torch.tensor(0.0, dtype=F64), sig * u, sig * v])[None], atol=1e-14)
    # linear A + E1 -> A + E1: weight blockdiag(c0, c1 I + c2 J) / sqrt(2)-normalised commutant
    lin = EquivariantLinear(rep("C4", "A + E1"), rep("C4", "A + E1"), dtype=F64)
    assert lin.num_parameters == 1 + 2 + 1  # real A, complex-type E1 (e = 2), a bias on A
    W = lin.weight.detach()
    assert W[0, 1:].abs().max() == 0 and W[1:, 0].abs().max() == 0
    assert abs(float(W[1, 1] - W[2, 2])) < 1e-14 and abs(float(W[1, 2] + W[2, 1])) < 1e-14  # commutes with rotations


def test_isotypic_scope_keeps_only_signs_of_single_copies():
    """The norm module's counterexample for scope='isotypic' as the default (D4, V = regular):
    the one-dimensional components A2, B1, B2 become their signs whatever their magnitudes, the
    LayerNorm's single trivial coordinate becomes 0; scope='vector' keeps the ratios."""
    V = rep("D4", "regular")
    comps = components(V)
    one_dim = [c for c in comps if c.size == 1 and not c.trivial]
    assert len(one_dim) == 3
    x = torch.zeros(2, V.dim, dtype=F64)
    for k, c in enumerate(one_dim):  # magnitudes 0.3, 7, 40 (and their negatives)
        x[0, c.start] = [0.3, 7.0, 40.0][k]
        x[1, c.start] = -[0.3, 7.0, 40.0][k]
    x[:, [c.start for c in comps if c.trivial][0]] = 5.0
    iso = EquivariantLayerNorm(V, eps=1e-5, scope="isotypic", dtype=F64)(x)
    vec = EquivariantLayerNorm(V, eps=1e-5, scope="vector", dtype=F64)(x)
    signs = torch.tensor([[1.0] * 3, [-1.0] * 3], dtype=F64)
    assert torch.allclose(iso[:, [c.start for c in one_dim]], signs, atol=1e-3)
    assert float(iso[:, [c.start for c in comps if c.trivial][0]].abs().max()) == 0.0
    ratios = vec[0, [c.start for c in one_dim]] / vec[0, one_dim[0].start]
    assert torch.allclose(ratios, torch.tensor([1.0, 7 / 0.3, 40 / 0.3], dtype=F64), rtol=1e-12)
    assert EquivariantLayerNorm(V).scope == EquivariantRMSNorm(V).scope == "vector"
