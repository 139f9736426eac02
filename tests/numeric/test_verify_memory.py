"""`verify_design`'s memory: the weights come from the isotypic blocks (no Hom basis), and the
up-front estimate `verify_memory` bounds the measured peak from above without being loose."""

import tracemalloc

import numpy as np
import pytest

from eqattn.attention import Design, Problem, check_coverage
from eqattn.errors import LimitError
from eqattn.numeric.verify import MAX_VERIFY_BYTES, check_verify_memory, verify_design, verify_memory, verify_scenario


def _peak(fn) -> int:  # noqa: ANN001
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "case",
    [
        ("C4", "16xE1 + 8xA", 3, 8, None),
        ("D4", "4xregular", 2, 16, [("D4", "4xA1 + 4xA2 + 4xB1 + 4xB2 + 4xE1"), ("C1", "16xA")]),
    ],
    ids=["C4-regular-design", "D4-mixed-orbits"],
)
def test_the_estimate_bounds_the_measured_peak_both_ways(case):
    g, v, H, d, orbits = case
    p = Problem.create(g, v, H, d)
    des = Design.regular(p) if orbits is None else Design.create(p, orbits)
    verdicts = check_coverage(p, des)
    verify_design(p, des, verdicts=verdicts[:1])  # group matrices and isotypic bases built once
    peak = _peak(lambda: verify_design(p, des, verdicts=verdicts))
    est, _ = verify_memory(p, des)
    assert peak <= est <= 3 * peak, (peak, est)


def test_a_large_design_is_built_without_a_hom_basis():
    """D4 16xregular (dim V 128), H = 6, d = 64, the optimiser's proven design: one scenario's
    weights are built within the estimate, which is a small fraction of the dense basis
    (16 p dim W dim V bytes for the largest orbit) the construction once needed."""
    p = Problem.create("D4", "16xregular", 6, 64)
    des = Design.create(p, [("D4", "16xA1 + 16xA2 + 16xB1 + 16xB2 + 32xE1")] * 3 + [("C1", "64xA")] * 3)
    (v,) = [v for v in check_coverage(p, des) if v.covered][:1]
    rng = np.random.default_rng(0)
    p.rho
    out = []
    peak = _peak(lambda: out.append(verify_scenario(p, des, v.clustering, v.witnesses[0], rng)))
    rel, eq = out[0]
    assert rel < 1e-8 and eq < 1e-8
    est, _ = verify_memory(p, des)
    dense = max(16 * p.restrict(o.sub).hom_dim(o.W) * o.head_dim * p.dim_v for o in des.orbits)
    assert peak <= est < dense / 20


def test_refused_up_front_with_the_same_estimate_everywhere():
    """The CLI, the API's /api/verify and the page's "Verify numerically" all go through
    verify_design, which refuses with check_verify_memory's estimate before building."""
    from eqattn.api import work

    p = Problem.create("C2", "512xA + 512xB", 1, 1)
    orbits = [("C2", "A")] + [("C2", "4096xB")] * 8
    d = Design.create(p, orbits)
    need, where = verify_memory(p, d)
    assert need > MAX_VERIFY_BYTES and where == 1
    with pytest.raises(LimitError) as direct:
        check_verify_memory(p, d)
    assert direct.value.field == "orbits[1].rep" and f"{need / MAX_VERIFY_BYTES:.1f} times the budget" in direct.value.message
    for call in (lambda: verify_design(p, d), lambda: work.verify("C2", "512xA + 512xB", 1, 1, orbits)):
        with pytest.raises(LimitError) as e:
            call()
        assert e.value.message == direct.value.message
