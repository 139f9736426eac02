"""`eqattn serve`: run the web designer (eqattn.api) with uvicorn."""

from __future__ import annotations


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the page and the JSON API on http://host:port/ until interrupted."""
    import uvicorn

    from eqattn.api.app import create_app

    print(f"eqattn designer on http://{host}:{port}/  (Ctrl-C to stop)", flush=True)
    uvicorn.run(create_app(), host=host, port=port, log_level="info")
