"""Schemathesis over every endpoint of the API, long: 3 seeds, >= 3,000 requests in all.

    .venv/bin/python benchmarks/fuzz_api.py [--examples 25] [--seeds 1 2 3]

Runs tests/api/test_fuzz.py (valid and invalid generated requests for every operation of the
OpenAPI schema, checks: no 5xx, status codes, content types, response schemas, Allow on 405,
schema-violating requests rejected) once per seed with EQATTN_FUZZ_EXAMPLES examples per
operation and mode, and prints each seed's requests and statuses and the total. Exit status 0
only when every seed passed (0 x 5xx, 0 non-conformant). `make test` runs the same file with
one seed and 6 examples.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=25, help="examples per operation and generation mode (default 25)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = ap.parse_args()
    total, ok = 0, True
    for seed in args.seeds:
        env = {**os.environ, "EQATTN_FUZZ_EXAMPLES": str(args.examples), "EQATTN_FUZZ_SEED": str(seed),
               "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-s", "tests/api/test_fuzz.py"],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        line = next((ln for ln in r.stdout.splitlines() if "schemathesis seed" in ln), "")
        m = re.search(r"(\d+) requests", line)
        n = int(m.group(1)) if m else 0
        total += n
        passed = r.returncode == 0
        ok &= passed
        summary = line[line.find("schemathesis"):] if line else "(no summary)"
        print(f"seed {seed}: {'pass' if passed else 'FAIL'} in {time.monotonic() - t0:.0f} s; {summary}", flush=True)
        if not passed:
            print(r.stdout[-4000:], r.stderr[-2000:], sep="\n")
    print(f"total: {total} requests over {len(args.seeds)} seeds; {'0 x 5xx, 0 non-conformant' if ok else 'FAILURES above'}")
    return 0 if ok and total >= 3000 else 1


if __name__ == "__main__":
    sys.exit(main())
