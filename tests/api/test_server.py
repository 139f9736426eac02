"""A real server (uvicorn on 127.0.0.1): a client that disconnects stops its computation,
and SIGTERM stops the server within 5 s even in the middle of an optimize."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from _procs import alive, wait_gone

SLOW = {"group": "Ih", "rep": "4xregular", "heads": 8, "head_dim": 60, "time_limit": 120}  # not proven in 120 s (C12 regular H12 d1, used before, is proven in 4 s now)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port: int, path: str, body: dict) -> socket.socket:
    """Send a POST and return the open socket (the response is not read)."""
    data = json.dumps(body).encode()
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data
    )
    return s


def wait_for(cond, within: float, what: str):  # noqa: ANN001
    t0 = time.monotonic()
    while True:
        v = cond()
        if v:
            return v
        assert time.monotonic() - t0 < within, what
        time.sleep(0.02)


@pytest.fixture(scope="module")
def server():
    import uvicorn

    from eqattn.api.app import create_app

    app = create_app()
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    wait_for(lambda: srv.started, 30, "uvicorn did not start")
    yield app, port
    srv.should_exit = True
    thread.join(10)


def test_disconnect_kills_the_optimize_worker_within_one_second(server):
    app, port = server
    heavy = app.state.engine.search  # the optimizer's pool
    s = post(port, "/api/optimize", SLOW)
    pid = wait_for(lambda: (heavy.busy_pids() or [0])[0], 60, "the optimize never started")
    time.sleep(0.5)  # it is computing
    assert alive(pid)
    s.close()  # the client goes away (the page's Cancel aborts its fetch the same way)
    took = wait_gone(pid, 1.0)
    assert not heavy.busy_pids()
    print(f"worker gone {took:.3f} s after the disconnect")


def test_a_cheap_request_is_answered_while_optimize_runs(server):
    app, port = server
    s = post(port, "/api/optimize", SLOW)
    try:
        wait_for(lambda: app.state.engine.search.busy_pids(), 60, "the optimize never started")
        c = post(port, "/api/design", {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "orbits": [{"subgroup": 1, "rep": "B"}]})
        c.settimeout(30)
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            chunk = c.recv(65536)
            if not chunk:
                break
            reply += chunk
        c.close()
        assert reply.startswith(b"HTTP/1.1 200") and b'"design_params":8' in reply
    finally:
        s.close()


def read_reply(s: socket.socket, within: float = 30.0) -> bytes:
    s.settimeout(within)
    reply = b""
    while True:
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        reply += chunk
    return reply


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_request_running_at_shutdown_gets_the_error_model(sig):
    """SIGTERM / Ctrl-C while an optimize runs: its client gets 503 {field, message} (it got a
    plain-text `500 Internal Server Error` and the log a CancelledError traceback)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "eqattn.cli.main", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        def up() -> bool:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return True
            except OSError:
                return False

        wait_for(up, 60, "the server did not start")
        s = post(port, "/api/optimize", SLOW)
        wait_for(lambda: len(descendants(proc.pid)) >= 2, 60, "no worker process")  # the forkserver and a worker
        time.sleep(0.5)
        proc.send_signal(sig)
        reply = read_reply(s)
        s.close()
        proc.wait(timeout=10)
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503"), reply[:300]
        assert b"application/json" in head
        data = json.loads(body)
        assert data["field"] == "server" and "shutting down" in data["message"], data
        assert b"CancelledError" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (from /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for child, ppid in parent.items():
            if ppid == p and child not in out:
                out.add(child)
                todo.append(child)
    return out


def test_sigterm_stops_the_server_within_five_seconds_mid_optimize():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "eqattn.cli.main", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        def up() -> bool:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return True
            except OSError:
                return False

        wait_for(up, 60, "the server did not start")
        s = post(port, "/api/optimize", SLOW)
        workers = wait_for(lambda: descendants(proc.pid), 60, "no worker process")
        time.sleep(1.0)  # optimizing
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        took = time.monotonic() - t0
        assert took < 5.0, took
        for pid in workers:
            wait_gone(pid, 2.0)  # the workers (and the forkserver) die with the server
        s.close()
        print(f"SIGTERM to exit: {took:.2f} s")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
