"""Every docstring example in the package runs and prints what it says (STYLE: docstrings
carry a runnable example). One test per module, so a broken example names its module."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import eqattn

# Modules whose examples need escnn (numpy<2, its own venv): tests/torch/escnn_checks.py runs
# their doctests in .venv-escnn and tests/torch/test_interop.py asserts none failed.
IN_ESCNN_VENV = ("eqattn.torch.interop",)
ALL_MODULES = sorted(m.name for m in pkgutil.walk_packages(eqattn.__path__, "eqattn.") if not m.name.endswith("__main__"))
MODULES = [m for m in ALL_MODULES if m not in IN_ESCNN_VENV]


def test_the_escnn_modules_exist():
    assert set(IN_ESCNN_VENV) <= set(ALL_MODULES)


def test_the_walk_finds_the_layers():
    for layer in ("groups", "reps", "attention", "numeric", "optimize", "torch", "api", "cli"):
        assert any(m.startswith(f"eqattn.{layer}.") for m in MODULES), layer


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS, verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (printed above)"
