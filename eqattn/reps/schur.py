"""Isotypic projectors and generic endomorphisms of a representation in block form, restricted
to a subgroup (SPEC §0, §4.3): the one place that knows which route a group's irreps take.

For a group's own irreps (orthogonal characters on K) these are the usual averages over K:

    Π_σ = (d_σ / (e_σ |K|)) Σ_k χ_σ(k) ρ(k),        B = (1/|K|) Σ_k ρ(k) Y ρ(k)^T  (Y random).

For band irreps on a character-detecting stand-in (Lemma 8, docs/theory-continuous.md §8) an
average over the finite K_F = F ∩ K would give F's commutant, which is larger than K's. There a
representation V of H ⊇ K in block form is already in band coordinates: each H-irrep block
restricts to one K-irrep with the same Wigner matrices (every restriction between classes of
SO(3), O(3) containing SO(3) is irreducible), so Π_σ is the coordinate projector onto the
blocks that restrict to σ and a generic element of End_K(V) is

    B = Σ_σ Σ_{blocks i, j restricting to σ} r_ij I_{d_σ}                  (r_ij random),

the Schur blocks ⊕_σ Mat_{m_σ}(R) ⊗ I_{d_σ} (every irrep of SO(3), O(3) is of real type).

    >>> from eqattn.groups import get_group
    >>> from eqattn.reps import parse_rep
    >>> G = get_group("O3", band=3); V = parse_rep("1x3o + 1x3e + 1x0e", G.subgroup_classes[-1])
    >>> SO3 = G.subgroup_classes[0]
    >>> block_irreps(V, SO3)        # the blocks of V (0e, 3o, 3e) as irreps of SO3 (0, 3)
    (0, 3, 3)
    >>> P = isotypic_projector_on(V, SO3, 3); int(P.trace()), bool(np.allclose(P @ P, P))
    (14, True)
    >>> B = generic_endomorphism(V, SO3, np.random.default_rng(0))
    >>> bool(np.allclose(B[1:8, 8:15], B[1, 8] * np.eye(7)))   # 3o -> 3e: a multiple of I on SO3
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .irreps import irreps_of
from .matrices import isotypic_projector

if TYPE_CHECKING:
    from ..groups import SubgroupClass
    from .rep import Rep

__all__ = ["block_irreps", "isotypic_projector_on", "generic_endomorphism"]

#: the largest |D_τ(k) - D_σ(k)| accepted when a band block is read as an irrep of K
BLOCK_TOL = 1e-9


def block_irreps(V: "Rep", sub: "SubgroupClass") -> tuple[int, ...]:
    """For band irreps: per block of V (copy after copy, in V's order) the irrep of K = sub it
    restricts to. ValueError when a block does not restrict to one irrep with equal matrices."""
    return sub.memo.get(("block_irreps", V.sub.id, tuple(V.mults)), lambda: _block_irreps(V, sub))


def _block_irreps(V: "Rep", sub: "SubgroupClass") -> tuple[int, ...]:
    from .rep import decompose

    H = V.sub
    if not H.mask[sub.elements].all():
        raise ValueError(f"{sub.name} is not contained in {H.name}")
    irr_h, irr_k = irreps_of(H), irreps_of(sub)
    where = H.local_index[sub.elements]
    out: list[int] = []
    for t, m in enumerate(V.mults):
        if not m:
            continue
        mults = np.array(decompose(sub, irr_h.chars[t], field="internal").mults)
        if mults.sum() != 1:
            raise ValueError(f"{irr_h.labels[t]} of {H.name} does not restrict to one irrep of {sub.name}")
        s = int(np.argmax(mults))
        if np.abs(irr_h.matrices[t][where] - irr_k.matrices[s]).max() > BLOCK_TOL:
            raise ValueError(f"{irr_h.labels[t]} of {H.name} and {irr_k.labels[s]} of {sub.name} have different matrices")
        out += [s] * int(m)
    return tuple(out)


def _blocks(V: "Rep", sub: "SubgroupClass") -> list[tuple[int, int, int]]:
    """(offset, dim, irrep of K) per block of V."""
    dims = irreps_of(V.sub).dims
    sizes = [int(dims[t]) for t, m in enumerate(V.mults) for _ in range(int(m))]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    return [(int(o), d, s) for o, d, s in zip(offsets, sizes, block_irreps(V, sub))]


def isotypic_projector_on(V: "Rep", sub: "SubgroupClass", s: int, rho_k: np.ndarray | None = None) -> np.ndarray:
    """(dim V, dim V): the projector onto the σ-isotypic part of V|K (σ = irrep s of K = sub),
    for V in block form; ``rho_k`` V's matrices at K's elements, if at hand (module docstring)."""
    irr = irreps_of(sub)
    if not irr.band:
        if rho_k is None:
            rho_k = V.matrices()[V.sub.local_index[sub.elements]]
        return isotypic_projector(rho_k, irr.chars[s, sub.elements], int(irr.dims[s]), int(irr.es[s]))
    P = np.zeros((V.dim, V.dim))
    for o, d, t in _blocks(V, sub):
        if t == s:
            P[o : o + d, o : o + d] = np.eye(d)
    return P


def generic_endomorphism(V: "Rep", sub: "SubgroupClass", rng: np.random.Generator,
                         rho_k: np.ndarray | None = None) -> np.ndarray:
    """(dim V, dim V): a random element of End_K(V|K), generic with probability 1 (module
    docstring); ``rho_k`` V's matrices at K's elements, if at hand."""
    irr = irreps_of(sub)
    n = V.dim
    if not irr.band:
        if rho_k is None:
            rho_k = V.matrices()[V.sub.local_index[sub.elements]]
        Y = rng.normal(size=(n, n))
        return np.matmul(np.matmul(rho_k, Y), rho_k.transpose(0, 2, 1)).mean(axis=0)
    B = np.zeros((n, n))
    blocks = _blocks(V, sub)
    R = rng.normal(size=(len(blocks), len(blocks)))
    for i, (oi, d, si) in enumerate(blocks):
        for j, (oj, _, sj) in enumerate(blocks):
            if si == sj:
                B[oi : oi + d, oj : oj + d] = R[i, j] * np.eye(d)
    return B
