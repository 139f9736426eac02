"""Bring your own basis (numeric part): element matching through the character, Q, errors."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.errors import InputError
from eqattn.groups import get_group
from eqattn.numeric.basis import basis_from_elements, identify_rep, match_basis
from eqattn.reps import parse_rep


def cyclic_regular(n: int) -> list[np.ndarray]:
    return [np.roll(np.eye(n), 1, axis=0)]  # e_k -> e_{k+1}


def dihedral_regular(n: int) -> list[np.ndarray]:
    """Left multiplication on the 2n elements r^k s^e (index k + n e): r.(k, e) = (k+1, e),
    s.(k, e) = (-k, 1-e) (s r^k = r^-k s)."""
    def perm(f) -> np.ndarray:  # noqa: ANN001
        P = np.zeros((2 * n, 2 * n))
        for k in range(n):
            for e in range(2):
                k2, e2 = f(k, e)
                P[k2 % n + n * e2, k + n * e] = 1.0
        return P

    return [perm(lambda k, e: (k + 1, e)), perm(lambda k, e: (-k, 1 - e))]


def closure(gens: list[np.ndarray]) -> list[np.ndarray]:
    out, keys, i = [np.eye(gens[0].shape[0])], set(), 0
    keys.add(np.round(out[0], 8).tobytes())
    while i < len(out):
        for g in gens:
            y = g @ out[i]
            k = (np.round(y, 8) + 0.0).tobytes()
            if k not in keys:
                keys.add(k)
                out.append(y)
        i += 1
    return out


@pytest.mark.parametrize("name, gens, expected", [
    ("C4", cyclic_regular(4), "A + B + E1"),
    ("C8", cyclic_regular(8), "A + B + E1 + E2 + E3"),
    ("D4", dihedral_regular(4), "A1 + A2 + B1 + B2 + 2xE1"),
])
def test_permutation_regular_reps(name: str, gens: list[np.ndarray], expected: str) -> None:
    G = get_group(name)
    V, change = identify_rep(G, gens)
    assert str(V) == expected  # the regular rep: each irrep dim-many times (SPEC §2)
    rho = V.matrices()
    Q = change.Q
    assert np.abs(Q @ Q.T - np.eye(len(Q))).max() < 1e-12
    assert np.abs(change.matrices - Q @ rho @ Q.T).max() < 1e-12
    # every matrix of the user's group appears, once
    users = closure(gens)
    assert len(users) == G.order
    for m in users:
        assert min(np.abs(change.matrices - m).max(axis=(1, 2))) < 1e-12


def test_character_decides_the_correspondence() -> None:
    """C5 on R^2 by the rotation R through 4pi/5. Read with r -> R it is E2; against E1 the
    matching must send R to r^2 or r^3 (E1's character there is 2cos(4pi/5)), not to r."""
    G = get_group("C5")
    t = 4 * np.pi / 5
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    V, change = identify_rep(G, [R])
    assert str(V) == "E2" and change.error < 1e-12
    E1 = parse_rep("E1", G.subgroup_classes[-1]).matrices()
    to_e1 = match_basis(G, E1, [R])
    g = int(to_e1.element_of[1])  # the user's element 1 is R itself
    assert abs(np.trace(E1[g]) - 2 * np.cos(t)) < 1e-12
    assert np.abs(to_e1.matrices[g] - R).max() < 1e-12
    assert np.abs(to_e1.matrices - to_e1.Q @ E1 @ to_e1.Q.T).max() < 1e-12


@pytest.mark.parametrize("gens, match", [
    ([np.eye(4)], "order 1"),
    ([2 * np.eye(4)], "not orthogonal"),
    ([np.eye(3)], "shape"),
    ([], "at least one"),
])
def test_bad_matrices(gens: list, match: str) -> None:
    G = get_group("C4")
    rho = parse_rep("regular", G.subgroup_classes[-1]).matrices()
    with pytest.raises(InputError, match=match):
        match_basis(G, rho, gens)


def test_not_equivalent() -> None:
    """C4 regular matrices against V = 2xA + E1 (same dimension, other character)."""
    G = get_group("C4")
    rho = parse_rep("2xA + E1", G.subgroup_classes[-1]).matrices()
    with pytest.raises(InputError, match="character"):
        match_basis(G, rho, cyclic_regular(4))


def test_basis_from_elements_checks_the_homomorphism() -> None:
    G = get_group("C4")
    rho = parse_rep("regular", G.subgroup_classes[-1]).matrices()
    perm = np.array(closure(cyclic_regular(4)))
    with pytest.raises(InputError, match="not a representation"):
        basis_from_elements(G, rho, perm[[0, 2, 1, 3]])
