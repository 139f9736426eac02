"""The demand catalogue: the demand values met so far, interned, and scenario keys (sorted
demand ids) over them (SPEC §4.5; docs/theory-scale.md O6). Both engines intern through it
(the enumerating one in `separation.ScenarioSpace`, the symbolic one from counterexamples);
the program, the type tables and the bounds read demands by id from `values`.

    >>> from eqattn.attention import Problem
    >>> from eqattn.attention.assignment import Demand
    >>> cat = DemandCatalogue(Problem.create("C2", "A + B", 1, 1))
    >>> cat.values
    []
"""

from __future__ import annotations

from ..attention import Problem
from ..attention.assignment import Demand
from ..attention.coverage import ScenarioResult


class DemandCatalogue:
    """Demand values by id, each once (keyed by `Demand.value()`)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.values: list[Demand] = []
        self._ids: dict[tuple, int] = {}

    def intern(self, d: Demand) -> int:
        """The id of `d`'s value (a new id the first time; the stored demand has no witness)."""
        k = d.value()
        i = self._ids.get(k)
        if i is None:
            i = len(self.values)
            self._ids[k] = i
            self.values.append(Demand(d.kbar, d.P, d.D, (), d.pool))
        return i

    def id_of(self, d: Demand) -> int:
        """The id of a demand value met before (KeyError otherwise)."""
        return self._ids[d.value()]

    def key(self, result: ScenarioResult) -> tuple[int, ...]:
        """The scenario key of a counterexample (`key_of` its demands)."""
        return self.key_of(result.demands)

    def key_of(self, demands) -> tuple[int, ...]:  # noqa: ANN001 - Iterable[Demand]
        """The scenario key (sorted demand ids) of a scenario's demands; demands with D = 0
        need no host (SPEC §4.5) and are left out."""
        return tuple(sorted(self.intern(d) for d in demands if any(d.D.mults)))
