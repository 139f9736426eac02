"""The listing of partial profiles behind the checker's hosting sets (docs/theory-scale.md C4,
Lemma 6: merging, floors, integer state keys), on designs the optimiser met.

    PYTHONPATH=. python3 benchmarks/hosting_listing.py            # about 2 min
    PYTHONPATH=. python3 benchmarks/hosting_listing.py --quick    # without the slowest variant
    PYTHONPATH=. python3 benchmarks/hosting_listing.py --quick --rows 4000000   # the baseline past its limit: verdicts cross-checked

Every design is checked on every clustering (`SymbolicChecker.first_uncovered`, a fresh
checker each time) three ways in this run: as shipped; without the floors
(`hosting_sets.FLOOR_PROFILE_ROWS`); and without the floors with states compared as rows
(`INTEGER_STATE_KEYS`, the listing before both; skipped by --quick). Printed per design and
way: seconds, the largest merged listing that finished (rows of one coordinate), covered/total or the limit
that stopped the check, and the time as a ratio to the shipped way. The verdicts of the ways
that answer must agree (the script exits 1 otherwise). `--rows N` lets the ways other than the
shipped one list up to N merged rows (`MAX_PROFILE_ROWS`, 400 000 as shipped), so that they
answer where the shipped way is the only one within the limit, and the verdicts are compared
(memory: about N x 8 bytes per irrep of the support). A problem's shared tables are built by
one untimed check first.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys
import time

import eqattn.attention.hosting_sets as hs
from eqattn.attention import Design, DesignOrbit, Problem, clusterings
from eqattn.attention.symbolic import SymbolicChecker
from eqattn.errors import LimitError
from eqattn.reps import Rep

DESIGNS = [
    # S4xC2, 10xregular, H = 4, d = 60: candidates of the H = 4 seed of the H = 8 search
    (("S4xC2", "10xregular", 4, 60), [("A4", (20, 20, 20)), ("A4", (40, 30, 20)), ("D4.1", (30,) * 5), ("D3.2", (40, 40, 30))]),
    (("S4xC2", "10xregular", 4, 60), [("A4", (20, 20, 20)), ("A4", (20, 30, 20)), ("A4", (40, 30, 20)),
                                      ("D6", (40, 40, 40, 40, 30, 30)), ("D4.1", (30,) * 5), ("D4.4", (30,) * 5)]),
    # D4, 32xregular, H = 4, d = 128 (proven optimal in 9 s; its slowest check)
    (("D4", "32xregular", 4, 128), [("C2xC2.1", (64, 64, 32, 64)), ("C4", (64, 64, 64)), ("C2.3", (64, 64)), ("C1", (128,))]),
    # D8, 4xregular, H = 4, d = 16 (tests/attention/test_symbolic.py, merging)
    (("D8", "4xregular", 4, 16), [("D8", (4, 4, 4, 4, 8, 0, 0)), ("D8", (4, 4, 4, 4, 8, 0, 0)), ("C4", (8, 4, 8)),
                                  ("C4", (8, 4, 8)), ("C2.1", (16, 0))]),
]
SHIPPED_ROWS = hs.MAX_PROFILE_ROWS
WAYS = [("shipped", True, True), ("no floors", False, True), ("no floors, row keys", False, False)]


def _check(p: Problem, design: Design, floors: bool, ints: bool, rows: int) -> tuple[float, int, str, tuple | None]:
    hs.FLOOR_PROFILE_ROWS, hs.INTEGER_STATE_KEYS, hs.MAX_PROFILE_ROWS = floors, ints, rows
    most = [0]
    orig = hs._extend_rows

    def counting(*args):  # noqa: ANN002, ANN202
        out = orig(*args)
        most[0] = max(most[0], out[0].shape[0])
        return out

    hs._extend_rows = counting
    t = time.perf_counter()
    try:
        chk = SymbolicChecker(p, design)
        verdicts = tuple(chk.first_uncovered(c) is None for c in clusterings(p))
        said = f"{sum(verdicts)}/{len(verdicts)} covered"
    except LimitError as e:
        verdicts, said = None, f"LimitError: {e}"
    finally:
        hs._extend_rows = orig
        hs.FLOOR_PROFILE_ROWS = hs.INTEGER_STATE_KEYS = True
        hs.MAX_PROFILE_ROWS = SHIPPED_ROWS
    return time.perf_counter() - t, most[0], said, verdicts


def main(argv: list[str]) -> int:
    ways = WAYS[:2] if "--quick" in argv else WAYS
    rows_other = int(argv[argv.index("--rows") + 1]) if "--rows" in argv else SHIPPED_ROWS
    bad = 0
    print(f"{'problem':34} {'orbits':>6} {'way':22} {'s':>7} {'rows':>8} {'x shipped':>9}  answer")
    for spec, orbits in DESIGNS:
        p = Problem.create(*spec)
        sub = {c.name: c for c in p.group.subgroup_classes}
        design = Design(p, tuple(DesignOrbit(sub[n], Rep(sub[n], W)) for n, W in orbits))
        _check(p, Design(p, design.orbits[:1]), True, True, SHIPPED_ROWS)  # the problem's shared tables, untimed
        base, answers = None, set()
        for name, floors, ints in ways:
            s, rows, said, verdicts = _check(p, design, floors, ints, SHIPPED_ROWS if name == "shipped" else rows_other)
            base = base or s
            if verdicts is not None:
                answers.add(verdicts)
            print(f"{':'.join(map(str, spec)):34} {len(orbits):>6} {name:22} {s:7.2f} {rows:>8} {s / base:9.2f}  {said}", flush=True)
        if len(answers) > 1:
            print("  DISAGREE: the ways' verdicts differ")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
