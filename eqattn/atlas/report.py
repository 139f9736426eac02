"""The atlas page: markdown with SVG plots, generated from a store (nothing else is read).

`write_report(store_path, md_path)` writes the summary (status counts, savings
P_opt / P_vanilla, constrained vanilla, times, the runs), three plots in `<md stem>-plots/`
(P_opt / P_vanilla per group and against dim V; the share of problems where the vanilla layer
can just be constrained (H heads of dimension d cover every clustering, SPEC §5.5); time per
problem), the problems stopped by the time limit or refused, and one table per group.
The SVGs are deterministic (fixed hash salt, no date), so regenerating changes only what changed.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
from pathlib import Path
from typing import Any

from ..errors import InputError
from .store import Store

PLOTS = ("ratio", "constrained", "time")
_BUCKETS = [(0.0, 0.125), (0.125, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0), (1.0, 1.0001)]
_BUCKET_NAMES = ["< 1/8", "1/8 .. < 1/4", "1/4 .. < 1/2", "1/2 .. < 3/4", "3/4 .. < 1", "= 1 (no saving)"]


def design_text(orbits: list[dict[str, Any]]) -> str:
    """`C2:A + B; 2 x C1:A`: the orbits G/K:W, equal neighbours counted.

    >>> design_text([{"name": "C1", "rep": "A"}, {"name": "C1", "rep": "A"}])
    '2 x C1:A'
    """
    parts: list[str] = []
    for o in orbits:
        item = f"{o['name']}:{o['rep']}"
        if parts and parts[-1].split(" x ", 1)[-1] == item:
            k = int(parts[-1].split(" x ", 1)[0]) + 1 if " x " in parts[-1] else 2
            parts[-1] = f"{k} x {item}"
        else:
            parts.append(item)
    return "; ".join(parts) if parts else "(empty)"


def head_dims_text(orbits: list[dict[str, Any]]) -> str:
    """`1x2 2x1`: number of heads x head dimension, largest dimension first.

    >>> head_dims_text([{"heads": 1, "head_dim": 2}, {"heads": 2, "head_dim": 1}])
    '1x2 2x1'
    """
    dims: dict[int, int] = {}
    for o in orbits:
        dims[o["head_dim"]] = dims.get(o["head_dim"], 0) + o["heads"]
    return " ".join(f"{k}x{dm}" for dm, k in sorted(dims.items(), reverse=True)) or "-"


def _groups(rows: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for r in rows:
        if r["label"] not in out:
            out.append(r["label"])
    return out


def _plots(rows: list[dict[str, Any]], folder: Path) -> list[str]:
    """Write the three SVGs; returns their file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 - matplotlib.ticker.* below

    plt.rcParams["svg.hashsalt"] = "eqattn-atlas"
    plt.rcParams["svg.fonttype"] = "none"
    folder.mkdir(parents=True, exist_ok=True)
    groups = _groups(rows)
    gi = {g: i for i, g in enumerate(groups)}
    solved = [r for r in rows if r["status"] in ("optimal", "feasible") and r["p_opt"] is not None]
    width = max(6.0, 0.32 * len(groups) + 2)
    names = []

    # 1. P_opt / P_vanilla per group (colour: dim V) and against dim V
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(width + 5, 4.2), gridspec_kw={"width_ratios": [width, 5]})
    xs = [gi[r["label"]] + ((hash((r["heads"], r["head_dim"])) % 7) - 3) * 0.05 for r in solved]
    ys = [r["p_opt"] / r["p_vanilla"] for r in solved]
    cs = [r["dim_v"] for r in solved]
    sc = ax1.scatter(xs, ys, c=cs, s=9, cmap="viridis", rasterized=True, norm=matplotlib.colors.LogNorm(vmin=max(1, min(cs, default=1)), vmax=max(2, max(cs, default=2))))
    ax1.set_xticks(range(len(groups)), groups, rotation=90, fontsize=7)
    ax1.set_ylabel("P_opt / P_vanilla")
    ax1.set_ylim(-0.03, 1.05)
    ax1.set_title("Optimal / vanilla parameters per group (colour: dim V)", fontsize=9)
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    bar = fig.colorbar(sc, ax=ax1, label="dim V", pad=0.01)
    bar.ax.yaxis.set_major_formatter(plain)
    bar.ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax2.scatter(cs, ys, c=[r["heads"] for r in solved], s=9, cmap="plasma", rasterized=True)
    ax2.set_xscale("log", base=2)
    ax2.xaxis.set_major_formatter(plain)
    ax2.set_xlabel("dim V")
    ax2.set_ylim(-0.03, 1.05)
    ax2.set_title("against dim V (colour: H)", fontsize=9)
    fig.tight_layout()
    names.append("ratio.svg")
    fig.savefig(folder / names[-1], metadata={"Date": None})
    plt.close(fig)

    # 2. share of problems where the vanilla layer can be constrained
    fig, ax = plt.subplots(figsize=(width, 3.6))
    share, labels = [], []
    for g in groups:
        rs = [r for r in solved if r["label"] == g and r["constrained_vanilla"] in ("yes", "no")]
        share.append(sum(r["constrained_vanilla"] == "yes" for r in rs) / len(rs) if rs else 0.0)
        labels.append(f"{sum(r['constrained_vanilla'] == 'yes' for r in rs)}/{len(rs)}")
    bars = ax.bar(range(len(groups)), share, color="#4c72b0")
    for b, lab in zip(bars, labels):
        ax.text(b.get_x() + b.get_width() / 2, b.get_height() + 0.01, lab, ha="center", va="bottom", fontsize=5, rotation=90)
    ax.set_xticks(range(len(groups)), groups, rotation=90, fontsize=7)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("share")
    ax.set_title("Constrained vanilla works: H heads of dimension d cover every clustering", fontsize=9)
    fig.tight_layout()
    names.append("constrained.svg")
    fig.savefig(folder / names[-1], metadata={"Date": None})
    plt.close(fig)

    # 3. time per problem
    fig, ax = plt.subplots(figsize=(width, 3.6))
    colours = {"optimal": "#55a868", "feasible": "#dd8452", "refused": "#c44e52", "error": "#000000"}
    for st, col in colours.items():
        rs = [r for r in rows if r["status"] == st]
        if rs:
            ax.scatter([gi[r["label"]] for r in rs], [max(r["time_s"], 1e-3) for r in rs], s=7, color=col, rasterized=True,
                       label={"feasible": "time-limited"}.get(st, st))
    limits = sorted({r["time_limit"] for r in rows})
    for tl in limits:
        ax.axhline(tl, color="grey", lw=0.6, ls="--")
    ax.set_yscale("log")
    ax.set_xticks(range(len(groups)), groups, rotation=90, fontsize=7)
    ax.set_ylabel("seconds")
    ax.set_title("Time per problem (dashed: the time limit)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    names.append("time.svg")
    fig.savefig(folder / names[-1], metadata={"Date": None})
    plt.close(fig)
    return names


def render(rows: list[dict[str, Any]], runs: list[dict[str, Any]], title: str, plots: list[str], plot_dir: str, appendix: str = "") -> str:
    """The markdown text (plots already written)."""
    optimal = [r for r in rows if r["status"] == "optimal"]
    feasible = [r for r in rows if r["status"] == "feasible"]
    refused = [r for r in rows if r["status"] == "refused"]
    errors = [r for r in rows if r["status"] == "error"]
    solved = optimal + feasible
    engines = sorted({r["engine"] for r in rows})
    limits = sorted({r["time_limit"] for r in rows})
    solvers = sorted({r["solver"] for r in rows})
    cpu = sum(r["time_s"] for r in rows)
    lines = [
        f"# {title}",
        "",
        "Generated by `eqattn atlas` from its store (`atlas.sqlite`, table `results`, one row per problem). "
        f"Engine: {', '.join(engines) or '-'}; solver {', '.join(solvers) or '-'}, one thread per problem; "
        f"time limit {', '.join(f'{t:g}' for t in limits) or '-'} s per problem (the re-checks by the coverage checker and, "
        "for small problems, by the weight construction come on top). "
        f"Report written on {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}.",
        "",
        "For each problem `(G, V, H, d)`: `P_vanilla = 4 H d dim V`; `P_opt` the fewest parameters of a design covering",
        "every G-clustering (SPEC §5.5); `status` `optimal` (proven by the solver's bound), `feasible` (time limit;",
        "`gap` = (P_opt - lower bound) / P_opt) or `refused` (the problem exceeds a limit of the optimiser or the",
        "coverage checker, named in the detail); heads and head dimensions of the optimum",
        "(`4x2` = four heads of dimension 2; ties go to fewer heads, then a smaller largest head dimension);",
        "`cv` = constrained vanilla: is there a covering design with exactly H heads, all of dimension d",
        "(`yes` with its cheapest parameter count, `no` proven).",
        "",
        "## Summary",
        "",
        f"* problems: {len(rows)}; optimal: {len(optimal)}; feasible (time limit): {len(feasible)}; refused: {len(refused)}; errors: {len(errors)}",
        f"* sum of per-problem times {cpu:.0f} s; slowest solved problem {max((r['time_s'] for r in solved), default=0):.1f} s; "
        f"median {statistics.median([r['time_s'] for r in rows]) if rows else 0:.2f} s",
    ]
    ratios = sorted(r["p_opt"] / r["p_vanilla"] for r in optimal)
    if ratios:
        hist = ", ".join(f"{nm}: {sum(lo <= x < hi for x in ratios)}" for (lo, hi), nm in zip(_BUCKETS, _BUCKET_NAMES))
        lines += [
            f"* savings P_opt / P_vanilla over the {len(ratios)} optimal problems: min {ratios[0]:.4f}, "
            f"median {statistics.median(ratios):.4f}, mean {statistics.mean(ratios):.4f}, max {ratios[-1]:.4f}",
            f"* distribution: {hist}",
        ]
    numeric = [json.loads(r["result"])["verified"]["numeric_worst_rel_error"] for r in solved if r.get("result")]
    numeric = [x for x in numeric if x is not None]
    if solved:
        lines.append(
            f"* re-checked by the coverage checker: all {len(solved)} answers"
            + (f"; also by the weight construction (small problems): {len(numeric)}, worst relative error {max(numeric):.1e}" if numeric else "")
        )
    cv = {k: sum(r["constrained_vanilla"] == k for r in solved) for k in ("yes", "no", "unknown")}
    lines.append(f"* constrained vanilla possible: yes {cv['yes']}, no {cv['no']}, unknown (time limit) {cv['unknown']}")
    if runs:
        lines += ["", "Runs that filled this store:", "", "| run | engine | problems | stored before | computed | wall s |", "|---|---|---|---|---|---|"]
        for i, r in enumerate(runs, 1):
            lines.append(f"| {i} | {r['engine']} | {r['total']} | {r['skipped']} | {r['computed']} | {r['wall_s']:.0f} |")
    if plots:
        lines += ["", "## Plots", ""]
        captions = {"ratio.svg": "P_opt / P_vanilla per group and against dim V",
                    "constrained.svg": "share of problems where constrained vanilla works",
                    "time.svg": "time per problem"}
        for name in plots:
            lines += [f"![{captions.get(name, name)}]({plot_dir}/{name})", ""]
    if feasible:
        lines += ["", "### Stopped by the time limit", "", "| G | V | H | d | P_opt | lower bound | gap |", "|---|---|---|---|---|---|---|"]
        for r in feasible:
            lines.append(f"| {r['label']} | {r['rep_input']} | {r['heads']} | {r['head_dim']} | {r['p_opt']} | {r['bound']} | {r['gap']:.3f} |")
    if refused or errors:
        lines += ["", "### Refused or failed", "", "| G | V | H | d | status | detail |", "|---|---|---|---|---|---|"]
        for r in refused + errors:
            lines.append(f"| {r['label']} | {r['rep_input']} | {r['heads']} | {r['head_dim']} | {r['status']} | {r['detail'].replace('|', '/')} |")
    if appendix:
        lines += ["", appendix.strip()]
    lines += ["", "## Results", ""]
    for g in _groups(rows):
        lines += [f"### {g}", "", "| V | H | d | P_vanilla | P_opt | ratio | status | heads | head dims | design | cv | time s |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            if r["label"] != g:
                continue
            if r["status"] in ("optimal", "feasible"):
                orbits = json.loads(r["design"])["orbits"]
                st = "optimal" if r["status"] == "optimal" else f"feasible (gap {r['gap']:.3f})"
                cvt = r["constrained_vanilla"] + (f" ({r['constrained_params']})" if r["constrained_params"] is not None else "")
                lines.append(
                    f"| {r['rep']} | {r['heads']} | {r['head_dim']} | {r['p_vanilla']} | {r['p_opt']} | {r['p_opt'] / r['p_vanilla']:.3f} | {st} | "
                    f"{r['heads_total']} | {head_dims_text(orbits)} | {design_text(orbits)} | {cvt} | {r['time_s']:.2f} |"
                )
            else:
                lines.append(f"| {r['rep']} | {r['heads']} | {r['head_dim']} | {r['p_vanilla']} | | | {r['status']} | | | | | {r['time_s']:.2f} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def write_report(store_path: str | Path, md_path: str | Path, title: str = "Atlas of optimal equivariant attention designs",
                 appendix: str = "", plots: bool = True) -> Path:
    """Write the markdown page (and its plots in `<stem>-plots/` beside it) from the store."""
    md = Path(md_path)
    with Store(store_path, readonly_ok=True) as store:
        rows = store.rows()
        runs = store.runs()
    plot_dir = f"{md.stem}-plots"
    try:
        names = _plots(rows, md.parent / plot_dir) if plots and rows else []
        md.parent.mkdir(parents=True, exist_ok=True)
        md.write_text(render(rows, runs, title, names, plot_dir, appendix))
    except OSError as e:
        raise InputError("out", f"cannot write the report {str(md)!r}: {e.strerror or e}; the store is unchanged") from None
    return md
