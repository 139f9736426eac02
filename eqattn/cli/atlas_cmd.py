"""`eqattn atlas`: solve a grid of problems, store each result as it finishes, write the page.

    eqattn atlas GRID.toml [--out DIR] [--workers N] [--cluster ADDRESS] [--time-limit S]
                           [--export parquet|csv] [--retry feasible|refused|error] [--json]

Writes DIR/atlas.sqlite (table `results`, one row per problem) and DIR/atlas.md with its plots
in DIR/atlas-plots/. A rerun skips every problem already stored; `--export` also writes
DIR/atlas.csv or DIR/atlas.parquet. Progress goes to stderr (a rewritten line on a terminal);
`--json` prints only the run's summary as JSON. Needs the extra `eqattn[atlas]`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import InputError


def add_parser(subparsers) -> argparse.ArgumentParser:  # noqa: ANN001
    p = subparsers.add_parser(
        "atlas",
        help="solve a grid of problems (a TOML file) on Dask, resumable, with a report",
        description="Expand a grid file into problems, solve the ones not yet stored with the optimiser on "
        "local Dask worker processes (or an existing Dask scheduler), store each result as it finishes "
        "in DIR/atlas.sqlite and write DIR/atlas.md with plots.",
    )
    p.add_argument("grid", help="the grid file (TOML; see examples/atlas-small.toml)")
    p.add_argument("--out", default="atlas", help="output folder (default ./atlas)")
    p.add_argument("--workers", type=int, default=2, help="local worker processes (default 2; 0: in this process)")
    p.add_argument("--cluster", default=None, metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://host:8786 (instead of local workers)")
    p.add_argument("--time-limit", dest="time_limit", type=float, default=None, help="seconds per problem (overrides the grid's time_limit)")
    p.add_argument("--export", choices=("parquet", "csv"), default=None, help="also write DIR/atlas.parquet or DIR/atlas.csv")
    p.add_argument("--retry", action="append", default=[], choices=("feasible", "refused", "error"),
                   help="solve stored problems with this status again (repeat; e.g. feasible after a run on a busy machine)")
    p.add_argument("--json", action="store_true", help="print the run's summary as JSON, no progress")
    p.set_defaults(func=run)
    return p


def _require_extra(export: str | None) -> None:
    """One clear line when a module of the extra eqattn[atlas] is missing."""
    import importlib

    names = ["dask.distributed", "matplotlib"] + (["pyarrow"] if export == "parquet" else [])
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            raise InputError("atlas", f"needs the optional dependencies: pip install 'eqattn[atlas]' ({name} is missing)") from None


def run(args: argparse.Namespace) -> int:
    from ..atlas import STORE_NAME, load_grid, run_grid, write_report

    _require_extra(args.export)
    grid = load_grid(args.grid, time_limit=args.time_limit)
    out = Path(args.out)
    summary = run_grid(grid, out, workers=args.workers, cluster=args.cluster, quiet=args.json, retry=tuple(args.retry))
    title = grid.title if grid.title != Path(args.grid).stem else f"Atlas of optimal equivariant attention designs: {grid.title}"
    report = write_report(out / STORE_NAME, out / "atlas.md", title=title)
    data = summary.to_json()
    data["report"] = str(report)
    if args.export:
        from ..atlas import Store

        with Store(out / STORE_NAME) as store:
            data["export"] = str(store.export(args.export, out / f"atlas.{args.export}"))
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        c = data["counts"]
        print(
            f"{data['total']} problems: {data['skipped']} already stored, {data['computed']} computed "
            f"(optimal {c.get('optimal', 0)}, time-limited {c.get('feasible', 0)}, refused {c.get('refused', 0)}, "
            f"error {c.get('error', 0)}) in {data['wall_s']:.1f} s"
        )
        print(f"store {data['store']}; report {data['report']}" + (f"; export {data['export']}" if args.export else ""))
    return 0
