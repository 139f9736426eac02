"""Mulliken labels of point-group irreps (eqattn/reps/mulliken.py) against the standard tables.

The real characters are computed here, independently of eqattn.reps: the complex character
table by Burnside's algorithm (common eigenvectors of the class-multiplication matrices),
then one real character per real irrep (chi, chi + conj chi or 2 chi by the Frobenius-Schur
indicator).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from eqattn.groups import get_group
from eqattn.groups import pointgroups as pg
from eqattn.reps.mulliken import mulliken_labels


# ----- an independent real character table -----------------------------------------------------
def _real_characters(G):
    """(chars (r, |G|), real dims, types) of the real irreps of G."""
    n = G.order
    classes = G.conjugacy_classes
    k = len(classes)
    sizes = np.array([c.size for c in classes])
    reps = np.array([c[0] for c in classes])
    cls = G.class_of
    # M[r][s, t] = #{x in C_r : x^-1 g_t in C_s}: class sums C_r C_s = sum_t M[r][s, t] C_t
    M = np.zeros((k, k, k))
    for r, c in enumerate(classes):
        prod = cls[G.table[G.inv[c][:, None], reps[None, :]]]
        for t in range(k):
            M[r][:, t] = np.bincount(prod[:, t], minlength=k)
    rng = np.random.default_rng(0)
    A = np.tensordot(rng.normal(size=k), M, axes=1)
    _, vecs = np.linalg.eig(A)
    W = (vecs / vecs[0:1, :]).T  # rows: central characters, w(identity) = 1
    degs = np.sqrt(n / np.sum(np.abs(W) ** 2 / sizes[None, :], axis=1))
    X = (W * degs[:, None] / sizes[None, :])[:, cls]  # (k, n) complex characters per element
    gram = X @ X.conj().T / n
    assert np.allclose(gram, np.eye(k), atol=1e-8), "Burnside's algorithm did not separate the classes"
    sq = G.table[np.arange(n), np.arange(n)]
    chars, dims, types, used = [], [], [], set()
    for i in range(k):
        if i in used:
            continue
        nu = round((X[i][sq].sum() / n).real)
        d = round(X[i][0].real)
        if nu == 1:
            chars.append(X[i].real), dims.append(d), types.append("real")
        elif nu == -1:
            chars.append(2 * X[i].real), dims.append(2 * d), types.append("quaternionic")
        else:
            j = next(j for j in range(k) if j != i and np.allclose(X[j], X[i].conj(), atol=1e-8))
            used.add(j)
            chars.append(2 * X[i].real), dims.append(2 * d), types.append("complex")
    return np.array(chars), dims, types


def _labelled(name):
    G = get_group(name)
    chars, dims, types = _real_characters(G)
    labels = mulliken_labels(G, chars, dims, types)
    return G, dict(zip(labels, chars)), labels, dims, types


def _element(G, M):
    hits = [g for g in range(G.order) if np.allclose(G.matrices[g], M, atol=1e-9)]
    assert hits, "element not in the group"
    return hits[0]


def _vector_decomposition(name):
    G, table, labels, dims, types = _labelled(name)
    vec = np.trace(G.matrices, axis1=1, axis2=2)
    out = {}
    for lab, t in zip(labels, types):
        e = {"real": 1, "complex": 2, "quaternionic": 4}[t]
        m = float(table[lab] @ vec) / G.order / e
        if abs(m) > 1e-9:
            assert abs(m - round(m)) < 1e-9
            out[lab] = round(m)
    return out


# ----- the label sets of the standard tables ----------------------------------------------------
KNOWN = {
    "C4v": "A1 A2 B1 B2 E",
    "C2v": "A1 A2 B1 B2",
    "C3v": "A1 A2 E",
    "C6v": "A1 A2 B1 B2 E1 E2",
    "D3h": "A1' A2' E' A1'' A2'' E''",
    "D4h": "A1g A2g B1g B2g Eg A1u A2u B1u B2u Eu",
    "D6h": "A1g A2g B1g B2g E1g E2g A1u A2u B1u B2u E1u E2u",
    "D2h": "Ag B1g B2g B3g Au B1u B2u B3u",
    "D2d": "A1 A2 B1 B2 E",
    "D3d": "A1g A2g Eg A1u A2u Eu",
    "D4d": "A1 A2 B1 B2 E1 E2 E3",
    "C2h": "Ag Bg Au Bu",
    "C3h": "A' E' A'' E''",
    "C4h": "Ag Bg Eg Au Bu Eu",
    "C5h": "A' E1' E2' A'' E1'' E2''",
    "C6h": "Ag Bg E1g E2g Au Bu E1u E2u",
    "pg:S4": "A B E",
    "pg:S6": "Ag Eg Au Eu",
    "pg:S8": "A B E1 E2 E3",
    "pg:C1": "A",
    "pg:C3": "A E",
    "pg:C6": "A B E1 E2",
    "pg:D2": "A B1 B2 B3",
    "pg:D3": "A1 A2 E",
    "Cs": "A' A''",
    "Ci": "Ag Au",
    "T": "A E T",
    "Th": "Ag Eg Tg Au Eu Tu",
    "Td": "A1 A2 E T1 T2",
    "O": "A1 A2 E T1 T2",
    "Oh": "A1g A2g Eg T1g T2g A1u A2u Eu T1u T2u",
    "I": "A T1 T2 G H",
    "Ih": "Ag T1g T2g Gg Hg Au T1u T2u Gu Hu",
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_label_sets(name):
    _, _, labels, _, _ = _labelled(name)
    assert sorted(labels) == sorted(KNOWN[name].split())


VECTOR = {
    "Oh": {"T1u": 1},
    "Ih": {"T1u": 1},
    "O": {"T1": 1},
    "I": {"T1": 1},
    "Td": {"T2": 1},
    "T": {"T": 1},
    "Th": {"Tu": 1},
    "C4v": {"A1": 1, "E": 1},
    "C2v": {"A1": 1, "B1": 1, "B2": 1},
    "C6v": {"A1": 1, "E1": 1},
    "D3h": {"A2''": 1, "E'": 1},
    "D4h": {"A2u": 1, "Eu": 1},
    "D2h": {"B1u": 1, "B2u": 1, "B3u": 1},
    "pg:D2": {"B1": 1, "B2": 1, "B3": 1},
    "D2d": {"B2": 1, "E": 1},
    "D3d": {"A2u": 1, "Eu": 1},
    "D4d": {"B2": 1, "E1": 1},
    "C2h": {"Au": 1, "Bu": 2},
    "C3h": {"A''": 1, "E'": 1},
    "C4h": {"Au": 1, "Eu": 1},
    "pg:S4": {"B": 1, "E": 1},
    "pg:S8": {"B": 1, "E1": 1},
    "pg:S6": {"Au": 1, "Eu": 1},
    "pg:C5": {"A": 1, "E1": 1},
    "Cs": {"A'": 2, "A''": 1},
    "Ci": {"Au": 3},
}


@pytest.mark.parametrize("name", sorted(VECTOR))
def test_vector_representation(name):
    """The 3x3 matrices (x, y, z) decompose as in the standard tables."""
    assert _vector_decomposition(name) == VECTOR[name]


def test_rotations_are_t1_in_td_and_t1g_in_oh():
    for name, lab in (("Td", "T1"), ("Oh", "T1g"), ("Ih", "T1g")):
        G, table, *_ = _labelled(name)
        axial = np.linalg.det(G.matrices) * np.trace(G.matrices, axis1=1, axis2=2)
        assert np.allclose(table[lab], axial)


def _check_table(name, elements, rows):
    G, table, labels, *_ = _labelled(name)
    idx = [_element(G, M) for M in elements]
    for lab, row in rows.items():
        assert np.allclose(table[lab][idx], row, atol=1e-9), (name, lab, table[lab][idx])
    assert sorted(rows) == sorted(labels)


SQ2 = math.sqrt(2)
SIGMA_D = pg.SIGMA_D_XY  # the mirror x <-> y


def test_c4v_table():
    # E, C4, C2, sigma_v (xz), sigma_d (x <-> y)
    els = [np.eye(3), pg.rot_z(4), pg.rot_z(2), pg.SIGMA_XZ, SIGMA_D]
    _check_table("C4v", els, {
        "A1": [1, 1, 1, 1, 1], "A2": [1, 1, 1, -1, -1], "B1": [1, -1, 1, 1, -1],
        "B2": [1, -1, 1, -1, 1], "E": [2, 0, -2, 0, 0],
    })


def test_d3h_table():
    # E, C3, C2' (x), sigma_h, S3, sigma_v (xz)
    els = [np.eye(3), pg.rot_z(3), pg.C2X, pg.SIGMA_H, pg.SIGMA_H @ pg.rot_z(3), pg.SIGMA_XZ]
    _check_table("D3h", els, {
        "A1'": [1, 1, 1, 1, 1, 1], "A2'": [1, 1, -1, 1, 1, -1], "E'": [2, -1, 0, 2, -1, 0],
        "A1''": [1, 1, 1, -1, -1, -1], "A2''": [1, 1, -1, -1, -1, 1], "E''": [2, -1, 0, -2, 1, 0],
    })


def test_td_table():
    # E, C3 (111), C2 (z), S4 (z), sigma_d (x <-> y)
    els = [np.eye(3), pg.C3_111, pg.rot_z(2), pg.SIGMA_H @ pg.rot_z(4), SIGMA_D]
    _check_table("Td", els, {
        "A1": [1, 1, 1, 1, 1], "A2": [1, 1, 1, -1, -1], "E": [2, -1, 2, 0, 0],
        "T1": [3, 0, -1, 1, -1], "T2": [3, 0, -1, -1, 1],
    })


def test_d2d_table():
    # E, S4 (z), C2 (z), C2' (x), sigma_d (x <-> y)
    els = [np.eye(3), pg.SIGMA_H @ pg.rot_z(4), pg.rot_z(2), pg.C2X, SIGMA_D]
    _check_table("D2d", els, {
        "A1": [1, 1, 1, 1, 1], "A2": [1, 1, 1, -1, -1], "B1": [1, -1, 1, 1, -1],
        "B2": [1, -1, 1, -1, 1], "E": [2, 0, -2, 0, 0],
    })


def test_d4d_e_numbering():
    # E_k has character 2 cos(2 pi k / 8) at S8
    G, table, *_ = _labelled("D4d")
    s8 = _element(G, pg.s2n(8))
    assert np.allclose([table[f"E{k}"][s8] for k in (1, 2, 3)], [SQ2, 0, -SQ2])


def test_d2h_b_labels_follow_axes():
    G, table, *_ = _labelled("D2h")
    cz, cy, cx = (_element(G, np.diag(d)) for d in ([-1, -1, 1], [-1, 1, -1], [1, -1, -1]))
    for lab, axis in (("B1", cz), ("B2", cy), ("B3", cx)):
        for gu in "gu":
            ch = table[lab + gu]
            assert ch[axis] == pytest.approx(1) and sum(ch[[cz, cy, cx]]) == pytest.approx(-1)


def test_complex_type_e_in_s4_and_c3h():
    # pg:S4: E is the complex pair (i, -i at S4); C3h: E' and E'' pairs of C3
    G, table, *_ = _labelled("pg:S4")
    s4, c2 = _element(G, pg.s2n(4)), _element(G, pg.rot_z(2))
    assert table["E"][[0, s4, c2]] == pytest.approx([2, 0, -2])
    assert table["B"][[s4, c2]] == pytest.approx([-1, 1])
    G, table, labels, dims, types = _labelled("C3h")
    assert dict(zip(labels, types))["E'"] == "complex" and dict(zip(labels, types))["E''"] == "complex"
    sh = _element(G, pg.SIGMA_H)
    assert table["E''"][sh] == pytest.approx(-2) and table["A''"][sh] == pytest.approx(-1)


def test_t_and_th_have_complex_e():
    for name, lab in (("T", "E"), ("Th", "Eg"), ("Th", "Eu")):
        _, _, labels, dims, types = _labelled(name)
        assert dict(zip(labels, types))[lab] == "complex"
        assert dict(zip(labels, dims))[lab] == 2


LABEL = re.compile(r"[ABETGH](\d+)?(g|u|'|'')?")


@pytest.mark.parametrize("name", pg.listed_names(pg.N_MAX) + ["pg:C1"])
def test_labels_unique_and_ascii(name):
    _, _, labels, _, _ = _labelled(name)
    assert len(set(labels)) == len(labels), labels
    for lab in labels:
        assert lab.isascii() and LABEL.fullmatch(lab), lab


def test_through_the_reps_engine():
    """eqattn.reps labels point groups with mulliken_labels."""
    from eqattn.reps import irreps

    for name in ("Oh", "Ih", "D3h", "C4v", "T"):
        assert sorted(irreps(get_group(name)).labels) == sorted(KNOWN[name].split())
