"""Representative clusterings (docs/theory-scale.md C7): past the list of clusterings, the
orbit types whose patterns equal another's are replaced by it, and covering the
representatives covers every clustering; and the scenarios a design cannot tell apart from
a counterexample (O18), for the repair. A part of `SymbolicChecker` (symbolic.py).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import replace
from itertools import islice

import numpy as np

from ..reps import Rep
from .clusterings import MAX_CLUSTERINGS, Clustering, clusterings_of_types, orbit_types, require_checkable
from .enumerated import demands_of
from .options import Option
from .supports import profiles_with_support

MAX_ALIKE = 32  # scenarios alike to one counterexample (`SymbolicChecker.alike`) ...
MAX_ALIKE_PROFILES = 64  # ... from at most this many profiles a or b per option


class Representatives:
    """The representative and alike-scenario methods of `SymbolicChecker`."""

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
