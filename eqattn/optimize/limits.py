"""Compute limits of a design (docs/theory-scale.md O2): at most `max_heads` heads Σ [G:K_i],
every head dimension dim W_i at most `max_head_dim`, attention cost Σ [G:K_i] dim W_i at
most `max_cost`.

    >>> from eqattn.attention import Design, Problem
    >>> d = Design.regular(Problem.create("C4", "E1", 2, 1))
    >>> d.heads, ComputeLimits(max_heads=8).admits(d), ComputeLimits(max_heads=7).admits(d), ComputeLimits(max_cost=1).admits(d)
    (8, True, False, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..attention import Design, Problem


def attention_cost(design: Design) -> int:
    """Σ_i [G:K_i] dim W_i: the heads times their dimension, the size of the attention
    computation (score and mixing work per token pair; the vanilla layer has H d).
    Example: the regular design (H orbits (C1, d trivial), d ≤ dim V) has cost |G| H d."""
    return sum(o.heads * o.head_dim for o in design.orbits)


@dataclass(frozen=True)
class ComputeLimits:
    """Upper limits on a design's heads, head dimensions and attention cost (None: none)."""

    max_heads: int | None = None
    max_head_dim: int | None = None
    max_cost: int | None = None

    @property
    def any(self) -> bool:
        return self.max_heads is not None or self.max_head_dim is not None or self.max_cost is not None

    def admits(self, design: Design) -> bool:
        """The design is within every limit."""
        return (
            (self.max_heads is None or design.heads <= self.max_heads)
            and (self.max_head_dim is None or all(o.head_dim <= self.max_head_dim for o in design.orbits))
            and (self.max_cost is None or attention_cost(design) <= self.max_cost)
        )

    def for_engines(self) -> "ComputeLimits":
        """The same limits with what `max_cost` implies made explicit: a design of attention
        cost at most C has at most C heads and no head wider than C (every head has
        dimension >= 1)."""
        c = self.max_cost
        if c is None:
            return self
        return ComputeLimits(min(self.max_heads or c, c), min(self.max_head_dim or c, c), c)

    def cost_cap(self, problem: Problem) -> int | None:
        """The largest attention cost a design within the limits can have: `max_cost`, and
        at most max_heads heads of dimension at most max_head_dim (or dim V: W <= V|K);
        None without a head or cost limit."""
        caps = []
        if self.max_cost is not None:
            caps.append(self.max_cost)
        if self.max_heads is not None:
            caps.append(self.max_heads * (self.max_head_dim if self.max_head_dim is not None else problem.dim_v))
        return min(caps) if caps else None

    def divided(self, k: int) -> "ComputeLimits":
        """The limits of the problem with H / k heads whose design repeated k times meets these."""
        return ComputeLimits(
            None if self.max_heads is None else self.max_heads // k, self.max_head_dim,
            None if self.max_cost is None else self.max_cost // k,
        )


def params_per_cost(problem: Problem) -> Fraction:
    """ρ = max over subgroup classes K and irreps τ in V|K of 4 m_τ(V|K) e_τ / ([G:K] dim τ):
    every design has at most ρ parameters per unit of attention cost (theory-scale O19),
    and for V = m × regular every design has exactly ρ = 4m (parameters = 4m × attention
    cost).

        >>> params_per_cost(Problem.create("D4", "3xregular", 2, 2)), params_per_cost(Problem.create("C4", "E1", 2, 1))
        (Fraction(12, 1), Fraction(4, 1))
    """
    return problem.cached(("params_per_cost", problem.price), lambda: _params_per_cost(problem))  # (a priced problem shares the memo)


def _params_per_cost(problem: Problem) -> Fraction:
    from ..reps import irreps_of

    best = Fraction(0)
    for K in problem.group.subgroup_classes:
        dims = irreps_of(K).dims
        for u, dim in zip(problem.unit_costs(K), dims):
            if u > 0:
                best = max(best, Fraction(4 * int(u), K.index * int(dim)))
    return best


def uniform_ratio(problem: Problem) -> Fraction | None:
    """ρ when every irrep of every V|K costs the same parameters per unit of attention cost
    (then every design has exactly ρ parameters per unit: V = m × regular gives ρ = 4m);
    None otherwise.

        >>> uniform_ratio(Problem.create("D4", "3xregular", 2, 2)), uniform_ratio(Problem.create("C4", "E1", 2, 1))
        (Fraction(12, 1), None)
    """
    from ..reps import irreps_of

    seen = set()
    for K in problem.group.subgroup_classes:
        for u, dim in zip(problem.unit_costs(K), irreps_of(K).dims):
            if u > 0:
                seen.add(Fraction(4 * int(u), K.index * int(dim)))
    return next(iter(seen)) if len(seen) == 1 else None


def cost_lower_bound(problem: Problem, params_lower: int) -> int:
    """The least attention cost of any design with at least `params_lower` parameters:
    ⌈params_lower / ρ⌉ (`params_per_cost`)."""
    rho = params_per_cost(problem)
    return -(-Fraction(params_lower) // rho) if rho > 0 else 0
