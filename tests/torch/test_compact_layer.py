"""The PyTorch layer and the block modules on compact groups (SO2, O2, SO3, O3): equivariant in
float64 under 100 Haar-random elements of the compact group itself, not only of the finite
stand-in the weights are built from (V's matrices at any element: numeric/ambient.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import eqattn
from eqattn.attention import Design, Problem
from eqattn.attention.coverage import check_coverage
from eqattn.numeric.ambient import ambient_rep
from eqattn.numeric.haar import haar_elements
from eqattn.torch import (
    EquivariantAttention,
    EquivariantGate,
    EquivariantLayerNorm,
    EquivariantLinear,
    EquivariantMultiheadAttention,
    EquivariantRMSNorm,
    EquivariantTransformerEncoderLayer,
    InvariantPooling,
)

F64 = torch.float64
TOL = 1e-10
SAMPLES = 100

#: the optimiser's answer for the issue's must-show problem: `eqattn optimize -G O3 -V
#: "16x0e + 8x1o + 4x2e" -H 8 -d 16` (proven optimal, 9856 parameters, lower bound 9856;
#: re-checked below by the coverage test and the count)
MUST_SHOW = ("O3", "16x0e + 8x1o + 4x2e", 8, 16, [("SO3", "16x0 + 5x1 + 3x2")] * 8, 9856)


def haar_rho(V, seed: int = 0, count: int = SAMPLES) -> torch.Tensor:  # noqa: ANN001
    """(count, dim V, dim V): V's matrices at Haar-random elements of its compact group."""
    kind = V.sub.group.compact.kind
    return torch.as_tensor(ambient_rep(V).matrices(haar_elements(kind, count, seed)), dtype=F64)


@torch.no_grad()
def equivariance_error(f, R_in: torch.Tensor, R_out: torch.Tensor, x: torch.Tensor) -> float:  # noqa: ANN001
    """max over the samples of |f(x R_in^T) - f(x) R_out^T| / |f(x)|, one batched call."""
    y = f(x)
    xs = torch.einsum("btn,smn->sbtm", x, R_in).reshape(-1, *x.shape[1:])
    ys = f(xs).reshape(R_in.shape[0], *y.shape)
    want = torch.einsum("btn,smn->sbtm", y, R_out) if R_out is not None else y.expand_as(ys)
    return float((ys - want).abs().max()) / max(float(y.abs().max()), 1e-300)


def x_of(n: int, seed: int = 1, batch: int = 2, tokens: int = 5) -> torch.Tensor:
    return torch.randn(batch, tokens, n, dtype=F64, generator=torch.Generator().manual_seed(seed))


def test_the_must_show_layer_is_o3_equivariant() -> None:
    group, v, H, d, orbits, params = MUST_SHOW
    p = Problem.create(group, v, H, d)
    design = Design.create(p, orbits)
    assert design.params == params and all(c.covered for c in check_coverage(p, design))
    layer = EquivariantAttention.from_design(design, dtype=F64)
    R = haar_rho(p.V, seed=11)
    assert (torch.linalg.det(R[:, :3, :3]) != 0).all()
    assert equivariance_error(layer, R, R, x_of(p.dim_v)) < TOL
    # and the check can fail: a generic linear map of V is not equivariant
    W = torch.randn(p.dim_v, p.dim_v, dtype=F64, generator=torch.Generator().manual_seed(0))
    assert equivariance_error(lambda x: layer(x) @ W, R, R, x_of(p.dim_v)) > 1e-3


@pytest.mark.parametrize("group,v,H,d", [
    ("SO3", "1x0 + 1x1", 2, 2),          # doc §4.1: 12 parameters
    ("O3", "2x0e + 1x1o", 2, 1),         # doc §4.2: 16
    ("O3", "1x0e + 1x0o + 2x1o + 1x2e", 3, 4),
    ("SO2", "A + E1 + E2", 2, 1),        # doc §4.3: 24
    ("O2", "A1 + A2 + E1 + 2xE3", 3, 2),
    ("SO3", "1x0 + 1x1 + 1x3", 2, 4),    # l = 3: the character-detecting stand-in C6 (§8)
    ("O3", "1x0e + 1x3o + 1x3e", 2, 7),  # C6 x Ci
])
def test_optimal_layers_and_the_drop_in_are_equivariant_under_haar_samples(group: str, v: str, H: int, d: int) -> None:
    p = Problem.create(group, v, H, d)
    design = eqattn.optimal_design(p)
    R = haar_rho(p.V, seed=len(v) + H)
    x = x_of(p.dim_v)
    layer = EquivariantAttention.from_design(design, dtype=F64)
    assert equivariance_error(layer, R, R, x) < TOL
    mha = EquivariantMultiheadAttention(design, batch_first=True, dtype=F64)
    assert equivariance_error(lambda t: mha(t, t, t, need_weights=False)[0], R, R, x) < TOL
    # the attention weights are invariant
    assert equivariance_error(lambda t: mha(t, t, t)[1], R, None, x) < TOL


@pytest.mark.parametrize("group,v,w", [
    ("O3", "2x0e + 1x1o + 1x2e + 1x1e", "1x0e + 2x1o + 1x2e + 1x0o"),
    ("SO3", "1x0 + 2x1 + 1x2", "2x0 + 1x1 + 1x2"),
    ("O3", "1x0e + 1x3o + 1x2e", "1x3o + 1x3e + 1x0e"),  # l = 3 (§8)
    ("O2", "A1 + A2 + E1 + E2", "2xA1 + E2 + 2xE1"),
    ("SO2", "2xA + E1 + E3", "A + 2xE1 + E3"),
])
def test_block_modules_are_equivariant_under_haar_samples(group: str, v: str, w: str) -> None:
    V = Problem.create(group, v + " + " + w, 1, 1).V  # the stand-in for the band of both
    V, W = (eqattn.rep(V.sub.group, t) for t in (v, w))
    gen = torch.Generator().manual_seed(3)
    Rv, Rw = haar_rho(V, seed=5), haar_rho(W, seed=5)
    x = x_of(V.dim)
    lin = EquivariantLinear(V, W, dtype=F64, generator=gen)
    assert equivariance_error(lin, Rv, Rw, x) < TOL
    for norm in (EquivariantLayerNorm(V, dtype=F64), EquivariantRMSNorm(V, dtype=F64), EquivariantRMSNorm(V, dtype=F64, scope="isotypic")):
        assert equivariance_error(norm, Rv, Rv, x) < TOL
    gate = EquivariantGate(W)
    lin_gate = EquivariantLinear(V, gate.in_rep, dtype=F64, generator=gen)
    assert equivariance_error(lambda t: gate(lin_gate(t)), Rv, Rw, x) < TOL
    pool = InvariantPooling(V, dtype=F64)
    assert equivariance_error(pool, Rv, None, x) < TOL
    layer = EquivariantTransformerEncoderLayer(V, 2, W, head_dim=2, dropout=0.0, batch_first=True, dtype=F64).eval()
    assert equivariance_error(layer, Rv, Rv, x) < TOL
    # the default feed-forward: pointwise on copies of the permutation representation on G/G°
    plain = EquivariantTransformerEncoderLayer(V, 2, head_dim=2, dropout=0.0, batch_first=True, dtype=F64).eval()
    assert plain.hidden_rep.dim == plain.activation.copies * (1 if group.startswith("S") else 2)
    assert equivariance_error(plain, Rv, Rv, x) < TOL


@pytest.mark.parametrize("group,v", [("O3", "1x0e + 1x1o + 1x2e"), ("SO2", "A + 2xE2"), ("O2", "A2 + E1")])
def test_the_fallback_design_layer_is_equivariant(group: str, v: str) -> None:
    """A compact group's regular design: H x (G°, V|G°) (no regular orbit G/1 exists)."""
    p = Problem.create(group, v, 2, 3)
    design = Design.regular(p)
    assert all(o.sub.id == 0 for o in design.orbits)
    layer = EquivariantAttention.from_design(design, dtype=F64)
    R = haar_rho(p.V, seed=21)
    assert equivariance_error(layer, R, R, x_of(p.dim_v)) < TOL


def test_matrices_at_a_character_detecting_stand_in_fix_a_basis_only_as_wigner_blocks() -> None:
    """At l >= 3 (§8) V's irreps are not irreducible on the stand-in, so an average over its
    elements could intertwine on F only. Matrices that are V's Wigner blocks in another order
    give the block permutation, and the layer built on them is O(3)-equivariant under Haar
    samples; a rotated basis is refused, naming the way out. Where F tells V's irreps apart
    (the permutation representation on G/G°: 0e + 0o) the average is still used."""
    from eqattn.errors import InputError
    from eqattn.numeric.basis import basis_from_elements

    p = Problem.create("O3", "1x0e + 1x3o", 1, 1)
    perm = np.eye(p.dim_v)[[*range(1, 8), 0]]  # the 0e block moved after the 3o block
    user = perm @ p.rho @ perm.T
    change = basis_from_elements(p.group, p.rho, user)
    assert np.array_equal(change.Q, perm) and change.error < 1e-12
    design = eqattn.optimal_design(p)
    layer = EquivariantAttention.from_design(design, rep_matrices=list(user), dtype=F64)
    R = haar_rho(p.V, seed=2)
    Pt = torch.as_tensor(perm)
    assert equivariance_error(layer, Pt @ R @ Pt.T, Pt @ R @ Pt.T, x_of(p.dim_v)) < TOL
    rot = np.linalg.qr(np.random.default_rng(0).normal(size=(p.dim_v, p.dim_v)))[0]
    with pytest.raises(InputError, match="give a basis instead"):
        basis_from_elements(p.group, p.rho, rot @ p.rho @ rot.T)
    with pytest.raises(InputError, match="give a basis instead"):
        EquivariantAttention.from_design(design, rep_matrices=list(rot @ p.rho @ rot.T))
    two = eqattn.rep(p.group, "1x0e + 1x0o")
    assert basis_from_elements(p.group, two.matrices(), two.matrices()).error < 1e-12
