"""First paint and time-to-ready of the designer page in Debian's Chromium (issue 12).

    .venv/bin/python benchmarks/page_paint.py [--runs 5]

Serves the app with uvicorn on a free 127.0.0.1 port, opens the page `--runs` times in fresh
browser contexts and reports, as medians: first-contentful-paint (the browser's own
measurement), and the time until the page is ready (`body[data-ready]`: catalog, group and
counts loaded). The baseline, measured in the same run, is a one-line HTML page from the same
server (`/static/style.css` only): the ratio says what the page itself costs. The target is a
first paint under 1 s. Figures are wall-clock and noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import threading
import time

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
FCP = "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, choices=range(1, 51), metavar="1..50")
    args = ap.parse_args()

    import uvicorn
    from fastapi.responses import HTMLResponse
    from playwright.sync_api import sync_playwright

    from eqattn.api.app import create_app

    app = create_app()

    @app.get("/_baseline", include_in_schema=False)
    def baseline() -> HTMLResponse:
        return HTMLResponse('<!doctype html><link rel="stylesheet" href="/static/style.css"><p>baseline</p>')

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    fcp_page, ready_page, fcp_base = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for i in range(args.runs + 1):  # the first run warms the server's workers and is dropped
            ctx = browser.new_context(viewport={"width": 1280, "height": 800})
            page = ctx.new_page()
            t0 = time.perf_counter()
            page.goto(base + "/")
            page.wait_for_selector("body[data-ready='1']", timeout=60000)
            ready = (time.perf_counter() - t0) * 1000
            fcp = page.evaluate(FCP)
            page.goto(base + "/_baseline")
            page.wait_for_load_state("load")
            fb = page.evaluate(FCP)
            ctx.close()
            if i:
                fcp_page.append(fcp)
                ready_page.append(ready)
                fcp_base.append(fb)
        browser.close()
    server.should_exit = True
    m_fcp, m_base, m_ready = (statistics.median(x) for x in (fcp_page, fcp_base, ready_page))
    print(f"runs: {args.runs}")
    print(f"first contentful paint, page:     {m_fcp:7.0f} ms   (target < 1000 ms)")
    print(f"first contentful paint, baseline: {m_base:7.0f} ms   ratio page / baseline {m_fcp / m_base:.2f}")
    print(f"ready (catalog, group, counts):   {m_ready:7.0f} ms")


if __name__ == "__main__":
    main()
