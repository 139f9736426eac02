"""Designs induced from a subgroup: what the search of `(A, V|A, H, d)` found, for a subgroup
`A` of `G`, as a candidate for `(G, V, H, d)` (docs/theory-scale.md O20).

Lemma O20: if a design `D_A = [(A/K_i, W_i)]` covers every clustering of `(A, V|A, H, d)`,
the induced design `Ind D_A = [(G/K_i, W_i)]` covers every clustering of `(G, V, H, d)`, with
the same parameters (an orbit's count, 4 dim Hom_K(V|K, W), depends on `K`, `V|K` and `W`
only) and `[G:A]` times the heads and the attention cost. So the fewest parameters of
`(G, V, H, d)` are at most those of `(A, V|A, H, d)` for every subgroup `A`: the regular
design is the case `A = 1`.

The search of a large group often finds no covering design cheaper than the regular one in
its time (Ih 4×regular H8 d60: its rounded LP designs miss clusterings, and one LP takes
16 s), while the search of its index-2 subgroup proves its optimum (A5 8×regular: 20 s).
Which subgroup to search, and when, is a heuristic (`index_two_subgroups`, `INDUCE_MIN_ORDER`);
the candidate is checked by the coverage checker like any other, and no bound or verdict
rests on the choice.

    >>> from eqattn.attention import Problem
    >>> p = Problem.create("D4", "regular", 1, 2)
    >>> [A.name for A in index_two_subgroups(p)]
    ['C2xC2.1', 'C2xC2.2', 'C4']
    >>> str(subgroup_problem(p, index_two_subgroups(p)[2]).V)
    '2xA + 2xB + 2xE1'
"""

from __future__ import annotations

import numpy as np

from ..attention import Design, Problem
from ..attention.design import DesignOrbit
from ..groups import SubgroupClass
from ..reps.rep import conjugate_character, decompose

INDUCE_MIN_ORDER = 48  # groups of at least this order seed their search with a design induced from an index-2 subgroup ...
INDUCE_SHARE = 0.6  # ... whose search gets this share of the time left


def index_two_subgroups(problem: Problem) -> list[SubgroupClass]:
    """The subgroup classes of index 2 (each normal), in the lattice's order."""
    return [A for A in problem.group.subgroup_classes if A.index == 2]


def induce_from(problem: Problem) -> SubgroupClass | None:
    """The subgroup whose problem seeds the search of `problem` (a heuristic, module
    docstring): of the index-2 subgroups of a finite group of order at least
    `INDUCE_MIN_ORDER`, the one with the fewest irreps (the largest ones on average, which an
    orbit's heads share: S4 rather than A4×C2 in S4×C2), the first in the lattice's order on
    a tie; None for smaller groups and compact groups' stand-ins (whose designs are read
    through the stand-in's correspondence, theory-continuous §3).

        >>> from eqattn.attention import Problem
        >>> induce_from(Problem.create("S4xC2", "regular", 1, 1)).name, induce_from(Problem.create("D4", "regular", 1, 1))
        ('S4.1', None)
    """
    if problem.group.compact is not None or problem.group.order < INDUCE_MIN_ORDER:
        return None
    subs = index_two_subgroups(problem)
    return min(subs, key=lambda A: len(A.std.conjugacy_classes)) if subs else None


def subgroup_problem(problem: Problem, A: SubgroupClass) -> Problem:
    """`(A, V|A, H, d)`, over A's standard group (`A.std`, identified with A by `A.phi`)."""
    S = A.std
    VA = decompose(S.subgroup_classes[-1], problem.V.character[A.phi])
    return Problem(S, VA, problem.heads, problem.head_dim, problem.price)


def induce_design(problem: Problem, A: SubgroupClass, design: Design) -> Design:
    """`Ind D_A` (Lemma O20): each orbit `(A/K, W)` of a design of `subgroup_problem(problem, A)`
    as the orbit `(G/K', W')` of `problem`, with `K'` the class representative conjugate in G
    to the image `L = φ(K)` (`L = x K' x⁻¹`) and `W'` the character of W carried to K'."""
    G = problem.group
    orbits = []
    for o in design.orbits:
        L = A.phi[o.sub.elements]
        chi = np.zeros(G.order)
        chi[L] = o.W.character[o.sub.elements]
        K, x = G.lattice.locate(L)
        orbits.append(DesignOrbit(K, decompose(K, conjugate_character(G, chi, x))))
    return Design(problem, tuple(orbits))
