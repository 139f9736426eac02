"""The worker pool (eqattn.api.jobs): results, errors, deadlines, cancellation, memory cap."""

from __future__ import annotations

import asyncio
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from eqattn.api.jobs import ClientDisconnected, WorkerPool
from eqattn.errors import InputError, LimitError

from _procs import wait_gone


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool("test", size=2, memory_bytes=1 << 30)
    yield p
    p.close()


def run(coro):
    """asyncio.run on a thread of its own: this thread may already run an event loop (the
    browser tests' Playwright keeps one when they share a worker with this file)."""
    with ThreadPoolExecutor(1) as ex:
        return ex.submit(asyncio.run, coro).result()


def test_results_and_core_errors_come_back(pool):
    assert run(pool.run(math.factorial, 10, deadline=30)) == 3628800
    from eqattn.api import work

    assert run(pool.run(work.clusterings, "C4", "E1", 2, 1, deadline=60))["count"] == 3  # SPEC §6 example 2
    with pytest.raises(LimitError) as e:
        run(pool.run(work.clusterings, "C4", "E1", 65, 1, deadline=60))
    assert e.value.field == "heads" and "at most" in e.value.message
    with pytest.raises(InputError) as e:
        run(pool.run(work.clusterings, "C4", "2xQ", 1, 1, deadline=60))
    assert e.value.field == "rep" and not isinstance(e.value, LimitError)
    assert len(pool.pids()) <= 2  # idle workers are reused


def test_deadline_kills_the_worker_within_the_limit(pool):
    t0 = time.monotonic()
    with pytest.raises(LimitError) as e:
        run(pool.run(time.sleep, 60, deadline=0.5, limit_field="time_limit"))
    took = time.monotonic() - t0
    assert e.value.field == "time_limit" and "0.5 s" in e.value.message
    assert took < 1.5, took
    assert not pool.busy_pids()


def test_cancel_kills_the_worker_within_one_second(pool):
    started: list[int] = []

    async def disconnected() -> bool:
        started.extend(pool.busy_pids())
        return True  # the client went away at the first check

    with pytest.raises(ClientDisconnected):
        run(pool.run(time.sleep, 60, deadline=60, cancelled=disconnected))
    assert started
    wait_gone(started[0], 1.0)


def test_task_cancellation_kills_the_worker(pool):
    async def go() -> int:
        task = asyncio.create_task(pool.run(time.sleep, 60, deadline=60))
        while not pool.busy_pids():
            await asyncio.sleep(0.01)
        pid = pool.busy_pids()[0]
        await asyncio.sleep(0.1)
        task.cancel()  # what server shutdown does to a running request
        with pytest.raises(asyncio.CancelledError):
            await task
        return pid

    wait_gone(run(go()), 1.0)


def test_memory_cap_is_a_limit_error_and_the_worker_is_replaced(pool):
    with pytest.raises(LimitError) as e:
        run(pool.run(bytearray, 3 << 30, deadline=30))  # 3 GiB > the 1 GiB cap
    assert "memory budget of 1.0 GiB" in e.value.message
    assert run(pool.run(sum, [1, 2, 3], deadline=30)) == 6


def test_a_bug_in_the_worker_is_a_worker_error(pool):
    from eqattn.api.jobs import WorkerError

    with pytest.raises(WorkerError, match="ZeroDivisionError"):
        run(pool.run(divmod, 1, 0, deadline=30))


def test_workers_are_not_the_server_process(pool):
    run(pool.run(abs, -1, deadline=30))
    assert os.getpid() not in pool.pids()


def test_calls_beyond_the_pool_size_queue_and_all_finish():
    p = WorkerPool("queue", size=1, memory_bytes=1 << 30)
    try:
        async def go() -> list:
            return await asyncio.gather(*(p.run(pow, i, 2, deadline=30) for i in range(8)))

        assert run(go()) == [i * i for i in range(8)]
        assert len(p.pids()) == 1

        async def give_up() -> None:  # a waiter cancelled while queued does not lose the worker
            slow = asyncio.create_task(p.run(time.sleep, 0.5, deadline=30))
            await asyncio.sleep(0.1)
            queued = asyncio.create_task(p.run(abs, -1, deadline=30))
            await asyncio.sleep(0.1)
            queued.cancel()
            await slow
            assert await p.run(abs, -2, deadline=30) == 2

        run(give_up())
        assert len(p.pids()) == 1 and not p.busy_pids()
    finally:
        p.close()


def test_a_dropped_pool_leaves_no_workers():
    import gc

    p = WorkerPool("dropped", size=1, memory_bytes=1 << 30)
    assert run(p.run(abs, -3, deadline=30)) == 3
    (pid,) = p.pids()
    del p
    gc.collect()
    wait_gone(pid, 2.0)
