"""Defeated supply (docs/theory-scale.md C5): the demands of a hosting set are searched by
the sets E of multisets of design orbit types they defeat (E down-closed), one multiset at a
time, each step a choice of an irrep per maximal supply sum, tested exactly by
`DemandSpace.witness`; the demand spaces are shared by the checkers of one problem. A part of
`SymbolicChecker` (symbolic.py).
"""

from __future__ import annotations

import numpy as np

from ..errors import LimitError
from ..memo import Memo
from .demands import Block, DemandSpace

MAX_SEARCH_NODES = 200_000  # bounds L visited by one defeated-set search
SPACES_PER_PROBLEM = 512  # demand spaces kept per problem (shared by the checkers of its designs)


def least_raises(space: DemandSpace, sums: np.ndarray, L: tuple) -> list[tuple]:
    """The minimal L' ≥ L that some demand reaches (`space.reachable`) and that defeat every
    supply sum s in `sums` (some τ with L'_τ ≥ s_τ + 1): one coordinate raised per sum."""
    r = len(L)
    cur = [L]
    for s in sums:
        nxt = []
        for Lc in cur:
            if any(Lc[t] > s[t] for t in range(r)):
                nxt.append(Lc)
                continue
            for t in range(r):
                if s[t] + 1 > space.Vbar[t] or s[t] + 1 > space.max_coord(t):
                    continue
                L2 = tuple(max(Lc[u], int(s[u]) + 1) if u == t else Lc[u] for u in range(r))
                if space.reachable(L2):
                    nxt.append(L2)
        cur = _minimal_vectors(nxt)
        if not cur:
            break
    return cur


def _minimal_vectors(vs: list[tuple]) -> list[tuple]:
    out: list[tuple] = []
    for v in sorted(set(vs), key=sum):
        if any(all(x <= y for x, y in zip(w, v)) for w in out):
            continue
        out.append(v)
    return out


class DefeatedSupply:
    """The demand-search methods of `SymbolicChecker`."""

    def _space(self, blocks_key: tuple, kb: int, c: int) -> DemandSpace:
        """The demand space of orbits (K, n) (one block each) towards (K̄_0, c): it depends on
        the problem only, so it is shared by the checkers of every design (a bounded memo
        per problem: `reachable`'s grid and `witness`'s answers are computed once)."""
        key = (blocks_key, kb, c)
        if key not in self._spaces:
            shared = self.problem.cached("demand_spaces", lambda: Memo(SPACES_PER_PROBLEM))
            self._spaces[key] = shared.get(key, lambda: self._new_space(blocks_key, kb, c))
        return self._spaces[key]

    def _new_space(self, blocks_key: tuple, kb: int, c: int) -> DemandSpace:
        G = self.problem.group
        blocks = []
        for cid, n in blocks_key:
            K = G.subgroup_classes[cid]
            VK = self.problem.restrict(K)
            I = self.table.induced_irreps(K, kb, c)
            blocks.append(Block(VK.mults, tuple(int(x) for x in VK.irreps.dims), n * self.problem.head_dim, I))
        Vbar = self.problem.restrict(G.subgroup_classes[kb]).mults
        return DemandSpace(blocks, Vbar)

    def _defeated_sets(self, space: DemandSpace, sums: list[np.ndarray]) -> list[list[np.ndarray]]:
        """Profiles (per block) whose demand defeats a maximal down-closed set E of multisets
        (y ∈ E iff no supply sum s of y has s ≥ D), one per maximal E reached
        (theory-scale.md §C5; memoised per demand space and hosting pattern)."""
        key = (id(space), id(sums))
        hit = self._defeat_memo.get(key)
        if hit is None:
            hit = (space, sums, self._defeated_sets_uncached(space, sums))
            self._defeat_memo[key] = hit
        return hit[2]

    def _lattice(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """(pred, levels) of the design's multisets, computed once per checker: pred[i, t] is
        y_i minus one orbit of type t (n, a sentinel always in E, when y_t = 0); levels the
        indices of each size (the predecessors of a level are in the ones before)."""
        if self._lattice_memo is None:
            ms = self.ms
            n = len(ms)
            nt = len(ms[0]) if n else 0
            pred = np.full((n, max(nt, 1)), n, dtype=np.int64)
            for i, y in enumerate(ms):
                for t, k in enumerate(y):
                    if k:
                        pred[i, t] = self.index[tuple(v - (u == t) for u, v in enumerate(y))]
            sizes = np.array([sum(y) for y in ms], dtype=np.int64)
            levels = [np.nonzero(sizes == k)[0] for k in range(int(sizes.max()) + 1)] if n else []
            self._lattice_memo = (pred, levels)
        return self._lattice_memo

    def _defeated_sets_uncached(self, space: DemandSpace, sums: list[np.ndarray]) -> list[list[np.ndarray]]:
        """A search over lower bounds L of the demand (theory-scale.md §C5): E(L) = the
        multisets y every supply sum of which some coordinate of L exceeds (down-closed,
        growing with L). From L, each *minimal* multiset outside E(L) is defeated by the
        least raises of L (one coordinate per supply sum, `least_raises`), kept when some demand
        reaches them (`DemandSpace.witness`); each L is visited once. Every maximal E(D) over
        the demands is reached: walking from L ≤ D toward D, a minimal multiset outside
        E(L) lies in E(D) while E(L) ≠ E(D), and one of its least raises stays ≤ D."""
        ms = self.ms
        n = len(ms)
        r = len(space.Vbar)
        pred, levels = self._lattice()
        owners = np.array([i for i in range(n) for _ in range(sums[i].shape[0])], dtype=np.int64)
        flat = np.concatenate([sums[i].reshape(-1, r) for i in range(n)]) if owners.size else np.zeros((0, r), dtype=np.int64)
        rows = [[tuple(int(x) for x in row) for row in sums[i]] for i in range(n)]
        lim = [min(int(space.Vbar[t]), space.max_coord(t)) for t in range(r)]  # the largest D_τ

        def defeated(L: tuple) -> np.ndarray:
            """E(L) (bool per multiset, and the sentinel): y is in E(L) iff L exceeds every
            supply sum of every z ≤ y somewhere (a multiset above a met one is met)."""
            ok = np.ones(n + 1, dtype=bool)
            if owners.size:
                ok[owners[~(np.asarray(L)[None, :] > flat).any(axis=1)]] = False
            E = np.ones(n + 1, dtype=bool)
            for idx in levels:  # by size: the predecessors are decided first
                E[idx] = ok[idx] & E[pred[idx]].all(axis=1)
            return E

        start = (0,) * r
        seen = {start}
        stack = [start]
        results: dict[int, tuple] = {}  # E -> a bound L reaching it
        while stack:
            if len(seen) > MAX_SEARCH_NODES:
                raise LimitError("orbits", f"the demand search exceeded {MAX_SEARCH_NODES} steps")
            L = stack.pop()
            Eb = defeated(L)
            E = int.from_bytes(np.packbits(Eb[:n], bitorder="little").tobytes(), "little")
            if E not in results or (sum(L), L) > (sum(results[E]), results[E]):
                results[E] = L  # the largest bound reaching E: the hardest demand among those defeating E
            # the minimal multisets outside E(L); of those with one supply sum only the least
            # sums matter (a demand defeating a sum defeats every sum below it)
            single: list[tuple] = []
            raised: list[tuple] = []
            for i in np.nonzero(~Eb[:n] & Eb[pred].all(axis=1))[0].tolist():
                if len(rows[i]) == 1:
                    single.append(rows[i][0])
                else:
                    raised.extend(least_raises(space, sums[i], L))
            for sv in _minimal_vectors(single):  # L ≤ sv (sv is not defeated): raise one coordinate past it
                for t in range(r):
                    if sv[t] + 1 <= lim[t]:
                        L2 = L[:t] + (sv[t] + 1,) + L[t + 1:]
                        if L2 not in seen and space.reachable(L2):
                            raised.append(L2)
            for L2 in raised:
                if L2 not in seen:
                    seen.add(L2)
                    stack.append(L2)
        # keep the maximal E's
        keep: list[tuple[int, tuple]] = []
        for E, L in sorted(results.items(), key=lambda t: -bin(t[0]).count("1")):
            if any(E & ~F == 0 for F, _ in keep):
                continue
            keep.append((E, L))
        out = []
        for _, L in keep:
            w = space.witness(L)
            assert w is not None
            out.append(w)
        return out
