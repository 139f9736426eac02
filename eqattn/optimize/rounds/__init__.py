"""The rounds of the symbolic search, as strategies over one `SearchState` (state.py), and
the driver that runs them (docs/theory-scale.md O6-O18).

A pass runs, in this order, every round that applies until one ends it:

- `Clock` (clock.py): the time and work limits; opens the pass;
- `SampledKeysRound` (sampled.py): random scenarios join S when no candidate is left (O22);
- `ScenarioBoundRound` (scenario_bound.py): the bound of single scenarios (O7);
- `CostCertificateRound` (certificate.py): infeasible when the bound exceeds what the cost
  cap of the compute limits allows (O19; again after the LP bound);
- `LimitsBoundRound` (limits_bound.py): infeasible when the LP bound in heads or in
  attention cost exceeds the head or cost limits (O19d);
- `FixedTypesRound` (fixed.py): reduced-cost fixing, the exact program's types (O13);
- `CappedTypesRound` (capped.py): every capped type, when few enough (O2);
- `PriceRound` (price.py): the LP bound by column generation (O10, O11);
- `RoundedRound`, `RepairRound`, `RoundedKeysRound` (rounded.py): the LP's design rounded
  up, repaired where it falls short, its counterexamples (O14, O18);
- `GeneratedTypesRound` (generated.py): a restricted type set (O10);
- `ProgramRound` (program.py): the program over the pass's table, its design checked.

A new kind of round is a class with `applies(state)` and `run(state) -> Outcome` placed in
`PIPELINE` (or in the list a caller passes to `drive`).
"""

from __future__ import annotations

from typing import Sequence

from .capped import CappedTypesRound
from .certificate import CostCertificateRound
from .clock import Clock
from .fixed import FixedTypesRound
from .limits_bound import LimitsBoundRound
from .generated import GeneratedTypesRound
from .price import PriceRound, lp_lower
from .program import ProgramRound
from .sampled import SampledKeysRound
from .rounded import RepairRound, RoundedKeysRound, RoundedRound
from .scenario_bound import ScenarioBoundRound
from .seed import plant_seed
from .state import AGAIN, NEXT, Outcome, Round, SearchResult, SearchState, done, lp_reserve, stop


def pipeline() -> tuple[Round, ...]:
    """The rounds of one pass, in order (module docstring)."""
    return (
        Clock(), SampledKeysRound(), ScenarioBoundRound(), CostCertificateRound(), LimitsBoundRound(), FixedTypesRound(), CappedTypesRound(), PriceRound(),
        CostCertificateRound(), RoundedRound(), RepairRound(), RoundedKeysRound(), GeneratedTypesRound(), ProgramRound(),
    )


def drive(state: SearchState, rounds: Sequence[Round]) -> SearchResult | None:
    """Passes of `rounds` until one is `done` (its result) or `stop`s the loop (None; the
    state's `stopped` says why)."""
    while True:
        out = NEXT
        for r in rounds:
            if r.applies(state):
                out = r.run(state)
                if out.action != "next":
                    break
        if out.action == "next":
            raise AssertionError("no round ended the pass")
        if out.action == "done":
            return out.result
        if out.action == "stop":
            if out.stopped is not None:
                state.stopped = out.stopped
            return None


__all__ = [
    "AGAIN", "NEXT", "Outcome", "Round", "SearchResult", "SearchState", "done", "drive", "lp_lower", "lp_reserve", "pipeline",
    "plant_seed", "stop", "CappedTypesRound", "Clock", "CostCertificateRound", "FixedTypesRound", "GeneratedTypesRound", "LimitsBoundRound", "PriceRound", "ProgramRound",
    "RepairRound", "RoundedKeysRound", "RoundedRound", "SampledKeysRound", "ScenarioBoundRound",
]
