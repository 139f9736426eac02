"""The API's one error model and the guards in front of every request.

Every 4xx/5xx answer is `{"field": str, "message": str}` (`ErrorOut`): `field` names the input
as the core does (`heads`, `orbits[2].rep`, `body`, `host`, `request`), `message` says what is
allowed, on one line. When a request has several invalid fields, `errors` lists them all (the
first is repeated in `field`/`message`). Routers declare it with `responses=ERRORS`.

Example: POST /api/clusterings with heads = 0 -> 422
`{"field": "heads", "message": "Input should be greater than or equal to 1", "errors": [...]}`.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import InputError
from .jobs import ClientDisconnected

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
}


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


def error_response(status: int, items: list[tuple[str, str]]) -> JSONResponse:
    field, message = items[0]
    body = {"field": field, "message": one_line(message), "errors": [{"field": f, "message": one_line(m)} for f, m in items]}
    return JSONResponse(body, status_code=status)


def _validation_message(e: dict) -> str:
    msg = str(e.get("msg", "invalid value"))
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if e.get("type") == "json_invalid":
        reason = (e.get("ctx") or {}).get("error", "")
        return f"not valid JSON ({reason})" if reason else "not valid JSON"
    return msg


def install_error_handlers(app: FastAPI) -> None:
    """Turn InputError, validation errors, HTTP errors and bugs into ErrorOut answers."""

    @app.exception_handler(InputError)
    async def _input_error(request: Request, exc: InputError) -> JSONResponse:
        return error_response(422, [(exc.field, exc.message)])

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        items = [(field_name(e.get("loc", ())), _validation_message(e)) for e in exc.errors()]
        return error_response(422, items or [("request", "invalid request")])

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        field = {404: "path", 405: "method", 413: "body", 400: "body"}.get(exc.status_code, "request")
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        return error_response(exc.status_code, [(field, detail)])

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
                host = v.decode("latin-1").strip().lower()
                break
        if host.startswith("["):
            name = host[: host.find("]") + 1] if "]" in host else host
        else:
            name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        return name in self.allowed

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

        await self.app(scope, capped, send)
