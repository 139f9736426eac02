"""EquivariantAttention through the real core: Problem / Design / realize_design (float64)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import torch

from eqattn import optimize
from eqattn.attention import Design, Problem, check_coverage, check_report
from eqattn.numeric import design_weights, expand_design, reference_attention, sample_vanilla
from eqattn.numeric.reference import attention_from_blocks
from eqattn.torch import EquivariantAttention, VanillaAttention

TOL = 1e-10
F64 = torch.float64


def example2():
    problem = Problem.create("C4", "E1", 2, 1)
    return problem, Design.create(problem, [("C2", "B")])


def d3_regular():
    problem = Problem.create("D3", "regular", 2, 1)
    return problem, Design.create(problem, [("C2", "A+B"), ("C3", "E1"), ("C1", "A")])


def assert_equivariant(layer, X):
    Y = layer(X)
    assert float(Y.detach().abs().max()) > 1e-3
    for g in range(layer.group_order):
        rho = layer.group_action(g)
        err = float((layer(X @ rho.T) - Y @ rho.T).detach().abs().max())
        assert err < TOL, f"g={g}: {err:.2e}"


def test_example2_parameter_count_and_equivariance():
    problem, design = example2()
    layer = EquivariantAttention.from_design(design, dtype=F64, generator=torch.Generator().manual_seed(0))
    assert sum(p.numel() for p in layer.parameters()) == 8 == layer.num_parameters
    assert check_report(problem, design)["design_params"] == 8
    assert problem.vanilla_params == VanillaAttention(2, 1, 2).num_parameters == 16
    assert (layer.heads, layer.head_dim, layer.group_order) == (2, 1, 4)
    for g in range(4):
        np.testing.assert_array_equal(layer.group_action(g).numpy(), problem.rho[g])
    X = torch.randn(4, 6, 2, dtype=F64, generator=torch.Generator().manual_seed(1))
    assert_equivariant(layer, X)
    mask = torch.ones(6, 6, dtype=torch.bool).tril()
    for g in range(4):
        rho = layer.group_action(g)
        err = (layer(X @ rho.T, attn_mask=mask) - layer(X, attn_mask=mask) @ rho.T).detach().abs().max()
        assert float(err) < TOL


@pytest.mark.parametrize("make", [example2, d3_regular], ids=["C4-E1", "D3-regular"])
def test_matches_core_reference(make):
    """Our forward equals the core's numpy reference on the same per-orbit weights."""
    problem, design = make()
    layer = EquivariantAttention.from_design(design, dtype=F64, generator=torch.Generator().manual_seed(2))
    assert layer.num_parameters == design.params
    weights = layer.design_weights()
    blocks = expand_design(problem, design, weights)
    X = torch.randn(2, 5, problem.dim_v, dtype=F64, generator=torch.Generator().manual_seed(3))
    Y = layer(X).detach().numpy()
    for b in range(2):
        np.testing.assert_allclose(Y[b], attention_from_blocks(X[b].numpy(), blocks), atol=TOL, rtol=0)
    Wq, Wk, Wv, Wo = (t.detach().numpy() for t in layer.head_weights())
    np.testing.assert_allclose(Y[0], reference_attention(X[0].numpy(), Wq, Wk, Wv, Wo), atol=TOL, rtol=0)


def test_d3_regular_equivariance_and_count():
    problem, design = d3_regular()
    assert problem.dim_v == 6
    layer = EquivariantAttention.from_design(design, dtype=F64, generator=torch.Generator().manual_seed(4))
    # SPEC §3: 4 * sum_tau m_tau(V|K) m_tau(W) e_tau; V|C2 = 3A+3B, V|C3 = 2A+2E1, V|C1 = 6A
    assert layer.num_parameters == 4 * (3 + 3 + 2 * 1 * 2 + 6) == design.params
    assert sum(p.numel() for p in layer.parameters()) == layer.num_parameters
    X = torch.randn(3, 7, 6, dtype=F64, generator=torch.Generator().manual_seed(5))
    assert_equivariant(layer, X)
    ((layer(X) - 1) ** 2).sum().backward()
    assert all(p.grad is not None and float(p.grad.abs().max()) > 0 for p in layer.parameters())


@pytest.mark.parametrize("make", [example2, d3_regular], ids=["C4-E1", "D3-regular"])
def test_witness_weights_reproduce_vanilla(make):
    """SPEC §4.5 (⇐) end to end: for every covered clustering and witness, a sampled
    equivariant vanilla layer is reproduced by the torch layer with the core's design weights."""
    problem, design = make()
    layer = EquivariantAttention.from_design(design, dtype=F64)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2, 5, problem.dim_v))
    checked = 0
    for verdict in check_coverage(problem, design):
        if not verdict.covered:
            continue
        for result in verdict.witnesses:
            s = sample_vanilla(problem, verdict.clustering, result.options, rng)
            teacher = VanillaAttention.from_numpy(s.Wq, s.Wk, s.Wv, s.Wo)
            layer.load_design_weights(design_weights(problem, design, result, s, verdict.clustering, rng))
            want = teacher(torch.as_tensor(X)).detach()
            got = layer(torch.as_tensor(X)).detach()
            scale = max(float(want.abs().max()), 1e-12)
            assert float((got - want).abs().max()) < 1e-9 * max(scale, 1.0)
            checked += 1
    assert checked > 0


def _report(problem, design):
    rep = check_report(problem, design)
    # the keys from_json needs (the CLI prints them at top level)
    rep.update(group=problem.group.name, rep=str(rep.get("rep")), heads=problem.heads, head_dim=problem.head_dim)
    return rep


def test_from_json_dict_string_path(tmp_path):
    problem, design = example2()
    rep = _report(problem, design)
    a = EquivariantAttention.from_json(rep, dtype=F64)
    b = EquivariantAttention.from_json(json.dumps(rep), dtype=F64)
    path = tmp_path / "design.json"
    path.write_text(json.dumps(rep))
    c = EquivariantAttention.from_json(str(path), dtype=F64)
    d = EquivariantAttention.from_json(path, dtype=F64)
    for layer in (a, b, c, d):
        assert layer.num_parameters == 8 and layer.heads == 2
    # the optimizer's shape: top-level "orbits" and "design_params"
    opt = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "design_params": 8,
           "orbits": [{"subgroup": 1, "name": "C2", "rep": "B"}]}
    assert EquivariantAttention.from_json(opt).num_parameters == 8
    opt_bad = dict(opt, design_params=16)
    with pytest.raises(ValueError, match="16"):
        EquivariantAttention.from_json(opt_bad)
    with pytest.raises(ValueError, match="head_dim"):
        EquivariantAttention.from_json({k: v for k, v in opt.items() if k != "head_dim"})


def test_from_json_optimizer_output():
    problem = Problem.create("C4", "E1", 2, 1)
    rep = optimize.optimize_report(problem, 30)
    layer = EquivariantAttention.from_json(rep, dtype=F64)
    assert layer.num_parameters == rep["design_params"] == 8
    X = torch.randn(2, 5, 2, dtype=F64, generator=torch.Generator().manual_seed(6))
    assert_equivariant(layer, X)


def test_d3_regular_optimal_design():
    problem = Problem.create("D3", "regular", 2, 1)
    rep = optimize.optimize_report(problem, 60)
    layer = EquivariantAttention.from_json(rep, dtype=F64, generator=torch.Generator().manual_seed(7))
    assert sum(p.numel() for p in layer.parameters()) == rep["design_params"]
    assert rep["design_params"] <= problem.vanilla_params
    X = torch.randn(2, 6, 6, dtype=F64, generator=torch.Generator().manual_seed(8))
    assert_equivariant(layer, X)


@pytest.mark.parametrize("command", [
    ["check", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "-o", "C2:B", "--json"],
    ["optimize", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--json"],
], ids=["check", "optimize"])
def test_from_json_cli_output(command, tmp_path):
    """What `eqattn check --json` / `eqattn optimize --json` print loads as it is."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "eqattn.cli", *command], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    layer = EquivariantAttention.from_json(out.stdout, dtype=F64)
    assert layer.num_parameters == 8 == json.loads(out.stdout)["design_params"]
    path = tmp_path / "d.json"
    path.write_text(out.stdout)
    assert EquivariantAttention.from_json(path).num_parameters == 8


@pytest.mark.parametrize("make", [example2, d3_regular], ids=["C4-E1", "D3-regular"])
def test_from_vanilla(make):
    """An equivariant vanilla layer converted into the design's layer computes the same function."""
    from eqattn.attention import clusterings
    from eqattn.attention.coverage import scenarios

    problem, design = make()
    rng = np.random.default_rng(11)
    X = torch.as_tensor(rng.normal(size=(2, 5, problem.dim_v)))
    done = 0
    for c in clusterings(problem):
        for opts in list(scenarios(problem, c))[:3]:
            s = sample_vanilla(problem, c, opts, rng)
            teacher = VanillaAttention.from_numpy(s.Wq, s.Wk, s.Wv, s.Wo)
            for source in (teacher, (s.Wq, s.Wk, s.Wv, s.Wo)):
                layer = EquivariantAttention.from_vanilla(design, source, dtype=F64)
                want = teacher(X).detach()
                err = float((layer(X).detach() - want).abs().max())
                assert err < 1e-9 * max(float(want.abs().max()), 1.0)
            done += 1
    assert done >= 3
    bad = VanillaAttention(2, 1, problem.dim_v, dtype=F64, generator=torch.Generator().manual_seed(0))
    if problem.group.name == "C4":
        with pytest.raises(ValueError):  # InputError: not G-equivariant
            EquivariantAttention.from_vanilla(design, bad)


def test_the_layer_refuses_what_is_not_a_token_tensor() -> None:
    """A numpy array, a string or a tensor whose last axis is not dim V: an error naming ``x``
    (InputTypeError is a TypeError, InputError a ValueError), never an AttributeError."""
    import numpy as np
    import pytest as _pytest
    import torch as _torch

    import eqattn
    from eqattn.errors import InputError, InputTypeError
    from eqattn.torch import EquivariantAttention

    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "regular"), heads=1, head_dim=1)
    layer = EquivariantAttention.from_design(eqattn.Design.regular(prob), dtype=_torch.float64)
    for bad in (np.zeros((2, 3, 4)), "x"):
        with _pytest.raises(InputTypeError, match="x"):
            layer(bad)
    with _pytest.raises(InputError, match="dim V"):
        layer(_torch.zeros(2, 3, 5, dtype=_torch.float64))
    assert layer(_torch.zeros(2, 3, 4, dtype=_torch.float64)).shape == (2, 3, 4)
