"""Smaller token spaces: every least widening of `(G, V, H, d)` is at least that of
`(G, V₀, H, d)` for a subrepresentation `V₀ ≤ V` (docs/theory-scale.md, Lemma B2s).

A design covering every clustering of `V` covers every clustering of `V₀` with the same
orbits `(K, W)` (its weights restricted to `V₀`, its outputs projected onto it), so the same
heads, head dims and attention cost; the least attention cost (also at head dim `≤ δ`), the
fewest heads and the least head dim can only grow with `V`. A smaller `V₀` has smaller
options, programs and checks: its proof often comes in seconds where `V`'s takes minutes
(`D8`, 5×regular, `H = 8`, `d = 64`: the least cost at head dim `≤ 64` is 8192, proven in
9 s; at 32×regular the search stops at `8192 ≥ 5632`).

    >>> from eqattn.attention import Problem
    >>> [str(q.V) for q in sub_problems(Problem.create("D8", "32xregular", 8, 64))]
    ['6xA1 + 6xA2 + 6xB1 + 6xB2 + 12xE1 + 12xE2 + 12xE3', '12xA1 + 12xA2 + 12xB1 + 12xB2 + 24xE1 + 24xE2 + 24xE3', '24xA1 + 24xA2 + 24xB1 + 24xB2 + 48xE1 + 48xE2 + 48xE3']
"""

from __future__ import annotations

import math
from functools import reduce

from ..attention import Problem
from ..reps.rep import Rep

RUNG_DIM = 1.5  # the first smaller V0 has dim V0 >= this many times d (S4 3xregular, dim 72, H8 d64: not proven in 97 s; 4xregular, dim 96: 5 s)


def sub_problems(problem: Problem) -> list[Problem]:
    """The problems `(G, k·V₁, H, d)` with `V = g·V₁` (`g` the gcd of `V`'s multiplicities),
    `k < g`: from the least `k` with `dim k·V₁ ≥ RUNG_DIM · d` (smaller ones leave head
    dimensions idle, SPEC §3, and bound little), doubling. Empty when `V` has no such
    multiple below it. Which rungs are asked is a heuristic; each gives a valid bound."""
    mults = problem.V.mults
    g = reduce(math.gcd, (m for m in mults if m), 0)
    if g < 2:
        return []
    dim1 = problem.V.dim // g
    k = max(1, math.ceil(RUNG_DIM * problem.head_dim / dim1))
    out = []
    while k < g:
        V0 = Rep(problem.V.sub, tuple(m // g * k for m in mults))
        out.append(Problem(problem.group, V0, problem.heads, problem.head_dim, problem.price))
        k *= 2
    return out
