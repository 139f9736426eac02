"""Scenario keys drawn at random from a clustering's options (docs/theory-scale.md O22).

The bounds of the search hold over any set `S` of scenarios of the clusterings to cover
(Lemma O1: a covering design meets every scenario), not only over counterexamples of the
designs it tried. When no candidate design within the compute limits is left to check (the
restricted program has no solution and there is no incumbent), the search has no
counterexample to learn from; scenarios drawn here give the limits round (O19e) more to
refute with. The choice is a heuristic (seeded, so a search is reproducible); every key is
a scenario of the clustering, so no verdict depends on which were drawn.

A scenario is one option per orbit of the clustering (SPEC §4.3): maximal profiles `a`
(dim ≤ d) and `b` (dim ≤ n d) of `V|K`, filled in a random order of the irreps; its demands
are those of `enumerated.demands_of` (the zero pool joined).

    >>> from eqattn.attention import Problem
    >>> from eqattn.attention.clusterings import clusterings
    >>> from eqattn.optimize.catalogue import DemandCatalogue
    >>> p = Problem.create("D4", "2xregular", 2, 2); cat = DemandCatalogue(p)
    >>> keys = sampled_keys(p, cat, clusterings(p)[:3], 6, seed=1)
    >>> len(keys), all(all(0 <= v < len(cat.values) for v in k) for k in keys)
    (6, True)
"""

from __future__ import annotations

import random
from typing import Sequence

from ..attention import Problem
from ..attention.clusterings import Clustering
from ..attention.enumerated import demands_of
from ..attention.options import Option, option_table
from ..reps import Rep
from .catalogue import DemandCatalogue

Key = tuple[int, ...]
TRIES = 8  # draws per key wanted at most (a clustering with few scenarios repeats its keys)


def random_maximal(bound: Rep, cap: int, rng: random.Random) -> Rep:
    """A maximal profile `a ≤ bound` with `dim a ≤ cap` (SPEC §4.1): a random amount of each
    irrep in a random order, then each irrep filled as far as the rest allows (in the same
    order), so that no irrep can be added.

        >>> from eqattn.attention import Problem
        >>> V = Problem.create("D4", "2xregular", 2, 2).V
        >>> a = random_maximal(V, 3, random.Random(0)); a.dim <= 3, a.dim >= 2
        (True, True)
    """
    dims = [int(x) for x in bound.irreps.dims]
    top = list(bound.mults)
    acc, rem = [0] * len(top), cap
    order = list(range(len(top)))
    rng.shuffle(order)
    for i in order:
        k = rng.randint(0, min(top[i], rem // dims[i]))
        acc[i] += k
        rem -= k * dims[i]
    for i in order:
        k = min(top[i] - acc[i], rem // dims[i])
        acc[i] += k
        rem -= k * dims[i]
    return Rep(bound.sub, tuple(acc))


def random_option(problem: Problem, orbit: tuple[int, int], rng: random.Random) -> Option:
    """One option of the orbit `(K, n)` (SPEC §4.3) from random maximal profiles a and b."""
    table = option_table(problem)
    K = problem.group.subgroup_classes[orbit[0]]
    VK = problem.restrict(K)
    a = random_maximal(VK, problem.head_dim, rng)
    b = random_maximal(VK, orbit[1] * problem.head_dim, rng)
    kb, c, P = table.image(K, a)  # (a = 0: K̄ = G, P = 0, the zero pool's option)
    return Option(orbit, a, b, kb, c, P, table.demand(K, b, kb, c))


def random_scenario(problem: Problem, c: Clustering, rng: random.Random, same: bool = False) -> tuple[Option, ...]:
    """One scenario of the clustering (SPEC §4.3): a random option per orbit, in
    `c.expanded()` order. `same`: one random option per orbit *type* `(K, n)`, taken by every
    orbit of that type (a scenario all the same: its demands repeat, and so ask one kind of
    design orbit for as many hosts as the clustering has orbits of the type; independent
    draws spread their demands over the design's types and seldom exhaust one).

        >>> from eqattn.attention import Problem
        >>> from eqattn.attention.clusterings import clusterings
        >>> p = Problem.create("C4", "2xregular", 4, 1)
        >>> c = next(c for c in clusterings(p) if len(c.expanded()) == 4 and len(set(c.expanded())) == 1)
        >>> len({(o.a, o.b) for o in random_scenario(p, c, random.Random(3), same=True)})
        1
    """
    if not same:
        return tuple(random_option(problem, o, rng) for o in c.expanded())
    pick: dict[tuple[int, int], Option] = {}
    for o in c.expanded():
        if o not in pick:
            pick[o] = random_option(problem, o, rng)
    return tuple(pick[o] for o in c.expanded())


def sampled_keys(problem: Problem, catalogue: DemandCatalogue, clusterings: Sequence[Clustering], count: int,
                 seed: int = 0, known: frozenset[Key] | set[Key] = frozenset()) -> list[Key]:
    """Up to `count` distinct keys (sorted demand ids, demands with D = 0 left out) of random
    scenarios of the clusterings, taken in turn, none of them in `known`."""
    rng = random.Random(seed)
    out: list[Key] = []
    seen = set(known)
    if not clusterings:
        return out
    for i in range(TRIES * count):
        if len(out) >= count:
            break
        c = clusterings[i % len(clusterings)]
        key = catalogue.key_of(demands_of(problem, random_scenario(problem, c, rng)))
        if key and key not in seen:
            seen.add(key)
            out.append(key)
    return out


__all__ = ["random_maximal", "random_option", "random_scenario", "sampled_keys"]
