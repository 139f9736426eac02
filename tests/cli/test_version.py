"""`eqattn --version` prints the package version (single-sourced in eqattn/__init__.py)."""

from __future__ import annotations

import pytest

import eqattn
from eqattn.cli.main import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0  # main() turns argparse's exit into its return code
    assert capsys.readouterr().out.strip() == f"eqattn {eqattn.__version__}"
