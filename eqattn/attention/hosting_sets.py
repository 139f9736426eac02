"""Hosting sets of an orbit for a fixed design (docs/theory-scale.md C1-C4): which sets of
design orbit types, through which double cosets, can host an option of an orbit (K, n),
from the supports of maximal profiles and, per support, the maximal profiles listed over the
coordinates that can break a hosting condition (the others only use up dimension: a
subset-sum). A part of `SymbolicChecker` (symbolic.py), which holds the state it reads.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from itertools import product

import numpy as np

from ..errors import LimitError
from ..reps import Rep
from .problem import Problem
from .supports import slacks_for_support, supports_of

MAX_PROFILE_ROWS = 400_000  # profiles listed over the hosting-relevant irreps of one support
MAX_PROFILE_EXPAND = 1_000_000  # rows formed at once before the dimension filter (memory; a block at a time)
MERGE_PROFILE_ROWS = True  # rows equal in dimension used and clipped sums are merged while listed (Lemma 6, merging)
FLOOR_PROFILE_ROWS = True  # ... the sums clipped below too, where what is still to come cannot break the pair (Lemma 6, floors)
INTEGER_STATE_KEYS = True  # ... a state compared as one integer, not as a row (speed only: the same merges)
MEMO_ENTRIES = 2048  # hosting classes a `HostingMemo` keeps (the least recently used go first)


class DeadlinePassed(Exception):
    """The checker's stop test (`SymbolicChecker(stop=...)`) said so inside a computation
    that makes no verdict until it ends (the hosting sets of an orbit over every support);
    nothing partial was kept. The caller answers as at its own deadline."""


def minimal_patterns(items: list, key) -> list:  # noqa: ANN001
    """Items whose pattern `key(item)` (a bool vector) is minimal under inclusion; the first of
    equal ones. Hosting sets and met-demand patterns keep only their minimal members: a smaller
    set is the harder one (SPEC §4.4).

    >>> minimal_patterns([(1, 1, 0), (1, 0, 0), (0, 1, 1), (1, 0, 0)], key=lambda v: v)
    [(1, 0, 0), (0, 1, 1)]
    """
    out: list = []
    vecs: list[np.ndarray] = []
    for it in items:
        v = np.array(key(it), dtype=bool)
        if any((w <= v).all() for w in vecs):  # an existing one is contained in v
            continue
        keep = [(o, w) for o, w in zip(out, vecs) if not (v <= w).all()]
        out = [o for o, _ in keep] + [it]
        vecs = [w for _, w in keep] + [v]
    return out


def _reach_table(items: list[tuple[int, int, int]], target: int) -> list[int]:
    """Prefix bitsets: bit s of table[i] says s = Σ_{j<i} a_j δ_j with lo_j ≤ a_j ≤ hi_j."""
    mask = (1 << (max(target, 0) + 1)) - 1
    table = [1]
    for delta, lo, hi in items:
        nxt = 0
        cur = table[-1]
        for k in range(lo, min(hi, max(target, 0) // delta) + 1):
            nxt |= cur << (k * delta)
        table.append(nxt & mask)
    return table


def _decompose(items: list[tuple[int, int, int]], table: list[int], total: int) -> list[int]:
    """a_j (lo_j ≤ a_j ≤ hi_j) with Σ a_j δ_j = total, using the prefix bitsets."""
    out = [0] * len(items)
    rem = total
    for i in range(len(items) - 1, -1, -1):
        delta, lo, hi = items[i]
        for k in range(lo, hi + 1):
            if rem - k * delta >= 0 and (table[i] >> (rem - k * delta)) & 1:
                out[i] = k
                rem -= k * delta
                break
        else:
            raise AssertionError("no decomposition")
    assert rem == 0
    return out


def _state_keys(used: np.ndarray, sums: np.ndarray, floor: np.ndarray, low: np.ndarray, top: np.ndarray,
                cap: int) -> np.ndarray:
    """One key per merge state: the dimension used (in [0, cap]) and each sum clipped to
    [floor, top], where floor (one per row, or one for all) is at least low. Mixed-radix
    integers, so that equal states and only they get equal keys; the clipped rows themselves
    (`np.unique(axis=0)` compares them as byte strings, several times slower) when the
    radices' product passes 2**62.

    >>> _state_keys(np.array([0, 1, 1]), np.array([[5], [0], [9]]), np.array([2]), np.array([2]), np.array([4]), 1).tolist()
    [2, 3, 5]
    """
    clipped = np.clip(sums, floor, top) - low
    radices = [cap + 1] + [int(t - f) + 1 for f, t in zip(low, top)]
    if not INTEGER_STATE_KEYS or sum(math.log2(r) for r in radices) >= 62:
        return np.column_stack([used, clipped])
    weights = np.cumprod([1] + radices[:0:-1], dtype=np.int64)[::-1]
    return used * weights[0] + clipped @ weights[1:]


def _row_floors(used: np.ndarray, cap: int, low: np.ndarray, top: np.ndarray, ahead: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """Per row and pair, the floor below which a sum can no longer break the pair (Lemma 6,
    floors): `top - 1` less what the coordinates ahead (coefficients, dimension) can add with
    the dimension the row leaves them, `B = cap - used + Σ δ` (cap counts one copy of each
    ahead), at most `max ⌊B C / δ⌋` (fractional knapsack); never below low, the floor of
    their whole ranges.

    >>> _row_floors(np.array([0, 3]), 4, np.array([0]), np.array([6]), [(np.array([1]), 1)]).tolist()
    [[0], [3]]
    """
    if not ahead:
        return np.broadcast_to(np.maximum(low, top - 1), (len(used), len(top)))
    room = (cap - used + sum(dl for _, dl in ahead))[:, None]
    add = np.max([room * coef[None, :] // dl for coef, dl in ahead], axis=0)
    return np.maximum(low[None, :], top[None, :] - 1 - add)


def _extend_rows(rows: np.ndarray, used: np.ndarray, j: int, ks: np.ndarray, dl: int, cap: int,
                 clip: np.ndarray, low: np.ndarray, top: np.ndarray,
                 ahead: list[tuple[np.ndarray, int]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every row with coordinate j set to each value of ks (dimension dl each), those whose
    dimension used stays within cap; merged (`MERGE_PROFILE_ROWS`, Lemma 6): of the rows equal
    in dimension used and in their sums over the breakable pairs (`rows @ clip`) clipped to
    [floor, top], the first. The floor is low, or with `ahead` (the coefficients and
    dimension of each coordinate still to come) the row's own (`_row_floors`). Built a block
    of rows at a time, each block merged into what is kept, so that at most
    `MAX_PROFILE_EXPAND` rows exist before the filter (memory) and the answer is that of one
    expansion: blocks come in row order and the first of equal states is kept.

    >>> rows, used = _extend_rows(np.zeros((1, 2), dtype=np.int64), np.zeros(1, dtype=np.int64), 0,
    ...                           np.arange(1, 4), 1, 2, np.ones((2, 1), dtype=np.int64), np.array([0]), np.array([5]))
    >>> rows.tolist(), used.tolist()
    ([[1, 0], [2, 0]], [1, 2])
    """
    size = ks.size
    src_keep = np.zeros(0, dtype=np.int64)  # the kept rows: the row extended and the value of j
    val_keep = np.zeros(0, dtype=np.int64)
    u_keep = used[:0]
    key_keep = None
    step = max(1, MAX_PROFILE_EXPAND // max(size, 1))
    if MERGE_PROFILE_ROWS:
        # the rows' sums without coordinate j (integer products have no BLAS: once per row,
        # not once per value), and the floors per dimension used (the same for equal used)
        base = rows @ clip - np.outer(rows[:, j], clip[j])
        floors = low[None, :] if ahead is None else _row_floors(np.arange(max(cap, 0) + 1), cap, low, top, ahead)
    for start in range(0, rows.shape[0] if size else 0, step):
        n0 = min(step, rows.shape[0] - start)
        u = np.repeat(used[start:start + n0], size) + np.tile(ks * dl, n0)
        ok = np.flatnonzero(u <= cap)
        src, val, u = start + ok // size, ks[ok % size], u[ok]
        src_keep = np.concatenate([src_keep, src])
        val_keep = np.concatenate([val_keep, val])
        u_keep = np.concatenate([u_keep, u])
        if MERGE_PROFILE_ROWS:
            sums = base[src] + np.outer(val, clip[j])
            key = _state_keys(u, sums, floors[0] if ahead is None else floors[u], low, top, cap)
            key_keep = key if key_keep is None else np.concatenate([key_keep, key])
            first = np.sort(np.unique(key_keep, axis=0, return_index=True)[1])
            src_keep, val_keep, u_keep, key_keep = src_keep[first], val_keep[first], u_keep[first], key_keep[first]
        if src_keep.shape[0] > MAX_PROFILE_ROWS:
            raise LimitError("head_dim", f"more than {MAX_PROFILE_ROWS} profiles to compare for hosting")
    out = rows[src_keep]
    out[:, j] = val_keep
    return out, u_keep


class HostingMemo:
    """The hosting classes of orbits already listed, shared by the checkers of one problem's
    designs (`SymbolicChecker(memo=...)`): an orbit's classes depend only on its subgroup
    and on the design's orbit types (`DesignSearch.type_orbit`, in order), and a search checks
    the same design more than once (its check, the repair's counterexamples, a raise tried
    and then checked) and designs differing in types the orbit does not see as different.
    At most `MEMO_ENTRIES`, least recently used first out.

        >>> from eqattn.attention import Design, Problem
        >>> from eqattn.attention.symbolic import SymbolicChecker
        >>> p = Problem.create("C4", "E1", 2, 1)
        >>> memo = HostingMemo(p)
        >>> a = SymbolicChecker(p, Design.regular(p), memo=memo).hosting_classes((0, 1))
        >>> SymbolicChecker(p, Design.regular(p), memo=memo).hosting_classes((0, 1)) is a, len(memo)
        (True, 1)
    """

    def __init__(self, problem: Problem, entries: int = MEMO_ENTRIES) -> None:
        self.problem = problem
        self.entries = entries
        self._items: OrderedDict[tuple, dict] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: tuple) -> dict | None:
        got = self._items.get(key)
        if got is not None:
            self._items.move_to_end(key)
        return got

    def put(self, key: tuple, value: dict) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.entries:
            self._items.popitem(last=False)


class HostingSets:
    """The hosting-set methods of `SymbolicChecker`."""

    def is_zero_orbit(self, orbit: tuple[int, int]) -> bool:
        z = self._zero.get(orbit[0])
        if z is None:
            z = self._zero[orbit[0]] = supports_of(self.problem, orbit[0]) == [()]
        return z

    def _slots(self, kb: int) -> list[tuple[int, int]]:
        return [(t, a) for t, o in enumerate(self.search.type_orbit) for a in self.h.cosets(kb, o.sub.id)]

    def hosting_classes(self, orbit: tuple[int, int]) -> dict[tuple[int, int], list[tuple[int, ...]]]:
        """Per (K̄_0, c): maximal profiles a whose hosting sets are the minimal ones among all
        maximal profiles with that stabiliser (one representative per hosting set)."""
        if orbit[0] in self._hostclass:  # depends on K only, not on the cluster size
            return self._hostclass[orbit[0]]
        memo_key = None if self.memo is None else (orbit[0], tuple(o.key() for o in self.search.type_orbit))
        if memo_key is not None:
            known = self.memo.get(memo_key)
            if known is not None:
                self._hostclass[orbit[0]] = known
                return known
        K = self.problem.group.subgroup_classes[orbit[0]]
        VK = self.problem.restrict(K)
        d = self.problem.head_dim
        found: dict[tuple[int, int], list[tuple[np.ndarray, tuple[int, ...]]]] = {}
        for S in supports_of(self.problem, orbit[0]):
            if self.stop is not None and self.stop():  # (before each support: the clock can stop it)
                raise DeadlinePassed()
            kb, c, _ = self.table.kbar(K, S)
            tilde = self.table.extended_irreps(K, S)
            slots = self._slots(kb)
            for mask, a in self._hostsets(VK, d, S, tilde, kb, slots):
                found.setdefault((kb, c), []).append((mask, a))
        out = {}
        for key, items in found.items():
            # a smaller hosting set is harder: keep the minimal masks
            mins = minimal_patterns(items, key=lambda it: it[0])
            out[key] = [a for _, a in mins]
        self._hostclass[orbit[0]] = out
        if memo_key is not None:
            self.memo.put(memo_key, out)
        return out

    def _hostsets(self, VK: Rep, d: int, S: tuple[int, ...], tilde: dict, kb: int, slots: list) -> list:
        """(hosting mask over slots, a) for every distinct mask of the maximal profiles with
        support exactly S."""
        dims = [int(x) for x in VK.irreps.dims]
        m = VK.mults
        # C[slot]: (|S|, irreps of K') image coefficients; W thresholds
        Cs, Ws = [], []
        for t, a in slots:
            o = self.search.type_orbit[t]
            R = self.h.restricted_irreps(kb, o.sub.id, a)
            Cs.append(np.array([np.asarray(tilde[s]) @ R for s in S], dtype=np.int64))
            Ws.append(np.array(o.W.mults, dtype=np.int64))
        # pairs (slot, rho) that some profile might break (fractional-knapsack upper bound)
        pairs = []
        mS = np.array([m[s] for s in S], dtype=np.int64)
        dS = np.array([dims[s] for s in S], dtype=np.float64)
        for i, (C, W) in enumerate(zip(Cs, Ws)):
            # per ρ: min(Σ_σ m_σ C_σρ, ⌊d · max_σ C_σρ / δ_σ⌋), vectorised over ρ
            ub = np.minimum(mS @ C, np.floor(d * (C / dS[:, None]).max(axis=0)))
            pairs.extend((i, int(rho)) for rho in np.flatnonzero(ub > W))
        rel = sorted({j for i, rho in pairs for j in range(len(S)) if Cs[i][j, rho]})
        # a relevant irrep is "single" when every breakable pair it enters has it as its only
        # coefficient: that pair breaks iff a_σ passes a threshold, so only the interval of
        # a_σ between consecutive thresholds matters (Lemma 6, intervals)
        nz = {(i, rho): [j for j in range(len(S)) if Cs[i][j, rho]] for i, rho in pairs}
        single = {j for j in rel if all(nz[q] == [j] for q in pairs if j in nz[q])}
        out: dict[bytes, tuple[np.ndarray, tuple[int, ...]]] = {}
        for r in slacks_for_support(VK, d, S):
            sat = [j for j, s in enumerate(S) if dims[S[j]] <= r]
            free = [j for j in range(len(S)) if j not in sat]
            target = d - r - sum(m[S[j]] * dims[S[j]] for j in sat)
            multi = [j for j in free if j in rel and j not in single]
            singles = [j for j in free if j in single]
            irr = [j for j in free if j not in rel]
            irr_items = [(dims[S[j]], 1, m[S[j]]) for j in irr]
            own = {j: [q for q in pairs if nz[q] == [j]] for j in singles}
            levels = {}
            for j in singles:
                hi_all = min(m[S[j]], target // dims[S[j]])
                cuts = sorted({-(-(int(Ws[i][rho]) + 1) // int(Cs[i][j, rho])) for i, rho in own[j]})
                cuts = [c for c in cuts if 1 < c <= hi_all]
                bounds = [1] + cuts + [hi_all + 1]
                levels[j] = [(lo, hi - 1) for lo, hi in zip(bounds, bounds[1:]) if lo <= hi - 1]
            rows = np.zeros((1, len(S)), dtype=np.int64)
            for j in sat:
                rows[:, j] = m[S[j]]
            used = np.zeros(1, dtype=np.int64)
            rest_min = sum(dims[S[j]] for j in free)
            # the pairs the rows decide; a row matters only through its dimension used and
            # its sums over these pairs clipped at W + 1 (coefficients are >= 0: a broken pair
            # stays broken), so rows equal in those are merged as they are built
            row_pairs = [q for q in pairs if not (len(nz[q]) == 1 and nz[q][0] in singles)]
            clip = np.array([[Cs[i][k, rho] for i, rho in row_pairs] for k in range(len(S))], dtype=np.int64).reshape(len(S), len(row_pairs))
            top = np.array([int(Ws[i][rho]) + 1 for i, rho in row_pairs], dtype=np.int64)
            # what the coordinates after the t-th multi one can still add to each pair's sum, at
            # most: sums up to W minus that are all "never broken", one state (Lemma 6, floors)
            most = [min(m[S[j]], target // dims[S[j]]) * clip[j] for j in multi] + [np.zeros_like(top)]
            still = np.cumsum(most[::-1], axis=0)[::-1]
            for t, j in enumerate(multi):
                dl = dims[S[j]]
                rest_min -= dl
                ks = np.arange(1, min(m[S[j]], target // dl) + 1, dtype=np.int64)
                if FLOOR_PROFILE_ROWS:
                    low = np.maximum(top - 1 - still[t + 1], 0)
                    ahead = [(clip[q], dims[S[q]]) for q in multi[t + 1:]]
                    rows, used = _extend_rows(rows, used, j, ks, dl, target - rest_min, clip, low, top, ahead)
                else:
                    rows, used = _extend_rows(rows, used, j, ks, dl, target - rest_min, clip, np.zeros_like(top), top)
            if rows.shape[0] == 0:
                continue
            # pairs decided by the row (sat + multi coordinates) and by the single levels
            row_mask = np.ones((rows.shape[0], len(slots)), dtype=bool)
            for q in pairs:
                if len(nz[q]) == 1 and nz[q][0] in singles:
                    continue
                i, rho = q
                row_mask[:, i] &= rows @ Cs[i][:, rho] <= Ws[i][rho]
            combos = list(product(*[levels[j] for j in singles]))
            if len(combos) * rows.shape[0] > 4 * MAX_PROFILE_ROWS:
                raise LimitError("head_dim", f"more than {MAX_PROFILE_ROWS} profile classes to compare for hosting")
            for combo in combos:
                items = [(dims[S[j]], lo, hi) for j, (lo, hi) in zip(singles, combo)] + irr_items
                reach = _reach_table(items, target)
                rem = target - used
                ok = np.array([u >= 0 and bool(reach[-1] >> int(u) & 1) for u in rem], dtype=bool)
                if not ok.any():
                    continue
                mask = row_mask[ok].copy()
                for j, (lo, hi) in zip(singles, combo):
                    for i, rho in own[j]:
                        if int(Cs[i][j, rho]) * lo > Ws[i][rho]:
                            mask[:, i] = False
                sub_rows, sub_rem = rows[ok], rem[ok]
                keys, first = np.unique(np.packbits(mask, axis=1), axis=0, return_index=True)
                for k, f in zip(keys, first):
                    kk = k.tobytes()
                    if kk in out:
                        continue
                    a = np.zeros(len(m), dtype=np.int64)
                    for j in range(len(S)):
                        a[S[j]] = sub_rows[f, j]
                    for j, k2 in zip(singles + irr, _decompose(items, reach, int(sub_rem[f]))):
                        a[S[j]] = k2
                    out[kk] = (mask[f], tuple(int(x) for x in a))
        return list(out.values())
