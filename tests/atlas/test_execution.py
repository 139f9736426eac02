"""Running grids: a Dask cluster of 2 workers with one worker killed mid-run ends with the same
store as a single-process run; an interrupted run resumes without recomputing what finished;
the slice of the default grid reproduces the former atlas's optima."""

import csv
import os
import signal
from pathlib import Path

import pytest
from dask.distributed import Client, LocalCluster

from eqattn.atlas import Store, parse_grid, run_grid
from eqattn.atlas.grid import Grid, load_grid
from eqattn.atlas.report import design_text, head_dims_text

ROOT = Path(__file__).resolve().parents[2]
# the columns that must not depend on where or when a problem ran
SAME = ("key", "position", "group_name", "rep", "heads", "head_dim", "status", "p_vanilla", "p_opt", "bound", "gap",
        "heads_total", "constrained_vanilla", "constrained_params", "design", "detail")

GRID = {
    "time_limit": 20,
    "heads": [1, 2, 3],
    "head_dims": [1, 2],
    "group": [{"name": "C4", "reps": ["regular"]}, {"name": "D3", "reps": ["A1 + E1"]}, {"name": "Q8", "reps": ["H"], "heads": [2]}],
}


def stored(path):
    with Store(Path(path) / "atlas.sqlite") as s:
        return [{k: r[k] for k in SAME} for r in s.rows()]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The grid solved one problem after another in this process."""
    out = tmp_path_factory.mktemp("serial")
    s = run_grid(parse_grid(GRID), out, workers=0, quiet=True)
    assert s.computed == s.total == 14 and s.skipped == 0
    return stored(out)


def test_killed_worker_loses_nothing(tmp_path, reference):
    grid = parse_grid(GRID)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = Client(cluster)
    try:
        client.wait_for_workers(2, timeout=120)
        addr, pid = sorted(client.run(os.getpid).items())[0]
        killed = []

        def kill_one(problem, row):
            if not killed and len(stored(tmp_path)) >= 3:
                assert client.processing(workers=[addr])[addr], "the victim has problems in flight"
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        s = run_grid(grid, tmp_path, cluster=cluster.scheduler_address, quiet=True, on_result=kill_one)
        assert killed and s.computed == 14 and s.counts == {"optimal": 14, "feasible": 0, "refused": 0, "error": 0}
        assert pid not in client.run(os.getpid).values()  # it is gone (its nanny may start a new one)
    finally:
        client.close(timeout=30)
        cluster.close(timeout=30)
    assert stored(tmp_path) == reference
    with Store(tmp_path / "atlas.sqlite") as st:
        assert st.count() == 14


def test_interrupted_run_resumes(tmp_path, reference):
    grid = parse_grid(GRID)
    seen = []

    def interrupt(problem, row):
        seen.append(problem["key"])
        if len(seen) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_grid(grid, tmp_path, workers=2, quiet=True, on_result=interrupt)
    with Store(tmp_path / "atlas.sqlite") as st:
        before = {r["key"]: r["finished_at"] for r in st.rows()}
    assert set(before) == set(seen) and len(before) == 5
    with Store(tmp_path / "atlas.sqlite") as st:
        assert [(r["engine"], r["computed"]) for r in st.runs()] == [("dask local cluster, 2 processes (stopped early)", 5)]
    again = []
    s = run_grid(grid, tmp_path, workers=0, quiet=True, on_result=lambda p, r: again.append(p["key"]))
    assert s.skipped == 5 and s.computed == 9 and not set(again) & set(before)
    with Store(tmp_path / "atlas.sqlite") as st:
        after = {r["key"]: r["finished_at"] for r in st.rows()}
    assert {k: after[k] for k in before} == before  # the finished rows were not rewritten
    assert stored(tmp_path) == reference
    s = run_grid(grid, tmp_path, workers=2, quiet=True)
    assert s.computed == 0 and s.skipped == 14 and s.engine.startswith("none")


def test_default_grid_slice_reproduces_the_former_atlas(tmp_path):
    """90 problems of examples/atlas-default.toml against the answers the former
    benchmarks/atlas.py published in docs/atlas.csv (data/default_slice.csv, copied unchanged)."""
    old = list(csv.DictReader(open(ROOT / "tests" / "atlas" / "data" / "default_slice.csv")))
    pick = {(r["group"], r["V"], int(r["H"]), int(r["d"])): r for r in old}
    full = load_grid(ROOT / "examples" / "atlas-default.toml")
    sub = tuple(p for p in full.problems if (p.group, p.rep, p.heads, p.head_dim) in pick)
    assert len(sub) == len(pick) == 90
    s = run_grid(Grid("slice", sub), tmp_path, workers=0, quiet=True)
    assert s.computed == 90
    with Store(tmp_path / "atlas.sqlite") as st:
        rows = st.rows()
    import json

    for r in rows:
        o = pick[(r["group_name"], r["rep"], r["heads"], r["head_dim"])]
        orbits = json.loads(r["design"])["orbits"]
        assert (r["status"], r["p_vanilla"], r["p_opt"], r["bound"], r["heads_total"]) == (
            o["status"], int(o["P_vanilla"]), int(o["P_opt"]), int(o["lower_bound"]), int(o["heads_total"])), o
        assert head_dims_text(orbits) == o["head_dims"] and design_text(orbits) == o["design"], o
        assert r["constrained_vanilla"] == o["constrained_vanilla"]
        assert r["constrained_params"] == (int(o["constrained_params"]) if o["constrained_params"] else None)


def test_retry_solves_a_status_again(tmp_path, reference):
    grid = parse_grid(GRID)
    run_grid(grid, tmp_path, workers=0, quiet=True)
    import sqlite3

    with sqlite3.connect(tmp_path / "atlas.sqlite") as db:  # pretend two problems ran out of time
        db.execute("UPDATE results SET status = 'feasible', p_opt = p_opt + 4 WHERE position IN (2, 5)")
    s = run_grid(grid, tmp_path, workers=0, quiet=True)
    assert s.computed == 0
    s = run_grid(grid, tmp_path, workers=0, quiet=True, retry=("feasible",))
    assert (s.computed, s.skipped) == (2, 12)
    assert stored(tmp_path) == reference
    with pytest.raises(Exception, match="retry"):
        run_grid(grid, tmp_path, workers=0, quiet=True, retry=("optimal",))


def test_a_compact_group_grid_takes_each_v_at_its_own_band(tmp_path):
    """An O3 grid with l = 1 and l = 3 entries: each V is read at the band it names (the l = 3
    one through docs/theory-continuous.md §8's stand-in), as Problem.create reads it, and both
    are solved; past L_MAX the entry is refused with its field."""
    from eqattn.errors import LimitError

    grid = parse_grid({"group": [{"name": "O3", "reps": ["2x0e + 1x1o", "1x0e + 1x3o + 1x3e"]}],
                       "heads": [2], "head_dims": [1, 7]})
    assert [(p.rep, p.dim_v) for p in grid.problems][::2] == [("2x0e + 1x1o", 5), ("1x0e + 1x3o + 1x3e", 15)]
    s = run_grid(grid, tmp_path, workers=0, quiet=True)
    assert s.computed == s.total == 4
    with Store(Path(tmp_path) / "atlas.sqlite") as st:
        rows = {(r["rep"], r["head_dim"]): (r["status"], r["p_opt"]) for r in st.rows()}
    assert rows[("2x0e + 1x1o", 1)] == ("optimal", 16)  # theory-continuous §4.2
    assert rows[("1x0e + 1x3o + 1x3e", 7)] == ("optimal", 24)
    with pytest.raises(LimitError) as e:
        parse_grid({"group": [{"name": "O3", "reps": ["1x0e", "1x17o"]}]})
    assert e.value.field == "group[0].reps[1]" and "l <= 16" in e.value.message
