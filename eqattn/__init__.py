"""eqattn: design G-equivariant multi-head self-attention with few parameters.

Layers (imports only go downward; tests/test_layering.py): errors, memo -> groups -> reps ->
attention -> numeric -> optimize -> atlas / torch / facade -> api -> cli.
The mathematics is in SPEC.md (shared with the project); docstrings cite its sections.

The Python API (:mod:`eqattn.facade`) is available at the top level and loaded on first use,
so ``import eqattn`` imports nothing heavy (no numpy work, no torch, no fastapi)::

    G = eqattn.group("D4"); V = eqattn.rep(G, "2xregular")
    prob = eqattn.Problem(G, V, heads=2, head_dim=2)
    design = eqattn.optimal_design(prob, time_limit=30)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__", "group", "rep", "Problem", "Design", "optimal_design", "OptimalDesign", "NoDesign"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from .facade import Design, NoDesign, OptimalDesign, Problem, group, optimal_design, rep

_FACADE = frozenset({"group", "rep", "Problem", "Design", "optimal_design", "OptimalDesign", "NoDesign"})


def __getattr__(name: str) -> Any:
    if name in _FACADE:
        from . import facade

        return getattr(facade, name)
    raise AttributeError(f"module 'eqattn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _FACADE)
