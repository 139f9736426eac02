"""User-facing errors: one clear line naming the field and what is allowed.

The conventions (README "Errors and exit codes"):

* ``InputError(field, message)``: a bad value (a ``ValueError``): ``heads: must be at least 1``.
* ``InputTypeError(field, message)``: an argument of the wrong Python type, e.g. a number where
  a group name is expected. It is both an ``InputError`` (the CLI and the API report it like any
  bad input) and a ``TypeError`` (what Python code conventionally catches for a wrong type).
* ``LimitError(field, message)``: valid, but larger than supported; the message states the limit.

>>> e = InputTypeError("group", "a group name such as 'D4', got int")
>>> isinstance(e, TypeError) and isinstance(e, InputError), str(e)
(True, "group: a group name such as 'D4', got int")
"""

from __future__ import annotations

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
