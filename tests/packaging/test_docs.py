"""The API reference builds from the docstrings without a warning (`make docs`)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mkdocs_builds_strict(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).with_name("mkdocs")
    res = subprocess.run([str(mkdocs), "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "WARNING" not in res.stderr, res.stderr[-3000:]
    api = (tmp_path / "site" / "reference" / "torch" / "index.html").read_text(encoding="utf-8")
    # the reference is generated from the docstrings
    assert "EquivariantMultiheadAttention" in api and "key_padding_mask" in api
    assert "from_escnn" in api and "from_e3nn" in api
    assert "optimal_design" in (tmp_path / "site" / "reference" / "eqattn" / "index.html").read_text(encoding="utf-8")


def test_sources_name_no_issue_numbers() -> None:
    """What the code does and why lives in its comments; which issue asked for it lives in the
    commit messages. No file of the package (Python, the page's JS, HTML and CSS) cites an issue."""
    root = Path(__file__).resolve().parents[2] / "eqattn"
    pattern = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)
    hits = [f"{p.relative_to(root)}:{n}" for p in sorted(root.rglob("*")) if p.suffix in {".py", ".js", ".html", ".css"}
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not hits, hits
