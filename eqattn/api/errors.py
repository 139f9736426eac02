"""The API's one error model and the guards in front of every request.

Every 4xx/5xx answer is `{"field": str, "message": str}` (`ErrorOut`): `field` names the input
as the core does (`heads`, `orbits[2].rep`, `body`, `host`, `request`), `message` says what is
allowed, on one line. When a request has several invalid fields, `errors` lists them all (the
first is repeated in `field`/`message`). Routers declare it with `responses=ERRORS`.

Validation messages say what the API's own schema allows there (eqattn.api.messages), e.g.
POST /api/clusterings with heads = 0 -> 422
`{"field": "heads", "message": "must be a whole number from 1 to 512, got 0", "errors": [...]}`.
A request still running when the server shuts down gets 503 on `server` (never a bare 500).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import InputError
from .jobs import ClientDisconnected
from .messages import plain_message

log = logging.getLogger("eqattn.api")

MAX_BODY_BYTES = 1 << 20  # request bodies above 1 MiB are refused with 413
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]", "testserver")  # testserver: Starlette's in-process client


class ErrorItem(BaseModel):
    field: str = Field(description="the input, e.g. heads or orbits[2].rep")
    message: str = Field(description="what is wrong and what is allowed (one line)")


class ErrorOut(ErrorItem):
    """Every 4xx/5xx answer."""

    errors: list[ErrorItem] = Field(default_factory=list, description="every invalid field, when several")


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "unreadable request (e.g. a body that is not UTF-8) or a Host not served"},
    413: {"model": ErrorOut, "description": f"request body larger than {MAX_BODY_BYTES} bytes"},
    422: {"model": ErrorOut, "description": "bad input, a problem too large, or a time / memory limit reached"},
    500: {"model": ErrorOut, "description": "a bug (logged with its traceback)"},
    503: {"model": ErrorOut, "description": "the server shut down while the request ran (its computation was stopped)"},
}
SHUTDOWN_MESSAGE = "the server is shutting down; the computation was stopped; send the request again when it is back"
_PORT = re.compile(r"^(?::\d{1,5})?$")


def one_line(text: object, limit: int = 300) -> str:
    return " ".join(str(text).split())[:limit]


def field_name(loc: list[Any] | tuple[Any, ...]) -> str:
    """`["body", "orbits", 2, "rep"]` -> `orbits[2].rep` (the core's way of naming inputs)."""
    parts = list(loc)
    where = parts[0] if parts and parts[0] in ("body", "query", "path") else None
    if where is not None:
        parts = parts[1:]
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    if out.startswith("["):  # a position inside the raw body (malformed JSON)
        return "body"
    return out or (where if where == "body" else "request")


def host_name(host: str) -> str | None:
    """The name of a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`), lower case; None
    when it is not of that form (`localhost:1@evil.com`, `[::1]evil`)."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        name, rest = (host[: end + 1], host[end + 1 :]) if end > 0 else ("", "x")
    else:
        name, _, port = host.partition(":")
        rest = ":" + port if _ else ""
        if not re.fullmatch(r"[a-z0-9._-]*", name):
            return None
    return name if _PORT.match(rest) else None


def error_response(status: int, items: list[tuple[str, str]]) -> JSONResponse:
    field, message = items[0]
    body = {"field": field, "message": one_line(message), "errors": [{"field": f, "message": one_line(m)} for f, m in items]}
    return JSONResponse(body, status_code=status)


def _resolve(spec: dict[str, Any], schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """Follow a `$ref` of the OpenAPI document (and a lone allOf / anyOf-with-null wrapper)."""
    for _ in range(8):
        if not isinstance(schema, dict):
            return None
        if "$ref" in schema:
            schema = spec.get("components", {}).get("schemas", {}).get(schema["$ref"].rsplit("/", 1)[-1])
            continue
        options = [o for o in schema.get("anyOf", []) if o.get("type") != "null"]
        if len(options) == 1 and ("$ref" in options[0] or "properties" in options[0]):
            schema = options[0]
            continue
        return schema
    return None


def field_schema(spec: dict[str, Any], method: str, path: str, loc: list[Any] | tuple[Any, ...]) -> tuple[dict | None, list[str]]:
    """The OpenAPI schema of the input at `loc` (a validation error's location) and the field
    names of the object holding it: what the message says is allowed."""
    op = spec.get("paths", {}).get(path, {}).get(method.lower(), {})
    parts = list(loc)
    if not parts:
        return None, []
    where, parts = parts[0], parts[1:]
    if where == "query":
        params = [p for p in op.get("parameters", []) if p.get("in") == "query"]
        names = [p["name"] for p in params]
        hit = next((p for p in params if parts and p["name"] == parts[0]), None)
        return (hit or {}).get("schema"), names
    if where != "body":
        return None, []
    schema = _resolve(spec, op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema"))
    names = list((schema or {}).get("properties", {}))
    for part in parts:
        if schema is None:
            break
        if isinstance(part, int):
            schema = _resolve(spec, schema.get("items"))
            continue
        props = schema.get("properties", {})
        names = list(props)
        if part not in props:
            return None, names  # an unknown field
        schema = _resolve(spec, props[part])
    return schema, names


def _validation_message(request: Request, e: dict) -> str:
    try:
        spec = request.app.openapi()
    except Exception:  # noqa: BLE001 - the message is still useful without the schema
        spec = {}
    loc = [p for p in e.get("loc", ()) if p not in ("int", "str")]
    schema, names = field_schema(spec, request.method, request.url.path, loc)
    if schema is not None and "properties" in schema:
        names = list(schema["properties"])
    return plain_message(e, schema, names)


def install_error_handlers(app: FastAPI) -> None:
    """Turn InputError, validation errors, HTTP errors and bugs into ErrorOut answers."""

    @app.exception_handler(InputError)
    async def _input_error(request: Request, exc: InputError) -> JSONResponse:
        return error_response(422, [(exc.field, exc.message)])

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        items: list[tuple[str, str]] = []
        for e in exc.errors():
            loc = [p for p in e.get("loc", ()) if p not in ("int", "str")]  # union branches: one error per field
            item = (field_name(loc), _validation_message(request, e))
            if not any(f == item[0] for f, _ in items):
                items.append(item)
        return error_response(422, items or [("request", "invalid request")])

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        field = {404: "path", 405: "method", 413: "body", 400: "body"}.get(exc.status_code, "request")
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 405 and exc.headers and "Allow" in exc.headers:
            detail = f"{request.method} is not allowed here; allowed: {exc.headers['Allow']}"
        out = error_response(exc.status_code, [(field, detail)])
        out.headers.update(exc.headers or {})  # 405's Allow
        return out

    @app.exception_handler(ClientDisconnected)
    async def _gone(request: Request, exc: ClientDisconnected) -> JSONResponse:
        log.info("client left %s %s: its computation was stopped", request.method, request.url.path)
        return error_response(499, [("request", "the client closed the request; its computation was stopped")])

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error in %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(500, [("server", f"internal error: {type(exc).__name__}: {exc}")])


class BodyTooLarge(HTTPException):
    def __init__(self) -> None:
        super().__init__(413, f"the request body is larger than {MAX_BODY_BYTES} bytes")


class RequestGuard:
    """ASGI middleware: a Host allow-list (against DNS rebinding; what Starlette's
    TrustedHostMiddleware does, answering in the error model) and a body size cap (413 from
    Content-Length before reading, or as soon as a streamed body passes the cap)."""

    def __init__(self, app: ASGIApp, allowed_hosts: tuple[str, ...] = LOCAL_HOSTS, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed_hosts}
        self.max_body = max_body

    def _host_ok(self, scope: Scope) -> bool:
        if "*" in self.allowed:
            return True
        host = ""
        for k, v in scope.get("headers", []):
            if k == b"host":
                host = v.decode("latin-1")
                break
        name = host_name(host)
        return name is not None and name in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self._host_ok(scope):
            await error_response(400, [("host", "this server answers only to the host names " + ", ".join(sorted(self.allowed))
                                        + " (start it with --allow-host NAME to add one)")])(scope, receive, send)
            return
        length = next((v for k, v in scope.get("headers", []) if k == b"content-length"), None)
        if length is not None:
            try:
                too_big = int(length) > self.max_body
            except ValueError:
                too_big = False
            if too_big:
                await error_response(413, [("body", f"the request body is larger than {self.max_body} bytes")])(scope, receive, send)
                return
        seen = 0

        async def capped() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise BodyTooLarge()
            return message

        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, capped, tracked)
        except asyncio.CancelledError:
            # the server shuts down (uvicorn cancels what outlives its graceful period): the
            # worker is already killed (jobs.py); the client gets the error model, not a bare 500
            log.info("shutdown stopped %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            await error_response(503, [("server", SHUTDOWN_MESSAGE)])(scope, receive, send)
