"""Hosting and supply (SPEC §4.4): design orbit (K', W) hosts an option (K̄_0, P, D)
through a in G when L = a K' a^-1 <= K̄_0 and P^a <= W as K'-reps; it then supplies
S = Ind_L^{K̄_0}(W^{a^-1}). One a per double coset K̄_0 a K' (smallest element)."""

from __future__ import annotations

import numpy as np

from ..reps import Rep, conjugate_character, decompose, induce_character, irreps_of
from .problem import Problem


class Hosting:
    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.G = problem.group
        self._cosets: dict[tuple[int, int], list[int]] = {}
        self._pimg: dict[tuple[int, int, tuple[int, ...]], dict[int, tuple[int, ...]]] = {}
        self._supply: dict[tuple[int, tuple[int, ...], int], dict[int, Rep]] = {}
        self._unit: dict[tuple[int, int], np.ndarray] = {}
        self._img: dict[tuple[int, int, tuple[int, ...]], np.ndarray] = {}

    def cosets(self, kbar: int, sub: int) -> list[int]:
        """Double coset representatives a of K̄_0 \\ G / K' with a K' a^-1 <= K̄_0."""
        key = (kbar, sub)
        if key not in self._cosets:
            G = self.G
            kb = G.subgroup_classes[kbar]
            K = G.subgroup_classes[sub]
            reps = G.double_cosets(kb.elements, K.elements)
            self._cosets[key] = [a for a in reps if kb.mask[G.conj_table[a, K.elements]].all()]
        return self._cosets[key]

    def image_at(self, kbar: int, sub: int, P: Rep) -> dict[int, tuple[int, ...]]:
        """a -> multiplicities of P^a restricted to K' (P a rep of K̄_0); linear in P."""
        key = (kbar, sub, P.mults)
        if key not in self._pimg:
            out = {}
            for a in self.cosets(kbar, sub):
                m = np.asarray(P.mults) @ self.restricted_irreps(kbar, sub, a)
                out[a] = tuple(int(x) for x in m)
            self._pimg[key] = out
        return self._pimg[key]

    def restricted_irreps(self, kbar: int, sub: int, a: int) -> np.ndarray:
        """Row t: the irrep t of K̄_0 moved by a and restricted to K', (t^a)|K', over K''s irreps
        (SPEC §4.4). P^a|K' is linear in P, so `image_at` is P's multiplicities times these
        rows; the hosting-set search compares them with W directly.

        >>> from eqattn.attention import Problem
        >>> h = hosting(Problem.create("D4", "A1 + B1", 2, 2))
        >>> h.restricted_irreps(7, 6, 0).tolist()  # D4 -> C4: A1, A2 -> A; B1, B2 -> B; E1 -> E1
        [[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]]
        """
        key = ("res", kbar, sub, a)
        if key not in self._pimg:
            G = self.G
            K = G.subgroup_classes[sub]
            irr = irreps_of(G.subgroup_classes[kbar])
            rows = []
            for t in range(len(irr)):
                chi = conjugate_character(G, irr.chars[t], a)
                masked = np.zeros_like(chi)
                masked[K.elements] = chi[K.elements]
                rows.append(decompose(K, masked, field="internal").mults)
            self._pimg[key] = np.array(rows, dtype=np.int64)  # type: ignore[assignment]
        return self._pimg[key]  # type: ignore[return-value]

    def supply(self, sub: int, W: Rep, kbar: int) -> dict[int, Rep]:
        """a -> S = Ind_{aK'a^-1}^{K̄_0} W^{a^-1}, over K̄_0's irreps."""
        key = (sub, W.mults, kbar)
        if key not in self._supply:
            G = self.G
            kb = G.subgroup_classes[kbar]
            K = G.subgroup_classes[sub]
            out = {}
            for a in self.cosets(kbar, sub):
                ainv = int(G.inv[a])
                chi = conjugate_character(G, W.character, ainv)  # chi(l) = chi_W(a^-1 l a)
                L = np.sort(G.conj_table[a, K.elements])
                ind = induce_character(G, chi, L, kb.elements)
                out[a] = decompose(kb, ind, field="internal")
            self._supply[key] = out
        return self._supply[key]

    def hosts(self, sub: int, W: Rep, kbar: int, P: Rep) -> list[tuple[int, Rep]]:
        """[(a, supply)] for the double cosets through which (K', W) hosts (K̄_0, P)."""
        img = self.image_at(kbar, sub, P)
        sup = self.supply(sub, W, kbar)
        w = W.mults
        return [(a, sup[a]) for a, pm in img.items() if all(x <= y for x, y in zip(pm, w))]


    # ----- the same as arrays, linear in W and P (for the optimiser's orbit types) -----------
    def unit_supply(self, kbar: int, sub: int) -> np.ndarray:
        """(cosets, irreps τ of K', irreps of K̄_0): the supply of τ alone through each a
        (`supply` is linear in W: S(W) = Σ_τ m_τ(W) unit_supply[a, τ])."""
        key = (kbar, sub)
        if key not in self._unit:
            G = self.G
            K = G.subgroup_classes[sub]
            nK, nB = len(irreps_of(K)), len(irreps_of(G.subgroup_classes[kbar]))
            cos = self.cosets(kbar, sub)
            out = np.zeros((len(cos), nK, nB), dtype=np.int64)
            for t in range(nK):
                sup = self.supply(sub, Rep(K, tuple(int(i == t) for i in range(nK))), kbar)
                for ai, a in enumerate(cos):
                    out[ai, t] = sup[a].mults
            self._unit[key] = out
        return self._unit[key]

    def image_matrix(self, kbar: int, sub: int, P: Rep) -> np.ndarray:
        """(cosets, irreps of K'): `image_at` as a matrix, rows in `cosets` order."""
        key = (kbar, sub, P.mults)
        if key not in self._img:
            img = self.image_at(kbar, sub, P)
            nK = len(irreps_of(self.G.subgroup_classes[sub]))
            arr = np.zeros((len(self.cosets(kbar, sub)), nK), dtype=np.int64)
            for ai, a in enumerate(self.cosets(kbar, sub)):
                arr[ai] = img[a]
            self._img[key] = arr
        return self._img[key]


def hosting(problem: Problem) -> Hosting:
    return problem.cached("hosting", lambda: Hosting(problem))
