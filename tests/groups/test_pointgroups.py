"""3D point groups (eqattn/groups/pointgroups.py): orders, orthogonality, orientation, and
isomorphism with their abstract types (subgroup classes as in GAP / the abstract groups)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from eqattn.groups import get_group
from eqattn.groups import pointgroups as pg
from eqattn.groups import STANDARD as st

GAP = json.loads((Path(__file__).resolve().parents[1] / "data" / "gap_reference.json").read_text())["groups"]
N = range(2, pg.N_MAX + 1)

POLYHEDRAL_ORDERS = {"T": 12, "Td": 24, "Th": 24, "O": 24, "Oh": 48, "I": 60, "Ih": 120}


def axial_orders():
    out = {"Cs": 2, "Ci": 2, "pg:C1": 1}
    for n in N:
        out.update({f"C{n}v": 2 * n, f"C{n}h": 2 * n, f"D{n}h": 4 * n, f"D{n}d": 4 * n, f"pg:S{2 * n}": 2 * n,
                    f"pg:C{n}": n, f"pg:D{n}": 2 * n})
    return out


ORDERS = {**POLYHEDRAL_ORDERS, **axial_orders()}
PROPER = {"T", "O", "I"} | {f"pg:C{n}" for n in range(1, pg.N_MAX + 1)} | {f"pg:D{n}" for n in N}


def _has(G, M):
    return bool(np.any(np.all(np.abs(G.matrices - M) < 1e-9, axis=(1, 2))))


@pytest.mark.parametrize("name", sorted(ORDERS))
def test_order_orthogonal_det(name):
    G = get_group(name)
    assert G.order == ORDERS[name] == pg.point_group_order(name)
    assert G.family == "point" and G.name == name
    mats = G.matrices
    assert mats.shape == (G.order, 3, 3)
    assert np.allclose(np.einsum("gij,gkj->gik", mats, mats), np.eye(3), atol=1e-9)
    dets = np.linalg.det(mats)
    assert np.allclose(np.abs(dets), 1)
    if name in PROPER:
        assert np.allclose(dets, 1)
    else:  # the proper rotations are a subgroup of index 2
        assert int(np.sum(dets < 0)) == G.order // 2
    # the matrices form a homomorphism: table agrees with matrix multiplication
    rng = np.random.default_rng(1)
    for a, b in rng.integers(0, G.order, size=(20, 2)):
        assert np.allclose(mats[a] @ mats[b], mats[G.table[a, b]], atol=1e-9)


def _inversion_expected(name):
    if name in ("Th", "Oh", "Ih", "Ci"):
        return True
    if name[-1] in "hd" and name[0] in "CD" and name[1:-1].isdigit():
        n = int(name[1:-1])
        return n % 2 == 0 if name[-1] == "h" else n % 2 == 1
    if name.startswith("pg:S"):
        return int(name[4:]) // 2 % 2 == 1
    return False


@pytest.mark.parametrize("name", sorted(ORDERS))
def test_inversion_and_sigma_h(name):
    G = get_group(name)
    assert _has(G, -np.eye(3)) == _inversion_expected(name)
    # sigma_h: Cs, Cnh, Dnh, Th, Oh, Ih (not Dnd, S2n, Td)
    has_sh = name == "Cs" or name in ("Th", "Oh", "Ih") or (name[-1] == "h" and name[0] in "CD")
    assert _has(G, pg.SIGMA_H) == has_sh


@pytest.mark.parametrize("n", list(N))
def test_axial_orientation(n):
    rz = pg.rot_z(n)
    for name in (f"C{n}v", f"C{n}h", f"D{n}h", f"pg:C{n}", f"pg:D{n}"):
        assert _has(get_group(name), rz), name
    for name in (f"D{n}h", f"D{n}d", f"pg:D{n}"):
        assert _has(get_group(name), pg.C2X), name  # a C2' along x
    assert _has(get_group(f"C{n}v"), pg.SIGMA_XZ)  # a sigma_v containing x
    for name in (f"D{n}d", f"pg:S{2 * n}"):
        assert _has(get_group(name), pg.s2n(2 * n)), name
    # z is the principal axis: every element maps z to +-z
    for name in (f"C{n}v", f"C{n}h", f"D{n}h", f"D{n}d", f"pg:S{2 * n}"):
        mz = get_group(name).matrices[:, :, 2]
        assert np.allclose(np.abs(mz[:, 2]), 1), name


def test_polyhedral_orientation():
    c2 = [np.diag(d) for d in ([1.0, -1, -1], [-1.0, 1, -1], [-1.0, -1, 1])]
    for name in ("T", "Td", "Th", "O", "Oh", "I", "Ih"):
        G = get_group(name)
        assert all(_has(G, m) for m in c2), name
        assert _has(G, pg.C3_111), name
    for name in ("O", "Oh"):
        assert _has(get_group(name), pg.rot_z(4))
    assert _has(get_group("Td"), pg.SIGMA_H @ pg.rot_z(4))  # S4 about z
    phi = (1 + math.sqrt(5)) / 2
    for name in ("I", "Ih"):
        assert _has(get_group(name), pg.rotation(np.array([0.0, 1.0, phi]), 2 * math.pi / 5))


def _signature(G):
    """Isomorphism invariants: element-order histogram, classes, subgroup classes (order, size)."""
    orders = Counter(G.element_orders.tolist())
    sub = Counter((c.order, c.size) for c in G.subgroup_classes)
    return orders, len(G.conjugacy_classes), sub


POINT_KEYS = [k for k in GAP if pg.canonical_name(k) is not None]


def test_gap_point_keys():
    assert len(POINT_KEYS) == 7 + 5 * 5  # T..Ih and five axial families for n = 2..6
    assert all(k in ORDERS for k in POINT_KEYS)


@pytest.mark.parametrize("name", POINT_KEYS)
def test_matches_gap_abstract_type(name):
    G = get_group(name)
    ref = GAP[name]
    assert G.order == ref["order"]
    assert len(G.subgroup_classes) == ref["num_subgroup_classes"]
    assert sum(c.size for c in G.subgroup_classes) == ref["num_subgroups"]
    assert Counter((c.order, c.size) for c in G.subgroup_classes) == Counter(
        (c["order"], c["size"]) for c in ref["subgroup_classes"]
    )
    assert len(G.conjugacy_classes) == ref["num_element_classes"]


def _abstract(name):
    """The abstract group a point group is isomorphic to."""
    fixed = {"T": st.alternating(4), "Td": st.symmetric(4), "O": st.symmetric(4), "I": st.alternating(5),
             "Th": st.direct_product((st.alternating(4), st.cyclic(2))),
             "Oh": st.direct_product((st.symmetric(4), st.cyclic(2))),
             "Ih": st.direct_product((st.alternating(5), st.cyclic(2))),
             "Cs": st.cyclic(2), "Ci": st.cyclic(2), "pg:C1": st.cyclic(1)}
    if name in fixed:
        return fixed[name]

    def dih(n):
        return st.dihedral(n) if n >= 3 else st.abelian((2, 2))

    if name.startswith("pg:"):
        kind, n = name[3], int(name[4:])
        return {"C": st.cyclic, "D": dih, "S": st.cyclic}[kind](n)
    kind, n = name[0] + name[-1], int(name[1:-1])
    return {
        "Cv": lambda: dih(n),
        "Ch": lambda: st.direct_product((st.cyclic(n), st.cyclic(2))),
        "Dh": lambda: st.direct_product((dih(n), st.cyclic(2))),
        "Dd": lambda: st.dihedral(2 * n),
    }[kind]()


@pytest.mark.parametrize("name", sorted(ORDERS))
def test_isomorphic_to_abstract_type(name):
    assert _signature(get_group(name)) == _signature(_abstract(name))


def test_top_class_keeps_point_group_name():
    for name in ("Oh", "D3h", "pg:S4", "C4v"):
        G = get_group(name)
        assert G.subgroup_classes[-1].type_name == name
