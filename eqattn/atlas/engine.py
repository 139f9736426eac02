"""One problem of a grid solved by the optimiser: the row the store keeps (SPEC §5.5).

`solve(problem)` runs in a worker process (a Dask worker or this process); it never raises for
a bad or too-large problem: the row's status says `refused` (a LimitError: the limit that
refused it) or `error` (an InputError or an unexpected failure), with the reason in `detail`.

    >>> from eqattn.atlas.grid import parse_grid
    >>> g = parse_grid({"group": [{"name": "C2", "reps": ["A + B"]}], "heads": [1], "head_dims": [2]})
    >>> row = solve(g.problems[0].to_json())
    >>> row["status"], row["p_opt"], row["p_vanilla"]
    ('optimal', 8, 16)
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from ..errors import InputError, LimitError

STATUSES = ("optimal", "feasible", "refused", "error")


def _optimize(problem: Any, time_limit: float, solver: str) -> dict[str, Any]:
    """THE adapter to the optimiser: `OptimizeResult.to_json()` of one problem, one solver
    thread (the only place the atlas calls the optimiser)."""
    from ..optimize import optimize

    return optimize(problem, time_limit, backend=solver, threads=1).to_json()


def _design(orbits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The design as `eqattn check` / the page read it: one {"subgroup", "rep"} per orbit."""
    return [{"subgroup": o["subgroup"], "name": o["name"], "rep": o["rep"], "heads": o["heads"], "head_dim": o["head_dim"]} for o in orbits]


def solve(problem: dict[str, Any]) -> dict[str, Any]:
    """The store's row for one `GridProblem.to_json()`: status, P_opt, bound, gap, design, time."""
    from ..attention import Problem

    t0 = time.perf_counter()
    row: dict[str, Any] = {
        "key": problem["key"],
        "p_vanilla": 4 * problem["heads"] * problem["head_dim"] * problem["dim_v"],
        "p_opt": None,
        "bound": None,
        "gap": None,
        "heads_total": None,
        "constrained_vanilla": None,
        "constrained_params": None,
        "design": None,
        "result": None,
        "detail": "",
        "worker": f"{socket.gethostname()}:{os.getpid()}",
    }
    try:
        p = Problem.create(problem["group"], problem["rep"], problem["heads"], problem["head_dim"])
        res = _optimize(p, problem["time_limit"], problem["solver"])
        cv = res["constrained_vanilla_possible"]
        cd = res["constrained_vanilla_design"]
        row.update(
            status=res["status"],
            p_opt=res["design_params"],
            bound=res["lower_bound"],
            gap=res["gap"],
            heads_total=res["heads_total"],
            constrained_vanilla={True: "yes", False: "no", None: "unknown"}[cv],
            constrained_params=cd["params"] if cd else None,
            design={
                "group": problem["group"],
                "rep": problem["rep"],
                "heads": problem["heads"],
                "head_dim": problem["head_dim"],
                "params": res["design_params"],
                "orbits": _design(res["orbits"]),
            },
            result=res,
            detail="; ".join(res["notes"]),
        )
    except LimitError as e:
        row.update(status="refused", detail=f"{e.field}: {e.message}")
    except InputError as e:
        row.update(status="error", detail=f"{e.field}: {e.message}")
    except Exception as e:  # noqa: BLE001 - recorded in the store, the sweep goes on
        row.update(status="error", detail=f"{type(e).__name__}: {e}")
    row["time_s"] = round(time.perf_counter() - t0, 3)
    return row
