"""Atlases: sweeps of optimal designs over a grid of problems (SPEC §5.5 for each problem).

A grid file (TOML, `grid`) expands to normalised problems keyed by a hash; `execution` solves
the ones the SQLite `store` does not hold yet, on Dask distributed (local processes or a
cluster), storing each result as it finishes; `progress` shows it on a terminal; `report`
writes the markdown page with plots from the store. The CLI is `eqattn atlas GRID.toml`.
Layer: above the optimiser, below the API and the CLI (dask and matplotlib are the optional
extra `eqattn[atlas]`, imported only when used).

    >>> from eqattn.atlas import parse_grid
    >>> len(parse_grid({"group": [{"name": "C3", "reps": ["regular"]}], "heads": [1, 2], "head_dims": [1]}).problems)
    2
"""

from .execution import STORE_NAME, RunSummary, run_grid
from .grid import Grid, GridProblem, engine_version, load_grid, parse_grid
from .report import write_report
from .store import Store

__all__ = [
    "STORE_NAME", "RunSummary", "run_grid", "Grid", "GridProblem", "engine_version", "load_grid", "parse_grid",
    "write_report", "Store",
]
