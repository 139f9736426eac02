"""Task 1: charged N-body (the EGNN paper's setup, Satorras et al. 2021, Table 2), symmetry Oh and D4h.

    PYTHONPATH=. .venv/bin/python benchmarks/tasks/nbody.py               # full: 3000/2000/2000, 3 seeds, Oh + D4h
    PYTHONPATH=. .venv/bin/python benchmarks/tasks/nbody.py --quick       # CI-sized (tests/tasks)
    PYTHONPATH=. .venv/bin/python benchmarks/tasks/nbody.py --stats       # dataset statistics only

Data: :mod:`nbody_sim` (5 particles, charges +-1, 1,000 steps of dt = 0.001 from frame 30 to
frame 40; generated with seed 43 and cached under artifacts/). Tokens: one per particle,
``(x - centroid, v, q)`` (7 numbers); translations are removed by centring, so the task is
equivariant under O(3) and so under its finite subgroups Oh (48 elements) and D4h (16),
acting on positions and velocities by the vector representation and trivially on the
charge. Output per particle: its position after 1,000 steps minus the input centroid,
predicted as ``x - centroid + model(tokens)``; metric: MSE over coordinates (the paper's).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from benchmarks.tasks import designs as dz  # noqa: E402
from benchmarks.tasks import harness  # noqa: E402
from benchmarks.tasks.nbody_sim import Recipe, dataset, statistics  # noqa: E402
from benchmarks.tasks.symmetry import task_group  # noqa: E402

FULL = harness.Budget(epochs=12, batch=100, lr=2e-3)
QUICK = harness.Budget(epochs=2, batch=50, lr=2e-3)
SIZES, QUICK_SIZES = (3000, 2000, 2000), (150, 50, 50)
GROUPS = ("Oh", "D4h")
#: Table 2 of Satorras et al. 2021 (test MSE): other architectures, trained 10,000 epochs there
PUBLISHED = {"Linear": 0.0819, "SE(3)-Transformer": 0.0244, "Tensor Field Network": 0.0155, "Graph Neural Network": 0.0107,
             "Radial Field": 0.0104, "EGNN": 0.0071}


def rho_in(M: np.ndarray) -> np.ndarray:
    """(x, v, q): the vector representation twice and the trivial one."""
    n = M.shape[0]
    out = np.zeros((n, 7, 7))
    out[:, :3, :3] = M
    out[:, 3:6, 3:6] = M
    out[:, 6, 6] = 1.0
    return out


def positions(X: torch.Tensor) -> torch.Tensor:
    return X[..., :3]


def make_task(group: str, data: dict, extra: dict | None = None) -> harness.Task:
    spec, m, H, d = dz.PROBLEMS[f"nbody-{group}"]
    data = {k: (np.asarray(X, np.float32), np.asarray(Y, np.float32)) for k, (X, Y) in data.items()}
    return harness.Task("nbody", group, task_group(spec, rho_in), (spec, m, H, d), data, "tokens", 3, "mse", positions)


def load_data(sizes: tuple[int, int, int]) -> dict:
    """The dataset for ``sizes`` (cached as artifacts/nbody-<sizes>.npz; generation is deterministic)."""
    path = ROOT / "artifacts" / f"nbody-{'-'.join(map(str, sizes))}.npz"
    if path.exists():
        z = np.load(path)
        return {k: (z[f"{k}_X"], z[f"{k}_Y"]) for k in ("train", "val", "test")} | {"clipped": float(z["clipped"])}
    data = dataset(sizes)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, clipped=data["clipped"], **{f"{k}_{a}": data[k][i] for k in ("train", "val", "test") for i, a in enumerate("XY")})
    return data


def describe(stats: dict) -> list[str]:
    r = Recipe()
    return [
        f"recipe: {r.n_balls} particles, charges +-1, loc_std {r.loc_std}, speed {r.speed}, dt {r.dt}, "
        f"frames {r.frame_in} -> {r.frame_out} ({r.step_of(r.frame_out) - r.step_of(r.frame_in)} steps), force clip {r.max_force:g}",
        f"test set: mean displacement {stats['mean_displacement']:.3f}, mean pairwise distance {stats['mean_pair_distance']:.3f}, "
        f"mean speed {stats['mean_speed']:.3f}; trajectories with a clipped force: {100 * stats['clipped_fraction']:.0f} %",
        f"Linear baseline x + c v (c = {stats['linear_c']:.3f} fitted): MSE {stats['linear_mse']:.4f}  (paper's Linear: {PUBLISHED['Linear']})",
        f"zero-motion baseline: MSE {stats['static_mse']:.4f}",
    ]


def main(argv: list[str] | None = None) -> None:
    ap = harness.arguments(__doc__, FULL, QUICK)
    ap.add_argument("--groups", default=",".join(GROUPS))
    ap.add_argument("--stats", action="store_true", help="print the dataset statistics and stop")
    args = ap.parse_args(argv)
    budget, seeds, models = harness.settings(args, FULL, QUICK)
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    data = load_data(QUICK_SIZES if args.quick else SIZES)
    stats = statistics(data)
    for line in describe(stats):
        print(line, flush=True)
    if args.stats:
        return
    rows = [{"task": "nbody", "group": "-", "model": f"baseline: {k}", "status": "ok", "metric": "mse", "value": v,
             "note": "computed on this data"} for k, v in (("Linear (x + c v)", stats["linear_mse"]), ("zero motion", stats["static_mse"]))]
    rows += [{"task": "nbody", "group": "-", "model": f"published: {k}", "status": "published", "metric": "mse", "value": v,
              "note": "Satorras et al. 2021 Table 2, another architecture on the paper's data"} for k, v in PUBLISHED.items()]
    for group in args.groups.split(","):
        task = make_task(group, {k: data[k] for k in ("train", "val", "test")})
        rows += harness.run_models(task, models, seeds, budget)
    out = harness.csv_path(args, "nbody")
    kept = rows if args.replace else harness.merge_rows(rows, out)
    harness.write_csv(kept, out)
    harness.write_run(out, sys.argv[1:] if argv is None else argv, time.perf_counter() - t0, budget, QUICK_SIZES if args.quick else SIZES,
                      describe(stats), merged=len(kept) > len(rows))
    print(f"wrote {out} ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
