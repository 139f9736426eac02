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

from ..attention import Design


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

    def divided(self, k: int) -> "ComputeLimits":
        """The limits of the problem with H / k heads whose design repeated k times meets these."""
        return ComputeLimits(
            None if self.max_heads is None else self.max_heads // k, self.max_head_dim,
            None if self.max_cost is None else self.max_cost // k,
        )
