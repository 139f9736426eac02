"""The parity split along a direct factor of order 2 (docs/theory-scale.md O21).

When `G = A × Z` with `Z = {1, z}` central of order 2, `V = V₊ ⊕ V₋` splits into the parts
where `z` acts as `+1` and `−1`, each an `A`-representation. Lemma O21: every design `𝒟`
covering every clustering of `(G, V, H, d)` restricts to designs `𝒟₊`, `𝒟₋` covering every
clustering of `(A, V₊, H, d)` and `(A, V₋, H, d)` (`split_design`), with

    params(𝒟) = params(𝒟₊) + params(𝒟₋),   cost(𝒟) = cost(𝒟₊) + cost(𝒟₋),

and no more heads nor larger heads than `𝒟` in either part. So the fewest parameters of the
`G` problem (within any compute limits) are at least the sum of the two `A` problems'
(within the same limits), and when either `A` problem has no covering design within the
limits neither has the `G` problem. The split is a lower bound only: the union of two `A`
designs, lifted, has block-diagonal heads and in general misses the clusterings whose `QK`
matrices mix `V₊` and `V₋` (those of orbits `G/K` with `z ∉ K`).

Ih = A5 × C2 with `V = 4×regular`: `V₊ ≅ V₋ ≅ 4×regular` of A5, whose optimum (44544
parameters, proven in seconds) bounds Ih's by 89088 (Ih's optimum is 95744, theory-scale O21).

    >>> from eqattn.attention import Problem
    >>> p = Problem.create("C2", "A + 2xB", 1, 1)
    >>> s = parity_split(p)
    >>> s.A.name, str(s.plus.V), str(s.minus.V)
    ('C1', 'A', '2xA')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention import Design, Problem
from ..attention.assignment import Demand
from ..attention.design import DesignOrbit
from ..groups import SubgroupClass
from ..reps.rep import Rep, conjugate_character, decompose

PARITY_MIN_ORDER = 48  # groups of at least this order bound their search by the split's two searches ...
PARITY_SHARE = 0.4  # ... each of which gets this share of the time left
PARITY_LIFT = True  # ... and whose keys, lifted (Lemma O21d), join the search's (a switch for benchmarks/induced.py's baseline)


@dataclass(frozen=True)
class ParitySplit:
    """`G = A × {1, z}`: the complement `A` (a normal subgroup class of index 2 without `z`),
    the central involution `z`, and the problems `(A, V₊, H, d)`, `(A, V₋, H, d)` over `A`'s
    standard group (`A.std`, identified with `A` by `A.phi`); a part that is zero is None
    (its fewest parameters are 0)."""

    problem: Problem
    A: SubgroupClass
    z: int
    plus: Problem | None
    minus: Problem | None

    def parts(self) -> tuple[tuple[str, Problem], ...]:
        """The non-zero parts, named `+` and `−`."""
        return tuple((s, p) for s, p in (("+", self.plus), ("-", self.minus)) if p is not None)

    @property
    def same(self) -> bool:
        """The two parts are the same problem (`V₊ ≅ V₋`: V a multiple of the regular
        representation, for one): one search answers both."""
        return self.plus is not None and self.minus is not None and self.plus.V.mults == self.minus.V.mults


def parity_split(problem: Problem) -> ParitySplit | None:
    """The split of `problem` along a direct factor of order 2, or None when `G` has none
    (or is a compact group's stand-in, whose designs are read through its correspondence).
    `z` runs over the central involutions and `A` over the index-2 subgroups without `z`
    (then `G = A × ⟨z⟩`: both normal, meeting trivially, of orders multiplying to |G|); of
    these the `A` with the fewest conjugacy classes first, then the lattice's order, and the
    first such `z` (which one is a heuristic: every choice gives a valid bound).

        >>> from eqattn.attention import Problem
        >>> s = parity_split(Problem.create("Ih", "regular", 1, 1)); s.A.name, str(s.plus.V) == str(s.minus.V)
        ('A5', True)
        >>> parity_split(Problem.create("D4", "regular", 1, 1)) is None
        True
    """
    G = problem.group
    if G.compact is not None:
        return None
    classes = G.conjugacy_classes
    central = [int(c[0]) for c in classes if c.size == 1 and int(G.element_orders[int(c[0])]) == 2]
    if not central:
        return None
    options = [(len(A.std.conjugacy_classes), A.id, A, z) for A in G.subgroup_classes if A.index == 2 for z in central if not A.mask[z]]
    if not options:
        return None
    _, _, A, z = min(options, key=lambda o: o[:2])  # (the first z of the A with the fewest classes)
    chi = problem.V.character
    top = A.std.subgroup_classes[-1]
    here = chi[A.phi]
    there = chi[G.table[A.phi, z]]
    parts = []
    for sign in (1, -1):
        V = decompose(top, (here + sign * there) / 2)
        parts.append(None if V.dim == 0 else Problem(A.std, V, problem.heads, problem.head_dim, problem.price))
    return ParitySplit(problem, A, z, parts[0], parts[1])


def split_design(split: ParitySplit, design: Design) -> tuple[Design | None, Design | None]:
    """`(𝒟₊, 𝒟₋)` of Lemma O21: an orbit `(G/K, W)` with `z ∈ K` gives `(A/K∩A, W±)`, the
    parts of `W` where `z` is `±1`, with `[G:K]` heads each; one with `z ∉ K` gives
    `(A/K̃, W)` to both, `K̃` the image of `K` in `A` (`k ↦ k` or `kz`), on `V₋` twisted by
    the sign of that `z`, with `[G:K] / 2` heads each. Zero head spaces are left out; None
    for a zero part.

        >>> from eqattn.attention import Problem, Design
        >>> p = Problem.create("C2", "A + B", 1, 1)
        >>> s = parity_split(p)
        >>> [[(o.sub.name, str(o.W)) for o in d.orbits] for d in split_design(s, Design.regular(p))]  # (one head each)
        [[('C1', 'A')], [('C1', 'A')]]
    """
    G, A, z = split.problem.group, split.A, split.z
    S = A.std
    out: dict[str, list[DesignOrbit]] = {"+": [], "-": []}
    for o in design.orbits:
        K = o.sub.elements
        chi_w = np.zeros(G.order)
        chi_w[K] = o.W.character[K]
        if o.sub.mask[z]:
            base = K[A.mask[K]]
            pieces = {"+": (chi_w[base] + chi_w[G.table[base, z]]) / 2, "-": (chi_w[base] - chi_w[G.table[base, z]]) / 2}
        else:
            lifted = np.where(A.mask[K], K, G.table[K, z])  # k, or kz: the element of A below k
            order = np.argsort(lifted)
            base = lifted[order]
            sign = np.where(A.mask[K], 1.0, -1.0)[order]
            pieces = {"+": chi_w[K][order], "-": sign * chi_w[K][order]}
        L = A.phi_inv[base]
        Ksub, x = S.lattice.locate(L)
        for part, vals in pieces.items():
            if (split.plus if part == "+" else split.minus) is None:
                continue
            chi = np.zeros(S.order)
            chi[L] = vals
            W = decompose(Ksub, conjugate_character(S, chi, x))
            if W.dim:
                out[part].append(DesignOrbit(Ksub, W))
    return (
        None if split.plus is None else Design(split.plus, tuple(out["+"])),
        None if split.minus is None else Design(split.minus, tuple(out["-"])),
    )


def lift_rep(split: ParitySplit, sign: str, rep: Rep) -> Rep:
    """A representation `U` of a subgroup `K̃` of `A` (`A.std`) as the representation of
    `K̃ × Z` in `G` where `z` acts as `±1` (`sign`): Lemma O21d's inflation.

        >>> from eqattn.attention import Problem
        >>> s = parity_split(Problem.create("C2", "A + 2xB", 1, 1))
        >>> top = s.A.std.subgroup_classes[-1]
        >>> str(lift_rep(s, "-", Rep(top, (2,)))), str(lift_rep(s, "+", Rep(top, (1,))))
        ('2xB', 'A')
    """
    return _lifted(split, sign, rep)[0]


def _lifted(split: ParitySplit, sign: str, *reps: Rep) -> tuple[Rep, ...]:
    """`lift_rep` of representations of one subgroup `K̃`, its class in `G` located once."""
    G, A, z = split.problem.group, split.A, split.z
    kt = reps[0].sub.elements  # K̃ in A's standard group
    base = A.phi[kt]
    above = G.table[base, z]
    K, x = G.lattice.locate(np.concatenate([base, above]))
    out = []
    for rep in reps:
        chi = np.zeros(G.order)
        chi[base] = rep.character[kt]
        chi[above] = (1.0 if sign == "+" else -1.0) * rep.character[kt]
        out.append(decompose(K, conjugate_character(G, chi, x)))
    return tuple(out)


def lift_demand(split: ParitySplit, sign: str, demand: Demand) -> Demand:
    """The demand of `(G, V, H, d)` that a demand `(K̄, P, D)` of the part `sign` becomes on
    the inflated clustering (Lemma O21d): `K̄ × Z`, with `P` and `D` extended by `z ↦ ±1`.
    Every design covering every clustering of `G` meets the lifted scenario keys.

        >>> from eqattn.attention import Problem
        >>> from eqattn.attention.assignment import Demand
        >>> from eqattn.reps.rep import Rep
        >>> s = parity_split(Problem.create("C2", "A + 2xB", 1, 1))
        >>> top = s.A.std.subgroup_classes[-1]
        >>> d = lift_demand(s, "-", Demand(top.id, Rep(top, (1,)), Rep(top, (2,)), (), False))
        >>> d.kbar == s.problem.group.subgroup_classes[-1].id, str(d.P), str(d.D)
        (True, 'B', '2xB')
    """
    P, D = _lifted(split, sign, demand.P, demand.D)
    return Demand(D.sub.id, P, D, (), demand.pool)
