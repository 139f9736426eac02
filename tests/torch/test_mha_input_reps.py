"""kdim / vdim as other representations of G: equivariance in float64, parameter counts by
formula, the export to nn.MultiheadAttention, and clear refusals."""

import pytest
import torch

import eqattn
from eqattn.attention import Problem as CoreProblem
from eqattn.errors import InputError
from eqattn.reps import parse_rep
from eqattn.torch import EquivariantMultiheadAttention

F64 = torch.float64
CASES = [
    # group, V, H, d, design orbits, kdim rep, vdim rep
    ("D4", "regular", 4, 2, [("C2.1", "A + B"), ("C4", "E1")], "2xA1 + E1 + B2", "3xE1"),
    ("C4", "regular", 2, 2, [("C2", "A + B")], "E1 + 3xA", None),
    ("Q8", "regular", 2, 4, [("C4.1", "A + B + E1"), ("C1", "2xA")], None, "H + A + B1"),  # quaternionic V'
    ("C3", "A + E1", 3, 1, [("C1", "A")], "2xE1", "E1 + A"),
]


def build(case, **kw):  # noqa: ANN001, ANN003, ANN201
    g, v, H, d, orbits, kd, vd = case
    G = eqattn.group(g)
    prob = eqattn.Problem(G, eqattn.rep(G, v), heads=H, head_dim=d)
    m = EquivariantMultiheadAttention(eqattn.Design.create(prob, orbits), kdim=kd, vdim=vd, dtype=F64, **kw)
    with torch.no_grad():
        gen = torch.Generator().manual_seed(3)
        for p in (m.bias_qkv, m.bias_out):
            if p is not None:
                p.copy_(torch.randn(p.shape, generator=gen, dtype=F64))
    return prob, m


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[5]}-{c[6]}")
def test_equivariant_for_every_element_in_float64(case):
    _, m = build(case, batch_first=True, add_bias_kv=True)
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(2, 5, m.embed_dim, dtype=F64, generator=gen)
    k = torch.randn(2, 6, m.kdim, dtype=F64, generator=gen)
    v = torch.randn(2, 6, m.vdim, dtype=F64, generator=gen)
    with torch.no_grad():
        for need_weights in (True, False):
            y, w = m(q, k, v, need_weights=need_weights)
            scale = float(y.abs().max())
            for g in range(m.core.group_order):
                r, rk, rv = m.group_actions(g)
                y2, w2 = m(q @ r.T, k @ rk.T, v @ rv.T, need_weights=need_weights)
                assert float((y2 - y @ r.T).abs().max()) <= 1e-10 * scale
                if need_weights:
                    assert float((w2 - w).abs().max()) <= 1e-10


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[5]}-{c[6]}")
def test_parameter_counts_by_formula(case):
    """2 Σ_i dim Hom_K(V, W_i) + Σ_i dim Hom_K(V_k, W_i) + Σ_i dim Hom_K(V_v, W_i) weights."""
    prob, m = build(case)
    g, v, H, d, orbits, kd, vd = case
    design = eqattn.Design.create(prob, orbits)

    def hom(text):  # noqa: ANN001, ANN202
        rep = parse_rep(text, prob.group.subgroup_classes[-1]) if text else prob.V
        side = CoreProblem(prob.group, rep, H, d)
        return sum(side.restrict(o.sub).hom_dim(o.W) for o in design.orbits)

    assert m.num_weight_parameters == 2 * hom(None) + hom(kd) + hom(vd)
    assert sum(p.numel() for p in m.parameters()) == m.num_parameters
    assert m.kdim == (parse_rep(kd, prob.group.subgroup_classes[-1]).dim if kd else prob.dim_v)


def test_gradients_reach_the_key_and_value_coordinates():
    _, m = build(CASES[0], batch_first=True)
    q = torch.randn(1, 3, m.embed_dim, dtype=F64)
    out, _ = m(q, torch.randn(1, 4, m.kdim, dtype=F64), torch.randn(1, 4, m.vdim, dtype=F64), need_weights=False)
    out.square().sum().backward()
    assert all(p.grad is not None and float(p.grad.abs().max()) > 0 for p in (m.key_proj.theta, m.value_proj.theta))
    # the core's key/value coordinates are no parameters any more
    assert all("theta_k" not in dict(o.named_parameters()) and "theta_v" not in dict(o.named_parameters()) for o in m.core.orbits)


def test_export_with_kdim_vdim_computes_the_same():
    _, m = build(("C4", "regular", 2, 2, [("C2", "A + B")], "E1 + 3xA", "2xE1 + B"), batch_first=True)
    ref = m.to_multihead_attention()
    assert ref.kdim == m.kdim and ref.vdim == m.vdim
    q, k, v = torch.randn(2, 5, m.embed_dim, dtype=F64), torch.randn(2, 6, m.kdim, dtype=F64), torch.randn(2, 6, m.vdim, dtype=F64)
    a, wa = m(q, k, v)
    b, wb = ref(q, k, v)
    assert torch.allclose(a, b, atol=1e-10) and torch.allclose(wa, wb, atol=1e-10)


def test_state_dict_round_trip_and_refusals():
    prob, m = build(CASES[1])
    other = build(CASES[1])[1]
    other.load_state_dict(m.state_dict())
    q, k = torch.randn(3, 1, 4, dtype=F64), torch.randn(4, 1, m.kdim, dtype=F64)
    v = torch.randn(4, 1, 4, dtype=F64)
    assert torch.allclose(other(q, k, v)[0], m(q, k, v)[0], atol=1e-12)
    design = eqattn.Design.create(prob, [("C2", "A + B")])
    with pytest.raises(ValueError, match="kdim = 3: an integer alone"):
        EquivariantMultiheadAttention(design, kdim=3)
    with pytest.raises(InputError, match="vdim"):
        EquivariantMultiheadAttention(design, vdim="2xQ")
    with pytest.raises(ValueError, match=r"5 \(kdim\)"):
        m(q, torch.randn(4, 1, 4, dtype=F64), v)
    assert EquivariantMultiheadAttention(design, kdim=4, vdim="regular").key_proj is None  # = V: the core's own
