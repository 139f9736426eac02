"""K̄(K, S) as the intersection of the K̄ of single irreps, and σ̃ per (K, σ, K̄_0, c)
(attention/stabilisers.py), against the direct route of SPEC §4.3: one random element of the
whole span ⊕_{σ∈S} End_K(V_σ) per support, every g tested against it, σ̃ from the character
of V_σ on that K̄."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Problem
from eqattn.attention.options import option_table
from eqattn.attention.stabilisers import stabilisers
from eqattn.attention.supports import reduced_problem, supports_of
from eqattn.reps import conjugate_character, decompose, irreps_of
from eqattn.reps.matrices import isotypic_projector


def direct(problem: Problem, K, S: tuple[int, ...], rng: np.random.Generator):
    """(class id, c, elements, σ̃ per σ) by SPEC §4.3 on V itself (not V'), one generic X per S."""
    G = problem.group
    rho = problem.rho
    rk = rho[K.elements]
    irr = irreps_of(K)
    n = rho.shape[1]
    Y = rng.normal(size=(n, n))
    avg = np.matmul(np.matmul(rk, Y), rk.transpose(0, 2, 1)).mean(axis=0)
    X = np.zeros((n, n))
    Pis = {}
    for s in S:
        Pis[s] = isotypic_projector(rk, irr.chars[s, K.elements], int(irr.dims[s]), int(irr.es[s]))
        X += Pis[s] @ avg @ Pis[s]
    comm = np.matmul(rho, X) - np.matmul(X, rho)
    err = np.sqrt((comm**2).sum(axis=(1, 2)))
    elems = np.nonzero(err <= 1e-6 * np.sqrt((X**2).sum()))[0]
    cls, c = G.lattice.locate(elems)
    VK = problem.restrict(K)
    ext = {}
    for s in S:
        chi = np.zeros(G.order)
        chi[elems] = np.einsum("gab,ba->g", rho[elems], Pis[s]) / VK.mults[s]
        ext[s] = decompose(cls, conjugate_character(G, chi, c), field="internal").mults
    return cls.id, c, elems, ext


@pytest.mark.parametrize(
    "group, rep, d",
    [("D4", "2xregular", 5), ("Oh", "vector + trivial", 3), ("S4", "regular", 7), ("D4h", "A1g + Eu + B2u", 3), ("A5", "T1 + G + H", 4)],
)
def test_intersection_equals_the_direct_test(group, rep, d):
    p = Problem.create(group, rep, 2, d)
    st = stabilisers(p)
    rng = np.random.default_rng(0)
    seen = 0
    for K in p.group.subgroup_classes:
        for S in supports_of(p, K.id):
            if not S:
                continue
            kb, c, elems, ext = direct(p, K, S, rng)
            kb2, c2, elems2 = st.kbar(K, S)
            assert (kb2, c2) == (kb, c) and elems2.tolist() == elems.tolist(), (K.name, S)
            assert st.extended(K, S) == ext, (K.name, S)
            seen += 1
    assert seen > 5


def test_degenerate_support_shrinks_kbar():
    # D4 on A1 + B1: K = C2 (a reflection class), a on A alone or B alone has K̄ = D4 (every
    # element preserves both lines); on C1, V|C1 = 2 x trivial, End(V) = all 2x2: K̄ = the
    # kernel-ish part commuting with everything, i.e. the elements acting by scalars on V
    p = Problem.create("D4", "A1 + B1", 2, 2)
    G = p.group
    st = stabilisers(p)
    C1 = G.subgroup_classes[0]
    _, _, elems = st.kbar(C1, (0,))
    scalars = [g for g in range(G.order) if np.allclose(p.rho[g], p.rho[g][0, 0] * np.eye(2))]
    assert elems.tolist() == scalars


def test_shared_across_problems_over_the_same_irreps():
    a = Problem.create("A5", "2xregular", 4, 12)
    b = Problem.create("A5", "regular", 2, 7)
    assert stabilisers(a) is stabilisers(b) is stabilisers(reduced_problem(a))
    assert stabilisers(Problem.create("A5", "T1 + H", 2, 3)) is not stabilisers(a)
    K = a.group.subgroup_classes[3]
    S = supports_of(a, K.id)[-1]
    assert option_table(a).kbar(K, S)[:2] == option_table(b).kbar(K, S)[:2]
