"""Realise a design from explicit orthogonal matrices (no group catalog needed).

The catalog path is ``eqattn.numeric.realize_design(problem, design)``. This module builds the
same :class:`eqattn.numeric.RealizedDesign` directly from matrices, for a representation you
already have in matrix form, and for tests::

    r = lambda t: np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    G = np.stack([r(k * np.pi / 2) for k in range(4)])        # C4 acting on R^2
    realized = realize_from_matrices(G, [
        {2: [[-1.0]]},                                       # K = <g_2> = C2, W = sign (B)
    ])

Each orbit is given by generators of its subgroup ``K`` as ``{element index: sigma_W(k)}``
(or a sequence of ``(index, matrix)`` pairs); the subgroup and the representation ``W`` are
their closure (``FiniteGroup.from_matrices`` of the pairs ``rho(k) (+) sigma_W(k)``). With no
generators, ``K`` is trivial and ``W = head_dim x trivial``. Hom_K(V, W) is
``eqattn.numeric.equivariant.averaged_hom_basis`` (the image of the averaging projector); its
orthonormal basis is the orbit's ``basis`` (its ``hom_in``; the transposes are ``hom_out``).

The matrices ``rho(g)`` must be pairwise distinct (a faithful ``rho``): elements are told apart
by their matrices. Only numpy is used here.
"""

from __future__ import annotations

from typing import Mapping, Sequence, Union

import numpy as np
import scipy.linalg

from eqattn.errors import LimitError
from eqattn.groups import FiniteGroup
from eqattn.numeric.equivariant import averaged_hom_basis, fixed_vectors
from eqattn.numeric.realize import RealizedDesign, RealizedOrbit

ArrayLike = Union[np.ndarray, Sequence]
Generators = Union[Mapping[int, ArrayLike], Sequence[tuple[int, ArrayLike]]]

__all__ = ["realize_from_matrices"]


def _key(m: np.ndarray) -> bytes:
    """The key ``FiniteGroup.from_matrices`` tells elements apart by (entries rounded to 1e-6)."""
    return (np.round(m, 6) + 0.0).tobytes()


def _closure(name: str, gens: list[np.ndarray], limit: int) -> FiniteGroup:
    try:
        return FiniteGroup.from_matrices(name, gens)
    except LimitError:
        raise ValueError(f"{name} generate more than {limit} matrices: not closed / not a finite group") from None


def realize_from_matrices(
    group_matrices: ArrayLike,
    orbits: Sequence[Union[Generators, tuple[Generators, int]]],
) -> RealizedDesign:
    """Realise a design given by explicit matrices.

    ``group_matrices``: ``(|G|, n_V, n_V)`` orthogonal matrices, a faithful representation
    closed under multiplication. ``orbits``: per orbit the generators of ``K`` with their
    ``W``-matrices, or ``(generators, head_dim)`` (needed when there are no generators).
    """
    G = np.asarray(group_matrices, dtype=np.float64)
    if G.ndim != 3 or G.shape[1] != G.shape[2]:
        raise ValueError(f"group_matrices must have shape (|G|, n, n), got {G.shape}")
    order, n, _ = G.shape
    index: dict[bytes, int] = {}
    for i, m in enumerate(G):
        if not np.allclose(m @ m.T, np.eye(n), atol=1e-9):
            raise ValueError(f"group_matrices[{i}] is not orthogonal")
        k = _key(m)
        if k in index:
            raise ValueError("group_matrices must be pairwise distinct (a faithful representation)")
        index[k] = i
    if _key(np.eye(n)) not in index:
        raise ValueError("group_matrices does not contain the identity")
    whole = _closure("group_matrices", list(G), order)
    if whole.order != order:
        raise ValueError("group_matrices is not closed under multiplication")
    to_user = np.array([index[_key(m)] for m in whole.matrices])  # closure order -> given order
    from_user = np.argsort(to_user)

    built = []
    for spec in orbits:
        head_dim = None
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], (int, np.integer)):
            spec, head_dim = spec[0], int(spec[1])
        gens = list(spec.items()) if isinstance(spec, Mapping) else list(spec)
        gens = [(int(g), np.atleast_2d(np.asarray(s, dtype=np.float64))) for g, s in gens]
        if gens:
            w = gens[0][1].shape[0]
            if head_dim is not None and head_dim != w:
                raise ValueError(f"head_dim {head_dim} does not match the generator matrices ({w})")
        elif head_dim is None:
            raise ValueError("an orbit without generators (K trivial) needs an explicit head_dim")
        else:
            w = head_dim
        # K and sigma_W: the closure of the pairs rho(k) (+) sigma(k); sigma is a homomorphism
        # iff the closure has one pair per element of K
        if gens:
            pairs = _closure("the W matrices", [scipy.linalg.block_diag(G[g], s) for g, s in gens], order * order)
            rho_k, sig = pairs.matrices[:, :n, :n], pairs.matrices[:, n:, n:]
            K = [index[_key(m)] for m in rho_k]
            if len(set(K)) != len(K):
                raise ValueError("the W matrices do not define a representation of K")
        else:
            K, rho_k, sig = [index[_key(np.eye(n))]], np.eye(n)[None], np.eye(w)[None]
        basis = averaged_hom_basis(sig, rho_k)
        reps = [int(to_user[a]) for a in whole.left_transversal(np.sort(from_user[K]))]
        built.append(
            RealizedOrbit(
                head_dim=w,
                coset_reps=tuple(reps),
                group_matrices=G,
                basis=basis,
                w_fixed=fixed_vectors(sig),
                subgroup=tuple(sorted(K)),
            )
        )
    return RealizedDesign(dim_v=n, group_matrices=G, orbits=tuple(built))
