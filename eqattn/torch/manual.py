"""Realise a design from explicit orthogonal matrices (no group catalog needed).

The catalog path is ``eqattn.numeric.realize_design(problem, design)``. This module builds an
object with the same fields (docs/contracts.md, "Numeric realisation") directly from matrices,
for a representation you already have in matrix form, and for tests::

    r = lambda t: np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    G = np.stack([r(k * np.pi / 2) for k in range(4)])        # C4 acting on R^2
    realized = realize_from_matrices(G, [
        {2: [[-1.0]]},                                       # K = <g_2> = C2, W = sign (B)
    ])

Each orbit is given by generators of its subgroup ``K`` as ``{element index: sigma_W(k)}``
(or a sequence of ``(index, matrix)`` pairs); the subgroup and the representation ``W`` are
their closure. With no generators, ``K`` is trivial and ``W = head_dim x trivial``.
Hom_K(V, W) is the image of the averaging projector ``A -> mean_k sigma(k) A rho(k)^T``; its
orthonormal basis is ``hom_in`` and the transposes are ``hom_out`` (orthogonal reps).

The matrices ``rho(g)`` must be pairwise distinct (a faithful ``rho``): elements are told apart
by their matrices. Only numpy is used here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, Union

import numpy as np

ArrayLike = Union[np.ndarray, Sequence]
Generators = Union[Mapping[int, ArrayLike], Sequence[tuple[int, ArrayLike]]]

_KEY_DECIMALS = 7


@dataclass(frozen=True)
class ManualOrbit:
    """One orbit ``(K, W)``: the fields of a realised orbit (contracts.md)."""

    head_dim: int
    cosets: np.ndarray  # (index, n_V, n_V): rho(a) for a transversal of G/K
    hom_in: np.ndarray  # (p, dim W, n_V): orthonormal basis of Hom_K(V, W)
    hom_out: np.ndarray  # (p, n_V, dim W): basis of Hom_K(W, V)
    subgroup: tuple[int, ...] = ()  # element indices of K (informational)
    coset_reps: tuple[int, ...] = ()  # element indices of the transversal (informational)


@dataclass(frozen=True)
class ManualRealization:
    """The fields of ``eqattn.numeric.RealizedDesign`` that the torch layer reads."""

    dim_v: int
    group_matrices: np.ndarray  # (|G|, n_V, n_V)
    orbits: tuple[ManualOrbit, ...]

    @property
    def params(self) -> int:
        return 4 * sum(o.hom_in.shape[0] for o in self.orbits)


def _key(m: np.ndarray) -> bytes:
    return (np.round(m, _KEY_DECIMALS) + 0.0).tobytes()


def hom_basis(sigma: Sequence[np.ndarray], rho: Sequence[np.ndarray], tol: float = 1e-9) -> np.ndarray:
    """Orthonormal basis ``(p, dim W, n_V)`` of ``{A : sigma(k) A rho(k)^T = A for all k}``.

    ``sigma`` and ``rho`` list the matrices of every element of ``K`` (aligned).
    """
    w = np.asarray(sigma[0]).shape[0]
    n = np.asarray(rho[0]).shape[0]
    if w == 0 or n == 0:
        return np.zeros((0, w, n))
    # row-major vec: vec(S A R^T) = kron(S, R) vec(A)
    proj = sum(np.kron(np.asarray(s, float), np.asarray(r, float)) for s, r in zip(sigma, rho)) / len(rho)
    proj = (proj + proj.T) / 2
    vals, vecs = np.linalg.eigh(proj)
    keep = vecs[:, vals > 0.5]
    if np.any((vals > tol) & (vals < 1 - tol)):
        raise ValueError("the averaging operator is not a projector: are the matrices orthogonal representations?")
    return keep.T.reshape(-1, w, n).copy()


def realize_from_matrices(
    group_matrices: ArrayLike,
    orbits: Sequence[Union[Generators, tuple[Generators, int]]],
) -> ManualRealization:
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
    ident = index.get(_key(np.eye(n)))
    if ident is None:
        raise ValueError("group_matrices does not contain the identity")

    def mul(a: int, b: int) -> int:
        k = _key(G[a] @ G[b])
        if k not in index:
            raise ValueError("group_matrices is not closed under multiplication")
        return index[k]

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
        # closure of the pairs (g, sigma(g)); sigma must be a homomorphism
        sig: dict[int, np.ndarray] = {ident: np.eye(w)}
        queue = [ident]
        while queue:
            h = queue.pop()
            for g, s in gens:
                gh, sgh = mul(g, h), s @ sig[h]
                if gh in sig:
                    if not np.allclose(sig[gh], sgh, atol=1e-9):
                        raise ValueError("the W matrices do not define a representation of K")
                else:
                    sig[gh] = sgh
                    queue.append(gh)
        K = sorted(sig)
        basis = hom_basis([sig[k] for k in K], [G[k] for k in K])
        covered: set[int] = set()
        reps = []
        for g in range(order):
            if g not in covered:
                reps.append(g)
                covered.update(mul(g, k) for k in K)
        built.append(
            ManualOrbit(
                head_dim=w,
                cosets=G[reps].copy(),
                hom_in=basis,
                hom_out=np.ascontiguousarray(basis.transpose(0, 2, 1)),
                subgroup=tuple(K),
                coset_reps=tuple(reps),
            )
        )
    return ManualRealization(dim_v=n, group_matrices=G, orbits=tuple(built))
