"""Coverage of a given design without listing options (SPEC §4.5; proofs in
docs/theory-scale.md §3–§5).

For a fixed design, an option matters only through its *pattern*: the set F of multisets
y of design orbit types (counts per type, `_Search.multisets()`) that can meet its demand
alone — one double coset per orbit among those that host it, supplies summed. A scenario
has an assignment iff the demands can be given disjoint multisets y_j ∈ F_j with Σ y_j ≤
the design's counts, so a scenario whose options have larger patterns is easier (Lemma 5).
Hence only options with *minimal* patterns need checking, one concrete representative each.

Per orbit (K, n) and stabiliser group (K̄_0, c):
* hosting sets come from the supports of maximal profiles (supports.py) and, per support,
  from the maximal profiles listed over the coordinates that can break a hosting condition
  (the others only use up dimension: a subset-sum);
* for each minimal hosting set, the demands are searched by the sets E of multisets they
  defeat (E is down-closed, F = complement): E grows one multiset at a time, each step a
  choice of an irrep τ per maximal supply sum s of y with D_τ ≥ s_τ + 1, each choice tested
  exactly by `DemandSpace.witness` (dynamic programming, no listing).
The zero pool (SPEC §4.3) is treated the same way, its demand space the sum of the zero
orbits' blocks; it is computed per clustering.

Per clustering, an abstract scenario is a multiset of interned demand ids: its assignment
(Lemma 3: disjoint minimal multisets y_j ≤ c, one per demand; with one orbit type a count
test) is memoised per multiset, the double cosets of each y_j come from the enumerating
checker's assignment search restricted to y_j, so witnesses and counterexamples are concrete
options and have the shapes of `coverage.ScenarioResult` (a counterexample's shortfall is the
assignment search's best attempt). `check_clustering_general` is the per-scenario route
(demands rebuilt, the reference search confirming every failure) that tests compare against.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, replace
from itertools import combinations_with_replacement, islice, product

import numpy as np

from ..errors import LimitError
from ..memo import Memo
from ..reps import Rep, irreps_of, zero
from .clusterings import MAX_CLUSTERINGS, Clustering, clusterings, clusterings_of_types, count_clusterings, orbit_types, require_checkable
from .assignment import Assignment, Demand, Host, in_value_order
from .enumerated import DesignSearch, ScenarioResult, Verdict, check_scenario, demands_of
from .demands import Block, DemandSpace
from .design import Design
from .hosting import hosting
from .options import Option, option_table
from .problem import Problem
from .supports import profiles_with_support, slacks_for_support, supports_of

MAX_PROFILE_ROWS = 400_000  # profiles listed over the hosting-relevant irreps of one support
MAX_PROFILE_EXPAND = 1_000_000  # ... and rows before the dimension filter of one coordinate (memory)
MERGE_PROFILE_ROWS = True  # rows equal in dimension used and clipped sums are merged while listed (Lemma 6, merging)
MAX_SEARCH_NODES = 200_000  # bounds L visited by one defeated-set search
MAX_ABSTRACT_SCENARIOS = 200_000  # abstract scenarios over all clusterings
MAX_ALIKE = 32  # scenarios alike to one counterexample (`SymbolicChecker.alike`) ...
MAX_ALIKE_PROFILES = 64  # ... from at most this many profiles a or b per option
SPACES_PER_PROBLEM = 512  # demand spaces kept per problem (shared by the checkers of its designs)


@dataclass(frozen=True)
class Pattern:
    """A minimal abstract option: `meets[k]` says whether multiset k of design orbit types
    can meet the demand alone; `option` is a concrete option with exactly this pattern."""

    option: Option
    meets: tuple[bool, ...]
    demand: int = -1  # the interned demand value (`SymbolicChecker.demand_id`); -1: D = 0


@dataclass(frozen=True)
class PoolPattern:
    """A minimal pattern of the zero pool: one concrete zero option per zero orbit, in the
    sorted order of the zero orbits, and their pooled demand D0 = min(Σ D, V)."""

    options: tuple[Option, ...]
    meets: tuple[bool, ...]
    D: Rep | None = None
    demand: int = -1  # the interned demand value of D0; -1: D0 = 0


def _minimal(items: list, key) -> list:  # noqa: ANN001
    """Items whose pattern (bool vector) is minimal under inclusion; first of equal ones."""
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


class SymbolicChecker:
    """Exact coverage of one design at any size the limits accept (module docstring)."""

    def __init__(self, problem: Problem, design: Design, *, fast: bool = True, shortfalls: bool = True) -> None:
        """`fast=False`: every abstract scenario through `check_scenario` (the general path);
        `shortfalls=False`: counterexamples without the best attempt's shortfall (the
        optimiser needs their demands only)."""
        self.problem = problem
        self.design = design
        self.table = option_table(problem)
        self.h = hosting(problem)
        self.search = DesignSearch(problem, design, reduce=True)
        self.dom = self.search.dominance
        ms = self.dom.multisets if self.dom is not None else None
        if ms is None:
            raise LimitError("orbits", "the design has too many distinct orbit multisets for the symbolic check")
        self.ms = ms
        self.index = {m: k for k, m in enumerate(ms)}
        G = problem.group
        self.top = G.subgroup_classes[-1]
        self._patterns: dict[tuple[int, int], list[Pattern]] = {}
        self._pool: dict[tuple, list[PoolPattern]] = {}
        self._spaces: dict[tuple, DemandSpace] = {}
        self._mins: dict[tuple, list[tuple[int, ...]]] = {}
        self._plans: dict[tuple, tuple | None] = {}
        self._single: dict[tuple, tuple] = {}
        self._defeat_memo: dict[tuple, tuple] = {}
        self._lattice_memo: tuple[np.ndarray, list[np.ndarray]] | None = None
        self._hostclass: dict[int, dict] = {}
        self._replaced: dict[tuple[int, int], tuple[int, int]] | None = None  # orbit type -> kept type (C7)
        self._zero: dict[int, bool] = {}
        # interned demand values (small ints): the per-clustering path hashes only these
        self._demand_ids: dict[tuple, int] = {}
        self._demand_of: list[Demand] = []  # a template per id (orbits = ())
        self._mins_of: list[list[tuple[int, ...]]] = []  # minimal multisets y per id
        self._feasible: dict[tuple[int, ...], tuple | None] = {}  # sorted ids -> y per id, or None
        self._shortfalls: dict[tuple[int, ...], list] = {}
        self._supplies: dict[tuple[int, int], dict[int, Rep]] = {}
        self._demands_at: dict[tuple, Demand] = {}
        self._assignments: dict[tuple, tuple] = {}
        self.counts = tuple(self.search.search.counts.get(t, 0) for t in range(len(self.ms[-1])))
        # one orbit type: B is a chain, each demand has at most one minimal multiset (k,), and a
        # scenario has an assignment iff every demand has one and the k's sum to at most c (C3)
        self.single_type = len(self.counts) == 1
        self.fast = fast
        self.shortfalls = shortfalls

    # ----- orbit classification ---------------------------------------------------------
    def is_zero_orbit(self, orbit: tuple[int, int]) -> bool:
        z = self._zero.get(orbit[0])
        if z is None:
            z = self._zero[orbit[0]] = supports_of(self.problem, orbit[0]) == [()]
        return z

    # ----- hosting sets ------------------------------------------------------------------
    def _slots(self, kb: int) -> list[tuple[int, int]]:
        return [(t, a) for t, o in enumerate(self.search.type_orbit) for a in self.h.cosets(kb, o.sub.id)]

    def hosting_classes(self, orbit: tuple[int, int]) -> dict[tuple[int, int], list[tuple[int, ...]]]:
        """Per (K̄_0, c): maximal profiles a whose hosting sets are the minimal ones among all
        maximal profiles with that stabiliser (one representative per hosting set)."""
        if orbit[0] in self._hostclass:  # depends on K only, not on the cluster size
            return self._hostclass[orbit[0]]
        K = self.problem.group.subgroup_classes[orbit[0]]
        VK = self.problem.restrict(K)
        d = self.problem.head_dim
        found: dict[tuple[int, int], list[tuple[np.ndarray, tuple[int, ...]]]] = {}
        for S in supports_of(self.problem, orbit[0]):
            kb, c, _ = self.table.kbar(K, S)
            tilde = self.table._extended(K, S)
            slots = self._slots(kb)
            for mask, a in self._hostsets(VK, d, S, tilde, kb, slots):
                found.setdefault((kb, c), []).append((mask, a))
        out = {}
        for key, items in found.items():
            # a smaller hosting set is harder: keep the minimal masks
            mins = _minimal(items, key=lambda it: it[0])
            out[key] = [a for _, a in mins]
        self._hostclass[orbit[0]] = out
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
            R = self.h._restricted_irreps(kb, o.sub.id, a)
            Cs.append(np.array([np.asarray(tilde[s]) @ R for s in S], dtype=np.int64))
            Ws.append(np.array(o.W.mults, dtype=np.int64))
        # pairs (slot, rho) that some profile might break (fractional-knapsack upper bound)
        pairs = []
        for i, (C, W) in enumerate(zip(Cs, Ws)):
            for rho in range(C.shape[1]):
                col = C[:, rho]
                ub = min(int(sum(m[s] * int(col[j]) for j, s in enumerate(S))),
                         math.floor(d * max(int(col[j]) / dims[s] for j, s in enumerate(S))))
                if ub > W[rho]:
                    pairs.append((i, rho))
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
            for j in multi:
                dl = dims[S[j]]
                rest_min -= dl
                ks = np.arange(1, min(m[S[j]], target // dl) + 1, dtype=np.int64)
                n0 = rows.shape[0]
                if n0 * ks.size > MAX_PROFILE_EXPAND:  # (memory: the rows before the filter)
                    raise LimitError("head_dim", f"more than {MAX_PROFILE_EXPAND} partial profiles to compare for hosting")
                rows = np.repeat(rows, ks.size, axis=0)
                used = np.repeat(used, ks.size) + np.tile(ks * dl, n0)
                if ks.size:
                    rows[:, j] = np.tile(ks, n0)
                ok = used + rest_min <= target
                rows, used = rows[ok], used[ok]
                if MERGE_PROFILE_ROWS and rows.shape[0] > 1:
                    state = np.column_stack([used, np.minimum(rows @ clip, top)])
                    keep = np.sort(np.unique(state, axis=0, return_index=True)[1])
                    rows, used = rows[keep], used[keep]
                if rows.shape[0] > MAX_PROFILE_ROWS:
                    raise LimitError("head_dim", f"more than {MAX_PROFILE_ROWS} profiles to compare for hosting")
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

    # ----- demand search ---------------------------------------------------------------
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
            I = self.table._induced_irreps(K, kb, c)
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

    # ----- patterns of an orbit --------------------------------------------------------------
    def patterns(self, orbit: tuple[int, int]) -> list[Pattern]:
        """The minimal patterns of a non-zero orbit, each with a concrete option."""
        if orbit not in self._patterns:
            self._patterns[orbit] = [
                replace(p, demand=self.demand_id(Demand(p.option.kbar, p.option.P, p.option.D, (), False)))
                for p in self._compute_patterns(orbit)
            ]
        return self._patterns[orbit]

    def demand_id(self, d: Demand) -> int:
        """A small int per demand value (-1 for D = 0), with its minimal multisets."""
        if d.D.is_zero():
            return -1
        key = d.value()
        k = self._demand_ids.get(key)
        if k is None:
            k = self._demand_ids[key] = len(self._demand_of)
            self._demand_of.append(d)
            mins = self._minimal_multisets(d)
            if self.single_type:
                assert len(mins) <= 1, "patterns of one orbit type form a chain"
            self._mins_of.append(mins)
        return k

    def _meets(self, kb: int, P: Rep, D: Rep) -> tuple[bool, ...]:
        if D.is_zero():
            return (True,) * len(self.ms)
        Dv = np.array(D.mults)
        return tuple(bool(s.shape[0] and (s >= Dv).all(axis=1).any()) for s in self.dom.host_sums(kb, P))

    def _compute_patterns(self, orbit: tuple[int, int]) -> list[Pattern]:
        G = self.problem.group
        K = G.subgroup_classes[orbit[0]]
        VK = self.problem.restrict(K)
        cands: list[Pattern] = []
        for (kb, c), profiles in self.hosting_classes(orbit).items():
            space = self._space((orbit,), kb, c)
            for a_vec in profiles:
                a = Rep(K, a_vec)
                kb2, c2, P = self.table.image(K, a)
                assert (kb2, c2) == (kb, c)
                sums = self.dom.host_sums(kb, P)
                for (b_raw,) in self._defeated_sets(space, sums):
                    b = _extend(VK, b_raw, orbit[1] * self.problem.head_dim)
                    D = self.table.demand(K, b, kb, c)
                    opt = Option(orbit, a, b, kb, c, P, D)
                    cands.append(Pattern(opt, self._meets(kb, P, D)))
        return _minimal(cands, key=lambda p: p.meets)

    def pool_patterns(self, zero_orbits: tuple[tuple[int, int], ...]) -> list[PoolPattern]:
        """Minimal patterns of the zero pool of these zero orbits (with repetition)."""
        key = tuple(sorted(zero_orbits))
        if key not in self._pool:
            G = self.problem.group
            space = self._space(key, self.top.id, 0)
            P0 = zero(self.top)
            sums = self.dom.host_sums(self.top.id, P0)
            cands = []
            for bs in self._defeated_sets(space, sums):
                opts = []
                total = np.zeros(len(self.problem.V.mults), dtype=np.int64)
                for orbit, b_raw in zip(key, bs):
                    K = G.subgroup_classes[orbit[0]]
                    b = _extend(self.problem.restrict(K), b_raw, orbit[1] * self.problem.head_dim)
                    D = self.table.demand(K, b, self.top.id, 0)
                    opts.append(Option(orbit, zero(K), b, self.top.id, 0, P0, D))
                    total += np.asarray(D.mults)  # D0 as coverage.demands_of pools it
                D0 = Rep(self.top, tuple(int(x) for x in np.minimum(total, self.problem.V.mults)))
                cands.append(PoolPattern(tuple(opts), self._meets(self.top.id, P0, D0), D0))
            self._pool[key] = [
                replace(pp, demand=self.demand_id(Demand(self.top.id, P0, pp.D, (), True)))
                for pp in _minimal(cands, key=lambda p: p.meets)
            ]
        return self._pool[key]

    # ----- clusterings -------------------------------------------------------------------
    def _abstract(self, c: Clustering) -> tuple[list, list, list[tuple[int, int]]]:
        key = ("abstract", c.orbits)
        if key not in self._pool:
            self._pool[key] = self._abstract_uncached(c)  # type: ignore[assignment]
        return self._pool[key]  # type: ignore[return-value]

    def _abstract_uncached(self, c: Clustering) -> tuple[list, list, list[tuple[int, int]]]:
        zero_orbits = [o for o in c.expanded() if self.is_zero_orbit(o)]
        pools = self.pool_patterns(tuple(zero_orbits)) if zero_orbits else [None]
        per_type = []
        for o, k in c.orbits:
            if self.is_zero_orbit(o):
                continue
            per_type.append(list(combinations_with_replacement(self.patterns(o), k)))
        return pools, per_type, zero_orbits

    # ----- representatives (theory-scale C7) ------------------------------------------------
    def replacements(self) -> dict[tuple[int, int], tuple[int, int]]:
        """For every orbit type `(class id, n)`, the kept type that replaces it (itself when
        kept), theory-scale C7: t is replaced by t' when t' has at most as many heads and every
        minimal pattern of t contains one of t' (t' is at least as hard for this design). Of
        equal ones the fewest heads, then the first, is kept; zero orbits are always kept."""
        if self._replaced is not None:
            return self._replaced
        require_checkable(self.problem)
        items = orbit_types(self.problem)
        out: dict[tuple[int, int], tuple[int, int]] = {}
        rows: list[tuple[int, int, tuple[int, int], np.ndarray]] = []  # (heads, position, type, minimal patterns)
        for i, (w, cid, n) in enumerate(items):
            o = (cid, n)
            if self.is_zero_orbit(o):
                out[o] = o
            else:
                pats = np.array([p.meets for p in self.patterns(o)], dtype=bool).reshape(-1, len(self.ms))
                rows.append((w, i, o, np.unique(pats, axis=0)))
        rows.sort(key=lambda r: (r[0], r[1]))  # a type is only replaced by one before it in this order, or by a strictly harder one

        def harder(A: np.ndarray, B: np.ndarray) -> bool:
            """Every pattern in A contains one in B (B is at least as hard as A)."""
            outside = B.astype(np.int32) @ (~A).T.astype(np.int32)  # [b, a]: multisets in b and not in a
            return bool((outside == 0).any(axis=0).all())

        by: dict[int, int] = {}
        for j, (w, _, _, A) in enumerate(rows):
            for k, (w2, _, _, B) in enumerate(rows):
                if k != j and w2 <= w and harder(A, B) and (k < j or not harder(B, A)):
                    by[j] = k
                    break
        for j, (_, _, o, _) in enumerate(rows):
            k = j
            while k in by:  # a chain ends: each step is strictly harder or earlier among equals
                k = by[k]
            out[o] = rows[k][2]
        self._replaced = out
        return out

    def representative(self, c: Clustering) -> Clustering:
        """c with every orbit replaced by its kept type and padded with `(G, 1)` orbits to H
        heads: the design covers c when it covers this clustering (theory-scale C7)."""
        rep = self.replacements()
        G = self.problem.group
        count: Counter = Counter()
        heads = 0
        for o in c.expanded():
            r = rep[o]
            count[r] += 1
            heads += G.subgroup_classes[r[0]].index * r[1]
        count[(self.top.id, 1)] += self.problem.heads - heads
        order = {(cid, n): i for i, (_, cid, n) in enumerate(orbit_types(self.problem))}
        return Clustering(-1, tuple(sorted(((o, k) for o, k in count.items() if k), key=lambda ok: order[ok[0]])))

    def representatives(self, limit: int = MAX_CLUSTERINGS) -> tuple[Clustering, ...]:
        """Clusterings (ids -1) such that the design covers every clustering iff it covers
        these: the clusterings of the kept types (theory-scale C7). Refused above `limit`."""
        return clusterings_of_types(self.problem, set(self.replacements().values()), limit)

    # ----- scenarios the design cannot tell apart (theory-scale O18) ------------------------
    def alike(self, opts: tuple[Option, ...], limit: int = MAX_ALIKE, deadline: float = math.inf) -> list[tuple[Option, ...]]:
        """Scenarios that differ from `opts` only in the profile `a` or the profile `b` of the
        orbits that share one option, keeping its support (so K̄, σ̃ and, for `a`, the demand
        D stay, SPEC §4.3), whose pattern for this design equals the option's. They are
        scenarios of the same clustering, and counterexamples when `opts` is one. At most
        `limit`, from at most MAX_ALIKE_PROFILES profiles per option and profile, until the
        `deadline` (time.perf_counter())."""
        out: list[tuple[Option, ...]] = []
        G = self.problem.group
        d = self.problem.head_dim
        for o in dict.fromkeys(x for x in opts if not x.zero and not x.D.is_zero()):
            K = G.subgroup_classes[o.orbit[0]]
            VK = self.problem.restrict(K)
            meets = self._meets(o.kbar, o.P, o.D)
            for which, prof, cap in (("a", o.a, d), ("b", o.b, o.orbit[1] * d)):
                support = tuple(i for i, k in enumerate(prof.mults) if k)
                if len(support) < 2:
                    continue
                for v in islice(profiles_with_support(VK, cap, support), MAX_ALIKE_PROFILES):
                    if time.perf_counter() > deadline:
                        return out
                    if v == prof.mults:
                        continue
                    if which == "a":
                        a = Rep(K, v)
                        kb, c, P = self.table.image(K, a)
                        if (kb, c) != (o.kbar, o.conj):
                            raise AssertionError("K̄ depends on the support of a only")
                        o2 = replace(o, a=a, P=P)
                    else:
                        b = Rep(K, v)
                        o2 = replace(o, b=b, D=self.table.demand(K, b, o.kbar, o.conj))
                    if (o2.P, o2.D) == (o.P, o.D) or self._meets(o2.kbar, o2.P, o2.D) != meets:
                        continue
                    out.append(tuple(o2 if x == o else x for x in opts))
                    if len(out) >= limit:
                        return out
        return out

    def fails(self, opts: tuple[Option, ...]) -> bool:
        """Whether the scenario has no assignment (Lemma 3, by patterns; no reference search)."""
        return self._plan(demands_of(self.problem, opts)) is None

    def scenario_count(self, c: Clustering) -> int:
        pools, per_type, _ = self._abstract(c)
        return len(pools) * math.prod(len(x) for x in per_type)

    def _scenarios(self, c: Clustering):  # noqa: ANN202
        """Abstract scenarios as concrete option tuples in the order of c.expanded()."""
        pools, per_type, _ = self._abstract(c)
        for pool in pools:
            for combo in product(*per_type):
                nz = iter(p.option for group in combo for p in group)
                zs = list(pool.options) if pool is not None else []
                opts = []
                for o in c.expanded():
                    if self.is_zero_orbit(o):
                        k = next(i for i, z in enumerate(zs) if z.orbit == o)
                        opts.append(zs.pop(k))
                    else:
                        opts.append(next(nz))
                yield tuple(opts)

    def check_clustering(self, c: Clustering) -> Verdict:
        n = self.scenario_count(c)
        if n > MAX_ABSTRACT_SCENARIOS:
            raise LimitError("heads", f"clustering {c.id} has {n} abstract scenarios; at most {MAX_ABSTRACT_SCENARIOS}")
        if not self.fast:
            return self.check_clustering_general(c)
        pools, per_type, zero_orbits = self._abstract(c)
        nz_pos, zero_pos = self._positions(c)
        witnesses = []
        for pool in pools:
            for combo in product(*per_type):
                pats = [p for group in combo for p in group]
                ids = [p.demand for p in pats if p.demand >= 0]
                if pool is not None and pool.demand >= 0:
                    ids.append(pool.demand)
                key = tuple(sorted(ids))
                ys = self._feasible.get(key, False)
                if ys is False:
                    ys = self._feasible[key] = self._feasible_sorted(key)
                r = self._result(pats, pool, nz_pos, zero_pos, key, ys)
                if ys is None:
                    return Verdict(c, False, (), r, n)
                witnesses.append(r)
        return Verdict(c, True, tuple(witnesses), None, n)

    def check_clustering_general(self, c: Clustering) -> Verdict:
        """`check_clustering` with every abstract scenario as concrete options through
        `check_scenario` (demands rebuilt, pattern plan, reference search when it fails): the
        route the per-clustering path (interned demands, memoised feasibility) is tested against."""
        n = self.scenario_count(c)
        witnesses = []
        for opts in self._scenarios(c):
            r = self.check_scenario(opts)
            if not r.ok:
                return Verdict(c, False, (), r, n)
            witnesses.append(r)
        return Verdict(c, True, tuple(witnesses), None, n)

    def _positions(self, c: Clustering) -> tuple[list[int], list[int]]:
        """Positions in c.expanded() of the non-zero orbits (in order) and, for the k-th
        option of a pool pattern (sorted zero orbits), the position of its zero orbit."""
        key = ("positions", c.orbits)
        hit = self._pool.get(key)
        if hit is None:
            exp = c.expanded()
            nz = [j for j, o in enumerate(exp) if not self.is_zero_orbit(o)]
            zs = [j for j, o in enumerate(exp) if self.is_zero_orbit(o)]
            order = sorted(zs, key=lambda j: exp[j])  # stable: equal orbits keep their order
            hit = self._pool[key] = (nz, order)  # type: ignore[assignment]
        return hit  # type: ignore[return-value]

    def _feasible_sorted(self, ids: tuple[int, ...]) -> tuple | None:
        """Per demand id (sorted), a minimal multiset y_j with Σ y_j ≤ c (Lemma 3), or None."""
        mins = [self._mins_of[k] for k in ids]
        if any(not m for m in mins):
            return None
        if self.single_type:  # one minimal multiset each: decided by the counts
            ys = tuple(m[0] for m in mins)
            return ys if sum(y[0] for y in ys) <= self.counts[0] else None
        return self._choose(mins)

    def _result(self, pats: list[Pattern], pool: PoolPattern | None, nz_pos: list[int], zero_pos: list[int],
                key: tuple[int, ...], ys: tuple | None) -> ScenarioResult:
        """The scenario's concrete options and demands (as `coverage.demands_of` orders them),
        with the assignment of the plan `ys` (or, when None, the best attempt's shortfall).
        Demands and assignments are immutable and shared between clusterings: one per
        (demand id, orbit positions) and per (that, multiset, design orbits used before)."""
        opts: list = [None] * (len(nz_pos) + len(zero_pos))
        demands = []
        ids = []
        for j, p in zip(nz_pos, pats):
            opts[j] = p.option
            if p.demand >= 0:
                demands.append(self._demand_at(p.demand, (j,)))
                ids.append(p.demand)
        if pool is not None:
            for j, o in zip(zero_pos, pool.options):
                opts[j] = o
            if pool.demand >= 0:
                demands.append(self._demand_at(pool.demand, tuple(sorted(zero_pos))))
                ids.append(pool.demand)
        order = sorted(range(len(ids)), key=ids.__getitem__)  # the positions of `key`
        if ys is not None:
            y_of: list = [()] * len(ids)
            for pos, i in enumerate(order):
                y_of[i] = ys[pos]
            return ScenarioResult(tuple(opts), tuple(demands), self._witness(demands, ids, y_of))
        if not self.shortfalls:
            return ScenarioResult(tuple(opts), tuple(demands), None, ())
        missing = self._shortfalls.get(key)
        if missing is None:  # per position of `key`: the missing multiplicities, or None
            raw = self.search.search.best_attempt([self._demand_of[k] for k in key])
            missing = [tuple(np.asarray(m, dtype=np.int64).tolist()) for m in raw]
            missing = self._shortfalls[key] = [m if any(x > 0 for x in m) else None for m in missing]
        short = []
        for pos, i in sorted(enumerate(order), key=lambda t: t[1]):
            if missing[pos] is not None:
                short.append((demands[i], Rep(demands[i].D.sub, missing[pos])))
        return ScenarioResult(tuple(opts), tuple(demands), None, tuple(short))

    def _demand_at(self, k: int, where: tuple[int, ...]) -> Demand:
        """The demand of id k for the orbits at positions `where` (shared, immutable)."""
        d = self._demands_at.get((k, where))
        if d is None:
            t = self._demand_of[k]
            d = self._demands_at[(k, where)] = Demand(t.kbar, t.P, t.D, where, t.pool)
        return d

    def _witness(self, demands: list[Demand], ids: list[int], ys: list) -> tuple[Assignment, ...]:
        """`DesignSearch.witness` for the sub-plans of (id, y): design orbits numbered per type
        in demand order, supplies looked up once per (type, K̄_0); assignments memoised per
        (id, positions, y, orbits used before)."""
        used = (0,) * len(self.search.instances)
        out = []
        for d, k, y in zip(demands, ids, ys):
            key = (k, d.orbits, y, used)
            hit = self._assignments.get(key)
            if hit is None:
                now = list(used)
                hosts = []
                for t, a in self._single_plan(k, y):
                    s = self._supplies.get((t, d.kbar))
                    if s is None:
                        o = self.search.type_orbit[t]
                        s = self._supplies[(t, d.kbar)] = self.h.supply(o.sub.id, o.W, d.kbar)
                    hosts.append(Host(self.search.instances[t][now[t]], a, s[a]))
                    now[t] += 1
                hit = self._assignments[key] = (Assignment(d, tuple(hosts)), tuple(now))
            out.append(hit[0])
            used = hit[1]
        return tuple(out)

    def _single_plan(self, k: int, y: tuple[int, ...]) -> tuple:
        """The double cosets meeting demand id k with the orbits of multiset y."""
        d = self._demand_of[k]
        key = (k, y)
        if key not in self._single:
            sub = self.search.search.solve_with([d], {t: q for t, q in enumerate(y) if q})
            if sub is None:
                raise AssertionError("a multiset in the pattern cannot meet its demand")
            self._single[key] = sub[0]
        return self._single[key]

    def check_scenario(self, opts: tuple[Option, ...]) -> ScenarioResult:
        """Assignment by patterns (Lemma 6: an assignment exists iff the demands get disjoint
        multisets y_j in their patterns), then double cosets per demand within y_j."""
        demands = demands_of(self.problem, opts)
        plan = self._plan(demands)
        if plan is None:
            r = check_scenario(self.problem, self.design, opts, self.search)
            if r.ok:  # the two exact searches must agree
                raise AssertionError("pattern search and assignment search disagree")
            return r
        return ScenarioResult(opts, demands, self.search.witness(demands, plan))

    def _minimal_multisets(self, d: Demand) -> list[tuple[int, ...]]:
        key = d.value()
        if key not in self._mins:
            meets = self._meets(d.kbar, d.P, d.D)
            ys = [self.ms[k] for k, ok in enumerate(meets) if ok]
            mins = []
            for y in ys:  # ms is ordered by size: a later y never lies below an earlier one
                if not any(all(u <= v for u, v in zip(z, y)) for z in mins):
                    mins.append(y)
            self._mins[key] = mins
        return self._mins[key]

    def _plan(self, demands: tuple[Demand, ...]) -> tuple | None:
        return in_value_order(demands, self._plans, self._plan_sorted)

    def _plan_sorted(self, demands: list[Demand]) -> tuple | None:
        chosen = self._choose([self._minimal_multisets(d) for d in demands])
        if chosen is None:
            return None
        return tuple(self._single_plan(self.demand_id(d), y) for d, y in zip(demands, chosen))

    def _choose(self, mins: list[list[tuple[int, ...]]]) -> tuple | None:
        """A minimal multiset per demand (from its list) with Σ y_j ≤ c (Lemma 3), or None:
        depth first, fewest choices first, failed (position, counts left) memoised."""
        if any(not m for m in mins):
            return None
        counts = self.counts
        seq = sorted(range(len(mins)), key=lambda j: len(mins[j]))
        failed: set = set()
        chosen: list[tuple[int, ...]] = [()] * len(mins)
        steps = [0]

        def dfs(pos: int, left: tuple[int, ...]) -> bool:
            if pos == len(seq):
                return True
            if (pos, left) in failed:
                return False
            steps[0] += 1
            if steps[0] > MAX_SEARCH_NODES:
                raise LimitError("orbits", f"the assignment search exceeded {MAX_SEARCH_NODES} steps")
            j = seq[pos]
            for y in mins[j]:
                if all(u <= v for u, v in zip(y, left)):
                    chosen[j] = y
                    if dfs(pos + 1, tuple(v - u for u, v in zip(y, left))):
                        return True
            failed.add((pos, left))
            return False

        return tuple(chosen) if dfs(0, counts) else None

    def first_uncovered(self, c: Clustering) -> ScenarioResult | None:
        v = self.check_clustering(c)
        return v.counterexample


def symbolic_coverage(problem: Problem, design: Design) -> tuple[Verdict, ...]:
    """A verdict per clustering (SPEC §4.5) by the symbolic engine."""
    chk = SymbolicChecker(problem, design)
    cl = clusterings(problem)
    total = sum(chk.scenario_count(c) for c in cl)
    if total > MAX_ABSTRACT_SCENARIOS:
        raise LimitError("heads", f"this design needs {total} abstract scenarios checked; at most {MAX_ABSTRACT_SCENARIOS}")
    return tuple(chk.check_clustering(c) for c in cl)


def representative_coverage(problem: Problem, design: Design) -> tuple[Verdict, ...]:
    """A verdict per clustering when they can be listed (`symbolic_coverage`), else per
    representative clustering (`SymbolicChecker.representatives`, theory-scale C7): every
    verdict covered iff the design covers every clustering."""
    if count_clusterings(problem) <= MAX_CLUSTERINGS:
        return symbolic_coverage(problem, design)
    chk = SymbolicChecker(problem, design)
    return tuple(chk.check_clustering(c) for c in chk.representatives())




# ----- helpers ----------------------------------------------------------------------------
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


def _extend(bound: Rep, b_raw: np.ndarray, cap: int) -> Rep:
    """A maximal profile ≥ b_raw (≤ bound, dim ≤ cap): add irreps greedily (SPEC §4.1)."""
    dims = [int(x) for x in bound.irreps.dims]
    b = [int(x) for x in b_raw]
    room = cap - sum(k * dl for k, dl in zip(b, dims))
    assert room >= 0 and all(x <= y for x, y in zip(b, bound.mults))
    for i, dl in enumerate(dims):
        add = min(bound.mults[i] - b[i], room // dl)
        b[i] += add
        room -= add * dl
    return Rep(bound.sub, tuple(b))
