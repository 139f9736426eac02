"""Options of a vanilla orbit (K, n): maximal profiles (a, b), the generic stabiliser K̄,
the image P and the demand D (SPEC §4.1, §4.3).

All K̄-data is moved to the representative K̄_0 of K̄'s conjugacy class: with
K̄ = c K̄_0 c^-1, a K̄-character psi becomes psi^c(k) = psi(c k c^-1) on K̄_0. Hosting
considers every double coset, so this choice does not change any verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LimitError
from ..groups import SubgroupClass
from ..reps import Rep, conjugate_character, decompose, induce_character, irreps_of
from .problem import Problem
from .stabilisers import stabilisers
from .supports import supports_of

MAX_OPTIONS = 20000
MAX_PROFILES = 500_000  # maximal profiles of one orbit listed at most (about 30 s of listing; counted first)


def profile_count(bound: Rep, cap: int) -> int:
    """How many maximal profiles `maximal_profiles(bound, cap)` lists, counted without
    listing them: a ≤ bound with dim a ≤ cap is maximal iff every irrep with room left in
    `bound` is wider than the dimension left, so one pass over the irreps keeps, per used
    dimension and per narrowest unsaturated irrep so far, the number of partial profiles.

        >>> from eqattn.attention import Problem
        >>> p = Problem.create("D4", "2xregular", 2, 3)
        >>> VK = p.restrict(p.group.subgroup_classes[-1])
        >>> profile_count(VK, 3) == len(maximal_profiles(VK, 3)), profile_count(VK, 3)
        (True, 20)
    """
    dims = [int(x) for x in bound.irreps.dims]
    widths = sorted(set(dims)) + [cap + 1]  # the narrowest unsaturated irrep's dim (cap + 1: none)
    at = {w: i for i, w in enumerate(widths)}
    count = np.zeros((len(widths), cap + 1), dtype=object)
    count[-1, 0] = 1
    for m, w in zip(bound.mults, dims):
        new = np.zeros_like(count)
        for k in range(0, min(int(m), cap // w) + 1):
            shift = k * w
            if k == m:  # saturated: the narrowest unsaturated one stays
                new[:, shift:] += count[:, : cap + 1 - shift]
            else:
                for i, u in enumerate(widths):
                    j = at[min(u, w)]
                    new[j, shift:] += count[i, : cap + 1 - shift]
        count = new
    return int(sum(count[i, used] for i, u in enumerate(widths) for used in range(cap + 1) if u > cap - used))


def maximal_profiles(bound: Rep, cap: int) -> list[Rep]:
    """Maximal a <= bound with dim a <= cap (SPEC §4.1), in a deterministic order."""
    irr = bound.irreps
    dims = irr.dims
    m = bound.mults
    out: list[tuple[int, ...]] = []

    def rec(i: int, rem: int, acc: list[int]) -> None:
        if i == len(m):
            # maximal: no irrep can be added
            if all(acc[j] >= m[j] or dims[j] > rem for j in range(len(m))):
                out.append(tuple(acc))
            return
        top = min(m[i], rem // int(dims[i]))
        for k in range(top, -1, -1):
            acc.append(k)
            rec(i + 1, rem - k * int(dims[i]), acc)
            acc.pop()

    rec(0, cap, [])
    return [Rep(bound.sub, a) for a in out]


@dataclass(frozen=True)
class Option:
    """One option of an orbit: profiles a (for M) and b (for R) over K's irreps, and the
    normalised (K̄_0, P, D). `zero` marks a = 0 (the orbit joins the zero pool)."""

    orbit: tuple[int, int]  # (class id of K, cluster size n)
    a: Rep
    b: Rep
    kbar: int  # class id of K̄_0
    conj: int  # c with K̄ = c K̄_0 c^-1
    P: Rep  # over K̄_0
    D: Rep  # over K̄_0; for zero options: min(Ind_K^G b, V) over G

    @property
    def zero(self) -> bool:
        return self.a.is_zero()

    def value(self) -> tuple:
        return (self.zero, self.kbar, self.P.mults, self.D.mults)


class OptionTable:
    """Options of every orbit type of one problem, computed once and cached."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self._induced: dict[tuple[int, int, int], np.ndarray] = {}  # (K, K̄_0, c) -> Ind rows
        self._degenerate: dict[int, bool] = {}  # K -> some option has K̄ != K
        self._options: dict[tuple[int, int], tuple[Option, ...]] = {}
        self._all: dict[tuple[int, int], tuple[Option, ...]] = {}

    @property
    def G(self):  # noqa: ANN201
        return self.problem.group

    # ----- K̄ and the image P --------------------------------------------------------
    def kbar(self, K: SubgroupClass, support: tuple[int, ...]) -> tuple[int, int, np.ndarray]:
        """(class id of K̄_0, c, elements of K̄) for the support of a (SPEC §4.3): the
        intersection of the K̄ of its irreps (stabilisers.py), computed on V' (theory-scale.md
        Lemma 2) and shared by every problem over G and V'."""
        return stabilisers(self.problem).kbar(K, support)

    def image(self, K: SubgroupClass, a: Rep) -> tuple[int, int, Rep]:
        """(K̄_0 id, c, P over K̄_0): P = sum a_s s~ (SPEC §4.3)."""
        support = tuple(i for i, k in enumerate(a.mults) if k)
        kb_id, c, kb_elems = self.kbar(K, support)
        G = self.G
        kb0 = G.subgroup_classes[kb_id]
        if not support:
            return kb_id, c, Rep(kb0, (0,) * len(irreps_of(kb0)))
        tilde = self.extended_irreps(K, support)
        mults = sum(a.mults[s] * np.array(tilde[s]) for s in support)
        return kb_id, c, Rep(kb0, tuple(int(x) for x in mults))

    def extended_irreps(self, K: SubgroupClass, support: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
        """For each K-irrep s in the support, the K̄-irrep s~ extending it, as multiplicities over
        K̄_0's irreps (SPEC §4.3): the character of the isotypic part V_s on K̄, divided by
        m_s(V|K), moved to K̄_0 by c. The image of a profile a is P = Σ_s a_s s~ (`image`); the
        hosting-set search reads these rows directly.

        >>> from eqattn.attention import Problem
        >>> p = Problem.create("D4", "A1 + B1", 2, 2); K = p.group.subgroup_classes[3]  # C2.3: V|K = A + B
        >>> t = option_table(p); t.kbar(K, (0, 1))[:2], t.extended_irreps(K, (0, 1))  # K̄ = D4: A -> A1, B -> B1
        ((7, 0), {0: (1, 0, 0, 0, 0), 1: (0, 0, 1, 0, 0)})
        """
        return stabilisers(self.problem).extended(K, support)

    def demand(self, K: SubgroupClass, b: Rep, kb_id: int, c: int) -> Rep:
        """D = min(Ind_K^K̄ b, V|K̄), moved to K̄_0 (SPEC §4.3). Induction is linear in b:
        the induced irreps of K are computed once per (K, K̄_0, c)."""
        kb0 = self.G.subgroup_classes[kb_id]
        ind = self.induced_irreps(K, kb_id, c)
        raw = np.asarray(b.mults) @ ind
        return Rep(kb0, tuple(int(x) for x in raw)).min(self.problem.restrict(kb0))

    def induced_irreps(self, K: SubgroupClass, kb_id: int, c: int) -> np.ndarray:
        """Row s: Ind_{c^-1 K c}^{K̄_0} (s^c) over K̄_0's irreps (K̄ = c K̄_0 c^-1), for every irrep
        s of K (SPEC §4.3). Induction is linear, so the demand of a profile b is
        min(b @ rows, V|K̄_0) (`demand`); the defeated-supply search builds its demand spaces
        from these rows.

        >>> from eqattn.attention import Problem
        >>> p = Problem.create("D4", "A1 + B1", 2, 2); K = p.group.subgroup_classes[3]  # C2.3
        >>> option_table(p).induced_irreps(K, 7, 0).tolist()  # Ind A = A1 + B2 + E1, Ind B = A2 + B1 + E1
        [[1, 0, 0, 1, 1], [0, 1, 1, 0, 1]]
        """
        key = (K.id, kb_id, c)
        if key not in self._induced:
            G = self.G
            kb0 = G.subgroup_classes[kb_id]
            Kc = np.sort(G.conj_table[G.inv[c], K.elements])
            irr = irreps_of(K)
            rows = []
            for s in range(len(irr)):
                chi = conjugate_character(G, irr.chars[s], c)
                rows.append(decompose(kb0, induce_character(G, chi, Kc, kb0.elements), field="internal").mults)
            self._induced[key] = np.array(rows, dtype=np.int64)
        return self._induced[key]

    # ----- options -----------------------------------------------------------------------
    def _parts(self, orbit: tuple[int, int]) -> tuple[list, dict]:
        """Per maximal a: (a, K̄_0 id, c, P); per (K̄_0, c) in use: [(b, D)] over maximal b.
        Options are all pairs; a and b vary independently (SPEC §4.3)."""
        key = ("parts", orbit)
        if key not in self._all:
            cid, n = orbit
            K = self.G.subgroup_classes[cid]
            VK = self.problem.restrict(K)
            d = self.problem.head_dim
            for cap in (d, n * d):
                many = profile_count(VK, cap)
                if many > MAX_PROFILES:
                    raise LimitError(
                        "head_dim", f"the orbit ({K.name}, {n}) has {many} maximal profiles of dimension <= {cap}; "
                        f"at most {MAX_PROFILES} are listed"
                    )
            a_data = [(a,) + self.image(K, a) for a in maximal_profiles(VK, d)]  # (a = 0: K̄ = G, P = 0)
            bs = maximal_profiles(VK, n * d)
            d_data = {}
            for _, kb, c, _ in a_data:
                if (kb, c) not in d_data:
                    d_data[(kb, c)] = [(b, self.demand(K, b, kb, c)) for b in bs]
            self._all[key] = (a_data, d_data)  # type: ignore[assignment]
        return self._all[key]  # type: ignore[return-value]

    def all_options(self, orbit: tuple[int, int]) -> tuple[Option, ...]:
        """Every option (all maximal a, b), before pruning."""
        if orbit not in self._all:
            a_data, d_data = self._parts(orbit)
            self._all[orbit] = tuple(
                Option(orbit, a, b, kb, c, P, D) for a, kb, c, P in a_data for b, D in d_data[(kb, c)]
            )
        return self._all[orbit]

    def pareto_groups(self, orbit: tuple[int, int]) -> list[tuple[bool, int, list, dict]]:
        """Per (zero, K̄_0): the maximal images [(a, c, P)] and, per conjugator c, the maximal
        demands [(b, D)]. For one K̄ the option values form the product {P} x {D}, so its
        undominated options are exactly these P's times these D's (SPEC §4.3)."""
        key = ("groups", orbit)
        if key not in self._all:
            a_data, d_data = self._parts(orbit)
            groups: dict[tuple[bool, int], tuple[dict, dict]] = {}
            for a, kb, c, P in a_data:
                ps, ds = groups.setdefault((a.is_zero(), kb), ({}, {}))
                ps.setdefault(P.mults, (a, c, P))
                if c not in ds:
                    dvals: dict = {}
                    for b, D in d_data[(kb, c)]:
                        dvals.setdefault(D.mults, (b, D))
                    ds[c] = [dvals[m] for m in _pareto(list(dvals))]
            out = []
            for (zero, kb), (ps, ds) in groups.items():
                out.append((zero, kb, [ps[m] for m in _pareto(list(ps))], ds))
            self._all[key] = out  # type: ignore[assignment]
        return self._all[key]  # type: ignore[return-value]

    def option_count(self, orbit: tuple[int, int]) -> int:
        """Number of undominated options, without building them."""
        return sum(len(ds[c]) for _, _, pes, ds in self.pareto_groups(orbit) for _, c, _ in pes)

    def options(self, orbit: tuple[int, int]) -> tuple[Option, ...]:
        """Options after dropping duplicates and dominated ones (SPEC §4.3): (K̄, P, D)
        dominates (K̄, P', D') when P >= P' and D >= D'."""
        if orbit not in self._options:
            groups = self.pareto_groups(orbit)
            total = self.option_count(orbit)
            if total > MAX_OPTIONS:
                raise LimitError(
                    "head_dim", f"an orbit has {total} undominated options; at most {MAX_OPTIONS} are handled"
                )
            self._options[orbit] = tuple(
                Option(orbit, a, b, kb, c, P, D)
                for _, kb, pes, ds in groups
                for a, c, P in pes
                for b, D in ds[c]
            )
        return self._options[orbit]

    def degenerate(self, orbit: tuple[int, int]) -> bool:
        """K̄ != K for some option (SPEC §4.3; the zero pool has K̄ = G). K̄ depends on the
        support of a only, so only the supports of maximal profiles are visited
        (supports.maximal_supports; theory-scale.md §1), never the profiles themselves."""
        cid, _ = orbit
        K = self.G.subgroup_classes[cid]
        if cid not in self._degenerate:
            self._degenerate[cid] = any(
                self.G.subgroup_classes[self.kbar(K, S)[0]].order != K.order for S in supports_of(self.problem, cid)
            )
        return self._degenerate[cid]


def _pareto(vals: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The maximal vectors (componentwise; of equal ones the first), in input order."""
    if len(vals) <= 1:
        return list(vals)
    V = np.array(vals)
    ge = (V[:, None, :] >= V[None, :, :]).all(axis=2)  # ge[j, i]: V[j] >= V[i]
    eq = ge & ge.T
    idx = np.arange(len(vals))
    strictly = ge & ~eq
    earlier_equal = eq & (idx[:, None] < idx[None, :])
    dominated = (strictly | earlier_equal).any(axis=0)
    return [v for v, d in zip(vals, dominated) if not d]


def option_table(problem: Problem) -> OptionTable:
    return problem.cached("options", lambda: OptionTable(problem))
