"""The atlas store: an SQLite file, one row per problem in table `results`, written as each
result arrives (one writer: the process that runs the sweep).

A row holds the normalised input (group, V, H, d, time limit, solver), the engine version,
status (`optimal`, `feasible` = stopped by the time limit, `refused`, `error`), P_vanilla,
P_opt, the solver's lower bound, the gap, the design JSON (the `orbits` `eqattn check` and the
page read), the optimiser's full JSON, the time and the worker. Its key is the problem's hash
(eqattn.atlas.grid): a rerun skips every key already stored. `export` writes CSV or Parquet.

    >>> import tempfile, pathlib
    >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "atlas.sqlite") as s:
    ...     s.finished_keys()
    set()
"""

from __future__ import annotations

import csv
import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator

from ..errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    group_name TEXT NOT NULL,
    rep_input TEXT NOT NULL,
    rep TEXT NOT NULL,
    dim_v INTEGER NOT NULL,
    heads INTEGER NOT NULL,
    head_dim INTEGER NOT NULL,
    time_limit REAL NOT NULL,
    solver TEXT NOT NULL,
    engine TEXT NOT NULL,
    input TEXT NOT NULL,
    status TEXT NOT NULL,
    p_vanilla INTEGER NOT NULL,
    p_opt INTEGER,
    bound INTEGER,
    gap REAL,
    heads_total INTEGER,
    constrained_vanilla TEXT,
    constrained_params INTEGER,
    design TEXT,
    result TEXT,
    detail TEXT NOT NULL,
    time_s REAL NOT NULL,
    worker TEXT NOT NULL,
    finished_at REAL NOT NULL,
    label TEXT
)
"""
RUNS_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    started_at REAL NOT NULL,
    wall_s REAL NOT NULL,
    engine TEXT NOT NULL,
    total INTEGER NOT NULL,
    skipped INTEGER NOT NULL,
    computed INTEGER NOT NULL
)
"""
COLUMNS = (
    "key", "position", "group_name", "rep_input", "rep", "dim_v", "heads", "head_dim", "time_limit", "solver",
    "engine", "input", "status", "p_vanilla", "p_opt", "bound", "gap", "heads_total", "constrained_vanilla",
    "constrained_params", "design", "result", "detail", "time_s", "worker", "finished_at", "label",
)
# what an export writes (the optimiser's full JSON stays in the store)
EXPORT_COLUMNS = tuple(c for c in COLUMNS if c not in ("input", "result"))
EXPORT_FORMATS = ("csv", "parquet")


class Store:
    """The results table of one atlas file; use as a context manager."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(SCHEMA)
            self.db.execute(RUNS_SCHEMA)
            cols = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
            if "label" not in cols:  # a store written before reports had labels
                self.db.execute("ALTER TABLE results ADD COLUMN label TEXT")
            self.db.commit()
        except (OSError, sqlite3.Error) as e:
            raise InputError("out", f"cannot open the store {str(self.path)!r}: {e}") from None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def finished_keys(self, retry: tuple[str, ...] = ()) -> set[str]:
        """Keys of the stored problems, less those whose status is in `retry` (to be solved again)."""
        return {k for (k, st) in self.db.execute("SELECT key, status FROM results") if st not in retry}

    def insert(self, problem: dict[str, Any], row: dict[str, Any]) -> None:
        """Store one finished problem (`GridProblem.to_json()` and `engine.solve`'s row); committed at
        once; a retried problem's row is replaced."""
        rec = {
            "key": problem["key"],
            "position": problem["position"],
            "group_name": problem["group"],
            "rep_input": problem["rep_input"],
            "rep": problem["rep"],
            "dim_v": problem["dim_v"],
            "heads": problem["heads"],
            "head_dim": problem["head_dim"],
            "time_limit": problem["time_limit"],
            "solver": problem["solver"],
            "engine": problem["engine"],
            "input": json.dumps(problem, sort_keys=True),
            "status": row["status"],
            "p_vanilla": row["p_vanilla"],
            "p_opt": row["p_opt"],
            "bound": row["bound"],
            "gap": row["gap"],
            "heads_total": row["heads_total"],
            "constrained_vanilla": row["constrained_vanilla"],
            "constrained_params": row["constrained_params"],
            "design": None if row["design"] is None else json.dumps(row["design"], sort_keys=True),
            "result": None if row["result"] is None else json.dumps(row["result"], sort_keys=True),
            "detail": row["detail"],
            "time_s": row["time_s"],
            "worker": row["worker"],
            "finished_at": time.time(),
            "label": problem.get("label") or problem["group"],
        }
        cols = ", ".join(COLUMNS)
        marks = ", ".join("?" for _ in COLUMNS)
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO results ({cols}) VALUES ({marks})", [rec[c] for c in COLUMNS])

    def rows(self, columns: tuple[str, ...] = COLUMNS) -> list[dict[str, Any]]:
        """Every row as a dict, in grid order (position, then key)."""
        return list(self.iter_rows(columns))

    def iter_rows(self, columns: tuple[str, ...] = COLUMNS) -> Iterator[dict[str, Any]]:
        bad = [c for c in columns if c not in COLUMNS]
        if bad:
            raise InputError("columns", f"unknown column {bad[0]!r}")
        cur = self.db.execute(f"SELECT {', '.join(columns)} FROM results ORDER BY position, key")
        for values in cur:
            row = dict(zip(columns, values))
            if "label" in row and not row["label"]:
                row["label"] = row.get("group_name")
            yield row

    def record_run(self, started_at: float, wall_s: float, engine: str, total: int, skipped: int, computed: int) -> None:
        """One line in table `runs` per `eqattn atlas` run (the report lists them)."""
        with self.db:
            self.db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)", (started_at, wall_s, engine, total, skipped, computed))

    def runs(self) -> list[dict[str, Any]]:
        cur = self.db.execute("SELECT started_at, wall_s, engine, total, skipped, computed FROM runs ORDER BY started_at")
        return [dict(zip(("started_at", "wall_s", "engine", "total", "skipped", "computed"), r)) for r in cur]

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def export(self, fmt: str, path: str | Path) -> Path:
        """Write the results (without the optimiser's full JSON) as CSV or Parquet."""
        if fmt not in EXPORT_FORMATS:
            raise InputError("export", f"one of {', '.join(EXPORT_FORMATS)}, got {fmt!r}")
        out = Path(path)
        rows = self.rows(EXPORT_COLUMNS)
        if fmt == "csv":
            with open(out, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(EXPORT_COLUMNS))
                w.writeheader()
                w.writerows(rows)
            return out
        import pyarrow as pa
        import pyarrow.parquet as pq

        types = {
            "position": pa.int64(), "dim_v": pa.int64(), "heads": pa.int64(), "head_dim": pa.int64(),
            "time_limit": pa.float64(), "p_vanilla": pa.int64(), "p_opt": pa.int64(), "bound": pa.int64(),
            "gap": pa.float64(), "heads_total": pa.int64(), "constrained_params": pa.int64(), "time_s": pa.float64(),
            "finished_at": pa.float64(),
        }
        schema = pa.schema([(c, types.get(c, pa.string())) for c in EXPORT_COLUMNS])
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), out)
        return out


def open_readonly(path: str | Path) -> sqlite3.Connection:
    """A read-only connection (the web page's atlas view); InputError if it is not a store."""
    p = Path(path)
    if not p.is_file():
        raise InputError("atlas", f"no atlas store at {str(p)!r}")
    db = sqlite3.connect(f"file:{p}?mode=ro", uri=True, timeout=30)
    try:
        db.execute("SELECT key FROM results LIMIT 1")
    except sqlite3.Error:
        db.close()
        raise InputError("atlas", f"{str(p)!r} has no table results (not an atlas store)") from None
    return db
