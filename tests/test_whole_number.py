"""errors.whole_number: the one check of a whole-number argument, strict for Python callers
and accepting text (text=True) for the CLI; every caller reports the same words."""

from __future__ import annotations

import numpy as np
import pytest

import eqattn
from eqattn.attention import Problem as CoreProblem
from eqattn.errors import InputError, InputTypeError, LimitError, whole_number


@pytest.mark.parametrize("value, text, expected", [
    (3, False, 3), (np.int64(3), False, 3), (np.int32(64), False, 64), (" 7 ", True, 7), ("1", True, 1), (5, True, 5),
])
def test_whole_numbers_are_accepted(value, text, expected) -> None:  # noqa: ANN001
    got = whole_number(value, "heads", 1, 64, text=text)
    assert got == expected and type(got) is int


@pytest.mark.parametrize("value, text, error, words", [
    (True, False, InputTypeError, "must be a whole number from 1 to 64, got bool True"),
    (2.0, False, InputTypeError, "got float 2.0"),
    (None, True, InputTypeError, "got NoneType None"),
    ("3", False, InputTypeError, "got str '3'"),
    ("two", True, InputError, "must be a whole number from 1 to 64, got 'two'"),
    ("9" * 5000, True, InputError, "got '99999"),
    (0, False, InputError, "must be at least 1, got 0 (a whole number from 1 to 64)"),
    ("-3", True, InputError, "must be at least 1, got -3"),
    (65, False, LimitError, "at most 64 is supported, got 65"),
])
def test_other_values_name_the_field_and_the_range(value, text, error, words) -> None:  # noqa: ANN001
    with pytest.raises(error) as e:
        whole_number(value, "heads", 1, 64, text=text)
    assert type(e.value) is error and e.value.field == "heads" and words in e.value.message and len(e.value.message) < 120


def test_without_an_upper_end_and_from_zero() -> None:
    assert whole_number(10**9, "max_cost") == 10**9 and whole_number(0, "workers", 0) == 0
    with pytest.raises(InputError, match="at least 0"):
        whole_number(-1, "workers", 0)


def test_the_cli_path_and_the_python_api_say_the_same() -> None:
    """Problem.create (text, as the CLI reads it) and eqattn.Problem (strict) share the check."""
    G = eqattn.group("C4")
    V = eqattn.rep(G, "E1")
    with pytest.raises(InputError) as cli:
        CoreProblem.create("C4", "E1", "0", 1)
    with pytest.raises(InputError) as api:
        eqattn.Problem(G, V, 0, 1)
    assert str(cli.value) == str(api.value) == "heads: must be at least 1, got 0 (a whole number from 1 to 64)"
    assert CoreProblem.create("C4", "E1", "2", " 1").heads == 2
    with pytest.raises(InputTypeError):
        eqattn.Problem(G, V, "2", 1)
