"""The constrained-vanilla question from a design within the limits (H heads, head dim d):
is there a covering design of exactly H heads, every head of dimension exactly d? (SPEC §5.5)

Such a design exists exactly when a covering design with at most H heads and every head
dimension at most d does: pad each head space W to dimension d with the cheapest K-irreps
(`type_sets.min_fill`, as the enumerating engine's constrained types do) and add orbits
(G/G, dimension d) up to H heads. Coverage is monotone in the design (a larger head space
or an extra head can be zeroed: theory-scale Lemma B2), so the padded design covers whatever the
unpadded one covers; every design is re-checked by the coverage checker all the same.
The padded design costs at least as much as the unpadded one and is the cheapest
constrained-vanilla design when padding added nothing.

    >>> from eqattn.attention import Design, Problem
    >>> p = Problem.create("C4", "E1", 2, 2)
    >>> d = pad_to_vanilla(Design.create(p, [("C4", "E1")]))
    >>> d.heads, [o.head_dim for o in d.orbits]
    (2, [2, 2])
"""

from __future__ import annotations

from ..attention import Design, Problem
from ..attention.design import DesignOrbit
from ..reps import Rep
from .limits import ComputeLimits
from .result import ConstrainedResult
from .type_sets import min_fill


def vanilla_limits(problem: Problem) -> ComputeLimits:
    """At most H heads, every head dimension at most d."""
    return ComputeLimits(max_heads=problem.heads, max_head_dim=problem.head_dim)


def pad_to_vanilla(design: Design) -> Design:
    """`design` (at most H heads, head dims at most d) padded to exactly H heads of dimension d."""
    p = design.problem
    if not vanilla_limits(p).admits(design):
        raise ValueError("the design has more than H heads or a head wider than d")
    d = p.head_dim
    orbits = []
    for o in design.orbits:
        fill = min_fill(p, o.sub, d - o.head_dim)
        orbits.append(DesignOrbit(o.sub, Rep(o.sub, tuple(a + b for a, b in zip(o.W.mults, fill)))))
    top = p.group.subgroup_classes[-1]
    orbits.extend([DesignOrbit(top, Rep(top, min_fill(p, top, d)))] * (p.heads - design.heads))
    return Design(p, tuple(orbits))


def constrained_from(status: str, design: Design | None) -> ConstrainedResult:
    """The constrained-vanilla answer from the optimiser's answer within `vanilla_limits`:
    infeasible there is "no" (proven); a design is "yes", padded (`optimal` when the
    within-limits design was proven cheapest and padding added no parameters)."""
    if status == "infeasible":
        return ConstrainedResult(False, None, "infeasible")
    if design is None:
        return ConstrainedResult(None, None, "unknown")
    padded = pad_to_vanilla(design)
    proven = status == "optimal" and padded.params == design.params
    return ConstrainedResult(True, padded, "optimal" if proven else "feasible")
