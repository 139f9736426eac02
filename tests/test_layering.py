"""Imports go downward only (docs/contracts.md): every import of every module under eqattn/,
including imports inside functions, read with `ast`.

Ranks: errors and memo 0, groups 1, reps 2, attention 3, numeric 4, optimize 5, atlas, torch
and facade 6 (not each other), api 7, cli 8. `eqattn/__init__.py` is a light facade: ranks
<= 5 only, plus `eqattn.facade` (the Python API it re-exports lazily, which uses ranks <= 5).
A module may import its own layer, but the modules of one layer import each other without
cycles. Heavy third-party packages stay in their layer (torch in torch, FastAPI in api/cli).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "eqattn"
RANKS = {"errors": 0, "memo": 0, "groups": 1, "reps": 2, "attention": 3, "numeric": 4, "optimize": 5, "atlas": 6, "torch": 6, "facade": 6, "api": 7, "cli": 8}
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


def imports(module: str, source: str | None = None, is_package: bool | None = None, runtime: bool = False) -> list[tuple[str, int]]:
    """(imported module, line) for every import in the module (anywhere in it), resolved to
    absolute names; `from X import y` yields X.y as well when that is a module. With
    `runtime`, imports under `if TYPE_CHECKING:` (type names only) are left out."""
    if source is None:
        source = MODULES[module].read_text()
        is_package = MODULES[module].name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source)
    typing_only: set[int] = set()
    if runtime:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                typing_only |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    out = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
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
            ok = RANKS[dst] <= FACADE_MAX or dst == "facade"
        else:
            ok = RANKS[dst] < RANKS[src] or dst == src
        if not ok:
            bad.append(f"line {line}: {target}")
    return bad


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down(module):
    bad = violations(module)
    assert not bad, f"{module} imports upward or sideways: " + "; ".join(bad)


def test_no_cycles_within_a_layer():
    """Run-time imports only: type names under TYPE_CHECKING may refer both ways
    (a FiniteGroup has SubgroupClasses, a SubgroupClass has its FiniteGroup)."""
    graph = {m: {t for t, _ in imports(m, runtime=True) if t in MODULES and t != m and layer(t) == layer(m)} for m in MODULES}
    assert not cycles(graph), f"import cycles: {cycles(graph)}"


def test_the_cycle_finder_itself():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return found


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


# ----- nothing registered at import time, no module-level caches outside memo.py -------------
MUTATORS = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add", "discard", "remove", "__setitem__"}
CACHE_DECORATORS = {"lru_cache", "cache", "cached_property_module"}


def _imported_names(tree: ast.Module) -> set[str]:
    """Names a module binds by importing (its own names are the rest)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out |= {a.asname or a.name for a in node.names}
    return out


def _root(node: ast.AST) -> str | None:
    """The name an attribute or subscript chain starts from (`a` of `a.b[c].d`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _eqattn_names(tree: ast.Module) -> set[str]:
    """Names a module binds by importing from eqattn (relative or absolute imports)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "eqattn"):
            out |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] == "eqattn"}
    return out


def registrations(source: str) -> list[str]:
    """Module-level statements that change another eqattn module's state at import time: a
    call of an imported function or method as a statement (`register(x)`,
    `mod.table.update(...)`), or an assignment into an imported name (`mod.X = ...`,
    `TABLE[k] = v`)."""
    tree = ast.parse(source)
    imported = _eqattn_names(tree)
    bad = []
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            root = _root(node.value.func)
            if root in imported:
                bad.append(f"line {node.lineno}: call of imported {root}")
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, (ast.Attribute, ast.Subscript)) and _root(t) in imported:
                bad.append(f"line {node.lineno}: assignment into imported {_root(t)}")
    return bad


def module_caches(source: str) -> list[str]:
    """Module-level mutable containers that functions fill (a dict, list or set bound at
    module level and mutated inside a function, or named in a `global` statement), and
    functions memoised by a decorator (`functools.lru_cache`, `cache`)."""
    tree = ast.parse(source)
    containers = set()
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
            isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))
            and (value.func.id if isinstance(value.func, ast.Name) else value.func.attr) in {"dict", "list", "set", "OrderedDict", "defaultdict", "WeakValueDictionary", "WeakKeyDictionary"}
        )
        if mutable:
            containers |= {t.id for t in targets if isinstance(t, ast.Name)}
    bad = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for d in fn.decorator_list:
            name = d.func if isinstance(d, ast.Call) else d
            name = name.attr if isinstance(name, ast.Attribute) else name.id if isinstance(name, ast.Name) else ""
            if name in CACHE_DECORATORS:
                bad.append(f"line {fn.lineno}: {fn.name} memoised by @{name}")
        for node in ast.walk(fn):
            if isinstance(node, ast.Global):
                bad += [f"line {node.lineno}: global {n}" for n in node.names]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                if isinstance(node.func.value, ast.Name) and node.func.value.id in containers:
                    bad.append(f"line {node.lineno}: {node.func.value.id}.{node.func.attr}")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                for t in node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in containers:
                        bad.append(f"line {node.lineno}: {t.value.id}[...] written")
    return sorted(set(bad))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_nothing_registered_at_import_time(module):
    bad = registrations(MODULES[module].read_text())
    assert not bad, f"{module} changes another module's state at import time: " + "; ".join(bad)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "eqattn.memo"))
def test_no_module_level_caches(module):
    bad = module_caches(MODULES[module].read_text())
    assert not bad, f"{module} keeps module-level state (caches belong in eqattn.memo): " + "; ".join(bad)


# What the process keeps, as explicit owned objects bound at module level, and why each must
# be one per process. Anything else that memoises lives in a value's own memo.
OWNER_CLASSES = {"Memo", "GroupCatalog", "StandardGroups"}
PROCESS_OWNERS = {
    "eqattn.memo": {"PROCESS": "facts about the process itself (HiGHS's scheduler and banner)"},
    "eqattn.groups.finite_group": {"STANDARD": "the standard groups: one object per standard group, so that a "
                                   "subgroup's standard group is the catalog's (one set of irreps and labels)"},
    "eqattn.groups.catalog": {"CATALOG": "groups are values hashed by identity whose lattices and irreps live in "
                              "their memo: one spec must name one group object in the process"},
    "eqattn.api.work": {"_PROBLEMS": "the worker functions are top level (pickled into worker processes), so the "
                        "recent problems they reuse are their process's"},
}


def process_owners(source: str) -> set[str]:
    """Names bound at module level to an instance of a memoising owner (`OWNER_CLASSES`)."""
    out = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
            f = node.value.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in OWNER_CLASSES:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


@pytest.mark.parametrize("module", sorted(MODULES))
def test_process_owned_state_is_listed_with_its_reason(module):
    assert process_owners(MODULES[module].read_text()) == set(PROCESS_OWNERS.get(module, {})), (
        f"{module}: a module-level memo or owner is process state; list it in PROCESS_OWNERS with the reason, "
        "or keep it in a value's memo")


def test_the_owner_finder_itself():
    assert process_owners("from .memo import Memo\n_M = Memo(8)\nx = dict()\nCAT = catalog.GroupCatalog()\n") == {"_M", "CAT"}


@pytest.mark.parametrize(
    "source, found",
    [
        ("from .coverage import register\ndef f(): pass\nregister(f)\n", ["line 3: call of imported register"]),
        ("from . import coverage\ncoverage._ENGINES['s'] = 1\n", ["line 2: assignment into imported coverage"]),
        ("import logging\nlog = logging.getLogger('x')\n_MINE = {}\n_MINE['a'] = 1\n", []),
        ("import atexit\natexit.register(print)\n", []),  # (not eqattn's state)
    ],
)
def test_the_registration_finder_itself(source, found):
    assert registrations(source) == found


@pytest.mark.parametrize(
    "source, found",
    [
        ("_C = {}\ndef f(k):\n    if k not in _C:\n        _C[k] = k\n    return _C[k]\n", ["line 4: _C[...] written"]),
        ("_L: list = []\ndef f(x):\n    _L.append(x)\n", ["line 3: _L.append"]),
        ("from functools import lru_cache\n@lru_cache(None)\ndef f(x):\n    return x\n", ["line 3: f memoised by @lru_cache"]),
        ("_DONE = False\ndef f():\n    global _DONE\n    _DONE = True\n", ["line 3: global _DONE"]),
        ("TABLE = {'a': 1}\ndef f(k):\n    return TABLE[k]\n", []),
    ],
)
def test_the_cache_finder_itself(source, found):
    assert module_caches(source) == found


# ----- the checker's parts use each other's public names ------------------------------------
PRIVATE_CHECKED = ("eqattn.attention", "eqattn.groups")


def private_reaches(source: str) -> list[str]:
    """Uses of another object's or module's private names: `x._y` with x neither self, cls
    nor super(), and `from m import _y`."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            v = node.value
            own = (isinstance(v, ast.Name) and v.id in {"self", "cls"}) or (
                isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super")
            if not own:
                bad.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom):
            bad += [f"line {node.lineno}: import of {a.name}" for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    return bad


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith(PRIVATE_CHECKED)))
def test_no_reaching_into_privates(module):
    bad = private_reaches(MODULES[module].read_text())
    assert not bad, f"{module} uses another object's private names (give them a public, documented name): " + "; ".join(bad)


@pytest.mark.parametrize(
    "source, found",
    [
        ("def f(t):\n    return t._extended(1)\n", ["line 2: t._extended"]),
        ("def f(self):\n    return self.table._induced_irreps(1)\n", ["line 2: self.table._induced_irreps"]),
        ("from .hosting_sets import HostingSets, _minimal\n", ["line 1: import of _minimal"]),
        ("class A:\n    def f(self):\n        return self._x, cls._y, super()._z(), self.__class__\n", []),
    ],
)
def test_the_private_finder_itself(source, found):
    assert private_reaches(source) == found
