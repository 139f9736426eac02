"""The published atlases, made with `eqattn atlas` (eqattn.atlas): docs/atlas.md and its CSV.

    PYTHONPATH=. python3 benchmarks/atlas.py                 # the default grid, 2 workers
    PYTHONPATH=. python3 benchmarks/atlas.py --workers 1 --store /tmp/atlas-1
    PYTHONPATH=. python3 benchmarks/atlas.py --grid examples/atlas-extended.toml --name atlas-extended
    PYTHONPATH=. python3 benchmarks/atlas.py --report-only   # rewrite the docs from the store
    PYTHONPATH=. python3 benchmarks/atlas.py --report-only --compare FORMER.csv   # + reproduction section

Solves the grid (default examples/atlas-default.toml, the 1905 entries of the former
benchmarks/atlas.py) into the store DIR/atlas.sqlite (default /tmp/eqattn-atlas/NAME; resumable:
a rerun skips what is stored), then writes docs/NAME.md from the store (plots in
docs/NAME-plots/), docs/NAME.csv (the export), and appends docs/atlas-engines.md (why Dask,
measured by benchmarks/atlas_engines.py) and docs/atlas-solvers.md (HiGHS against CP-SAT on
the same grid, measured with the former script) to the default atlas. `--compare` adds the
reproduction of a former CSV of this grid (same optima?).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def compare_section(store_rows: list[dict], former_csv: str) -> str:
    """The reproduction of a former atlas CSV: problems both solved to optimality, equal optima."""
    from eqattn.atlas.report import design_text, head_dims_text

    with open(former_csv, newline="") as f:
        old = list(csv.DictReader(f))
    mine = {(r["group_name"], r["rep"], r["heads"], r["head_dim"]): r for r in store_rows}
    both = differ = design_same = 0
    diffs: list[str] = []
    status_pairs: dict[tuple[str, str], int] = {}
    for o in old:
        r = mine.get((o["group"], o["V"], int(o["H"]), int(o["d"])))
        if r is None:
            continue
        status_pairs[(o["status"], r["status"])] = status_pairs.get((o["status"], r["status"]), 0) + 1
        if o["status"] == r["status"] == "optimal":
            both += 1
            if int(o["P_opt"]) != r["p_opt"]:
                differ += 1
                diffs.append(f"{o['group']} {o['rep']} H={o['H']} d={o['d']}: {o['P_opt']} -> {r['p_opt']}")
            orbits = json.loads(r["design"])["orbits"]
            design_same += design_text(orbits) == o["design"] and head_dims_text(orbits) == o["head_dims"]
    lines = [
        "## Reproduction of the former atlas",
        "",
        f"The former `benchmarks/atlas.py` (a process pool, results at the end) answered the same grid "
        f"({len(old)} entries). Problems optimal in both: {both}; equal P_opt: {both - differ}"
        + (f"; DIFFERENT: {'; '.join(diffs)}" if diffs else "")
        + f"; the same optimal design (orbits, head dimensions): {design_same}.",
        "",
        "| former status | this status | entries |",
        "|---|---|---|",
    ]
    for (a, b), n in sorted(status_pairs.items()):
        lines.append(f"| {a} | {b} | {n} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--grid", default=str(ROOT / "examples" / "atlas-default.toml"))
    p.add_argument("--name", default="atlas", help="docs/NAME.md, docs/NAME.csv (default atlas)")
    p.add_argument("--store", default=None, help="the store's folder (default /tmp/eqattn-atlas/NAME)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--cluster", default=None)
    p.add_argument("--docs", default=str(ROOT / "docs"))
    p.add_argument("--report-only", action="store_true", help="do not solve: rewrite the docs from the store")
    p.add_argument("--compare", default=None, help="a former CSV of this grid: adds a reproduction section")
    a = p.parse_args(argv)

    from eqattn.atlas import STORE_NAME, Store, load_grid, run_grid, write_report

    grid = load_grid(a.grid)
    store_dir = Path(a.store or f"/tmp/eqattn-atlas/{a.name}")
    if not a.report_only:
        s = run_grid(grid, store_dir, workers=a.workers, cluster=a.cluster)
        print(json.dumps(s.to_json()), file=sys.stderr)
    docs = Path(a.docs)
    appendix = []
    if a.compare:
        with Store(store_dir / STORE_NAME) as st:
            appendix.append(compare_section(st.rows(), a.compare))
    if a.name == "atlas":
        appendix += [(docs / n).read_text() for n in ("atlas-engines.md", "atlas-solvers.md") if (docs / n).exists()]
    md = write_report(store_dir / STORE_NAME, docs / f"{a.name}.md", title=grid.title, appendix="\n".join(appendix))
    with Store(store_dir / STORE_NAME) as st:
        st.export("csv", docs / f"{a.name}.csv")
    print(f"wrote {md} and {docs / (a.name + '.csv')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
