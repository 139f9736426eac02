"""The atlas under faults: a --cluster port that never answers or answers nonsense, two runs
on one store, a worse result after a better one, a read-only store and a full disk. Each is
one line naming the field, in bounded time; nothing stored is lost."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from eqattn.atlas import Store, parse_grid, run_grid
from eqattn.atlas.store import better_or_equal
from eqattn.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
ONE = {"heads": [1], "head_dims": [1], "group": [{"name": "C2", "reps": ["A + B"]}]}
TWO = {"heads": [1], "head_dims": [1, 2], "group": [{"name": "C2", "reps": ["A + B"]}]}


def listener(mode: str) -> int:
    """A port on 127.0.0.1 that accepts and then stays silent, sends garbage, or speaks HTTP."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)

    def serve() -> None:
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            if mode == "odd":
                c.sendall(b"\xff" * 64)
            elif mode == "http":  # what an `eqattn serve` port does: waits for a request line
                threading.Thread(target=lambda c=c: (c.recv(65536), c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return s.getsockname()[1]


@pytest.mark.parametrize("mode, words", [("silent", "did not answer within 1 s"), ("http", "did not answer within 1 s"),
                                         ("odd", "not in Dask's protocol")])
def test_a_port_that_is_no_scheduler_is_one_line_in_bounded_time(tmp_path, monkeypatch, mode, words):
    monkeypatch.setattr("eqattn.atlas.execution.CONNECT_TIMEOUT", "1s")
    port = listener(mode)
    box: dict = {}

    def run() -> None:
        try:
            run_grid(parse_grid(ONE), tmp_path, cluster=f"tcp://127.0.0.1:{port}", quiet=True)
        except BaseException as e:  # noqa: BLE001 - looked at below
            box["e"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(30.0)  # the first import of dask, then 1 s; it hung (killed at 300 s) or said "not enough memory" (3 EiB)
    assert not t.is_alive(), "no answer within 30 s"
    e = box.get("e")
    assert isinstance(e, InputError), repr(e)
    assert e.field == "cluster" and words in e.message and "\n" not in e.message, e.message


def test_a_real_scheduler_still_connects(tmp_path):
    from dask.distributed import LocalCluster

    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0")
    try:
        s = run_grid(parse_grid(ONE), tmp_path, cluster=cluster.scheduler_address, quiet=True)
        assert s.computed == 1 and s.counts["optimal"] == 1
    finally:
        cluster.close()


# ------------------------------------------------------------------------------ one run per store
def test_a_second_run_on_a_store_stops_at_once(tmp_path):
    first = Store(tmp_path / "atlas.sqlite")
    first.claim()
    try:
        t0 = time.monotonic()
        with pytest.raises(InputError) as e:
            run_grid(parse_grid(ONE), tmp_path, workers=0, quiet=True)
        assert time.monotonic() - t0 < 2.0
        assert e.value.field == "out" and f"another eqattn atlas run (pid {os.getpid()}" in e.value.message
    finally:
        first.close()
    with Store(tmp_path / "atlas.sqlite") as s:
        assert s.count() == 0  # the refused run computed nothing
    assert run_grid(parse_grid(ONE), tmp_path, workers=0, quiet=True).computed == 1  # released: the next run goes


def test_another_process_on_a_claimed_store_stops_at_once(tmp_path):
    """The CLI in another process, while this one owns the store: one line, exit 2, at once."""
    grid = tmp_path / "g.toml"
    grid.write_text('heads = [1]\nhead_dims = [1]\n[[group]]\nname = "C2"\nreps = ["A + B"]\n')
    owner = Store(tmp_path / "atlas.sqlite")
    owner.claim()
    try:
        r = _cli(tmp_path, grid)
        assert r.returncode == 2 and r.stderr.startswith(f"error: out: another eqattn atlas run (pid {os.getpid()} since ")
        assert r.stderr.count("\n") == 1, r.stderr
        assert owner.count() == 0
    finally:
        owner.close()
    assert run_grid(parse_grid(ONE), tmp_path, workers=0, quiet=True).computed == 1  # released


def test_a_worse_result_never_replaces_a_better_one(tmp_path):
    grid = parse_grid(ONE)
    run_grid(grid, tmp_path, workers=0, quiet=True)
    with Store(tmp_path / "atlas.sqlite") as s:
        best = s.rows()[0]
        assert best["status"] == "optimal"
        problem = grid.problems[0].to_json()
        worse = {k: best[k] for k in ("status", "p_vanilla", "p_opt", "bound", "gap", "heads_total", "constrained_vanilla",
                                      "constrained_params", "detail", "time_s", "worker")}
        worse.update(key=problem["key"], status="feasible", p_opt=best["p_opt"] * 2, bound=1, design=None, result=None)
        assert s.insert(problem, worse) is False
        assert s.rows()[0]["status"] == "optimal" and s.rows()[0]["p_opt"] == best["p_opt"]
        assert s.insert(problem, {**worse, "status": "error"}) is False
        better = {**worse, "status": "optimal", "p_opt": best["p_opt"], "bound": best["p_opt"]}
        assert s.insert(problem, better) is True  # as good: the newer row


@pytest.mark.parametrize(
    "new, old, ok",
    [
        (("optimal", 8, 8), ("feasible", 10, 4), True),
        (("feasible", 10, 4), ("optimal", 8, 8), False),
        (("feasible", 9, 4), ("feasible", 10, 6), True),
        (("feasible", 10, 4), ("feasible", 10, 6), False),
        (("feasible", 11, 9), ("feasible", 10, 6), False),
        (("refused", None, None), ("feasible", 10, 6), False),
        (("feasible", 10, 6), ("error", None, None), True),
        (("error", None, None), ("error", None, None), True),
    ],
)
def test_better_or_equal(new, old, ok):
    row = lambda t: dict(zip(("status", "p_opt", "bound"), t))  # noqa: E731
    assert better_or_equal(row(new), row(old)) is ok


# ------------------------------------------------------------------------------ unwritable stores
def _cli(out: Path, grid: Path, preexec=None) -> subprocess.CompletedProcess:  # noqa: ANN001
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLCONFIGDIR": tempfile.mkdtemp(prefix="eqattn-mpl-")}
    cmd = [sys.executable, "-m", "eqattn.cli.main", "atlas", str(grid), "--out", str(out), "--workers", "0"]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, preexec_fn=preexec)


def _stored(path: Path) -> list:
    with Store(path) as s:
        return [(r["key"], r["status"], r["p_opt"]) for r in s.rows()]


def test_a_read_only_store_is_one_line_before_computing():
    work = Path(tempfile.mkdtemp(prefix="eqattn-ro-"))
    try:
        os.chmod(work, 0o755)
        (work / "g2.toml").write_text('heads = [1]\nhead_dims = [1, 2]\n[[group]]\nname = "C2"\nreps = ["A + B"]\n')
        run_grid(parse_grid(ONE), work, workers=0, quiet=True)
        before = _stored(work / "atlas.sqlite")
        for f in work.iterdir():
            os.chmod(f, 0o444 if f.is_file() else 0o555)
        os.chmod(work, 0o555)
        r = _cli(work, work / "g2.toml", _obey_file_modes)
        assert r.returncode == 2, (r.stdout, r.stderr)
        assert r.stderr.startswith("error: out: cannot write to ") and "read-only" in r.stderr and "nothing was computed" in r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
        os.chmod(work, 0o755)
        os.chmod(work / "atlas.sqlite", 0o644)
        assert _stored(work / "atlas.sqlite") == before
    finally:
        os.chmod(work, 0o755)
        shutil.rmtree(work, ignore_errors=True)


def _obey_file_modes() -> None:
    """For root: drop the capabilities that write through file modes (CAP_DAC_OVERRIDE,
    CAP_DAC_READ_SEARCH) from the bounding set, so the exec'd CLI cannot write a 0444 file."""
    if os.geteuid() != 0:
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "PR_CAPBSET_DROP")


def test_a_read_only_store_holding_every_row_still_runs():
    """Nothing to compute: the run reads the store and says so (it failed writing its run
    record); the report, which cannot be written beside it, is one line."""
    work = Path(tempfile.mkdtemp(prefix="eqattn-ro-"))
    try:
        os.chmod(work, 0o755)
        run_grid(parse_grid(ONE), work, workers=0, quiet=True)
        for f in work.iterdir():
            os.chmod(f, 0o444 if f.is_file() else 0o555)
        os.chmod(work, 0o555)
        script = ("import json\nfrom eqattn.atlas import parse_grid, run_grid, write_report\nfrom eqattn.errors import InputError\n"
                  f"s = run_grid(parse_grid({ONE!r}), {str(work)!r}, workers=0, quiet=True)\nprint(json.dumps(s.to_json()))\n"
                  f"try:\n    write_report({str(work / 'atlas.sqlite')!r}, {str(work / 'atlas.md')!r})\n"
                  "except InputError as e:\n    print(e.field, e.message)\n")
        r = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(ROOT),
                           "MPLCONFIGDIR": tempfile.mkdtemp(prefix="eqattn-mpl-")}, capture_output=True, text=True,
                           timeout=120, preexec_fn=_obey_file_modes)
        assert r.returncode == 0, r.stderr
        summary, report = r.stdout.splitlines()
        assert json.loads(summary)["skipped"] == 1 and json.loads(summary)["computed"] == 0
        assert report.startswith("out cannot write the report ") and "the store is unchanged" in report, report
    finally:
        os.chmod(work, 0o755)
        shutil.rmtree(work, ignore_errors=True)


def _file_size_limit(limit: int):  # noqa: ANN202
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    return apply


def test_a_full_disk_is_one_line_before_computing(tmp_path):
    (tmp_path / "g2.toml").write_text('heads = [1]\nhead_dims = [1, 2]\n[[group]]\nname = "C2"\nreps = ["A + B"]\n')
    run_grid(parse_grid(ONE), tmp_path, workers=0, quiet=True)
    before = _stored(tmp_path / "atlas.sqlite")
    t0 = time.monotonic()
    r = _cli(tmp_path, tmp_path / "g2.toml", _file_size_limit(1))  # no file may grow: the store's disk is full
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("error: out: cannot write to ") and "nothing was computed" in r.stderr, r.stderr
    assert "results stored are kept" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert _stored(tmp_path / "atlas.sqlite") == before
    assert run_grid(parse_grid(TWO), tmp_path, workers=0, quiet=True).computed == 1  # space again: the run continues
    assert len(_stored(tmp_path / "atlas.sqlite")) == 2
    assert time.monotonic() - t0 < 120


def test_a_disk_that_fills_mid_run_stops_with_one_line_and_keeps_the_rows(tmp_path):
    """The first result is stored, then no file may grow: the second insert fails."""
    script = (
        "import resource, signal, sys\n"
        "from eqattn.atlas import parse_grid, run_grid\n"
        "from eqattn.errors import InputError\n"
        f"grid = parse_grid({TWO!r})\n"
        "def full(problem, row):\n"
        "    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "    resource.setrlimit(resource.RLIMIT_FSIZE, (1, resource.RLIM_INFINITY))\n"
        "try:\n"
        f"    run_grid(grid, {str(tmp_path)!r}, workers=0, quiet=True, on_result=full)\n"
        "except InputError as e:\n"
        "    print(e.field, e.message); sys.exit(2)\n"
    )
    r = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout.startswith("out cannot write to ") and "the run stopped; the 1 results stored are kept" in r.stdout, r.stdout
    assert "Traceback" not in r.stderr
    assert len(_stored(tmp_path / "atlas.sqlite")) == 1
