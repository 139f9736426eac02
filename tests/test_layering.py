"""Imports go downward only (docs/contracts.md): every import of every module under eqattn/,
including imports inside functions, read with `ast`.

Ranks: errors 0, groups 1, reps 2, attention 3, numeric 4, optimize 5, atlas and torch 6
(not each other), api 7, cli 8. `eqattn/__init__.py` is a light facade: ranks <= 5 only.
A module may import its own layer, but the modules of one layer import each other without
cycles. Heavy third-party packages stay in their layer (torch in torch, FastAPI in api/cli).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "eqattn"
RANKS = {"errors": 0, "groups": 1, "reps": 2, "attention": 3, "numeric": 4, "optimize": 5, "atlas": 6, "torch": 6, "api": 7, "cli": 8}
FACADE_MAX = 5
THIRD_PARTY = {"torch": {"torch"}, "fastapi": {"api", "cli"}, "starlette": {"api", "cli"}, "pydantic": {"api", "cli"}, "uvicorn": {"api", "cli"}}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def layer(module: str) -> str | None:
    """The layer of an eqattn module (None: the facade `eqattn` itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def imports(module: str, source: str | None = None, is_package: bool | None = None) -> list[tuple[str, int]]:
    """(imported module, line) for every import in the module (anywhere in it), resolved to
    absolute names; `from X import y` yields X.y as well when that is a module."""
    if source is None:
        source = MODULES[module].read_text()
        is_package = MODULES[module].name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
            if node.module or len(subs) < len(node.names):  # `from . import sub` imports sub alone
                out.append((target, node.lineno))
            out += [(t, node.lineno) for t in subs]
    return out


def test_every_module_has_a_rank():
    assert {layer(m) for m in MODULES} - {None} <= set(RANKS), "a new top-level package needs a rank in this test"


def violations(module: str, source: str | None = None) -> list[str]:
    src = layer(module)
    bad = []
    for target, line in imports(module, source, False if source is not None else None):
        top = target.split(".")[0]
        if top in THIRD_PARTY and src not in THIRD_PARTY[top]:
            bad.append(f"line {line}: {target} (third-party {top} belongs to {sorted(THIRD_PARTY[top])})")
        if top != "eqattn" or target == "eqattn":
            continue
        dst = layer(target)
        if src is None:
            ok = RANKS[dst] <= FACADE_MAX
        else:
            ok = RANKS[dst] < RANKS[src] or dst == src
        if not ok:
            bad.append(f"line {line}: {target}")
    return bad


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down(module):
    bad = violations(module)
    assert not bad, f"{module} imports upward or sideways: " + "; ".join(bad)


@pytest.mark.parametrize(
    "module, source, found",
    [
        ("eqattn.attention.x", "def f():\n    from ..optimize import optimize\n", ["line 2: eqattn.optimize"]),
        ("eqattn.attention.x", "import eqattn.numeric.verify\n", ["line 1: eqattn.numeric.verify"]),
        ("eqattn.torch.x", "from eqattn.atlas import y\n", ["line 1: eqattn.atlas"]),
        ("eqattn.reps.x", "import torch\n", ["line 1: torch (third-party torch belongs to ['torch'])"]),
        ("eqattn.optimize.x", "from ..attention import Problem\nfrom . import solver\n", []),
    ],
)
def test_the_checker_itself(module, source, found):
    """Upward imports inside functions, sideways ones and misplaced third-party ones are found."""
    assert violations(module, source) == found
