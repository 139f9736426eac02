"""The facts docs/theory-continuous.md §8 builds on, checked: the obstruction at l = 3 on the
icosahedral stand-in, C_n detecting the band by characters, and AGL(1, 8) as the finite route
for degrees {0, 3}."""

from __future__ import annotations

import math

import numpy as np

from eqattn.attention.options import maximal_profiles
from eqattn.groups import get_group
from eqattn.groups.compact import CompactInfo
from eqattn.groups.finite_group import FiniteGroup
from eqattn.reps import decompose, irreps_of, parse_rep
from eqattn.reps.characters import real_characters


def _rotation_z(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def test_degree_3_splits_on_the_icosahedral_group_as_t2_plus_g() -> None:
    """§8's smallest example: 3|I = T2 + G, and on I the profile T2 is the one M-option of
    dimension <= 3 (SPEC §4.1), while SO(3)'s only irrep in V has dimension 7."""
    I = get_group("I")
    top = I.subgroup_classes[-1]
    irr = irreps_of(top)
    chi3 = np.array([_chi_l(3, g) for g in I.matrices])
    assert decompose(top, chi3).mults == parse_rep("T2 + G", top).mults
    V = parse_rep("T2 + G", top)
    assert [p.mults for p in maximal_profiles(V, 3)] == [parse_rep("T2", top).mults]
    assert irr.dims.tolist() == [1, 3, 3, 4, 5]


def _chi_l(l: int, g: np.ndarray) -> float:
    """SO(3)'s character of degree l at the rotation g (the catalog's own formula)."""
    return CompactInfo("SO3", l).character(str(l), g)


def test_the_band_characters_are_independent_on_c_n_exactly_from_n_equal_2l() -> None:
    """chi_0 .. chi_L restricted to C_n: independent for n >= 2L (the doc's n = 2L + 1 is
    enough), dependent at n = 2L - 1 (cos(L θ) = cos((L - 1) θ) there)."""
    for L in range(1, 8):
        for n in (2 * L - 1, 2 * L, 2 * L + 1):
            table = np.array([[_chi_l(l, _rotation_z(2 * math.pi * j / n)) for j in range(n)] for l in range(L + 1)])
            rank = np.linalg.matrix_rank(table, tol=1e-9)
            assert (rank == L + 1) == (n >= 2 * L), (L, n, rank)


def _gf8_mul(a: int, b: int) -> int:
    r = 0
    for i in range(3):
        if b >> i & 1:
            r ^= a << i
    for i in (4, 3):  # reduce mod x^3 + x + 1
        if r >> i & 1:
            r ^= 0b1011 << (i - 3)
    return r


def test_agl_1_8_has_one_irrep_of_dimension_7_and_it_is_of_real_type() -> None:
    shift = [x ^ 1 for x in range(8)]
    scale = [_gf8_mul(2, x) for x in range(8)]
    G = FiniteGroup.from_permutations("AGL(1,8)", [shift, scale])
    chars = real_characters(G)
    assert G.order == 56
    assert sorted((c.dim, c.type) for c in chars) == [(1, "real"), (2, "complex"), (2, "complex"), (2, "complex"), (7, "real")]
    (seven,) = [c for c in chars if c.dim == 7]
    orders = G.element_orders
    values = np.real(seven.values)
    assert np.allclose(values[orders == 2], -1) and np.allclose(values[orders == 7], 0) and (orders == 2).sum() == 7
