"""Greedy repair of a candidate design that misses a few clusterings (theory-scale O18).

A rounded LP design (O14) often misses a handful of clusterings by one or two irreps: its
orbit over `C2×C2 ≤ A4` holds `13×A.B + 31×B.A + 14×B.B`, and the scenarios whose image
splits `x·A.B + (31 − x)·B.A` with `x ∈ {14, 15, 16}` have no host. The counterexample loop
then meets one split per round and its LP bound creeps up by one irrep a round. The repair
raises one multiplicity `W_τ` of one orbit type of the design (all its copies) by 1, 2, 4
or 8, or makes one orbit type host one failing image (`W ∨ P^a`, a host move), one move at a
time, choosing the move that leaves the fewest scenarios of a pool without an assignment
(ties: the cheapest). The pool is the design's counterexamples with the scenarios
it cannot tell apart from them (`SymbolicChecker.alike`), so a raise that serves one more
split counts even while every clustering still fails. It stops when the design covers every
clustering, would cost as much as the incumbent, or at a step or time limit. Nothing here is a claim: a repaired design is an answer
only when the coverage checker finds it covers every clustering, and every counterexample met
on the way is a genuine scenario (a key like any).

    >>> from eqattn.attention import Problem
    >>> p = Problem.create("C4", "2xregular", 2, 2)
    >>> d = Design.create(p, [("C4", "A + B")])
    >>> [(units, str(r.orbits[0].W)) for units, r in moves(p, d, None)]   # m_τ(V|C4) e_τ units per step (SPEC §3)
    [(2, '2xA + B'), (2, 'A + 2xB'), (4, 'A + B + E1'), (8, 'A + B + 2xE1')]
"""

from __future__ import annotations

import logging
import time
from typing import Callable

from ..attention import Design, DesignOrbit, Problem
from ..attention.clusterings import Clustering
from ..attention.coverage import demands_of
from ..attention.hosting import hosting
from ..attention.symbolic import DeadlinePassed, HostingMemo, SymbolicChecker
from ..errors import LimitError
from ..reps import Rep

log = logging.getLogger("eqattn.optimize")

REPAIR_STEPS = 6  # raises per repair at most
RAISES = (1, 2, 4, 8)  # a raise adds this much to one multiplicity
POOL = 48  # scenarios that score a raise at most (counterexamples first, then alike ones)


def with_w(design: Design, kind: tuple[int, tuple[int, ...]], W: tuple[int, ...]) -> Design:
    """`design` with `W` on every copy of its orbit type `kind = (class id, W)`."""
    return Design(design.problem, tuple(DesignOrbit(o.sub, Rep(o.sub, W)) if o.key() == kind else o for o in design.orbits))


def _priced(design: Design, new: list[Design]) -> list[tuple[int, Design]]:
    """(added units = params / 4, design) for each of `new`, cheapest first."""
    return sorted((((d.params - design.params) // 4, d) for d in new), key=lambda ud: ud[0])


def moves(problem: Problem, design: Design, max_head_dim: int | None) -> list[tuple[int, Design]]:
    """(added units, design) for every raise of one multiplicity `W_τ` of one orbit type
    (all its copies) by RAISES within V|K (and `max_head_dim`), cheapest first."""
    out = []
    for sub, W in dict.fromkeys(o.key() for o in design.orbits):
        VK = problem.restrict(problem.group.subgroup_classes[sub])
        dims = VK.irreps.dims
        dim_w = sum(int(m) * int(dims[i]) for i, m in enumerate(W))
        for tau, m in enumerate(W):
            for by in RAISES:
                if m + by > VK.mults[tau] or (max_head_dim is not None and dim_w + by * int(dims[tau]) > max_head_dim):
                    break
                out.append(with_w(design, (sub, W), tuple(x + by * (i == tau) for i, x in enumerate(W))))
    return _priced(design, out)


def host_moves(problem: Problem, design: Design, targets: list[tuple[int, Rep]], max_head_dim: int | None) -> list[tuple[int, Design]]:
    """(added units, design) that make one orbit type host one target image `(K̄_0, P)`
    through one double coset a: `W ∨ P^a` on every copy (SPEC §4.4), when that fits in V|K'
    (and `max_head_dim`), cheapest first."""
    h = hosting(problem)
    out = []
    seen = set()
    for sub, W in dict.fromkeys(o.key() for o in design.orbits):
        VK = problem.restrict(problem.group.subgroup_classes[sub])
        for kbar, P in targets:
            for img in h.image_at(kbar, sub, P).values():
                W2 = tuple(max(x, y) for x, y in zip(W, img))
                if W2 == W or (sub, W2) in seen or any(x > m for x, m in zip(W2, VK.mults)):
                    continue
                if max_head_dim is not None and sum(int(x) * int(d) for x, d in zip(W2, VK.irreps.dims)) > max_head_dim:
                    continue
                seen.add((sub, W2))
                out.append(with_w(design, (sub, W), W2))
    return _priced(design, out)


def targets_of(problem: Problem, pool: list[tuple]) -> list[tuple[int, Rep]]:
    """The distinct images `(K̄_0, P)` of the pool's demands (the pool's zero pool needs no host)."""
    return list(dict.fromkeys((d.kbar, d.P) for opts in pool for d in demands_of(problem, opts) if not d.pool))


def counterexamples(design: Design, failing: list[Clustering], deadline: float, memo: HostingMemo | None = None) -> list[tuple] | None:
    """The concrete counterexamples of `design` on the clusterings it misses, with scenarios
    it cannot tell apart from them (`SymbolicChecker.alike`), POOL at most: the repair's
    score counts how many of them a raised design still fails. None past the checker's
    limits or, inside the checker, past the deadline. `memo`: the search's hosting classes."""
    try:
        chk = SymbolicChecker(design.problem, design, shortfalls=False, stop=lambda: time.perf_counter() > deadline, memo=memo)
        found = []
        for c in failing[:POOL]:
            if time.perf_counter() > deadline:
                break
            r = chk.first_uncovered(c)
            if r is not None:
                found.append(r.options)
        out = list(found)
        each = (POOL - len(found)) // max(len(found), 1)
        for opts in found if each else ():
            out.extend(chk.alike(opts, each, deadline))
        return out
    except (LimitError, DeadlinePassed):
        return None


def still_failing(design: Design, pool: list[tuple], deadline: float, memo: HostingMemo | None = None) -> list[tuple] | None:
    """The scenarios of `pool` that have no assignment in `design`; None past the deadline
    or the checker's limits. `memo`: the search's hosting classes."""
    try:
        chk = SymbolicChecker(design.problem, design, stop=lambda: time.perf_counter() > deadline, memo=memo)
        out = []
        for opts in pool:
            if time.perf_counter() > deadline:
                return None
            if chk.fails(opts):
                out.append(opts)
        return out
    except (LimitError, DeadlinePassed):
        return None


def repair(
    design: Design,
    failing: list[Clustering],
    check: Callable[[Design], tuple[list[Clustering], list] | None],
    deadline: float,
    budget_units: float,
    max_head_dim: int | None = None,
    memo: HostingMemo | None = None,
) -> tuple[Design | None, list]:
    """(a covering design from `design` by REPAIR_STEPS raises at most, or None; the
    counterexample keys met on the way). `failing`: the clusterings `design` misses;
    `check(d)`: (clusterings d misses, their keys), None past the deadline; designs of
    `budget_units` units or more are not tried. Each step takes the raise that leaves the
    fewest of the pool's scenarios failing (`counterexamples`), the cheapest of those.
    `memo`: the hosting classes the search's checkers listed (`HostingMemo`)."""
    keys: list = []
    problem = design.problem
    pool = counterexamples(design, failing, deadline, memo)
    for _ in range(REPAIR_STEPS):
        if not pool:
            return None, keys
        best = None
        options = sorted(moves(problem, design, max_head_dim) + host_moves(problem, design, targets_of(problem, pool), max_head_dim), key=lambda ud: ud[0])
        for _, cand in options:  # (cheapest first: the rest cost more)
            if cand.params // 4 >= budget_units or time.perf_counter() > deadline:
                break
            left = still_failing(cand, pool, deadline, memo)
            if left is not None and (best is None or len(left) < len(best[0])):
                best = (left, cand)
                if not left:
                    break  # (cheapest first: no cheaper raise meets them all)
        log.debug("repair: %d clusterings, %d scenarios failing; the best raise leaves %s", len(failing), len(pool), None if best is None else len(best[0]))
        if best is None or len(best[0]) == len(pool):
            return None, keys
        left, design = best
        if left:
            pool = left
            continue
        res = check(design)
        if res is None:
            return None, keys
        failing, new = res
        keys.extend(new)
        if not failing:
            return design, keys
        pool = counterexamples(design, failing, deadline, memo)
    return None, keys
