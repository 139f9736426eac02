"""`eqattn serve`: run the web designer (eqattn.api) with uvicorn."""

from __future__ import annotations

import errno
import json
import socket

from ..errors import InputError

# After SIGTERM / Ctrl-C, requests still running get this long before they are cancelled
# (which kills their worker processes): the server exits within a few seconds, even mid-optimize.
GRACEFUL_S = 1
BACKLOG = 2048  # uvicorn's default listen backlog


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port, or InputError("host" / "port", why not).

    Binding here, before uvicorn starts, turns "address in use", "permission denied" and an
    unknown host into one line naming the option, instead of uvicorn's log lines and exit 3.

    >>> s = bind_socket("127.0.0.1", 0); s.getsockname()[0]; s.close()
    '127.0.0.1'
    """
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError, ValueError) as e:
        why = e.strerror if isinstance(e, socket.gaierror) else str(e)
        raise InputError("host", f"cannot resolve {host!r} ({why}); give an address of this machine such as "
                         f"127.0.0.1 or 0.0.0.0, or a name that resolves to one") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: restarts within TIME_WAIT
        sock.bind(addr)
        sock.listen(BACKLOG)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise InputError("port", f"{port} is already in use on {host}; stop what listens there or choose another --port") from None
        if e.errno == errno.EACCES:
            raise InputError("port", f"no permission to listen on port {port} (ports below 1024 need privileges); "
                             f"choose another --port") from None
        if e.errno == errno.EADDRNOTAVAIL:
            raise InputError("host", f"{host} is not an address of this machine; use 127.0.0.1, 0.0.0.0 or one "
                             f"of its own addresses") from None
        raise InputError("host", f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock


def serve(host: str = "127.0.0.1", port: int = 8000, allow_hosts: tuple[str, ...] = (), as_json: bool = False) -> None:
    """Serve the page and the JSON API on http://host:port/ until interrupted.

    The server answers only requests whose Host is a localhost name or one of `allow_hosts`.
    The socket is bound first (`bind_socket`), so a port in use or a bad host is one line."""
    sock = bind_socket(host, port)  # first: a port in use is one line, before any import

    import uvicorn

    from eqattn.api.app import create_app

    url = f"http://{host}:{port}/"
    if as_json:
        print(json.dumps({"url": url, "host": host, "port": port}), flush=True)
    else:
        print(f"eqattn designer on {url}  (Ctrl-C to stop)", flush=True)
    config = uvicorn.Config(
        create_app(allow_hosts=allow_hosts), host=host, port=port, log_level="info", timeout_graceful_shutdown=GRACEFUL_S
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
