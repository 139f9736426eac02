"""The API reference builds from the docstrings without a warning (`make docs`)."""

from __future__ import annotations

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
