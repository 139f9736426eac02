"""The one rep notation, presets, and the Rep operations (SPEC §0)."""

import numpy as np
import pytest

from eqattn.errors import InputError
from eqattn.groups import STANDARD as st
from eqattn.reps import Rep, decompose, format_rep, irreps, parse_rep


def top(G):
    return G.subgroup_classes[-1]


def test_parse_format_roundtrip():
    D4 = top(st.dihedral(4))
    r = parse_rep("2xA1 + E1", D4)
    assert r.mults == (2, 0, 0, 0, 1) and r.dim == 4
    assert format_rep(r) == "2xA1 + E1"
    assert parse_rep(format_rep(r), D4) == r
    assert parse_rep(" 2 x A1+e1 ", D4) == r  # spaces and case are forgiven
    assert format_rep(parse_rep("0", D4)) == "0"
    S4 = top(st.symmetric(4))
    r = parse_rep("[3,1] + 2x[2,1,1]", S4)
    assert r.dim == 9 and parse_rep(format_rep(r), S4) == r


@pytest.mark.parametrize(
    "text, needle",
    [("2xA7", "unknown irrep"), ("-1xA1", "negative"), ("", "empty"), ("2x", "unknown irrep"), ("A1 + + E1", "cannot read")],
)
def test_bad_reps(text, needle):
    with pytest.raises(InputError) as e:
        parse_rep(text, top(st.dihedral(4)))
    assert e.value.field == "rep" and needle in e.value.message


def test_presets():
    G = st.dihedral(4)
    T = top(G)
    reg = parse_rep("regular", T)
    ir = irreps(G)
    # the regular rep contains each real irrep dim/e times
    assert reg.mults == tuple(int(d // e) for d, e in zip(ir.dims, ir.es))
    assert parse_rep("trivial", T).mults == (1, 0, 0, 0, 0)
    # permutation rep on G/K has dimension [G:K] and contains the trivial rep once
    for c in G.subgroup_classes:
        p = parse_rep(f"perm:{c.name}", T)
        assert p.dim == c.index and p.mults[0] == 1
    with pytest.raises(InputError, match="matrix group"):
        parse_rep("vector", T)
    Q = top(st.quaternion())
    assert parse_rep("regular", Q).mults[-1] == 1  # the 4-dim quaternionic irrep appears once


def test_rep_operations():
    G = st.dihedral(4)
    T = top(G)
    V = parse_rep("A1 + B2 + E1", T)
    W = parse_rep("2xB2 + A2", T)
    assert (V + W).mults == (1, 1, 0, 3, 1)
    assert V.min(W).mults == (0, 0, 0, 1, 0)
    assert V.min(W) <= V and not (V <= W)
    assert V.hom_dim(V) == 1 + 1 + 1  # E1 of D4 is of real type
    C4 = top(st.cyclic(4))
    E = parse_rep("E1", C4)
    assert E.hom_dim(E) == 2  # complex type: e = 2
    Q = top(st.quaternion())
    H = parse_rep("H", Q)
    assert H.hom_dim(H) == 4  # quaternionic: e = 4


def test_restriction_matches_characters():
    G = st.symmetric(4)
    V = parse_rep("[3,1]", top(G))
    for c in G.subgroup_classes:
        r = V.restrict(c)
        assert r.dim == 3
        assert np.allclose(r.character[c.elements], V.character[c.elements])


def test_decompose_rejects_non_characters():
    T = top(st.cyclic(3))
    with pytest.raises(InputError):
        decompose(T, np.array([1.0, 0.5, 0.0]))
