"""Load and abuse against a real server on 127.0.0.1 (issue 11).

    .venv/bin/python benchmarks/load.py [--cheap 200] [--optimize 20]

Starts `eqattn serve` on a free 127.0.0.1 port and measures, with bounded loops only:

1. `--cheap` concurrent cheap requests (POST /api/design, GET /api/group, GET /api/catalog):
   throughput, p50 / p99 latency, errors;
2. `--optimize` concurrent POST /api/optimize (small problems, time_limit 20 s): the same;
3. how much a slow request delays a cheap one: the median latency of a cheap request alone
   (the baseline, same run) and while a slow optimize and a slow custom group run; and the
   first request for a new catalog group (D11) alone and while an order-500 custom group builds;
4. the issue's abuse inputs: status, time against the time limit (worst overrun), and the
   peak RSS of any one server process (server and workers, sampled every 50 ms from /proc);
5. SIGTERM in the middle of an optimize: seconds until the server has exited.

Every figure is wall-clock on this machine (noisy when it is shared): compare ratios within a run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

import httpx

SLOW_GROUP = "perm:(1,2,3,4,5),(6,7,8,9,10),(11,12,13,14,15),(1,6)(2,7)(3,8)(4,9)(5,10),(16,17)"  # order 500
SLOW_OPT = {"group": "C12", "rep": "regular", "heads": 12, "head_dim": 1, "time_limit": 60}
CHEAP_DESIGN = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "orbits": [{"subgroup": 1, "rep": "B"}]}
OPT_PROBLEMS = [
    {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1},
    {"group": "D3", "rep": "regular", "heads": 2, "head_dim": 1},
    {"group": "C2", "rep": "A + B", "heads": 1, "head_dim": 1},
    {"group": "S3", "rep": "[2,1]", "heads": 2, "head_dim": 2},
]
ABUSE = [
    ("POST", "/api/optimize", {"group": "perm:(1,2,3,4)", "rep": "2xregular + B + perm:C2", "heads": 2, "head_dim": 4096, "time_limit": 1}),
    ("POST", "/api/optimize", {"group": "C4", "rep": "2xregular + B + E1", "heads": 2, "head_dim": 2500, "time_limit": 1}),
    ("POST", "/api/optimize", {"group": "A5", "rep": "regular", "heads": 8, "head_dim": 8, "time_limit": 2}),
    ("POST", "/api/optimize", {"group": "C12", "rep": "regular", "heads": 12, "head_dim": 1, "time_limit": 5}),
    ("POST", "/api/design", {"group": "C2", "rep": "9223372036854775807xB", "heads": 1, "head_dim": 1, "orbits": []}),
    ("POST", "/api/design", {"group": "C2", "rep": "A + B", "heads": 1, "head_dim": 1,
                             "orbits": [{"subgroup": "C2", "rep": "9223372036854775807xB"}]}),
    ("POST", "/api/coverage", {"group": "C2", "rep": "A + B", "heads": 1, "head_dim": 1, "orbits": [{"subgroup": "C2", "rep": "10000xB"}]}),
    ("POST", "/api/coverage", {"group": "C2", "rep": "A + B", "heads": 1, "head_dim": 1, "orbits": [{"subgroup": "C2", "rep": "4096xB"}]}),
    ("POST", "/api/clusterings", {"group": "C2^3", "rep": "regular", "heads": 12, "head_dim": 1}),
    ("BODY", "/api/clusterings", 64 << 20),
    ("HOST", "/api/catalog", "evil.example"),
]


# ------------------------------------------------------------------------------ processes
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tree(root: int) -> list[int]:
    parent: dict[int, int] = {}
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open(f"/proc/{e}/stat") as f:
                    parent[int(e)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [root], [root]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class RssSampler:
    """Peak RSS of the largest single process and of the whole tree, sampled every 50 ms."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak_one = 0.0
        self.peak_total = 0.0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def reset(self) -> None:
        self.peak_one = self.peak_total = 0.0

    def run(self) -> None:
        while not self.stop.wait(0.05):
            sizes = [rss_mb(p) for p in tree(self.root)]
            self.peak_one = max(self.peak_one, max(sizes, default=0.0))
            self.peak_total = max(self.peak_total, sum(sizes))


# ------------------------------------------------------------------------------ requests
async def timed(client: httpx.AsyncClient, method: str, path: str, body: object = None) -> tuple[float, int]:
    t0 = time.perf_counter()
    try:
        r = await (client.get(path) if method == "GET" else client.post(path, json=body))
        code = r.status_code
    except httpx.HTTPError:
        code = 0
    return time.perf_counter() - t0, code


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def summary(name: str, results: list[tuple[float, int]], wall: float, ok: tuple[int, ...] = (200,)) -> None:
    lat = [t for t, _ in results]
    errors = sum(1 for _, c in results if c not in ok)
    codes: dict[int, int] = {}
    for _, c in results:
        codes[c] = codes.get(c, 0) + 1
    print(f"{name}: {len(results)} requests in {wall:.2f} s = {len(results) / wall:.1f} req/s; "
          f"p50 {1000 * pct(lat, 0.5):.0f} ms, p99 {1000 * pct(lat, 0.99):.0f} ms; errors {errors}; statuses {codes}")


async def cheap_burst(client: httpx.AsyncClient, n: int) -> None:
    calls = []
    for i in range(n):
        if i % 4 == 0:
            calls.append(timed(client, "GET", "/api/catalog"))
        elif i % 4 == 1:
            calls.append(timed(client, "GET", "/api/group?name=C4"))
        else:
            calls.append(timed(client, "POST", "/api/design", CHEAP_DESIGN))
    t0 = time.perf_counter()
    results = await asyncio.gather(*calls)
    summary(f"{n} concurrent cheap requests", list(results), time.perf_counter() - t0)


async def optimize_burst(client: httpx.AsyncClient, n: int) -> None:
    calls = [timed(client, "POST", "/api/optimize", {**OPT_PROBLEMS[i % len(OPT_PROBLEMS)], "time_limit": 20}) for i in range(n)]
    t0 = time.perf_counter()
    results = await asyncio.gather(*calls)
    summary(f"{n} concurrent optimize calls", list(results), time.perf_counter() - t0)


async def cheap_median(client: httpx.AsyncClient, k: int = 15) -> float:
    lat = []
    for _ in range(k):
        t, code = await timed(client, "POST", "/api/design", CHEAP_DESIGN)
        assert code == 200, code
        lat.append(t)
    return statistics.median(lat)


async def slow_vs_cheap(client: httpx.AsyncClient) -> None:
    alone = await cheap_median(client)
    t0 = time.perf_counter()
    first_alone, code_a = await timed(client, "GET", "/api/group?name=D11")
    slow = [asyncio.create_task(timed(client, "POST", "/api/optimize", SLOW_OPT)),
            asyncio.create_task(timed(client, "GET", "/api/group?name=" + SLOW_GROUP))]
    await asyncio.sleep(1.0)  # both are computing
    busy = await cheap_median(client)
    first_busy, code_b = await timed(client, "GET", "/api/group?name=D13")
    print(f"cheap request (POST /api/design), median: alone {1000 * alone:.1f} ms, "
          f"while a slow optimize and an order-500 group run {1000 * busy:.1f} ms (delay {1000 * (busy - alone):+.1f} ms)")
    print(f"first request for a new group: D11 alone {1000 * first_alone:.0f} ms ({code_a}), "
          f"D13 while the order-500 group builds {1000 * first_busy:.0f} ms ({code_b}); delay {1000 * (first_busy - first_alone):+.0f} ms")
    results = await asyncio.gather(*slow)
    print(f"  (the slow ones: optimize C12 regular H12 {results[0][0]:.1f} s -> {results[0][1]}, "
          f"order-500 custom group {results[1][0]:.1f} s -> {results[1][1]}; {time.perf_counter() - t0:.1f} s in all)")


async def abuse(client: httpx.AsyncClient, sampler: RssSampler) -> None:
    worst_over = 0.0
    peak = 0.0
    for method, path, body in ABUSE:
        sampler.reset()
        t0 = time.perf_counter()
        if method == "BODY":
            r = await client.post(path, content=b" " * int(body), headers={"content-type": "application/json"})
            what = f"{int(body) >> 20} MB body"
        elif method == "HOST":
            r = await client.get(path, headers={"host": str(body)})
            what = f"Host: {body}"
        else:
            r = await client.post(path, json=body)
            what = json.dumps(body)[:90]
        took = time.perf_counter() - t0
        await asyncio.sleep(0.15)
        limit = body.get("time_limit") if isinstance(body, dict) else None
        over = took - limit if limit else None
        if over is not None:
            worst_over = max(worst_over, over)
        peak = max(peak, sampler.peak_one)
        msg = r.json().get("message", "") if r.status_code != 200 else "ok"
        print(f"  {r.status_code} {took:6.2f} s" + (f" (limit {limit} s, overrun {over:+.2f} s)" if over is not None else "")
              + f"  peak process RSS {sampler.peak_one:.0f} MB  {path} {what}  -> {msg[:80]}")
    print(f"abuse inputs: worst overrun of a time limit {worst_over:+.2f} s; peak RSS of one process {peak:.0f} MB")


async def main_async(port: int, args: argparse.Namespace, sampler: RssSampler) -> None:
    limits = httpx.Limits(max_connections=300, max_keepalive_connections=300)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=180, limits=limits) as client:
        await timed(client, "POST", "/api/design", CHEAP_DESIGN)  # workers up
        await timed(client, "POST", "/api/clusterings", {k: v for k, v in CHEAP_DESIGN.items() if k != "orbits"})
        sampler.reset()
        await cheap_burst(client, args.cheap)
        await optimize_burst(client, args.optimize)
        print(f"peak RSS during the bursts: largest process {sampler.peak_one:.0f} MB, server + workers {sampler.peak_total:.0f} MB")
        await slow_vs_cheap(client)
        await abuse(client, sampler)


def sigterm_time(port: int, proc: subprocess.Popen) -> tuple[float, list[int]]:
    data = json.dumps(SLOW_OPT).encode()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"POST /api/optimize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
    time.sleep(2.0)
    children = [p for p in tree(proc.pid) if p != proc.pid]
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    took = time.perf_counter() - t0
    s.close()
    return took, children


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cheap", type=int, default=200)
    ap.add_argument("--optimize", type=int, default=20)
    args = ap.parse_args()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "eqattn.cli.main", "serve", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        print(f"server pid {proc.pid} on 127.0.0.1:{port}; {os.cpu_count()} CPUs")
        sampler = RssSampler(proc.pid)
        asyncio.run(main_async(port, args, sampler))
        sampler.stop.set()
        took, children = sigterm_time(port, proc)
        print(f"SIGTERM during an optimize -> server exited after {took:.2f} s")
        time.sleep(1.0)
        left = [p for p in children if os.path.exists(f"/proc/{p}") and rss_mb(p) > 0]
        print(f"of its {len(children)} child processes, {len(left)} left behind after 1 s")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
