"""The atlas store: an SQLite file, one row per problem in table `results`, written as each
result arrives (one writer: the process that runs the sweep).

One run owns a store at a time: `Store.claim()` takes an exclusive lock on `atlas.sqlite.lock`
(released when the run ends or its process dies), so a second run on the same folder stops at
once with a line naming the first. A row is replaced only by a result at least as good
(`better_or_equal`: optimal > feasible > refused > error; between two feasible rows the lower
P_opt, then the higher bound): a retry that does worse keeps the stored row. A store that
cannot be written (read-only, a full disk) is found before anything is computed
(`begin_run` writes the run's record first); a write that fails later stops the run with one
line, and every row already stored stays.

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
import os
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
RANK = {"optimal": 3, "feasible": 2, "refused": 1, "error": 0}


def better_or_equal(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """May `new` replace the stored `old` row? Status first (optimal > feasible > refused >
    error); two feasible rows: the lower P_opt, then the higher lower bound.

    >>> better_or_equal({"status": "feasible", "p_opt": 10, "bound": 4}, {"status": "optimal", "p_opt": 8, "bound": 8})
    False
    >>> better_or_equal({"status": "feasible", "p_opt": 9, "bound": 4}, {"status": "feasible", "p_opt": 10, "bound": 6})
    True
    """
    rn, ro = RANK.get(new["status"], -1), RANK.get(old["status"], -1)
    if rn != ro:
        return rn > ro
    if new["status"] != "feasible":
        return True
    inf = float("inf")
    pn, po = new.get("p_opt"), old.get("p_opt")
    pn, po = (inf if pn is None else pn), (inf if po is None else po)
    if pn != po:
        return pn < po
    return (new.get("bound") or 0) >= (old.get("bound") or 0)


def _count_readonly(path: Path) -> int | None:
    """The rows of a store that cannot be opened for writing (None: not even readable)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return None


def write_error_text(path: Path, e: BaseException, stored: int | None, before: bool) -> str:
    """The one line a failed write prints: what happened, and that the stored rows are kept."""
    why = str(e)
    if "readonly" in why or "read-only" in why:
        why = "the store is read-only"
    elif "full" in why or "I/O" in why:
        why = f"the disk is full or the file size limit is reached ({e})"
    kept = "the results stored are kept" if stored is None else f"the {stored} results stored are kept" if stored else "nothing was stored"
    what = "nothing was computed" if before else "the run stopped"
    return f"cannot write to {str(path)!r}: {why}; {what}; {kept}; free space or make it writable and run again"


class StoreBusy(InputError):
    """Another run owns the store."""


# what an export writes (the optimiser's full JSON stays in the store)
EXPORT_COLUMNS = tuple(c for c in COLUMNS if c not in ("input", "result"))
EXPORT_FORMATS = ("csv", "parquet")


class Store:
    """The results table of one atlas file; use as a context manager."""

    def __init__(self, path: str | Path, readonly_ok: bool = False) -> None:
        """Open (or create) the store; `readonly_ok`: a store this process cannot write is
        opened for reading (`readonly` is then True) instead of refused."""
        self.path = Path(path)
        self.readonly = False
        self.readonly_reason: BaseException | None = None
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
            unwritable = isinstance(e, sqlite3.Error) and any(w in str(e) for w in ("readonly", "full", "I/O"))
            if unwritable and readonly_ok and self._open_for_reading():
                self.readonly_reason = e
            elif unwritable:
                raise InputError("out", write_error_text(self.path, e, _count_readonly(self.path), before=True)) from None
            else:
                raise InputError("out", f"cannot open the store {str(self.path)!r}: {e}") from None
        self._lock: int | None = None
        self._run: int | None = None

    def _open_for_reading(self) -> bool:
        """A read-only connection to an existing store (immutable when even its WAL index cannot
        be made: a read-only folder)."""
        for uri in (f"file:{self.path}?mode=ro", f"file:{self.path}?immutable=1"):
            try:
                db = sqlite3.connect(uri, uri=True, timeout=30)
                db.execute("SELECT key FROM results LIMIT 1")
                db.execute("SELECT started_at FROM runs LIMIT 1")
            except sqlite3.Error:
                continue
            self.db, self.readonly = db, True
            return True
        return False

    def refuse_writes(self) -> None:
        """InputError (one line, before computing) when this store was opened read-only."""
        if self.readonly:
            why = self.readonly_reason or sqlite3.OperationalError("attempt to write a readonly database")
            raise InputError("out", write_error_text(self.path, why, self.count_safely(), before=True))

    # ------------------------------------------------------------------ one run at a time
    def claim(self) -> None:
        """Own the store for this run (an exclusive lock on `<store>.lock`, held until close or
        this process ends); StoreBusy when another run holds it."""
        import fcntl

        lock_path = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(str(lock_path), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            try:  # a read-only folder: lock the store file itself (begin_run then says it is read-only)
                fd = os.open(str(self.path), os.O_RDONLY)
            except OSError as e:
                raise InputError("out", f"cannot lock the store {str(self.path)!r}: {e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            except OSError:
                holder = "another process"
            os.close(fd)
            raise StoreBusy("out", f"another eqattn atlas run ({holder}) is writing {str(self.path)!r}; "
                                   "wait for it to finish, or give another --out") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} since {time.strftime('%Y-%m-%d %H:%M:%S')}".encode(), 0)
        except OSError:
            pass  # the lock holds without the note
        self._lock = fd

    def begin_run(self, started_at: float, engine: str, total: int, skipped: int) -> None:
        """Write this run's record before anything is computed: a read-only store or a full
        disk is an InputError now, not after the first result."""
        try:
            with self.db:
                cur = self.db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                                      (started_at, 0.0, f"{engine} (running)", total, skipped, 0))
            self._run = cur.lastrowid
        except sqlite3.Error as e:
            raise InputError("out", self.write_error(e, before=True)) from None

    def write_error(self, e: BaseException, before: bool = False) -> str:
        return write_error_text(self.path, e, self.count_safely(), before)

    def count_safely(self) -> int:
        try:
            return self.count()
        except sqlite3.Error:
            return 0

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            os.close(self._lock)  # releases the lock
            self._lock = None

    def finished_keys(self, retry: tuple[str, ...] = ()) -> set[str]:
        """Keys of the stored problems, less those whose status is in `retry` (to be solved again)."""
        return {k for (k, st) in self.db.execute("SELECT key, status FROM results") if st not in retry}

    def insert(self, problem: dict[str, Any], row: dict[str, Any]) -> bool:
        """Store one finished problem (`GridProblem.to_json()` and `engine.solve`'s row), committed
        at once; a stored row is replaced only when `better_or_equal`. False: the stored row was
        better and stays. A failed write is an InputError on `out` (the stored rows stay)."""
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
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")  # the read and the write in one transaction
                old = self.db.execute("SELECT status, p_opt, bound FROM results WHERE key = ?", (rec["key"],)).fetchone()
                if old is not None and not better_or_equal(rec, dict(zip(("status", "p_opt", "bound"), old))):
                    return False
                self.db.execute(f"INSERT OR REPLACE INTO results ({cols}) VALUES ({marks})", [rec[c] for c in COLUMNS])
        except sqlite3.Error as e:
            raise InputError("out", self.write_error(e)) from None
        return True

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
        """One line in table `runs` per `eqattn atlas` run (the report lists them): the record
        `begin_run` wrote, completed, or a new one."""
        with self.db:
            if self._run is not None:
                self.db.execute("UPDATE runs SET wall_s = ?, engine = ?, total = ?, skipped = ?, computed = ? WHERE rowid = ?",
                                (wall_s, engine, total, skipped, computed, self._run))
            else:
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
