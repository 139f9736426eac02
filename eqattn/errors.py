"""User-facing errors: one clear line naming the field and what is allowed.

The conventions (README "Errors and exit codes"):

* ``InputError(field, message)``: a bad value (a ``ValueError``): ``heads: must be at least 1``.
* ``InputTypeError(field, message)``: an argument of the wrong Python type, e.g. a number where
  a group name is expected. It is both an ``InputError`` (the CLI and the API report it like any
  bad input) and a ``TypeError`` (what Python code conventionally catches for a wrong type).
* ``LimitError(field, message)``: valid, but larger than supported; the message states the limit.

`whole_number` is the one check of a whole-number argument (heads, counts, limits, workers),
strict for Python callers, and accepting text (``text=True``) where the value comes from a
command line or a form.

>>> e = InputTypeError("group", "a group name such as 'D4', got int")
>>> isinstance(e, TypeError) and isinstance(e, InputError), str(e)
(True, "group: a group name such as 'D4', got int")
"""

from __future__ import annotations

import numbers
from typing import Any


class InputError(ValueError):
    """Bad user input. `field` names the input, `message` says what is allowed."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across worker processes
        return (type(self), (self.field, self.message))


class InputTypeError(InputError, TypeError):
    """An argument of the wrong type: a ``TypeError`` that is also an ``InputError``."""


class LimitError(InputError):
    """The request is valid but too large for interactive use; the message states the limit."""


def short_repr(value: object) -> str:
    """`repr(value)`, at most 40 characters (a 5000-digit number stays one short line)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def whole_number(value: object, field: str, low: int = 1, high: int | None = None, *, text: bool = False) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (``high`` None: no upper end).

    A whole number is an ``int``, a numpy integer or any ``numbers.Integral`` but ``bool``; with
    ``text=True`` also its text (``"3"``, as the CLI reads it). Another type is an
    ``InputTypeError``, text that is no whole number an ``InputError``, a value below ``low`` an
    ``InputError`` and one above ``high`` a ``LimitError``; each names ``field`` and the range.

    >>> import numpy as np
    >>> whole_number(np.int64(2), "heads", 1, 64), whole_number(" 3", "heads", text=True)
    (2, 3)
    >>> whole_number("3", "heads", 1, 64)
    Traceback (most recent call last):
    eqattn.errors.InputTypeError: heads: must be a whole number from 1 to 64, got str '3'
    >>> whole_number(0, "heads", 1, 64)
    Traceback (most recent call last):
    eqattn.errors.InputError: heads: must be at least 1, got 0 (a whole number from 1 to 64)
    """
    allowed = f"from {low} to {high}" if high is not None else f">= {low}"
    if isinstance(value, str) and text:
        try:
            v = int(value.strip())
        except ValueError:
            raise InputError(field, f"must be a whole number {allowed}, got {short_repr(value)}") from None
    elif isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputTypeError(field, f"must be a whole number {allowed}, got {type(value).__name__} {short_repr(value)}")
    else:
        v = int(value)
    tail = "" if high is None else f" (a whole number {allowed})"
    if v < low:
        raise InputError(field, f"must be at least {low}, got {v}{tail}")
    if high is not None and v > high:
        raise LimitError(field, f"at most {high} is supported, got {v}{tail}")
    return v
