"""The set of demands an orbit (or the zero pool) can make, described by integer points
instead of a list (docs/theory-scale.md §3).

For an orbit (K, n) and a stabiliser K̄_0 (with conjugator c), the demands are
`D(b) = min(b·I, V̄)` over the profiles `b ≤ V|K`, `dim b ≤ n·d` (SPEC §4.3), where the
integer matrix `I` (rows: irreps of K, columns: irreps of K̄_0) is induction and
`V̄ = V|K̄_0`. Non-maximal `b` are allowed here: every `b` extends to a maximal one with a
larger demand. The zero pool sums several such blocks (one per orbit with `a = 0`), each
with its own box and dimension cap, and takes `min(Σ_j b_j·I_j, V)`.

`DemandSpace.witness(L)` decides exactly whether some demand satisfies `D ≥ L` and returns
the profiles, by dynamic programming over the threshold grid `Π_τ [0, L_τ]` (partial sums
clipped at L; the cost is the dimension used). Example: for `I = [[1]]`, `V̄ = (5,)`,
box `m = (5,)`, dims `(1,)`, cap 3: `witness((3,))` is `[(3,)]`, `witness((4,))` is None.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LimitError

MAX_GRID = 200_000  # threshold grid states of one exact feasibility test
BIG = np.int64(1) << 40


@dataclass(frozen=True)
class Block:
    """Profiles 0 ≤ b ≤ box with Σ b_σ dims_σ ≤ cap, contributing b·I."""

    box: tuple[int, ...]
    dims: tuple[int, ...]
    cap: int
    I: np.ndarray  # (len(box), r) non-negative integers


def _pieces(m: int) -> list[int]:
    """Binary splitting: any 0..m is a sub-sum of these pieces."""
    out, k = [], 1
    while m > 0:
        t = min(k, m)
        out.append(t)
        m -= t
        k *= 2
    return out


class DemandSpace:
    """min(Σ_j b_j I_j, V̄) over the blocks' profiles (theory-scale.md §3)."""

    def __init__(self, blocks: list[Block], Vbar: tuple[int, ...]) -> None:
        self.blocks = blocks
        self.Vbar = np.array(Vbar, dtype=np.int64)
        self._memo: dict[tuple[int, ...], list[np.ndarray] | None] = {}
        self._max: dict[int, int] = {}
        self._table: tuple[list[int], list[int], np.ndarray] | None | bool = None  # (top, coordinates with top > 0, grid); False: none

    def reachable(self, L: tuple[int, ...]) -> bool:
        """Whether some demand D ≥ L exists (`witness(L) is not None`). One block: read from
        one DP over the whole grid `Π_τ [0, top_τ]` (`top_τ = min(V̄_τ, max D_τ)`, at most
        MAX_GRID states): the least dimension reaching each clipped state, its minimum over
        the states ≥ L (suffix minima), compared with the cap. Otherwise `witness`."""
        if self._table is None:
            self._table = self._reach_grid()
        if self._table is False:
            return self.witness(L) is not None
        top, T, grid = self._table  # type: ignore[misc]
        for x, t in zip(L, top):
            if x > t:
                return False
        return bool(grid[tuple(L[i] for i in T)])

    def _reach_grid(self) -> tuple[list[int], list[int], np.ndarray] | bool:
        if len(self.blocks) != 1:
            return False
        bl = self.blocks[0]
        top = np.array([min(int(self.Vbar[t]), self.max_coord(t)) for t in range(len(self.Vbar))], dtype=np.int64)
        T = np.nonzero(top > 0)[0]
        shape = tuple(int(top[t]) + 1 for t in T)
        N = int(np.prod(shape)) if shape else 1
        if N > MAX_GRID:
            return False
        if not shape:
            return top.tolist(), [], np.ones((), dtype=bool)
        coords = np.stack(np.unravel_index(np.arange(N), shape), axis=1).astype(np.int64)
        best = self._block_dp(bl, T, coords, shape, top[T])[0][-1].reshape(shape)
        for ax in range(len(shape)):  # least dimension over the states ≥ each state
            best = np.flip(np.minimum.accumulate(np.flip(best, ax), axis=ax), ax)
        return top.tolist(), T.tolist(), best <= bl.cap

    def max_coord(self, tau: int) -> int:
        """max over the space of D_τ (exact bounded knapsack per block, summed, clipped)."""
        if tau not in self._max:
            total = 0
            for bl in self.blocks:
                cap = min(bl.cap, int(np.dot(bl.box, bl.dims)))
                best = np.zeros(cap + 1, dtype=np.int64)  # best[c]: max value with dim <= c
                for s, (m, dl) in enumerate(zip(bl.box, bl.dims)):
                    v = int(bl.I[s, tau])
                    if v == 0 or m == 0:
                        continue
                    for k in _pieces(m):
                        cost = k * dl
                        if cost > cap:
                            break
                        cand = best[: cap + 1 - cost] + k * v
                        best[cost:] = np.maximum(best[cost:], cand)
                total += int(best[-1])
            self._max[tau] = min(total, int(self.Vbar[tau]))
        return self._max[tau]

    def witness(self, L: tuple[int, ...]) -> list[np.ndarray] | None:
        """Profiles b_j (one per block) with min(Σ b_j I_j, V̄) ≥ L, or None if none exist."""
        L = tuple(int(x) for x in L)
        if L not in self._memo:
            self._memo[L] = self._witness(np.array(L, dtype=np.int64))
        return self._memo[L]

    def _witness(self, L: np.ndarray) -> list[np.ndarray] | None:
        if (L > self.Vbar).any():
            return None
        T = np.nonzero(L > 0)[0]
        if T.size == 0:
            return [np.zeros(len(bl.box), dtype=np.int64) for bl in self.blocks]
        for t in T:  # quick necessary test
            if self.max_coord(int(t)) < L[t]:
                return None
        if len(self.blocks) == 1:
            return self._single_block(self.blocks[0], L, T)
        shape = tuple(int(L[t]) + 1 for t in T)
        N = int(np.prod(shape))
        if N > MAX_GRID:
            raise LimitError("head_dim", f"a demand threshold test has {N} states; at most {MAX_GRID}")
        coords = np.stack(np.unravel_index(np.arange(N), shape), axis=1).astype(np.int64)
        top = L[T]
        per_block = [self._block_dp(bl, T, coords, shape, top) for bl in self.blocks]
        # combine blocks: reachable clipped sums; back-pointers (state of previous blocks, own state)
        reach = {0: None}
        trail: list[dict[int, tuple[int, int]]] = []
        for j, (best, _) in enumerate(per_block):
            feas = np.nonzero(best[-1] <= self.blocks[j].cap)[0]
            nxt: dict[int, tuple[int, int]] = {}
            if len(reach) * feas.size > 20_000_000:
                raise LimitError("heads", "the zero pool's demand space is too large to search exactly")
            fc = coords[feas]
            for u in reach:
                w = np.minimum(coords[u] + fc, top)
                idx = np.ravel_multi_index(tuple(w.T), shape)
                for k, s in zip(idx.tolist(), feas.tolist()):
                    if k not in nxt:
                        nxt[k] = (u, s)
            trail.append(nxt)
            reach = nxt  # type: ignore[assignment]
        goal = N - 1
        if goal not in reach:
            return None
        out: list[np.ndarray] = [np.zeros(0)] * len(self.blocks)
        state = goal
        for j in range(len(self.blocks) - 1, -1, -1):
            u, s = trail[j][state]
            out[j] = self._backtrack(self.blocks[j], per_block[j], s)
            state = u
        return out

    def _single_block(self, bl: Block, L: np.ndarray, T: np.ndarray) -> list[np.ndarray] | None:
        """One block: the thresholds split into components (τ's linked by an irrep σ with
        I[σ, τ] > 0 for both); the least dimension is the sum of the components' least
        dimensions, each an independent DP (the dimension cap is the only coupling)."""
        parent = {int(t): int(t) for t in T}

        def find(x: int) -> int:
            while parent[x] != x:
                x = parent[x]
            return x

        for srow in bl.I[:, T]:
            hit = [int(t) for t, v in zip(T, srow) if v]
            for t in hit[1:]:
                parent[find(t)] = find(hit[0])
        comps: dict[int, list[int]] = {}
        for t in T:
            comps.setdefault(find(int(t)), []).append(int(t))
        b = np.zeros(len(bl.box), dtype=np.int64)
        used = 0
        for Tc in comps.values():
            Tc_a = np.array(Tc, dtype=np.int64)
            shape = tuple(int(L[t]) + 1 for t in Tc)
            N = int(np.prod(shape))
            if N > MAX_GRID:
                raise LimitError("head_dim", f"a demand threshold test has {N} states; at most {MAX_GRID}")
            coords = np.stack(np.unravel_index(np.arange(N), shape), axis=1).astype(np.int64)
            dp = self._block_dp(bl, Tc_a, coords, shape, L[Tc_a])
            cost = int(dp[0][-1][N - 1])
            used += cost
            if used > bl.cap:
                return None
            b += self._backtrack(bl, dp, N - 1)
        return [b]

    def _block_dp(self, bl: Block, T: np.ndarray, coords: np.ndarray, shape: tuple, top: np.ndarray) -> tuple:
        """Min dimension reaching each clipped state exactly; arrays per item for backtracking."""
        N = coords.shape[0]
        best = np.full(N, BIG, dtype=np.int64)
        best[0] = 0
        history = [best]
        items = []
        for s, (m, dl) in enumerate(zip(bl.box, bl.dims)):
            w = bl.I[s, T].astype(np.int64)
            if not w.any() or m == 0:
                continue
            for k in _pieces(m):
                tgt = np.ravel_multi_index(tuple(np.minimum(coords + k * w, top).T), shape)
                new = best.copy()
                np.minimum.at(new, tgt, best + k * dl)
                items.append((s, k, k * dl, tgt))
                best = new
                history.append(best)
        return history, items

    @staticmethod
    def _backtrack(bl: Block, dp: tuple, state: int) -> np.ndarray:
        history, items = dp
        b = np.zeros(len(bl.box), dtype=np.int64)
        for i in range(len(items) - 1, -1, -1):
            cur, prev = history[i + 1], history[i]
            if cur[state] == prev[state]:
                continue
            s, k, cost, tgt = items[i]
            src = np.nonzero((tgt == state) & (prev + cost == cur[state]))[0]
            state = int(src[0])
            b[s] += k
        assert state == 0
        return b
