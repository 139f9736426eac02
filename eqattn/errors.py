"""User-facing errors: one clear line naming the field and what is allowed."""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input. `field` names the input, `message` says what is allowed."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class LimitError(InputError):
    """The request is valid but too large for interactive use; the message states the limit."""
