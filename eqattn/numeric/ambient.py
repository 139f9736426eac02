"""V's matrix at any element of a compact group, in eqattn's coordinates.

A compact group G (SO(2), O(2), SO(3), O(3)) is computed through a finite stand-in F <= G on
which every irrep of V's band stays irreducible and distinct (docs/theory-continuous.md §5),
and eqattn's coordinates of V are the stand-in's block form: irrep i of F, copy after copy,
each block in F's standard matrices ``sigma_i(f)``. For each irrep i of V, its band irrep
``D_i`` of G (reps/wigner.py: e3nn's real Wigner matrices, or E_k) restricts on F to an irrep
equivalent to ``sigma_i``; the polar factor of

    A_i = mean_{f in F} D_i(f) M sigma_i(f)^T        (M random)

is an orthogonal intertwiner ``Q_i`` (``D_i(f) Q_i = Q_i sigma_i(f)``): A_i lies in
Hom_F(sigma_i, D_i) = Q_i End_F(sigma_i), and End_F(sigma_i) is R (real type) or C (E_k of
SO(2), complex type), whose non-zero elements are positive multiples of orthogonal matrices.
Then

    rho(g) = blockdiag_i (Q_i^T D_i(g) Q_i, repeated m_i times)

is a representation of G that equals the stand-in's on F. It is the only one: two
representations of G in the band that agree on F have the identity in Hom_F = Hom_G between
them. So every weight built from F is G-equivariant for this rho.

On a character-detecting stand-in (Lemma 8, §8) the irreps are the band irreps themselves,
their matrices ``D_i`` at F's elements, and ``Q_i = I``: there Hom_F(sigma_i, D_i) is larger
than R, and only the identity is known to intertwine on all of G.

Which band irrep each irrep of F is: the compact stand-in says (``G.compact.irrep(label)``);
for another finite group (e.g. the point group ``Oh`` standing for O(3)) the one band irrep
whose character on F is F's (an error when none or several are).

>>> from eqattn.groups import get_group
>>> from eqattn.reps import parse_rep
>>> from eqattn.numeric.haar import haar_elements
>>> Oh = get_group("Oh")
>>> amb = ambient_rep(parse_rep("2xA1g + T1u", Oh.subgroup_classes[-1]), "O3")
>>> [str(b) for b in amb.band if b is not None]
['0e', '1o']
>>> g, h = haar_elements("O3", 2, seed=0)
>>> bool(np.allclose(amb.matrices((g @ h)[None]), amb.matrices(g[None]) @ amb.matrices(h[None])))
True
>>> bool(np.allclose(amb.matrices(Oh.matrices), parse_rep("2xA1g + T1u", Oh.subgroup_classes[-1]).matrices()))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..errors import InputError
from ..reps import Rep
from ..reps.wigner import KINDS, BandIrrep, band_matrices

__all__ = ["AmbientRep", "ambient_rep", "compact_info", "INTERTWINE_TOL"]

#: the largest |D_i(f) Q_i - Q_i sigma_i(f)| accepted over F
INTERTWINE_TOL = 1e-10


def compact_info(G: Any) -> Any:
    """What the finite group G stands for (its ``compact`` field), or None."""
    return getattr(G, "compact", None)


def _candidates(kind: str, dim: int, rotations: int) -> list[BandIrrep]:
    """The band irreps of ``kind`` of dimension ``dim`` that a finite subgroup with
    ``rotations`` elements of det +1 can tell apart (frequencies k < rotations / 2)."""
    if kind in ("SO3", "O3"):
        if dim % 2 == 0:
            return []
        return [BandIrrep(kind, (dim - 1) // 2, p) for p in ((1, -1) if kind == "O3" else (1,))]
    if dim == 1:
        return [BandIrrep(kind, 0, p) for p in ((1, -1) if kind == "O2" else (1,))]
    if dim == 2:
        return [BandIrrep(kind, k) for k in range(1, (rotations + 1) // 2)]
    return []


def _points(G: Any, kind: str, points: np.ndarray | None) -> np.ndarray:
    mats = points if points is not None else getattr(G, "matrices", None)
    k = KINDS[kind]
    if mats is None or np.asarray(mats).shape != (G.order, k, k):
        raise InputError("group", f"{G.name}: {kind} needs the stand-in's elements as ({G.order}, {k}, {k}) matrices")
    return np.asarray(mats, dtype=np.float64)


@dataclass(frozen=True)
class AmbientRep:
    """V's representation of the compact group ``kind`` in eqattn's coordinates (module
    docstring): ``band[i]`` the band irrep of V's irrep i (None where V does not hold it),
    ``Q[i]`` its intertwiner, ``error`` the largest intertwining residual over F."""

    kind: str
    V: Rep
    band: tuple[BandIrrep | None, ...]
    Q: tuple[np.ndarray | None, ...]
    error: float

    def matrices(self, g: np.ndarray) -> np.ndarray:
        """(N, dim V, dim V): rho at the group elements ``g (N, k, k)``."""
        g = np.asarray(g, dtype=np.float64)
        out = np.zeros((g.shape[0], self.V.dim, self.V.dim))
        pos = 0
        for b, Q, m in zip(self.band, self.Q, self.V.mults):
            if not m:
                continue
            assert b is not None and Q is not None
            block = np.einsum("ji,njk,kl->nil", Q, band_matrices(b, g), Q, optimize=True)
            d = b.dim
            for _ in range(m):
                out[:, pos : pos + d, pos : pos + d] = block
                pos += d
        return out


def ambient_rep(V: Rep, kind: str | None = None, points: np.ndarray | None = None,
                band: Mapping[str, BandIrrep] | None = None, seed: int = 0) -> AmbientRep:
    """V's matrices at every element of the compact group (module docstring).

    ``V`` is a representation of a stand-in's top class; ``kind`` defaults to what the
    stand-in stands for; ``points`` (|F|, k, k) are F's elements as elements of G (default
    ``G.matrices``); ``band`` maps F's irrep labels to band irreps (default: the stand-in's
    own, else matched by character)."""
    G = V.sub.group
    info = compact_info(G)
    kind = kind or (info.kind if info is not None else None)
    if kind not in KINDS:
        raise InputError("group", f"{G.name} is not a compact group's stand-in; give kind = one of {', '.join(KINDS)}")
    if V.sub.order != G.order:
        raise InputError("rep", f"V must be a representation of all of {G.name}, not of {V.sub.name}")
    F = _points(G, kind, points)[V.sub.elements]
    rotations = int((np.linalg.det(F) > 0).sum())
    irr = V.irreps
    rng = np.random.default_rng(seed)
    bands: list[BandIrrep | None] = []
    Qs: list[np.ndarray | None] = []
    worst = 0.0
    for i, m in enumerate(V.mults):
        if not m:
            bands.append(None)
            Qs.append(None)
            continue
        label, sigma = irr.labels[i], irr.matrices[i]
        chi = np.trace(sigma, axis1=1, axis2=2)
        if band is not None and label in band:
            cands = [band[label]]
        elif info is not None and band is None:
            cands = [BandIrrep.of_label(info, label)]
        else:
            cands = _candidates(kind, int(irr.dims[i]), rotations)
        found = [b for b in cands if b.dim == irr.dims[i]
                 and np.abs(np.trace(band_matrices(b, F), axis1=1, axis2=2) - chi).max() < 1e-8]
        if len(found) != 1:
            what = "no" if not found else f"{len(found)} ({', '.join(map(str, found))})"
            raise InputError("rep", f"{label} of {G.name}: {what} irreps of {kind} restrict to it")
        b = found[0]
        D = band_matrices(b, F)
        if irr.band:  # Lemma 8: the irrep is the band irrep itself (Hom_F would be too large)
            Q = np.eye(b.dim)
        else:
            A = np.einsum("nij,jk,nlk->il", D, rng.normal(size=(b.dim, b.dim)), sigma, optimize=True) / len(F)
            U, _, Vt = np.linalg.svd(A)
            Q = U @ Vt
        worst = max(worst, float(np.abs(D @ Q - Q @ sigma).max()))
        bands.append(b)
        Qs.append(Q)
    if worst > INTERTWINE_TOL:
        raise InputError("rep", f"no orthogonal intertwiner onto {G.name}'s irreps (residual {worst:.1e})")
    return AmbientRep(kind, V, tuple(bands), tuple(Qs), worst)
