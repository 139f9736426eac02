"""Standard labels of real irreps, by family of the standard group (README: "Irrep labels").

* C_n: A (trivial), B (r -> -1, n even), E1, E2, ... (real character 2cos(2 pi k/n) at r).
* D_n: A1, A2 (r -> 1, s -> -1), B1 (r -> -1, s -> 1), B2, E1, E2, ...
* Q8: A, B1 (i -> 1, j -> -1), B2 (i -> -1, j -> 1), B3, H (4-dim quaternionic).
* A4: A, E (the complex-type pair, 2-dim real), T.  A5: A, T1 (chi(5-cycle) = (1+sqrt5)/2), T2, G, H.
* S_n: partitions `[3,1]` (Murnaghan–Nakayama), except S3 in subgroups, which is D3.
* Direct products G1 x G2: `s1.s2`; when both factors are complex type the product splits
  into `s1.s2` (containing chi1 chi2 of the canonical constituents) and `s1.s2*` (chi1 conj chi2).
* Point groups: Mulliken labels. Anything else: X1, X2, ... by (dimension, character).
Each function returns (labels, order) where order sorts the irreps for display.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .characters import RealCharacter

if TYPE_CHECKING:
    from ..groups import FiniteGroup


def _k_of(chi_r: float, n: int) -> int:
    return int(round(math.acos(max(-1.0, min(1.0, chi_r / 2))) * n / (2 * math.pi)))


def _generic(chars: Sequence[RealCharacter]) -> list[str]:
    order = sorted(range(len(chars)), key=lambda i: (chars[i].dim, tuple(-np.round(chars[i].values, 6))))
    labels = [""] * len(chars)
    for pos, i in enumerate(order):
        labels[i] = f"X{pos + 1}"
    return labels


def _partitions(n: int) -> list[tuple[int, ...]]:
    def rec(m: int, mx: int) -> list[tuple[int, ...]]:
        if m == 0:
            return [()]
        return [(p,) + rest for p in range(min(m, mx), 0, -1) for rest in rec(m - p, p)]

    return rec(n, n)


def mn_character(lam: tuple[int, ...], cycle_type: tuple[int, ...]) -> int:
    """Murnaghan–Nakayama: chi^lam at a permutation of the given cycle type (beta-sets)."""
    if not cycle_type:
        return 1
    k, rest = cycle_type[0], cycle_type[1:]
    L = len(lam)
    beta = [lam[i] + (L - 1 - i) for i in range(L)]
    total = 0
    bset = set(beta)
    for b in beta:
        if b - k >= 0 and (b - k) not in bset:
            sign = (-1) ** sum(1 for c in beta if b - k < c < b)
            nb = sorted([c for c in beta if c != b] + [b - k], reverse=True)
            Ln = len(nb)
            new = tuple(x for x in (nb[i] - (Ln - 1 - i) for i in range(Ln)) if x > 0)
            total += sign * mn_character(new, rest)
    return total


def _cycle_type(perm: np.ndarray) -> tuple[int, ...]:
    seen = np.zeros(perm.size, dtype=bool)
    out = []
    for i in range(perm.size):
        if not seen[i]:
            ln = 0
            j = i
            while not seen[j]:
                seen[j] = True
                j = int(perm[j])
                ln += 1
            out.append(ln)
    return tuple(sorted(out, reverse=True))


def label_irreps(S: "FiniteGroup", chars: Sequence[RealCharacter]) -> list[str]:
    fam = S.family
    if fam == "cyclic":
        n = S.order
        if n == 1:
            return ["A"]
        r = S.generators[0]
        out = []
        for c in chars:
            if c.dim == 1:
                out.append("A" if c.values[r] > 0 else "B")
            else:
                out.append(f"E{_k_of(c.values[r], n)}")
        return out
    if fam == "dihedral":
        n = S.params[0]
        r, s = S.generators
        out = []
        for c in chars:
            if c.dim == 1:
                out.append(("A" if c.values[r] > 0 else "B") + ("1" if c.values[s] > 0 else "2"))
            else:
                out.append(f"E{_k_of(c.values[r], n)}")
        return out
    if fam == "Q8":
        i, j = S.generators
        names = {(1, 1): "A", (1, -1): "B1", (-1, 1): "B2", (-1, -1): "B3"}
        return [names[(int(np.sign(c.values[i])), int(np.sign(c.values[j])))] if c.dim == 1 else "H" for c in chars]
    if fam == "alternating" and S.order == 12:
        return [{1: "A", 2: "E", 3: "T"}[c.dim] for c in chars]
    if fam == "alternating" and S.order == 60:
        b = S.generators[0]  # the 5-cycle (0 1 2 3 4)
        out = []
        for c in chars:
            if c.dim == 3:
                out.append("T1" if c.values[b] > 1 else "T2")
            else:
                out.append({1: "A", 4: "G", 5: "H"}[c.dim])
        return out
    if fam == "symmetric" and S.perms is not None:
        n = S.params[0]
        types = [_cycle_type(p) for p in S.perms]
        out = []
        for c in chars:
            for lam in _partitions(n):
                vals = np.array([mn_character(lam, t) for t in types], dtype=float)
                if np.allclose(vals, c.values, atol=1e-6):
                    out.append("[" + ",".join(map(str, lam)) + "]")
                    break
            else:  # pragma: no cover
                return _generic(chars)
        return out
    # products: labelled from their factors' irreps in irreps.py (product_labels)
    if fam == "point":
        try:
            from .mulliken import mulliken_labels

            labels = mulliken_labels(S, np.array([c.values for c in chars]), [c.dim for c in chars], [c.type for c in chars])
            if len(set(labels)) == len(labels):
                return list(labels)
        except Exception:  # pragma: no cover - fall back to generic labels
            pass
    return _generic(chars)


def display_order(S: "FiniteGroup", labels: list[str], chars: Sequence[RealCharacter]) -> list[int]:
    """Display order: trivial first, then by dimension, then label."""

    def key(i: int) -> tuple:
        triv = bool(np.allclose(chars[i].values, 1.0))
        return (not triv, chars[i].dim, _natural(labels[i]))

    return sorted(range(len(labels)), key=key)


def _natural(s: str) -> tuple:
    import re

    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s))
