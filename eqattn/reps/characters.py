"""Complex character tables by Burnside's algorithm, and real irreducible characters (SPEC §0).

The central characters w(C_r) = |C_r| chi(g_r) / chi(1) are the common eigenvectors of the
class-multiplication matrices; chi(1)^2 = |G| / sum_r |w_r|^2 / |C_r|. Each complex
irreducible chi is paired with its Frobenius–Schur indicator nu = (1/|G|) sum chi(g^2):
+1 real type (real character chi), 0 complex type (chi + conj chi, one real irrep),
-1 quaternionic type (2 chi).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..groups import FiniteGroup

TYPES = {1: "real", 0: "complex", -1: "quaternionic"}
E_OF_TYPE = {"real": 1, "complex": 2, "quaternionic": 4}


def complex_character_table(G: "FiniteGroup") -> np.ndarray:
    """(k, n) complex array: irreducible characters per element, ordered by (degree, index).
    Computed once per group (in the group's memo)."""
    return G.memo.get("complex_character_table", lambda: _complex_character_table(G))


def _complex_character_table(G: "FiniteGroup") -> np.ndarray:
    classes = G.conjugacy_classes
    k = len(classes)
    n = G.order
    reps = np.array([c[0] for c in classes])
    sizes = np.array([c.size for c in classes])
    cls = G.class_of
    M = np.zeros((k, k, k))  # M[r][s, t] = #{x in C_r : x^-1 g_t in C_s}
    for r, c in enumerate(classes):
        prod = cls[G.table[G.inv[c][:, None], reps[None, :]]]  # (|C_r|, k): class of x^-1 g_t
        for t in range(k):
            M[r][:, t] = np.bincount(prod[:, t], minlength=k)
    rng = np.random.default_rng(12345)
    for attempt in range(8):
        coef = rng.normal(size=k)
        A = np.tensordot(coef, M, axes=1)
        vals, vecs = np.linalg.eig(A)
        W = vecs / vecs[0:1, :]  # normalise so that w(identity class) = 1
        W = W.T  # rows: central characters
        degs2 = n / np.sum(np.abs(W) ** 2 / sizes[None, :], axis=1)
        degs = np.sqrt(np.abs(degs2))
        chars = (W * degs[:, None]) / sizes[None, :]
        # clean and verify orthogonality
        gram = (chars * sizes[None, :]) @ chars.conj().T / n
        if np.allclose(gram, np.eye(k), atol=1e-6) and np.allclose(np.round(degs), degs, atol=1e-6):
            re_, im_ = chars.real, chars.imag
            re_ = np.where(np.abs(re_ - np.round(re_)) < 1e-9, np.round(re_), re_)
            im_ = np.where(np.abs(im_ - np.round(im_)) < 1e-9, np.round(im_), im_)
            chars = re_ + 1j * im_
            degs_i = np.round(degs).astype(int)
            order = sorted(range(k), key=lambda i: (degs_i[i], _sort_key(chars[i])))
            return chars[order][:, cls]
    raise RuntimeError(f"character table of {G.name} did not converge")  # pragma: no cover


def _sort_key(row: np.ndarray) -> tuple:
    return tuple((-round(float(v.real), 6), -round(float(v.imag), 6)) for v in row)


@dataclass(frozen=True)
class RealCharacter:
    """A real irreducible character: its values, real dimension, type and one complex constituent."""

    values: np.ndarray  # (n,) real
    dim: int
    type: str
    constituent: np.ndarray  # (n,) complex: a complex irreducible constituent (canonical)

    @property
    def e(self) -> int:
        return E_OF_TYPE[self.type]


def real_characters(G: "FiniteGroup") -> tuple[RealCharacter, ...]:
    """Real irreducible characters of G (unordered here; labels order them); once per group."""
    return G.memo.get("real_characters", lambda: _real_characters(G))


def _real_characters(G: "FiniteGroup") -> tuple[RealCharacter, ...]:
    X = complex_character_table(G)
    n = G.order
    sq = G.table[np.arange(n), np.arange(n)]
    used = np.zeros(X.shape[0], dtype=bool)
    out = []
    for i, chi in enumerate(X):
        if used[i]:
            continue
        used[i] = True
        nu = int(np.round((chi[sq].sum() / n).real))
        deg = int(round(chi[0].real))
        if np.abs(chi.imag).max() < 1e-9:
            if nu == 1:
                out.append(RealCharacter(chi.real.copy(), deg, "real", chi))
            else:
                out.append(RealCharacter(2 * chi.real, 2 * deg, "quaternionic", chi))
            continue
        # complex type: find the conjugate, choose the canonical constituent
        j = next(j for j in range(X.shape[0]) if not used[j] and np.allclose(X[j], chi.conj(), atol=1e-8))
        used[j] = True
        first = int(np.nonzero(np.abs(chi.imag) > 1e-9)[0][0])
        canon = chi if chi[first].imag > 0 else chi.conj()
        out.append(RealCharacter(2 * chi.real, 2 * deg, "complex", canon))
    return tuple(out)
