"""Converting equivariant vanilla weights into design weights (the feature behind verify)."""

import numpy as np
import pytest

from eqattn.attention import Design, Problem, clusterings
from eqattn.attention.coverage import scenarios
from eqattn.errors import InputError
from eqattn.numeric import sample_vanilla
from eqattn.numeric.convert import convert_vanilla

CASES = [
    ("C4", "E1", 2, 1, [("C2", "B")]),
    ("D3", "regular", 2, 2, "regular"),
    ("D4", "A2 + B1 + E1", 2, 1, "regular"),
    ("C3", "E1", 4, 1, [("C1", "A")]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_convert_reproduces_vanilla(case):
    g, v, h, d, orbits = case
    p = Problem.create(g, v, h, d)
    des = Design.regular(p) if orbits == "regular" else Design.create(p, orbits)
    rng = np.random.default_rng(5)
    n = 0
    for c in clusterings(p):
        for opts in list(scenarios(p, c))[:6]:
            s = sample_vanilla(p, c, opts, rng)
            conv = convert_vanilla(p, des, s.Wq, s.Wk, s.Wv, s.Wo)
            assert conv.rel_error < 1e-8
            n += 1
    assert n >= 3


def test_non_equivariant_weights_are_rejected():
    p = Problem.create("C4", "E1", 2, 1)
    rng = np.random.default_rng(0)
    Wq, Wk, Wv = (rng.normal(size=(2, 1, 2)) for _ in range(3))
    Wo = rng.normal(size=(2, 2, 1))
    with pytest.raises(InputError, match="not G-equivariant"):
        convert_vanilla(p, Design.create(p, [("C2", "B")]), Wq, Wk, Wv, Wo)


def test_uncovering_design_is_reported():
    p = Problem.create("C2", "A + B", 1, 1)
    (c,) = clusterings(p)
    opts = next(o for o in scenarios(p, c) if (str(o[0].a), str(o[0].b)) == ("A", "B"))
    s = sample_vanilla(p, c, opts, np.random.default_rng(1))
    with pytest.raises(InputError, match="does not cover"):
        convert_vanilla(p, Design.create(p, [("C2", "A"), ("C2", "B")]), s.Wq, s.Wk, s.Wv, s.Wo)
