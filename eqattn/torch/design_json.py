"""Designs from JSON: what ``eqattn check --json`` / ``eqattn optimize --json`` print."""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["design_from_json"]


def design_from_json(obj: Any) -> tuple[Any, int | None]:
    """``(design, stated parameter count or None)`` from a design JSON (see ``from_json``):
    the problem from the top-level keys, the orbits by ``Design.from_json`` (an orbit's optional
    ``"count": k`` repeats it)."""
    from eqattn.attention import Design, Problem

    data = _load_json(obj)
    missing = [k for k in ("group", "rep", "heads", "head_dim") if k not in data]
    if missing:
        raise ValueError(f"design JSON lacks the top-level key(s) {missing}")
    design_obj = data.get("design") if isinstance(data.get("design"), dict) else data
    orbits = design_obj.get("orbits")
    if not isinstance(orbits, list):
        raise ValueError('design JSON has neither "design": {"orbits": [...]} nor "orbits": [...]')
    problem = Problem.create(data["group"], data["rep"], data["heads"], data["head_dim"])
    design = Design.from_json(problem, {"orbits": orbits})  # checks every "count" before expanding
    return design, design_obj.get("params", data.get("design_params"))


def _load_json(obj: Any) -> dict:
    if isinstance(obj, dict):
        return obj
    if isinstance(obj, (bytes, bytearray)):
        obj = obj.decode()
    if isinstance(obj, str) and obj.lstrip().startswith("{"):
        return json.loads(obj)
    if isinstance(obj, (str, os.PathLike)):
        with open(obj, encoding="utf-8") as fh:
            return json.load(fh)
    raise TypeError(f"expected a dict, a JSON string or a path, got {type(obj).__name__}")
