"""Head types that earlier LP bounds of one call used, to start later ones from
(docs/theory-scale.md O11, "A start only seeds the master").

The LP bound of lp_bound.py is the LP optimum over every type within the compute limits,
reached by column generation from a start; the start only decides how many pricing rounds
it takes, never the value (the last round prices every subgroup). A type `(K', W)` does not
depend on the scenarios, so the types one LP's optimum used are a good start for the next
LP of the same kind over other keys: the searches of one partial-coverage call (each
clustering alone, partial_search.py) solve hundreds of such LPs. A kind is the LP's
objective, its price, its head row and its head-dim limit: a type from another kind could
lie outside the limits (making the master more feasible than the LP it stands for).

    >>> from eqattn.attention import Problem
    >>> pool = ColumnPool(size=2)
    >>> kind = lp_kind(Problem.create("C4", "E1", 2, 1), "heads", None, 32); kind
    ('heads', 'params', None, 32)
    >>> pool.add(kind, [(3, (1, 0)), (4, (0, 1))]); pool.add(kind, [(5, (1, 1))])
    >>> pool.start(kind), pool.start(("shortfall", "params", 8, 32))
    (((4, (0, 1)), (5, (1, 1))), ())
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from .lp_duals import Column

if TYPE_CHECKING:
    from ..attention import Problem

POOL_SIZE = 300  # types kept per kind (the most recent)

Kind = tuple  # (objective, price, heads row, head-dim limit)


def lp_kind(problem: "Problem", objective: str, heads_row: int | None, head_dim: int | None) -> Kind:
    """The kind of an LP bound of `lp_bound(problem, ..., heads_row, head_dim, objective=)`:
    what its types must share to start another (module docstring)."""
    return (objective, problem.price, heads_row, head_dim)


class ColumnPool:
    """The most recent types per LP kind (module docstring)."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self._cols: dict[Kind, dict[Column, None]] = {}

    def start(self, kind: Kind) -> tuple[Column, ...]:
        return tuple(self._cols.get(kind, ()))

    def add(self, kind: Kind, columns: Iterable[Column]) -> None:
        cols = self._cols.setdefault(kind, {})
        for c in columns:
            cols.pop(c, None)
            cols[c] = None
        while len(cols) > self.size:
            del cols[next(iter(cols))]


__all__ = ["ColumnPool", "POOL_SIZE", "lp_kind"]
