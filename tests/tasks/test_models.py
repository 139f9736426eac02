"""Every equivariant part of the task models (benchmarks/tasks/models.py) and the stacks, in
float64 over every group element; the vanilla model is NOT equivariant (the check can fail)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import torch

import eqattn
from benchmarks.tasks import symmetry
from benchmarks.tasks.models import EqModel, Lift, Readout, VanillaModel, eqattn_attention, eqattn_layer
from benchmarks.tasks.nbody import rho_in as nbody_rho_in
from benchmarks.tasks.symmetry import regular_perms, task_group


@pytest.fixture(autouse=True)
def float64():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(0)
    yield
    torch.set_default_dtype(old)


def test_symmetry_doctests():
    assert doctest.testmod(symmetry).failed == 0


@pytest.mark.parametrize("spec", ["Oh", "D4h", "O", "mat:[[0,-1],[1,0]];[[1,0],[0,-1]]"])
def test_actions_are_homomorphisms(spec):
    tg = task_group(spec)
    assert tg.check() < 1e-12
    P, t = regular_perms(tg.G, 2), tg.table
    assert max(np.abs(P[t[a, b]] - P[a] @ P[b]).max() for a in range(tg.order) for b in range(tg.order)) == 0


@torch.no_grad()
def _worst(f, x, act_in, act_out, order):  # noqa: ANN001
    y = f(x)
    return max(float((f(act_in(x, g)) - act_out(y, g)).abs().max()) for g in range(order)) / float(y.abs().max())


def test_parts_are_equivariant():
    tg = task_group("D4h", nbody_rho_in)
    m = 2
    P = torch.as_tensor(regular_perms(tg.G, m))
    R = torch.as_tensor(tg.rho_in)
    Ro = torch.as_tensor(tg.rho_out)
    u = torch.randn(4, 5, 7)
    h = torch.randn(4, 5, tg.order * m)
    on = lambda M: (lambda x, g: x @ M[g].T)  # noqa: E731
    assert _worst(Lift(tg.rho_in, m), u, on(R), on(P), tg.order) < 1e-12
    assert _worst(Readout(tg.rho_out, m), h, on(P), on(Ro), tg.order) < 1e-12
    prob = eqattn.Problem.create("D4h", "2xregular", 2, 16)
    layer = eqattn_layer(eqattn.Design.regular(prob), tg, m)
    assert _worst(layer, h, on(P), on(P), tg.order) < 1e-10


def test_stacks_equivariant_and_vanilla_not():
    tg = task_group("O")
    m = 1
    prob = eqattn.Problem.create("O", "regular", 2, 12)
    design = eqattn.Design.create(prob, [("O", "A1 + A2 + 2xE + 3xT1 + 3xT2"), ("A4", "2xA + 2xE + 4xT")])
    attn = eqattn_attention(design, tg, m)
    assert attn.num_parameters == design.params == 240
    model = EqModel(tg, m, 2, lambda i: eqattn_layer(design, tg, m), "tokens")
    assert all(layer.self_attn.core.num_parameters == 240 for layer in model.layers)
    R = torch.as_tensor(tg.rho_in)
    on = lambda x, g: x @ R[g].T  # noqa: E731
    u = torch.randn(3, 6, 3)
    assert _worst(model, u, on, on, tg.order) < 1e-10
    clf = EqModel(tg, m, 1, lambda i: eqattn_layer(design, tg, m), 10)
    assert _worst(clf, u, on, lambda y, g: y, tg.order) < 1e-10
    vanilla = VanillaModel(3, 2, 12, 2, "tokens", 3)
    assert _worst(vanilla, u, on, on, tg.order) > 1e-3
