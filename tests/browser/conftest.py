"""Browser test fixtures: a live uvicorn server on a free 127.0.0.1 port (in a thread),
Debian's Chromium driven by Playwright, and the screenshot folder artifacts/screenshots/.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 800}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def live_server():
    import uvicorn

    from eqattn.api.app import create_app

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 15
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} missing: run `make browser` (apt-get install chromium); browser tests are never skipped")
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()
    pw.stop()


def _context_page(browser, live_server, **context):  # noqa: ANN001, ANN003
    """A fresh page in its own context; after use, fails the test on any JavaScript error."""
    ctx = browser.new_context(base_url=live_server, **context)
    p = ctx.new_page()
    p.set_default_timeout(15000)
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture()
def page(browser, live_server):
    yield from _context_page(browser, live_server, viewport=VIEWPORT)


@pytest.fixture()
def phone(browser, live_server):
    """A phone-sized touch page (390x844), as in issue 12's narrow-screen checks."""
    yield from _context_page(
        browser, live_server, viewport={"width": 390, "height": 844}, device_scale_factor=1, is_mobile=True, has_touch=True
    )


@pytest.fixture(scope="session")
def shot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path))
        return path

    return take
