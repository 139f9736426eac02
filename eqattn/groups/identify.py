"""Identify a subgroup with a standard group through an explicit isomorphism (SPEC §5.1).

Priority (the first that fits names the type): C_n, D_n (n >= 3), Q8, A4, S4, A5,
S_n (n >= 5), A_n (n >= 6), abelian groups C_m1 x C_m2 x ... (invariant factors
m1 | m2 | ..., so C2xC2, C2xC6), direct products N1 x N2 of normal subgroups (the
factor of largest order first, non-abelian preferred), and otherwise a fallback
`G<order><letter>` numbered per isomorphism class in order of discovery within the group.

The isomorphism std -> K is found by backtracking over images of std's generators, with
candidates filtered by element order and centraliser size, then checked on all of std.
The catalog group itself keeps its own labels (identity isomorphism).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:  # type names only: the lattice (subgroups.py) hands in the standard groups
    from .finite_group import FiniteGroup
    from .standard import StandardGroups

CATALOG_FAMILIES = {"cyclic", "dihedral", "Q8", "symmetric", "alternating", "product", "point"}
_NODE_BUDGET = 200000


def _histogram(orders: np.ndarray) -> tuple[tuple[int, int], ...]:
    u, c = np.unique(orders, return_counts=True)
    return tuple(zip(u.tolist(), c.tolist()))


def _invariants(G: "FiniteGroup", elems: np.ndarray) -> tuple:
    sub = G.table[elems][:, elems]
    abelian = bool((sub == sub.T).all())
    return (elems.size, abelian, _histogram(G.element_orders[elems]))


def _std_invariants(S: FiniteGroup) -> tuple:
    return S.memo.get("invariants", lambda: _invariants(S, np.arange(S.order)))


def _centraliser_sizes(G: "FiniteGroup", elems: np.ndarray) -> np.ndarray:
    sub = G.table[elems][:, elems]
    return (sub == sub.T).sum(axis=1)


def find_isomorphism(
    S: "FiniteGroup",
    G: "FiniteGroup",
    elems: np.ndarray,
    allowed: Callable[[int, np.ndarray], np.ndarray] | None = None,
    accept: Callable[[np.ndarray], bool] | None = None,
) -> np.ndarray | None:
    """phi with phi[s] in elems, an isomorphism S -> <elems>, or None.

    Optional filters (used to match a representation's character): ``allowed(s, cands)`` keeps
    the admissible images of generator ``s`` among ``cands``; ``accept(phi)`` rejects a finished
    isomorphism and the search goes on."""
    m = S.order
    if m != elems.size:
        return None
    if m == 1:
        return np.array([0])
    gens = list(S.generators)
    s_ord = S.element_orders
    s_cent = _centraliser_sizes(S, np.arange(m))
    k_ord = G.element_orders[elems]
    k_cent = _centraliser_sizes(G, elems)
    cands = [elems[(k_ord == s_ord[s]) & (k_cent == s_cent[s])] for s in gens]
    if allowed is not None:
        cands = [allowed(s, c) for s, c in zip(gens, cands)]
    partial = [S.generate(gens[: i + 1]).size for i in range(len(gens))]
    # orders of products of generator pairs, as quick filters
    pair_ord = {
        (i, j): (int(s_ord[S.table[gens[i], gens[j]]]), int(s_ord[S.table[gens[i], S.inv[gens[j]]]]))
        for i in range(len(gens))
        for j in range(i)
    }
    budget = [_NODE_BUDGET]

    def extend(imgs: list[int]) -> np.ndarray | None:
        phi = np.empty(m, dtype=np.int64)
        phi[0] = 0
        par, via = S.parent, S.via
        t = G.table
        for x in range(1, m):
            phi[x] = t[phi[par[x]], imgs[via[x]]]
        for i, s in enumerate(gens):
            if not np.array_equal(phi[S.table[:, s]], t[phi, imgs[i]]):
                return None
        if np.unique(phi).size != m:
            return None
        if accept is not None and not accept(phi):
            return None
        return phi

    def bt(i: int, imgs: list[int]) -> np.ndarray | None:
        if i == len(gens):
            return extend(imgs)
        for c in cands[i]:
            budget[0] -= 1
            if budget[0] < 0:
                return None
            c = int(c)
            ok = True
            for j in range(i):
                o1, o2 = pair_ord[(i, j)]
                if G.element_orders[G.table[c, imgs[j]]] != o1 or G.element_orders[G.table[c, G.inv[imgs[j]]]] != o2:
                    ok = False
                    break
            if not ok:
                continue
            if i > 0 and G.generate(imgs + [c]).size != partial[i]:
                continue
            r = bt(i + 1, imgs + [c])
            if r is not None:
                return r
        return None

    return bt(0, [])


def _abelian_invariants(G: "FiniteGroup", elems: np.ndarray) -> tuple[int, ...]:
    """Invariant factors m1 | m2 | ... of an abelian group from its element orders."""
    orders = G.element_orders[elems]
    n = elems.size
    primes = [p for p in range(2, n + 1) if n % p == 0 and all(p % q for q in range(2, int(p**0.5) + 1))]
    exps_by_p: dict[int, list[int]] = {}
    for p in primes:
        # |G[p^i]| = p^{sum_j min(i, e_j)}
        logs = []
        i = 0
        while True:
            i += 1
            cnt = int(np.sum([(p**i) % int(o) == 0 for o in orders]))
            lg = round(math.log(cnt, p))
            logs.append(lg)
            if i > 1 and logs[-1] == logs[-2]:
                break
        # number of e_j >= i is logs[i-1] - logs[i-2]
        ge = [logs[0]] + [logs[k] - logs[k - 1] for k in range(1, len(logs))]
        exps = []
        for i_, cnt_ge in enumerate(ge, start=1):
            nxt = ge[i_] if i_ < len(ge) else 0
            exps += [i_] * (cnt_ge - nxt)
        exps_by_p[p] = sorted(exps, reverse=True)
    k = max((len(v) for v in exps_by_p.values()), default=0)
    inv = []
    for j in range(k):
        m = 1
        for p, e in exps_by_p.items():
            if j < len(e):
                m *= p ** e[j]
        inv.append(m)
    return tuple(sorted(inv))


def _candidates(inv: tuple, st: "StandardGroups") -> list["FiniteGroup"]:
    m, abelian, _ = inv
    out: list[FiniteGroup] = [st.cyclic(m)]
    if abelian:
        return out
    if m % 2 == 0 and m // 2 >= 3:
        out.append(st.dihedral(m // 2))
    if m == 8:
        out.append(st.quaternion())
    if m == 12:
        out.append(st.alternating(4))
    if m == 24:
        out.append(st.symmetric(4))
    if m == 60:
        out.append(st.alternating(5))
    if m == 120:
        out.append(st.symmetric(5))
    if m == 360:
        out.append(st.alternating(6))
    return out


class Identifier:
    """Identifies subgroups of one group G; remembers fallback types to number them."""

    def __init__(self, G: "FiniteGroup", all_subgroups: list[np.ndarray], standard: "StandardGroups") -> None:
        self.G = G
        self.standard = standard
        self.all_subgroups = all_subgroups
        self.fallbacks: list["FiniteGroup"] = []
        self.memo: dict[bytes, tuple[str, FiniteGroup, np.ndarray]] = {}

    def identify(self, elems: np.ndarray) -> tuple[str, "FiniteGroup", np.ndarray]:
        key = elems.tobytes()
        if key not in self.memo:
            self.memo[key] = self._identify(elems)
        return self.memo[key]

    def _identify(self, elems: np.ndarray) -> tuple[str, "FiniteGroup", np.ndarray]:
        G = self.G
        inv = _invariants(G, elems)
        for S in _candidates(inv, self.standard):
            if _std_invariants(S) != inv:
                continue
            phi = find_isomorphism(S, G, elems)
            if phi is not None:
                return S.name, S, phi
        if inv[1]:
            S = self.standard.abelian(_abelian_invariants(G, elems))
            phi = find_isomorphism(S, G, elems)
            if phi is not None:
                return S.name, S, phi
        prod = self._direct_product(elems)
        if prod is not None:
            return prod
        return self._fallback(elems, inv)

    def _direct_product(self, elems: np.ndarray) -> tuple[str, "FiniteGroup", np.ndarray] | None:
        G = self.G
        n = elems.size
        mask = np.zeros(G.order, dtype=bool)
        mask[elems] = True
        normal = []
        for N in self.all_subgroups:
            if 1 < N.size < n and n % N.size == 0 and mask[N].all():
                conj = G.conj_table[np.ix_(elems, N)]
                nm = np.zeros(G.order, dtype=bool)
                nm[N] = True
                if nm[conj].all():
                    normal.append(N)
        best = None
        for N1 in normal:
            for N2 in normal:
                if N1.size * N2.size != n or N1.size < N2.size:
                    continue
                if np.intersect1d(N1, N2).size != 1:
                    continue
                sub = G.table[N1][:, N1]
                key = (not bool((sub == sub.T).all()), N1.size, -N2.size)
                if best is None or key > best[0]:
                    best = (key, N1, N2)
        if best is None:
            return None
        _, N1, N2 = best
        n1, S1, phi1 = self.identify(N1)
        n2, S2, phi2 = self.identify(N2)
        S = self.standard.direct_product((S1, S2))
        comps = S.components
        phi = G.table[phi1[comps[:, 0]], phi2[comps[:, 1]]]
        return S.name, S, phi

    def _fallback(self, elems: np.ndarray, inv: tuple) -> tuple[str, "FiniteGroup", np.ndarray]:
        G = self.G
        for S in self.fallbacks:
            if _std_invariants(S) == inv:
                phi = find_isomorphism(S, G, elems)
                if phi is not None:
                    return S.name, S, phi
        m = elems.size
        same = sum(1 for S in self.fallbacks if S.order == m)
        name = f"G{m}{chr(ord('a') + same)}"
        local = -np.ones(G.order, dtype=np.int64)
        local[elems] = np.arange(m)
        t_local = local[G.table[np.ix_(elems, elems)]]
        gens = [int(local[g]) for g in G.small_generators(elems)]
        S = self.standard.group_class.from_table(name, t_local, gens, family="fallback")
        self.fallbacks.append(S)
        phi = elems[S.relabel]
        return name, S, phi


def identify_classes(
    G: "FiniteGroup", reps: list[np.ndarray], standard: "StandardGroups", all_subgroups: list[np.ndarray] | None = None
) -> list[tuple[str, "FiniteGroup", np.ndarray]]:
    """(type name, standard group of `standard`, isomorphism) for each class representative."""
    ident = Identifier(G, all_subgroups if all_subgroups is not None else reps, standard)
    out = []
    for r in reps:
        if r.size == G.order and G.family in CATALOG_FAMILIES:
            out.append((G.name, G, np.arange(G.order)))
        else:
            out.append(ident.identify(r))
    return out
