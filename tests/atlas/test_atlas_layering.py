"""eqattn.atlas sits above the optimiser and below the API and the CLI: it imports none of
eqattn.api, eqattn.torch, eqattn.cli (and dask / matplotlib / pyarrow only inside functions,
so `import eqattn.atlas` works without the extra)."""

import ast
import subprocess
import sys
from pathlib import Path

ATLAS = Path(__file__).resolve().parents[2] / "eqattn" / "atlas"
FORBIDDEN = ("eqattn.api", "eqattn.torch", "eqattn.cli")
EXTRA = ("dask", "distributed", "matplotlib", "pyarrow")


def imports(path: Path) -> list[tuple[str, bool]]:
    """(absolute module name, at module level) for every import of a module of eqattn/atlas."""
    tree = ast.parse(path.read_text())
    top = set(map(id, tree.body))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["eqattn", "atlas"][: 3 - node.level]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((name, id(node) in top))
    return out


def test_atlas_imports_only_lower_layers():
    files = sorted(ATLAS.glob("*.py"))
    assert {f.name for f in files} >= {"grid.py", "store.py", "execution.py", "progress.py", "report.py", "engine.py"}
    for f in files:
        for name, at_top in imports(f):
            assert not name.startswith(FORBIDDEN), f"{f.name} imports {name}"
            if name.split(".")[0] in EXTRA:
                assert not at_top, f"{f.name} imports the optional {name} at module level"


def test_import_without_the_extra():
    code = "import sys; [sys.modules.__setitem__(m, None) for m in ('dask', 'distributed', 'matplotlib', 'pyarrow')]; import eqattn.atlas"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
