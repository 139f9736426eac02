"""`eqattn serve`: run the web designer (eqattn.api) with uvicorn."""

from __future__ import annotations

# After SIGTERM / Ctrl-C, requests still running get this long before they are cancelled
# (which kills their worker processes): the server exits within a few seconds, even mid-optimize.
GRACEFUL_S = 1


def serve(host: str = "127.0.0.1", port: int = 8000, allow_hosts: tuple[str, ...] = ()) -> None:
    """Serve the page and the JSON API on http://host:port/ until interrupted.

    The server answers only requests whose Host is a localhost name or one of `allow_hosts`."""
    import uvicorn

    from eqattn.api.app import create_app

    print(f"eqattn designer on http://{host}:{port}/  (Ctrl-C to stop)", flush=True)
    config = uvicorn.Config(
        create_app(allow_hosts=allow_hosts), host=host, port=port, log_level="info", timeout_graceful_shutdown=GRACEFUL_S
    )
    uvicorn.Server(config).run()
