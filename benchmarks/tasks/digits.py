"""Task 2: rotated digits (scikit-learn's bundled 8x8 digits), symmetry C4 and D4.

    PYTHONPATH=. .venv/bin/python benchmarks/tasks/digits.py            # full: 3 seeds, C4 + D4
    PYTHONPATH=. .venv/bin/python benchmarks/tasks/digits.py --quick    # CI-sized (tests/tasks)

Data: ``sklearn.datasets.load_digits()`` (1,797 images shipped with scikit-learn, no
download), split once with seed 0 into 1,000 train / 297 validation / 500 test. Tokens: the
sixteen 2x2 patches, each ``(centre / 3, pixels / 16)``: its centre ``(x, y)`` in pixel units
from the image centre and its four pixels in the order (top-left, top-right, bottom-left,
bottom-right). ``g`` (a rotation by 90 degrees, or a reflection for D4) acts on a token by
its 2x2 matrix on the centre and by the permutation it induces on the four pixel offsets
``(+-1/2, +-1/2)``; rotating the IMAGE permutes the tokens and acts on each this way (checked in
tests/tasks/test_digits.py). Models train on upright images only, without augmentation
except ``vanilla+aug``; the metric is test accuracy on upright images and, as
``value_transformed``, the mean accuracy over the test set rotated/reflected by every
non-identity element of G.
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
from benchmarks.tasks.symmetry import task_group  # noqa: E402

FULL = harness.Budget(epochs=25, batch=50, lr=5e-3)
QUICK = harness.Budget(epochs=2, batch=50, lr=2e-3)
SPLIT, QUICK_SPLIT = (1000, 297, 500), (200, 50, 100)
GROUPS = ("C4", "D4")
#: pixel offsets from a patch centre, (x, y), in the token's pixel order
OFFSETS = np.array([[-0.5, 0.5], [0.5, 0.5], [-0.5, -0.5], [0.5, -0.5]])


def offset_perm(R: np.ndarray) -> np.ndarray:
    """``Pi`` with ``Pi[j, i] = 1`` when ``R`` moves offset ``i`` to offset ``j``."""
    moved = OFFSETS @ R.T
    P = np.zeros((4, 4))
    for i, o in enumerate(moved):
        P[int(np.argmin(np.abs(OFFSETS - o).sum(1))), i] = 1.0
    return P


def rho_in(M: np.ndarray) -> np.ndarray:
    out = np.zeros((M.shape[0], 6, 6))
    out[:, :2, :2] = M
    for g, R in enumerate(M):
        out[g, 2:, 2:] = offset_perm(R)
    return out


def tokens(images: np.ndarray) -> np.ndarray:
    """``(S, 8, 8) -> (S, 16, 6)``: per 2x2 patch (row-major) its centre / 3 and pixels / 16."""
    S = images.shape[0]
    out = np.zeros((S, 16, 6), dtype=np.float32)
    for R in range(4):
        for C in range(4):
            t = 4 * R + C
            out[:, t, 0], out[:, t, 1] = (2 * C - 3) / 3.0, (3 - 2 * R) / 3.0
            patch = images[:, 2 * R:2 * R + 2, 2 * C:2 * C + 2].reshape(S, 4)
            out[:, t, 2:] = patch / 16.0
    return out


def transform_images(images: np.ndarray, R: np.ndarray) -> np.ndarray:
    """The images moved by ``R``: the pixel at centred position ``p`` goes to ``R p``."""
    out = np.zeros_like(images)
    for r in range(8):
        for c in range(8):
            x, y = R @ np.array([c - 3.5, 3.5 - r])
            out[:, int(round(3.5 - y)), int(round(x + 3.5))] = images[:, r, c]
    return out


def load(split: tuple[int, int, int]) -> tuple[dict, np.ndarray, np.ndarray]:
    """Token sets per split, plus the raw test images and labels (for the transformed tests)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    order = np.random.default_rng(0).permutation(len(d.target))
    images, labels = d.images[order].astype(np.float64), d.target[order].astype(np.int64)
    a, b, c = split
    parts = {"train": slice(0, a), "val": slice(a, a + b), "test": slice(a + b, a + b + c)}
    data = {k: (tokens(images[s]), labels[s]) for k, s in parts.items()}
    return data, images[parts["test"]], labels[parts["test"]]


def make_task(group: str, data: dict, extra: dict | None = None) -> harness.Task:
    spec, m, H, d = dz.PROBLEMS[f"digits-{group}"]
    return harness.Task("digits", group, task_group(spec, rho_in, lambda M: np.ones((M.shape[0], 1, 1))), (spec, m, H, d),
                        data, 10, 0, "accuracy", None, extra or {})


def main(argv: list[str] | None = None) -> None:
    ap = harness.arguments(__doc__, FULL, QUICK)
    ap.add_argument("--groups", default=",".join(GROUPS))
    args = ap.parse_args(argv)
    budget, seeds, models = harness.settings(args, FULL, QUICK)
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    data, test_images, test_labels = load(QUICK_SPLIT if args.quick else SPLIT)
    rows = []
    for group in args.groups.split(","):
        tg = task_group(dz.PROBLEMS[f"digits-{group}"][0])
        extra = {f"g{g}": (tokens(transform_images(test_images, tg.rho_in[g])), test_labels) for g in range(1, tg.order)}
        rows += harness.run_models(make_task(group, data, extra), models, seeds, budget)
    out = harness.csv_path(args, "digits")
    kept = rows if args.replace else harness.merge_rows(rows, out)
    harness.write_csv(kept, out)
    harness.write_run(out, sys.argv[1:] if argv is None else argv, time.perf_counter() - t0, budget, QUICK_SPLIT if args.quick else SPLIT, merged=len(kept) > len(rows))
    print(f"wrote {out} ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
