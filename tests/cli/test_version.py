"""`eqattn --version` prints the package version (single-sourced in eqattn/__init__.py)."""

from __future__ import annotations

import pytest

import eqattn
from eqattn.cli.main import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"eqattn {eqattn.__version__}"
