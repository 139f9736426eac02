"""V's matrices at any element of a compact group in eqattn's coordinates (numeric/ambient.py):
a homomorphism on Haar samples that equals the stand-in's rho on its elements."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.errors import InputError
from eqattn.groups import get_group
from eqattn.numeric.ambient import ambient_rep
from eqattn.numeric.haar import haar_elements
from eqattn.reps.wigner import BandIrrep
from eqattn.reps import parse_rep

# (finite group standing in, compact kind, V, size of the ambient matrices, band labels)
CASES = [
    ("Oh", "O3", "2xA1g + A1u + T1u + 2xT1g", 3, ["0e", "0o", "1e", "1o"]),
    ("O", "SO3", "A1 + 2xT1", 3, ["0", "1"]),
    ("I", "SO3", "A + T1 + 2xH", 3, ["0", "1", "2"]),
    ("Ih", "O3", "Ag + Au + T1u + T1g + 3xHg + Hu", 3, ["0e", "0o", "1e", "1o", "2e", "2o"]),
    ("pg:C7", "SO2", "A + E1 + 2xE2 + E3", 2, ["A", "E1", "E2", "E3"]),
    ("pg:D5", "O2", "A1 + A2 + E1 + 2xE2", 2, ["A1", "A2", "E1", "E2"]),
]


@pytest.mark.parametrize("name,kind,text,k,labels", CASES)
def test_ambient_rep_is_a_homomorphism_extending_the_stand_in(name: str, kind: str, text: str, k: int, labels: list[str]) -> None:
    G = get_group(name)
    V = parse_rep(text, G.subgroup_classes[-1])
    F = np.asarray(G.matrices)[:, :k, :k]  # the planar groups: the action on the xy-plane
    amb = ambient_rep(V, kind, points=F)
    assert [str(b) for b in amb.band if b is not None] == labels
    a, b = haar_elements(kind, 50, seed=1), haar_elements(kind, 50, seed=2)
    Ra, Rb, Rab = amb.matrices(a), amb.matrices(b), amb.matrices(a @ b)
    assert np.abs(Rab - Ra @ Rb).max() < 1e-12
    assert np.abs(Ra @ Ra.transpose(0, 2, 1) - np.eye(V.dim)).max() < 1e-12
    assert np.abs(amb.matrices(F) - V.matrices()).max() < 1e-12
    # the character at Haar samples is the band's: sum of m_i chi_{D_i}
    chi = np.trace(Ra, axis1=1, axis2=2)
    from eqattn.reps.wigner import band_matrices

    want = sum(m * np.trace(band_matrices(bi, a), axis1=1, axis2=2) for bi, m in zip(amb.band, V.mults) if m)
    assert np.abs(chi - want).max() < 1e-12


def test_a_given_band_is_checked_against_the_character() -> None:
    G = get_group("Oh")
    V = parse_rep("T1u", G.subgroup_classes[-1])
    assert str(ambient_rep(V, "O3", band={"T1u": BandIrrep("O3", 1, -1)}).band[V.irreps.index("T1u")]) == "1o"
    with pytest.raises(InputError, match="T1u of Oh: no irreps of O3"):
        ambient_rep(V, "O3", band={"T1u": BandIrrep("O3", 1, 1)})


def test_irreps_outside_every_band_are_refused() -> None:
    O = get_group("O")
    with pytest.raises(InputError, match="E of O: no irreps of SO3"):
        ambient_rep(parse_rep("A1 + E", O.subgroup_classes[-1]), "SO3")
    with pytest.raises(InputError, match="not a compact group"):
        ambient_rep(parse_rep("A1", O.subgroup_classes[-1]))
    with pytest.raises(InputError, match="matrices"):
        ambient_rep(parse_rep("A", get_group("C3").subgroup_classes[-1]), "SO2")
