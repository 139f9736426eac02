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

from dataclasses import dataclass
from typing import Sequence

from ..attention import Design, DesignOrbit, Problem
from ..attention.assignment import Demand
from ..reps import Rep

SPLIT_HEADS = 8  # problems with at least this many heads are seeded by the problem with H / k heads ...
SPLIT_SHARE = 0.5  # ... which gets this share of the search's time


@dataclass(frozen=True)
class Seed:
    """What the search of `(G, V, H / k, d)` hands on: its best covering design (or None),
    its scenario keys as demands, the positions of the keys carrying its best LP
    certificate, and the LP's columns (types `(subgroup id, multiplicities of W)`)."""

    k: int
    design: Design | None
    keys: tuple[tuple[Demand, ...], ...]
    active: tuple[int, ...]
    columns: tuple[tuple[int, tuple[int, ...]], ...]


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
    return Problem(problem.group, problem.V, problem.heads // k, problem.head_dim)


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
