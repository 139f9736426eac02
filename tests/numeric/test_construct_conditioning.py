"""The weight construction stays at rounding level when the vanilla sample is badly
conditioned (W_K, W_V times a G-equivariant E of condition 1e6): the polar-factor construction
does not depend on the sample's condition at all here (1e-14), where a least-norm solve of the
stacked value rows whose solution is then projected onto the Hom space loses about cond^2
digits (6e-9 on the D4 case; the same mechanism gave 1.4e-7 at D4 96xregular and 1.3e-5 on
the O3 must-show design with the sampler's own draws, against a 1e-8 tolerance)."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Design, Problem, check_coverage
from eqattn.numeric import design_weights, expand_design, sample_vanilla
from eqattn.numeric.construct import VanillaSample, design_attention
from eqattn.numeric.reference import attention_from_blocks, reference_attention


def _copy_scaling(problem: Problem, cond: float, rng: np.random.Generator) -> np.ndarray:
    """A G-equivariant E (one scalar per copy of an irrep in V's block form: E ∈ End_G(V)),
    with singular values spread from 1 down to 1/cond."""
    dims = [int(d) for d, m in zip(problem.V.irreps.dims, problem.V.mults) for _ in range(int(m))]
    u = rng.uniform(size=len(dims))
    u[0], u[-1] = 0.0, 1.0
    return np.diag(np.repeat(cond**-u, dims))


def _ill_conditioned(problem: Problem, s: VanillaSample, E: np.ndarray) -> VanillaSample:
    """The same clustering's layer with W_K -> W_K E and W_V -> W_V E (M_h -> M_h E, R_h -> R_h E)."""
    dense = [np.asarray(x) if isinstance(x, np.ndarray) else x.dense() for x in s.M]
    denser = [np.asarray(x) if isinstance(x, np.ndarray) else x.dense() for x in s.R]
    return VanillaSample(s.Wq, s.Wk @ E, s.Wv @ E, s.Wo, tuple(M @ E for M in dense), tuple(R @ E for R in denser))


CASES = [
    ("D4", "4xregular", 2, 16, [("D4", "4xA1 + 4xA2 + 4xB1 + 4xB2 + 4xE1"), ("C1", "16xA")]),
    ("O3", "4x0e + 2x1o + 1x2e", 3, 4, None),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_a_badly_conditioned_sample_is_reproduced_to_rounding(case):
    g, v, H, d, orbits = case
    p = Problem.create(g, v, H, d)
    des = Design.regular(p) if orbits is None else Design.create(p, orbits)
    rng = np.random.default_rng(7)
    worst, n = 0.0, 0
    for verdict in check_coverage(p, des):
        for res in verdict.witnesses if verdict.covered else ():
            for _ in range(3):  # three samples per scenario
                E = _copy_scaling(p, 1e6, rng)
                s = _ill_conditioned(p, sample_vanilla(p, verdict.clustering, res.options, rng), E)
                X = rng.normal(size=(5, p.dim_v))
                y0 = reference_attention(X, s.Wq, s.Wk, s.Wv, s.Wo)
                w = design_weights(p, des, res, s, verdict.clustering, rng)
                y1 = attention_from_blocks(X, expand_design(p, des, w))
                worst = max(worst, float(np.abs(y1 - y0).max() / np.abs(y0).max()))
                n += 1
    assert n >= 12
    assert worst < 1e-11, worst


def test_the_unexpanded_design_layer_equals_the_expanded_one():
    p = Problem.create("D4", "2xregular", 2, 2)
    des = Design.regular(p)
    rng = np.random.default_rng(0)
    w = [tuple(rng.normal(size=shape) for shape in ((o.head_dim, p.dim_v),) * 3 + ((p.dim_v, o.head_dim),)) for o in des.orbits]
    X = rng.normal(size=(2, 4, p.dim_v))  # a stack of two sequences
    want = np.array([attention_from_blocks(x, expand_design(p, des, w)) for x in X])
    np.testing.assert_allclose(design_attention(p, des, w, X), want, atol=1e-12, rtol=0)
