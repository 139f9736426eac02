"""Dask distributed or Ray for `eqattn atlas`: start-up, per-task overhead, a killed worker.

    python benchmarks/atlas_engines.py --engine dask     # in a venv with dask[distributed]
    python benchmarks/atlas_engines.py --engine ray      # in a venv with ray

Measures, with 2 local worker processes: the import time of the client library; the start-up
of a local cluster (until both workers answer); the per-task overhead (N empty tasks
submitted at once, wall time / N, against the same loop run in this process); failure
handling (a worker is SIGKILLed while it runs a 2 s task: is the task rerun elsewhere, and how
long until its result arrives); and the installed size of the library and its dependencies.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from importlib.metadata import distribution


def _noop(x: int) -> int:
    return x


def _slow(x: float, path: str) -> int:
    with open(path, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(x)
    return os.getpid()


def _victim(path: str) -> int:
    """The pid of the process running `_slow` (it writes it first)."""
    while not os.path.exists(path) or not open(path).read():
        time.sleep(0.02)
    time.sleep(0.3)
    return int(open(path).read())


def _pid(_: int = 0) -> int:
    return os.getpid()


def _size(dist: str) -> tuple[int, list[str]]:
    """Bytes of a distribution and its transitive requirements (installed ones)."""
    from importlib.metadata import PackageNotFoundError
    import re

    seen: set[str] = set()
    todo = [dist]
    total = 0
    while todo:
        name = re.split(r"[ ;<>=!~\[]", todo.pop())[0].lower().replace("_", "-")
        if not name or name in seen:
            continue
        seen.add(name)
        try:
            d = distribution(name)
        except PackageNotFoundError:
            continue
        total += sum((f.locate().stat().st_size for f in d.files or [] if f.locate().exists()), 0)
        for req in d.requires or []:
            if "extra ==" not in req:
                todo.append(req)
    return total, sorted(seen)


def bench_dask(n: int) -> dict:
    t = time.perf_counter()
    from dask.distributed import Client, LocalCluster, as_completed

    out = {"engine": "dask distributed " + distribution("distributed").version, "import_s": time.perf_counter() - t}
    t = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    client.wait_for_workers(2)
    client.run(os.getpid)
    out["startup_s"] = time.perf_counter() - t
    client.gather(client.map(_noop, range(20), pure=False))  # warm
    t = time.perf_counter()
    client.gather(client.map(_noop, range(n), pure=False))
    out["per_task_ms"] = 1000 * (time.perf_counter() - t) / n
    pids = list(client.run(os.getpid).values())
    t = time.perf_counter()
    path = tempfile.mktemp()
    fut = client.submit(_slow, 2.0, path, pure=False)
    victim = _victim(path)
    os.kill(victim, signal.SIGKILL)
    pid = fut.result(timeout=60)
    out["killed_worker"] = {"task_rerun": pid != victim, "result_after_s": time.perf_counter() - t, "workers_before": pids}
    client.close()
    cluster.close()
    out["size_mb"], deps = _size("distributed")
    out["size_mb"] = round(out["size_mb"] / 1e6, 1)
    out["dependencies"] = len(deps)
    return out


def bench_ray(n: int) -> dict:
    t = time.perf_counter()
    import ray

    out = {"engine": "ray " + ray.__version__, "import_s": time.perf_counter() - t}
    t = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    noop = ray.remote(num_cpus=1)(_noop)
    slow = ray.remote(num_cpus=1, max_retries=3)(_slow)
    pid = ray.remote(num_cpus=1)(_pid)
    ray.get([pid.remote(i) for i in range(2)])
    out["startup_s"] = time.perf_counter() - t
    ray.get([noop.remote(i) for i in range(20)])
    t = time.perf_counter()
    ray.get([noop.remote(i) for i in range(n)])
    out["per_task_ms"] = 1000 * (time.perf_counter() - t) / n
    t = time.perf_counter()
    pids = set(ray.get([pid.remote(i) for i in range(4)]))
    path = tempfile.mktemp()
    ref = slow.remote(2.0, path)
    victim = _victim(path)
    os.kill(victim, signal.SIGKILL)
    got = ray.get(ref, timeout=60)
    out["killed_worker"] = {"task_rerun": got != victim, "result_after_s": time.perf_counter() - t, "workers_before": sorted(pids)}
    ray.shutdown()
    size, deps = _size("ray")
    out["size_mb"] = round(size / 1e6, 1)
    out["dependencies"] = len(deps)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--engine", choices=("dask", "ray"), required=True)
    p.add_argument("--tasks", type=int, default=500)
    a = p.parse_args(argv)
    t = time.perf_counter()
    for i in range(a.tasks):
        _noop(i)
    base = 1000 * (time.perf_counter() - t) / a.tasks
    out = bench_dask(a.tasks) if a.engine == "dask" else bench_ray(a.tasks)
    out["in_process_per_call_ms"] = base
    out["cpus"] = os.cpu_count()
    print(json.dumps(out, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
