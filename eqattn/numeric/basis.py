"""Bring your own basis: the design's group elements and coordinates matched to a user's
representation matrices (SPEC §0, §3).

The user has ``rho_u``, orthogonal matrices for some generators (e.g. escnn's permutation
matrices of the regular representation, or e3nn's real spherical harmonics). The design has
``rho`` (``problem.rho``, block form in the irreps' standard matrices). :func:`match_basis`

1. closes the user's generators into a group (``FiniteGroup.from_matrices``),
2. finds an isomorphism to the design's group that maps the user's character onto V's
   (``find_isomorphism`` with a character filter; an automorphism may change the character,
   e.g. C5's E1 and E2, so not every isomorphism will do),
3. solves for an orthogonal intertwiner: ``A = mean_g rho_u(g) M rho(g)^T`` for a random M
   lies in Hom_G(rho, rho_u) and is invertible when the two are equivalent; its polar factor
   ``Q = U V^T`` (from the SVD ``A = U S V^T``) is orthogonal and still an intertwiner,
   so ``rho_u(g) = Q rho(g) Q^T`` for every g.

``RealizedDesign.in_basis(Q)`` then gives the layer in the user's coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InputError
from ..groups import FiniteGroup
from ..groups.identify import find_isomorphism
from ..reps import Rep, decompose

__all__ = ["BasisChange", "match_basis", "basis_from_elements", "identify_rep", "ORTHO_TOL", "MATCH_TOL"]

#: how far from orthogonal the user's matrices may be
ORTHO_TOL = 1e-8
#: the largest |rho_u(g) Q - Q rho(g)| accepted
MATCH_TOL = 1e-8


@dataclass(frozen=True)
class BasisChange:
    """``rho_u(g) = Q rho(g) Q^T`` for every element g of the design's group.

    ``matrices[g]`` is the user's ``rho_u(g)`` in the design group's element order;
    ``element_of[s]`` is the design element that the user's element s (in the closure order of
    the given generators) corresponds to; ``error`` the largest ``|rho_u(g) Q - Q rho(g)|``.
    """

    Q: np.ndarray
    matrices: np.ndarray
    element_of: np.ndarray
    error: float


def _as_matrices(generators: Sequence[np.ndarray] | np.ndarray, n: int) -> list[np.ndarray]:
    try:
        mats = [np.asarray(m, dtype=np.float64) for m in generators]
    except (TypeError, ValueError):
        raise InputError("rep_matrices", "a sequence of square matrices (the user's rho(g) for generators)") from None
    if not mats:
        raise InputError("rep_matrices", "give at least one matrix")
    for i, m in enumerate(mats):
        if m.shape != (n, n):
            raise InputError("rep_matrices", f"matrix {i} has shape {m.shape}; dim V = {n}, so ({n}, {n}) is needed")
        err = float(np.abs(m @ m.T - np.eye(n)).max())
        if err > ORTHO_TOL:
            raise InputError("rep_matrices", f"matrix {i} is not orthogonal (|M M^T - I| = {err:.1e})")
    return mats


def _band_change(G: FiniteGroup, rho: np.ndarray, matrices: np.ndarray, element_of: np.ndarray) -> BasisChange | None:
    """On a character-detecting stand-in (docs/theory-continuous.md §8) an intertwiner averaged
    over F need not intertwine on the compact group when V's irreps are not irreducible and
    distinct on F (dim End_F(V) = <χ, χ>_F > dim End_G(V) = Σ m_σ²). There the user's matrices
    must be V's band blocks in some order, and Q is the permutation that sorts them
    (numeric/isotypic.py); otherwise the change of basis is not fixed by F and is refused.
    None: not such a stand-in, or F tells V's irreps apart (the average is then right)."""
    info = G.compact
    if info is None or not info.band_irreps:
        return None
    from ..reps import decompose
    from .isotypic import isotypic_basis

    top = G.subgroup_classes[-1]
    chi = np.trace(np.asarray(rho, dtype=np.float64), axis1=1, axis2=2)
    mults = decompose(top, chi, field="rep_matrices").mults
    try:
        Q = isotypic_basis(top, np.asarray(matrices, dtype=np.float64), mults).matrix()
    except ValueError:
        if abs(float(np.mean(chi**2)) - float(np.sum(np.square(mults)))) <= 1e-6:
            return None
        raise InputError(
            "rep_matrices",
            f"{G.name} at {info.band_text} is computed on {info.stand_in}, on which its irreps are not "
            "irreducible: matrices at its elements fix the change of basis on the whole group only when they "
            "are V's real Wigner blocks (e3nn's basis) in some order; give a basis instead "
            "(eqattn.torch.interop.from_e3nn for e3nn features) or V in eqattn's coordinates",
        ) from None
    err = float(np.abs(matrices @ Q - Q @ rho).max())
    return BasisChange(Q=Q, matrices=matrices, element_of=element_of, error=err)


def match_basis(G: FiniteGroup, rho: np.ndarray, generators: Sequence[np.ndarray] | np.ndarray, seed: int = 0) -> BasisChange:
    """Match the user's generator matrices to ``rho (|G|, n, n)`` (see the module docstring).

    Raises ``InputError("rep_matrices", ...)`` when they generate a group of another order, no
    isomorphism carries the user's character to V's, or the matrices are not orthogonal.

    >>> from eqattn.groups import get_group
    >>> C4 = get_group("C4"); rho = np.array([np.eye(1)] * 4)
    >>> match_basis(C4, rho, [np.eye(1)]).Q.tolist()
    Traceback (most recent call last):
    ...
    eqattn.errors.InputError: rep_matrices: the matrices generate a group of order 1; C4 has order 4 (is the representation faithful? give generators of all of C4)
    """
    rho = np.asarray(rho, dtype=np.float64)
    n = rho.shape[1]
    mats = _as_matrices(generators, n)
    S = FiniteGroup.from_matrices("user", mats, field="rep_matrices")
    if S.order != G.order:
        raise InputError(
            "rep_matrices",
            f"the matrices generate a group of order {S.order}; {G.name} has order {G.order} "
            f"(is the representation faithful? give generators of all of {G.name})",
        )
    user = np.asarray(S.matrices)
    chi_u = np.trace(user, axis1=1, axis2=2)
    chi_d = np.trace(rho, axis1=1, axis2=2)
    phi = find_isomorphism(
        S,
        G,
        np.arange(G.order),
        allowed=lambda s, cands: cands[np.abs(chi_d[cands] - chi_u[s]) < 1e-6],
        accept=lambda phi: bool(np.abs(chi_d[phi] - chi_u).max() < 1e-6),
    )
    if phi is None:
        raise InputError(
            "rep_matrices",
            f"no isomorphism to {G.name} carries the matrices' character to V's: they are not "
            f"a representation equivalent to V (check the multiplicities)",
        )
    matrices = np.empty_like(rho)
    matrices[phi] = user
    return _band_change(G, rho, matrices, phi) or _intertwine(rho, matrices, phi, seed)


def basis_from_elements(G: FiniteGroup, rho: np.ndarray, matrices: np.ndarray, seed: int = 0) -> BasisChange:
    """Like :func:`match_basis` when the correspondence is known: ``matrices[g]`` is the user's
    ``rho_u(g)`` for EVERY element g of G in G's own element order (needed for a non-faithful
    representation, whose generators do not determine the group elements).

    >>> from eqattn.groups import get_group
    >>> basis_from_elements(get_group("C2"), np.array([[[1.0]], [[-1.0]]]), np.array([[[1.0]], [[-1.0]]])).Q.tolist()
    [[1.0]]
    """
    rho = np.asarray(rho, dtype=np.float64)
    n = rho.shape[1]
    mats = np.asarray(_as_matrices(list(matrices), n))
    if mats.shape != rho.shape:
        raise InputError("rep_matrices", f"{G.order} matrices (one per element of {G.name}) are needed, got {mats.shape[0]}")
    bad = [g for g in range(G.order) for h in G.generators if np.abs(mats[G.table[g, h]] - mats[g] @ mats[h]).max() > 1e-8]
    if bad:
        raise InputError("rep_matrices", f"not a representation of {G.name}: rho(g h) != rho(g) rho(h) for g = {bad[0]}")
    return _band_change(G, rho, mats, np.arange(G.order)) or _intertwine(rho, mats, np.arange(G.order), seed)


def _intertwine(rho: np.ndarray, matrices: np.ndarray, element_of: np.ndarray, seed: int) -> BasisChange:
    """Orthogonal Q with ``matrices[g] Q = Q rho[g]``: polar factor of an averaged random map."""
    order, n, _ = rho.shape
    chi_u, chi_d = np.trace(matrices, axis1=1, axis2=2), np.trace(rho, axis1=1, axis2=2)
    if np.abs(chi_u - chi_d).max() > 1e-6:
        raise InputError("rep_matrices", "the matrices' character differs from V's: not a representation equivalent to V")
    rng = np.random.default_rng(seed)
    best: BasisChange | None = None
    for _ in range(3):  # a random M gives an invertible A with probability 1
        A = np.einsum("gij,jk,glk->il", matrices, rng.normal(size=(n, n)), rho, optimize=True) / order
        U, _, Vt = np.linalg.svd(A)
        Q = U @ Vt
        err = float(np.abs(matrices @ Q - Q @ rho).max())
        if best is None or err < best.error:
            best = BasisChange(Q=Q, matrices=matrices, element_of=element_of, error=err)
        if err <= MATCH_TOL:
            break
    assert best is not None
    if best.error > MATCH_TOL:
        raise InputError("rep_matrices", f"no orthogonal change of basis found (error {best.error:.1e})")
    return best


def identify_rep(G: FiniteGroup, generators: Sequence[np.ndarray] | np.ndarray) -> tuple[Rep, BasisChange]:
    """Which representation of G the user's generator matrices are, and the basis change.

    The matrices' group is matched to G by an isomorphism, the character read off and
    decomposed into G's real irreps (SPEC §2), then :func:`match_basis` solves for ``Q``.

    >>> from eqattn.groups import get_group
    >>> V, change = identify_rep(get_group("C4"), [np.roll(np.eye(4), 1, axis=0)])
    >>> str(V), change.error < 1e-12
    ('A + B + E1', True)
    """
    mats = [np.asarray(m, dtype=np.float64) for m in generators]
    if not mats or mats[0].ndim != 2:
        raise InputError("rep_matrices", "a sequence of square matrices (rho(g) for generators of the group)")
    mats = _as_matrices(mats, mats[0].shape[0])
    S = FiniteGroup.from_matrices("user", mats, field="rep_matrices")
    if S.order != G.order:
        raise InputError("rep_matrices", f"the matrices generate a group of order {S.order}; {G.name} has order {G.order}")
    phi = find_isomorphism(S, G, np.arange(G.order))
    if phi is None:
        raise InputError("rep_matrices", f"the matrices' group is not isomorphic to {G.name}")
    chi = np.empty(G.order)
    chi[phi] = np.trace(np.asarray(S.matrices), axis1=1, axis2=2)
    V = decompose(G.subgroup_classes[-1], chi, field="rep_matrices")
    return V, match_basis(G, V.matrices(), mats)
