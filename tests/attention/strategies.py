"""Hypothesis strategies shared by the coverage tests (imported as `strategies`: pytest puts
this directory on sys.path, the tests are not a package)."""

from __future__ import annotations

from hypothesis import strategies as st

from eqattn.attention import Design, DesignOrbit, Problem
from eqattn.groups.catalog import get_group
from eqattn.reps import Rep, irreps_of


@st.composite
def problem_and_design(draw, groups: list[str], heads: tuple[int, int] = (1, 4), orbits: int = 4):  # noqa: ANN001, ANN201
    """A random problem over one of `groups` (V with multiplicities 0..2, H in `heads`,
    d in 1..3) and a design of up to `orbits` random orbits (K, 0 < W ≤ V|K)."""
    G = get_group(draw(st.sampled_from(groups)))
    top = G.subgroup_classes[-1]
    ir = irreps_of(top)
    mults = tuple(draw(st.integers(0, 2)) for _ in range(len(ir)))
    if not any(mults):
        mults = (1,) + mults[1:]
    p = Problem(G, Rep(top, mults), draw(st.integers(*heads)), draw(st.integers(1, 3)))
    out = []
    for _ in range(draw(st.integers(0, orbits))):
        K = draw(st.sampled_from(G.subgroup_classes))
        W = tuple(draw(st.integers(0, m)) for m in p.restrict(K).mults)
        if any(W):
            out.append(DesignOrbit(K, Rep(K, W)))
    return p, Design(p, tuple(out))
