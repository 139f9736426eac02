"""A checkable design above an uncheckable one (docs/theory-scale.md O12).

The symbolic coverage checker needs the multisets of a design's distinct orbit types to be
few (`attention.dominance.MAX_MULTISETS`: `Π_t (n_t + 1)` over the types). A program's design
with many distinct types cannot be checked; `coarsen` replaces it by a design *above* it:
orbits whose `W` is replaced by a larger one (the join `W ∨ W'` of two types on one
subgroup) or restricted to a subgroup (`(K, W) → (K', W|K')`, `K' ≤ K`; two types on
subgroups that do not contain one another are both restricted to a subgroup inside both). Both keep every
hosting and do not lower any supply (theory-scale O12), so the coarse design covers every
clustering the original covers, and a counterexample scenario of the coarse design is one of
the original too.

    >>> from eqattn.attention import Design, Problem
    >>> p = Problem.create("C4", "2xregular", 2, 2)
    >>> d = Design.create(p, [("C2", "A"), ("C2", "B"), ("C4", "A")])
    >>> multisets(d), [(o.sub.name, str(o.W)) for o in coarsen(d, 6).orbits]  # (C4, A) -> (C2, A): +8 parameters
    (8, [('C2', 'B'), ('C2', 'A'), ('C2', 'A')])
    >>> [(o.sub.name, str(o.W)) for o in coarsen(d, 4).orbits]
    [('C2', 'A + B'), ('C2', 'A + B'), ('C2', 'A + B')]
"""

from __future__ import annotations

import math
from collections import Counter

from ..attention import Design, DesignOrbit
from ..reps import Rep


def multisets(design: Design) -> int:
    """`Π_t (n_t + 1)` over the distinct orbit types of the design."""
    return math.prod(c + 1 for c in Counter(o.key() for o in design.orbits).values())


def _join(a: Rep, b: Rep) -> Rep:
    return Rep(a.sub, tuple(max(x, y) for x, y in zip(a.mults, b.mults)))


def _below(small, big) -> bool:  # noqa: ANN001 - SubgroupClass
    """The representative of `small` lies in that of `big` (so W restricts literally)."""
    return bool(big.mask[small.elements].all())


def coarsen(design: Design, limit: int) -> Design | None:
    """A design above `design` with at most `limit` multisets of orbit types, by greedy
    merges of two types (least parameter increase first): on one subgroup by the join, else
    on the largest subgroup inside both (restricting both W). The orbits stay as many. None
    when the limit cannot be met (one type left)."""
    problem = design.problem
    types: dict[tuple[int, tuple[int, ...]], tuple[DesignOrbit, int]] = {}
    for o in design.orbits:
        k = o.key()
        types[k] = (o, types[k][1] + 1 if k in types else 1)
    items = list(types.values())
    subs = problem.group.subgroup_classes
    while math.prod(c + 1 for _, c in items) > limit:
        best = None
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                (o1, c1), (o2, c2) = items[i], items[j]
                if o1.sub.id == o2.sub.id:
                    merged = DesignOrbit(o1.sub, _join(o1.W, o2.W))
                elif _below(o2.sub, o1.sub):
                    merged = DesignOrbit(o2.sub, _join(o1.W.restrict(o2.sub), o2.W))
                elif _below(o1.sub, o2.sub):
                    merged = DesignOrbit(o1.sub, _join(o1.W, o2.W.restrict(o1.sub)))
                else:  # the largest subgroup (representative) inside both; the trivial one at worst
                    K = max((K for K in subs if _below(K, o1.sub) and _below(K, o2.sub)), key=lambda K: K.order)
                    merged = DesignOrbit(K, _join(o1.W.restrict(K), o2.W.restrict(K)))
                m = merged.params(problem)
                extra = c1 * (m - o1.params(problem)) + c2 * (m - o2.params(problem))
                if best is None or extra < best[0]:
                    best = (extra, i, j, merged)
        if best is None:
            return None
        _, i, j, merged = best
        c = items[i][1] + items[j][1]
        items = [it for k, it in enumerate(items) if k not in (i, j)]
        for k, (o, n) in enumerate(items):  # the merged type may equal a type already there
            if o.key() == merged.key():
                items[k] = (o, n + c)
                break
        else:
            items.append((merged, c))
    return Design(problem, tuple(o for o, c in items for _ in range(c)))
