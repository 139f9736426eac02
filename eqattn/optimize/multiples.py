"""Multiples of a smaller problem: what a search over `H / k` heads hands to the search over
`H` heads (docs/theory-scale.md O16).

For `H = k · H1`, every clustering `C` of `(G, V, H1, d)` repeated `k` times is a clustering
of `(G, V, H, d)` (the options of an orbit `(K, n)` depend on `K`, `n`, `d` and `V` only), so
a scenario key of the smaller problem, with every demand repeated `k` times and its zero pool
`D_0` raised to `min(k · D_0, V)`, is met by every design covering the larger one
(`multiply_key`, Lemma O16). Its LP certificates carry over too (for keys without a zero
pool and no head limit): the same duals on each copy prove `k` times the bound (O16,
remark; not relied on, the LP over the repeated keys is solved as any). That is why the
keys are worth having: at `H = 16` the LP bound over the counterexamples the search meets
rises slowly, while the keys of the solved `H = 8` problem, repeated, bound it almost at
once.

And `k` copies of a design covering the smaller problem (`multiply_design`) are a candidate
for the larger one: like every candidate they are checked by the coverage checker, never
assumed to cover (they need not: an orbit of more than `H / k` heads, or one whose `R` does
not split into `K`-equivariant pieces, SPEC §6.2).

    >>> from eqattn.attention import Problem
    >>> split_factor(Problem.create("D4", "8xregular", 16, 4)), split_factor(Problem.create("D4", "8xregular", 7, 4))
    (2, None)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from ..attention import Design, DesignOrbit, Problem
from ..attention.assignment import Demand
from ..reps import Rep
from .lp_duals import Certificate

SPLIT_HEADS = 8  # problems with at least this many heads are seeded by the problem with H / k heads ...
SPLIT_SHARE = 0.5  # ... which gets this share of the search's time


@dataclass(frozen=True)
class Seed:
    """What the search of `(G, V, H / k, d)` hands on: its best covering design (or None),
    its scenario keys as demands, the positions of the keys carrying its best LP
    certificate, the LP's columns (types `(subgroup id, multiplicities of W)`), and that
    certificate (positions into `keys` and into each key's demands; None without one)."""

    k: int
    design: Design | None
    keys: tuple[tuple[Demand, ...], ...]
    active: tuple[int, ...]
    columns: tuple[tuple[int, tuple[int, ...]], ...]
    certificate: Certificate | None = None


def split_factor(problem: Problem) -> int | None:
    """The `k` of the seeding problem `(G, V, H / k, d)`: the least prime factor of `H`,
    for `H ≥ SPLIT_HEADS`; None when `H` is smaller or prime."""
    H = problem.heads
    if H < SPLIT_HEADS:
        return None
    p = 2
    while p * p <= H:
        if H % p == 0:
            return p
        p += 1
    return None


def sub_problem(problem: Problem, k: int) -> Problem:
    """`(G, V, H / k, d)`."""
    if k < 1 or problem.heads % k:
        raise ValueError(f"{k} does not divide H = {problem.heads}")
    return Problem(problem.group, problem.V, problem.heads // k, problem.head_dim, problem.price)


def multiply_key(demands: Sequence[Demand], k: int, V: Rep) -> tuple[Demand, ...]:
    """The demands of the key repeated `k` times; a zero pool (one per key) once, with
    `D = min(k · D_0, V)` (Lemma O16)."""
    out: list[Demand] = []
    for dm in demands:
        if dm.pool:
            D = Rep(dm.D.sub, tuple(min(k * a, b) for a, b in zip(dm.D.mults, V.mults)))
            out.append(Demand(dm.kbar, dm.P, D, (), True))
        else:  # (positions in the smaller clustering mean nothing in the larger one: dropped)
            out.extend([Demand(dm.kbar, dm.P, dm.D, (), False)] * k)
    return tuple(out)


def multiply_certificate(
    cert: Certificate, keys: Sequence[tuple[Demand, ...]], k: int, V: Rep, intern: Callable[[Demand], int],
    position: Mapping[tuple[int, ...], int],
) -> Certificate | None:
    """The certificate of an LP bound of `(G, V, H / k, d)` over `keys` carried to the keys
    `s^k` (theory-scale O16, Lemma O16c): the dual `μ` of every demand on each of its `k`
    copies; on the zero pool `min(k D_0, V)` only on the irreps where that equals `D_0`
    (elsewhere 0). The same `θ`. It proves about `k` times the smaller bound for every design
    of `(G, V, H, d)` within the same head-dim limit; None when the smaller certificate used
    a head limit (`λ > 0`: its types were fewer). `intern`: a demand of the larger problem
    to its id; `position`: a key of the larger problem (sorted ids) to its position in the
    larger problem's keys (every `s^k` must be there). Keys that coincide in the larger
    problem add their duals (a maximum of sums is at most the sum of the maxima).

        >>> from eqattn.attention import Problem
        >>> from eqattn.attention.hosting import hosting
        >>> from eqattn.optimize.catalogue import DemandCatalogue
        >>> from eqattn.optimize.lp_bound import lp_bound
        >>> from eqattn.optimize.separation import ScenarioSpace
        >>> small = ScenarioSpace(Problem.create("C4", "regular", 1, 1))
        >>> b = lp_bound(small.problem, hosting(small.problem), small.values, small.initial_keys(), start=())
        >>> demands = [tuple(small.values[v] for v in key) for key in small.initial_keys()]
        >>> cat = DemandCatalogue(Problem.create("C4", "regular", 2, 1))
        >>> big = [tuple(sorted(cat.intern(d) for d in multiply_key(dems, 2, cat.problem.V))) for dems in demands]
        >>> c = multiply_certificate(b.certificate, demands, 2, cat.problem.V, cat.intern, {key: i for i, key in enumerate(big)})
        >>> b.units, round(c.value(cat.values, big, None), 6)
        (1, 2.0)
    """
    if cert.lam > 0:
        return None
    by_key: dict[int, list[tuple[int, int, int, float]]] = defaultdict(list)
    for s, j, g, m in cert.mu:
        by_key[s].append((j, g, m))
    mu: dict[tuple[int, int, int], float] = defaultdict(float)
    for s, entries in by_key.items():
        dems = keys[s]
        copies = [multiply_key((dm,), k, V) for dm in dems]  # the demands of each, in the larger key
        ids = [[intern(c) for c in cs] for cs in copies]
        key = tuple(sorted(i for cs in ids for i in cs))
        at = position[key]
        free: dict[int, list[int]] = defaultdict(list)  # id -> its positions in the larger key, to hand out
        for pos, i in enumerate(key):
            free[i].append(pos)
        places = [[free[i].pop(0) for i in cs] for cs in ids]
        for j, g, m in entries:
            dm = dems[j]
            if dm.pool and copies[j][0].D.mults[g] != dm.D.mults[g]:
                continue  # the pool grew on this irrep: its dual would price types higher
            for pos in places[j]:
                mu[(at, pos, g)] += m
    return Certificate(tuple((s, j, g, m) for (s, j, g), m in sorted(mu.items())), 0.0, cert.theta)


def multiply_design(problem: Problem, design: Design, k: int) -> Design:
    """`k` copies of every orbit of `design`, as a design of `problem` (same G and V).

    >>> from eqattn.attention import Problem
    >>> p = Problem.create("C4", "E1", 4, 1)
    >>> d = Design.create(sub_problem(p, 2), [("C2", "B")])
    >>> multiply_design(p, d, 2).params == 2 * d.params
    True
    """
    if design.problem.group is not problem.group or design.problem.V != problem.V:
        raise ValueError("the design is for another group or V")
    return Design(problem, tuple(DesignOrbit(o.sub, o.W) for o in design.orbits for _ in range(k)))
