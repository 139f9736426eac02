"""Generic stabilisers K̄(K, S) and the extended irreps σ̃ (SPEC §4.3), per irrep of K.

SPEC §4.3 defines K̄(K, S) = { g : ρ(g) commutes with every element of ⊕_{σ∈S} End_K(V_σ) }.
That algebra is spanned by its blocks End_K(V_σ), so

    K̄(K, S) = ∩_{σ∈S} K̄(K, {σ})                                         (*)

(g commutes with a sum of subalgebras iff it commutes with each). Each K̄(K, {σ}) is found
once per (K, σ) by the test SPEC §4.3 prescribes, against one random element B_σ of
End_K(V_σ) (generic with probability 1, relative tolerance; reps/schur.py: an average over K,
or the Schur blocks for band irreps, Lemma 8): a boolean row over G. Then
K̄(K, S) for any S is an AND of |S| rows, not a fresh commutator test of every g against a
new random element for every support S. σ̃'s character is χ_{V_σ}(g) / m_σ(V|K) on K̄
(SPEC §4.3): the character of V_σ is kept per (K, σ) over all of G, and σ̃ over K̄_0 is
decomposed once per (K, σ, K̄_0, c), whatever the support it came from.

Everything here depends on G and on which irreps V contains only (theory-scale.md Lemma 2),
not on multiplicities, H or d: one `Stabilisers` per (G, V') lives in G's memo and is shared
by every problem over them (the H / k seed's sub-problem, the re-check, the page's runs).

    >>> from eqattn.attention import Problem
    >>> p = Problem.create("D4", "A1 + B1", 2, 2); K = p.group.subgroup_classes[3]  # C2.3: V|K = A + B
    >>> st = stabilisers(p); st.kbar(K, (0, 1))[:2], st.kbar(K, (0,))[:2]  # K̄ = D4 for either support
    ((7, 0), (7, 0))
    >>> st.extended(K, (0, 1))  # A -> A1, B -> B1
    {0: (1, 0, 0, 0, 0), 1: (0, 0, 1, 0, 0)}
"""

from __future__ import annotations

import numpy as np

from ..groups import SubgroupClass
from ..reps import conjugate_character, decompose, irreps_of
from ..reps.schur import generic_endomorphism, isotypic_projector_on
from .problem import Problem
from .supports import reduced_problem

KBAR_TOL = 1e-7  # relative: ||ρ(g) B - B ρ(g)|| <= 10 KBAR_TOL ||B|| counts as commuting


class Stabilisers:
    """K̄ and σ̃ of one (G, V') (module docstring); entries computed on demand, kept."""

    def __init__(self, problem: Problem) -> None:
        small = reduced_problem(problem)
        self.G = problem.group
        self.V = small.V
        self.rho = small.rho  # (|G|, n, n), V' = each irrep of V once
        self._rng = np.random.default_rng(2024)
        self._rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # K -> (commutes[σ, g], χ_{V_σ}[σ, g])
        self._kbar: dict[tuple[int, tuple[int, ...]], tuple[int, int, np.ndarray]] = {}
        self._ext: dict[tuple[int, int, int, int], tuple[int, ...]] = {}
        self._vk: dict[int, tuple[int, ...]] = {}  # K -> m_σ(V'|K)

    def rows(self, K: SubgroupClass) -> tuple[np.ndarray, np.ndarray]:
        """(commutes, chi): commutes[σ, g] says g ∈ K̄(K, {σ}); chi[σ, g] = tr(ρ(g) Π_σ), the
        character of V'_σ over all of G (zero rows for irreps of K absent from V'|K)."""
        if K.id not in self._rows:
            rho = self.rho
            G, n = rho.shape[0], rho.shape[1]
            rk = rho[K.elements]
            irr = irreps_of(K)
            mults = self._vk[K.id] = self.V.restrict(K).mults
            avg = generic_endomorphism(self.V, K, self._rng, rk)  # generic in End_K(V')
            commutes = np.zeros((len(irr), G), dtype=bool)
            chi = np.zeros((len(irr), G))
            for s in range(len(irr)):
                if not mults[s]:  # σ not in V'|K: never in a support
                    commutes[s] = True
                    continue
                Pi = isotypic_projector_on(self.V, K, s, rk)
                B = Pi @ avg @ Pi  # generic in End_K(V'_σ)
                scale = np.sqrt((B**2).sum())
                comm = np.matmul(rho, B) - np.matmul(B, rho)  # ρ(g) B - B ρ(g) for every g (batched BLAS)
                commutes[s] = np.sqrt((comm**2).sum(axis=(1, 2))) <= KBAR_TOL * scale * 10
                chi[s] = np.einsum("gab,ba->g", rho, Pi)
            self._rows[K.id] = (commutes, chi)
        return self._rows[K.id]

    def kbar(self, K: SubgroupClass, support: tuple[int, ...]) -> tuple[int, int, np.ndarray]:
        """(class id of K̄_0, c, elements of K̄) with K̄ = c K̄_0 c^-1, by (*); the empty
        support (a = 0) has K̄ = G."""
        key = (K.id, support)
        if key not in self._kbar:
            G = self.G
            if not support:
                self._kbar[key] = (G.subgroup_classes[-1].id, 0, np.arange(G.order))
            else:
                commutes, _ = self.rows(K)
                elems = np.nonzero(commutes[list(support)].all(axis=0))[0]
                cls, x = G.lattice.locate(elems)
                self._kbar[key] = (cls.id, x, elems)
        return self._kbar[key]

    def extended(self, K: SubgroupClass, support: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
        """For each σ in the support, σ̃ over K̄_0's irreps: χ_{V_σ} / m_σ(V'|K) on K̄, moved to
        K̄_0 by c (SPEC §4.3)."""
        kb_id, c, kb_elems = self.kbar(K, support)
        return {s: self._extended_one(K, s, kb_id, c, kb_elems) for s in support}

    def _extended_one(self, K: SubgroupClass, s: int, kb_id: int, c: int, kb_elems: np.ndarray) -> tuple[int, ...]:
        key = (K.id, s, kb_id, c)
        if key not in self._ext:
            G = self.G
            _, chis = self.rows(K)
            chi = np.zeros(G.order)
            chi[kb_elems] = chis[s, kb_elems] / self._vk[K.id][s]
            self._ext[key] = decompose(G.subgroup_classes[kb_id], conjugate_character(G, chi, c), field="internal").mults
        return self._ext[key]



def stabilisers(problem: Problem) -> Stabilisers:
    """The `Stabilisers` of the problem's group and V' (shared by every problem over them)."""
    key = ("stabilisers", tuple(1 if m else 0 for m in problem.V.mults))
    return problem.group.memo.get(key, lambda: Stabilisers(problem))
