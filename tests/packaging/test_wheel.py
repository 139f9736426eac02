"""The wheel works on its own: built from this tree, installed in a bare venv with only its
declared dependencies (no test requirements), the CLI optimises and ``import eqattn`` stays light.

Versions are constrained to requirements-test.txt so pip reuses what ``make venv`` cached.
Takes ~30-60 s (venv + install of numpy/scipy/fastapi/highspy from the local pip cache).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import eqattn

ROOT = Path(__file__).resolve().parents[2]


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, **kw)  # type: ignore[call-overload]
    assert res.returncode == 0, f"{cmd} failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("wheel")
    # copy the tree so that the build never writes build/ or *.egg-info into the checkout
    src = tmp / "src"
    files = _run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT).stdout.split()
    for f in files:
        if (ROOT / f).is_file():
            (src / f).parent.mkdir(parents=True, exist_ok=True)
            (src / f).write_bytes((ROOT / f).read_bytes())
    dist = tmp / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(src)])
    (wheel,) = dist.glob("eqattn-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    py = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--disable-pip-version-check",
          "-c", str(ROOT / "requirements-test.txt"), str(wheel)])
    return wheel, venv


def test_wheel_contents(bare_venv: tuple[Path, Path]) -> None:
    wheel, _ = bare_venv
    names = zipfile.ZipFile(wheel).namelist()
    assert "eqattn/py.typed" in names
    assert any(n.startswith("eqattn/api/static/") for n in names)
    meta = next(n for n in names if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert f"Version: {eqattn.__version__}" in text
    requires = [line for line in text.splitlines() if line.startswith("Requires-Dist:")]
    base = [r for r in requires if "extra ==" not in r]
    assert any("highspy" in r for r in base), base  # the default solver is a runtime dependency
    assert not any("torch" in r for r in base), base  # torch is an extra
    for extra in ("torch", "escnn", "e3nn"):
        assert f"Provides-Extra: {extra}" in text


def test_bare_venv_cli_optimize(bare_venv: tuple[Path, Path]) -> None:
    _, venv = bare_venv
    site = _run([str(venv / "bin" / "python"), "-c", "import importlib.util as u; print([m for m in ('torch', 'pytest', 'hypothesis', 'httpx') if u.find_spec(m)])"])
    assert site.stdout.strip() == "[]", "test requirements leaked into the bare venv"
    out = _run([str(venv / "bin" / "eqattn"), "optimize", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--json"])
    data = json.loads(out.stdout)
    assert data["status"] == "optimal"
    assert data["design_params"] == 8
    version = _run([str(venv / "bin" / "eqattn"), "--version"])
    assert version.stdout.strip() == f"eqattn {eqattn.__version__}"


def test_bare_venv_import_is_light(bare_venv: tuple[Path, Path]) -> None:
    _, venv = bare_venv
    code = (
        "import sys, eqattn\n"
        "heavy = sorted(m for m in ('torch', 'fastapi', 'uvicorn', 'pydantic', 'highspy', 'scipy') if m in sys.modules)\n"
        "print(heavy)\n"
        "G = eqattn.group('C4'); P = eqattn.Problem(G, eqattn.rep(G, 'E1'), heads=2, head_dim=1)\n"
        "print(eqattn.optimal_design(P).params)\n"
        "try:\n"
        "    import eqattn.torch\n"
        "except ImportError as e:\n"
        "    print('torch-extra:', e)\n"
    )
    out = _run([str(venv / "bin" / "python"), "-c", code], cwd=str(venv))
    lines = out.stdout.splitlines()
    assert lines[0] == "[]", lines
    assert lines[1] == "8"
    assert "pip install 'eqattn[torch]'" in lines[2]
