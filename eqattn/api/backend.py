"""The computations behind the API: thin calls into the core (docs/contracts.md).

The core is imported lazily inside each call, so the app imports (and serves its page)
even where a layer of the core is missing; the call then fails with a clear 500.
Tests may swap in another object with the same methods (see tests/api/fake_backend.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable


class _LRU:
    """A tiny thread-safe LRU cache for problems and groups (they are reused on every keystroke)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        value = make()  # exceptions propagate and nothing is cached
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)
        return value


def _mults(rep: Any) -> dict[str, int]:
    """Multiplicity per irrep label of a core `Rep` (eqattn.reps.Rep)."""
    return {str(lab): int(m) for lab, m in zip(rep.irreps.labels, rep.mults)}


class RealBackend:
    """Calls the real core. Every method runs in FastAPI's threadpool."""

    def __init__(self) -> None:
        self._problems = _LRU(64)

    # -- groups
    def catalog(self) -> list[dict]:
        from eqattn.groups import catalog_entries

        return catalog_entries()

    def group(self, name: str) -> dict:
        from eqattn.groups import get_group
        from eqattn.reps.group_views import group_json

        return group_json(get_group(name))

    # -- attention theory
    def problem(self, group: str, rep: str, heads: int, head_dim: int) -> Any:
        from eqattn.attention import Problem

        key = (group, rep, heads, head_dim)
        return self._problems.get(key, lambda: Problem.create(group, rep, heads, head_dim))

    def clusterings(self, group: str, rep: str, heads: int, head_dim: int) -> dict:
        from eqattn.attention import clusterings_report

        return clusterings_report(self.problem(group, rep, heads, head_dim))

    def _design(self, group: str, rep: str, heads: int, head_dim: int, orbits: list[tuple[int | str, str]]) -> tuple[Any, Any]:
        from eqattn.attention import Design

        problem = self.problem(group, rep, heads, head_dim)
        return problem, Design.create(problem, orbits)

    def design(self, group: str, rep: str, heads: int, head_dim: int, orbits: list[tuple[int | str, str]]) -> dict:
        problem, design = self._design(group, rep, heads, head_dim, orbits)
        return design_counts(problem, design)

    def coverage(self, group: str, rep: str, heads: int, head_dim: int, orbits: list[tuple[int | str, str]]) -> dict:
        from eqattn.attention import check_report

        problem, design = self._design(group, rep, heads, head_dim, orbits)
        return check_report(problem, design)


def design_counts(problem: Any, design: Any) -> dict:
    """The parameter counts of POST /api/design from the core's Problem and Design (SPEC §1, §3)."""
    orbits = [{**o.to_json(problem), "multiplicities": _mults(o.W)} for o in design.orbits]
    vanilla = int(problem.vanilla_params)
    params = sum(o["params"] for o in orbits)
    return {
        "group": str(problem.group.name),
        "dim_v": int(problem.dim_v),
        "heads": int(problem.heads),
        "head_dim": int(problem.head_dim),
        "vanilla_params": vanilla,
        "rep": {"text": str(problem.V), "dim": int(problem.dim_v), "multiplicities": _mults(problem.V)},
        "design_params": params,
        "design_heads": sum(o["heads"] for o in orbits),
        "ratio": (params / vanilla) if vanilla else None,
        "orbits": orbits,
    }
