"""Plain-word messages for request validation errors: which field, and what the API's own
schema allows there, instead of the validator's wording.

The allowed values are read from the app's OpenAPI schema (the one source of the request
models' types and bounds), so a message cannot drift from the schema:

    >>> plain_message({"type": "int_type", "loc": ("body", "heads"), "input": True},
    ...               {"type": "integer", "minimum": 1, "maximum": 512})
    'must be a whole number from 1 to 512, got true'
    >>> plain_message({"type": "greater_than", "loc": ("body", "time_limit"), "input": 0},
    ...               {"anyOf": [{"type": "number", "maximum": 300.0, "exclusiveMinimum": 0.0}, {"type": "null"}]})
    'must be a number > 0 and <= 300 (or null: the default), got 0'
    >>> plain_message({"type": "string_too_short", "loc": ("body", "rep"), "input": ""},
    ...               {"type": "string", "minLength": 1, "maxLength": 2000})
    'must not be empty; give text of 1 to 2000 characters'
"""

from __future__ import annotations

import json
from typing import Any

KINDS = {"integer": "a whole number", "number": "a number", "string": "text", "boolean": "true or false",
         "array": "a list", "object": "a JSON object"}


def shown(value: Any, limit: int = 40) -> str:
    """The input as JSON (what the client sent), shortened."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _bounds(s: dict[str, Any]) -> str:
    lo, hi = s.get("minimum"), s.get("maximum")
    xlo, xhi = s.get("exclusiveMinimum"), s.get("exclusiveMaximum")
    if lo is not None and hi is not None:
        return f" from {_num(lo)} to {_num(hi)}"
    parts = [f"{op} {_num(v)}" for op, v in ((">=", lo), (">", xlo), ("<=", hi), ("<", xhi)) if v is not None]
    return (" " + " and ".join(parts)) if parts else ""


def allowed(schema: dict[str, Any] | None) -> str:
    """What a JSON schema allows, in words: 'a whole number from 1 to 512', 'text of 1 to 2000 characters'."""
    if not schema:
        return "a value of the documented type (see /docs)"
    options = [o for o in schema.get("anyOf", []) if o.get("type") != "null"]
    nullable = len(options) < len(schema.get("anyOf", []))
    if options:
        text = " or ".join(allowed(o) for o in options)
        return text + (" (or null: the default)" if nullable else "")
    if "enum" in schema:
        return "one of " + ", ".join(shown(v) for v in schema["enum"])
    kind = schema.get("type")
    out = KINDS.get(kind, "a value of the documented type (see /docs)")
    if kind in ("integer", "number"):
        out += _bounds(schema)
    elif kind == "string":
        lo, hi = schema.get("minLength"), schema.get("maxLength")
        if lo is not None and hi is not None:
            out += f" of {lo} to {hi} characters"
        elif lo is not None:
            out += f" of at least {lo} characters"
        elif hi is not None:
            out += f" of at most {hi} characters"
    elif kind == "array" and schema.get("maxItems") is not None:
        out += f" of at most {schema['maxItems']} items"
    return out


def plain_message(error: dict[str, Any], schema: dict[str, Any] | None, fields: list[str] | None = None) -> str:
    """One validation error in plain words; `schema` is the JSON schema of the field (or None),
    `fields` the names the enclosing object allows (for an unknown field)."""
    kind = str(error.get("type", ""))
    got = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "json_invalid":
        reason = ctx.get("error", "")
        return f"not valid JSON ({reason})" if reason else "not valid JSON"
    if kind == "missing":
        return f"is required; give {allowed(schema)}"
    if kind == "extra_forbidden":
        names = ", ".join(fields or [])
        return "is not a field of this request" + (f"; the fields are {names}" if names else "")
    if kind == "value_error":
        msg = str(error.get("msg", "invalid value"))
        return msg[len("Value error, "):] if msg.startswith("Value error, ") else msg
    if kind == "string_too_short" and (schema or {}).get("minLength") == 1:
        return f"must not be empty; give {allowed(schema)}"
    if kind in ("too_long", "too_short", "string_too_long", "string_too_short"):
        size = len(got) if isinstance(got, (str, list, dict)) else None
        unit = "characters" if kind.startswith("string") else "items"
        bound = ctx.get("max_length") if kind.endswith("long") else ctx.get("min_length")
        word = "at most" if kind.endswith("long") else "at least"
        head = f"is too {'long' if kind.endswith('long') else 'short'}: {word} {bound} {unit}" if bound is not None else f"must be {allowed(schema)}"
        return head + (f", got {size}" if size is not None else "")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        names = ", ".join(fields or [])
        return "must be a JSON object" + (f" with the fields {names}" if names else "") + f", got {shown(got)}"
    return f"must be {allowed(schema)}, got {shown(got)}"
