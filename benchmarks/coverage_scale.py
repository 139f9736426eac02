"""Clusterings (with degenerate flags) and coverage of given designs at real transformer
sizes (issue 9), with the enumerating checker as the baseline on small sizes.

Run: .venv/bin/python benchmarks/coverage_scale.py [--quick] [--no-small]

Grid (issue 9): G in {C2, C4, C8, D4, D8, Q8, C2xC2, A4, S4} with V = m x regular,
m = dim V // |G| for dim V in {64, 128, 256}; Oh and D4h with V = k x vector + k x trivial
(dim 4k in {64, 128, 256}); D4 with 16xA1 + 16xE1 + 8xB1; H in {4, 8, 16};
d = dim V / H and 2 dim V / H. Designs per problem:
  regular  H x (C1, d x trivial)                       (P = P_vanilla, covers everything)
  symm     H x (G, (m/H) x regular)                    (when H divides m; d = dim V / H)
  scaled   2 x (C4, (m/2)(regular + A + B)) + (C2, m(A + B)) + (C1, m A)
           (C4, H = 4, d = m: the optimal shape of notes/scaling-data.md, m even)
  short    the regular design less one orbit          (not covered: a counterexample)
Each problem is built fresh; groups are built once, outside the timing. Per problem it prints
the clusterings time (list + flags, as `eqattn clusterings`), and per design the coverage
time and covered/total. The small grid (--no-small skips it) times the enumerating checker
(the reference) against the symbolic engine on atlas sizes, both in this run, and checks
that their verdicts agree. Goals (issue 9): clusterings < 1 s; coverage median < 2 s,
worst < 30 s on the 2-core machine. Peak memory (max RSS) is printed at the end.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time

from eqattn.attention import Design, DesignOrbit, Problem, clusterings, option_table
from eqattn.attention.coverage import enumerated_coverage
from eqattn.attention.symbolic import symbolic_coverage
from eqattn.errors import LimitError
from eqattn.groups.catalog import get_group
from eqattn.reps import parse_rep

GROUPS = ["C2", "C4", "C8", "D4", "D8", "Q8", "C2xC2", "A4", "S4"]
DIMS = [64, 128, 256]
HEADS = [4, 8, 16]


def problems(quick: bool) -> list[tuple[str, str, int, int, int]]:
    """(group, V, m or 0, H, d)."""
    dims = DIMS[:1] if quick else DIMS
    heads = HEADS[:2] if quick else HEADS
    out = []
    for name in GROUPS:
        order = get_group(name).order
        for n in dims:
            m = n // order
            for H in heads:
                dv = m * order
                for d in sorted({dv // H, 2 * dv // H}):
                    if d >= 1:
                        out.append((name, f"{m}xregular", m, H, d))
    for name in ["D4h", "Oh"]:
        for n in dims:
            k = n // 4
            for H in heads:
                for d in (n // H, 2 * n // H):
                    out.append((name, f"{k}xvector + {k}xtrivial", 0, H, d))
    for H in heads:
        for d in (56 // H, 2 * 56 // H):
            out.append(("D4", "16xA1 + 16xE1 + 8xB1", 0, H, d))
    return out


def designs(p: Problem, m: int) -> dict[str, Design]:
    reg = Design.regular(p)
    out = {"regular": reg, "short": Design(p, reg.orbits[:-1])}
    G = p.group
    top = G.subgroup_classes[-1]
    H = p.heads
    if m and m % H == 0:
        W = parse_rep(f"{m // H}xregular", top)
        out["symm"] = Design(p, tuple(DesignOrbit(top, W) for _ in range(H)))
    if G.name == "C4" and m and m % 2 == 0 and H == 4 and p.head_dim == m:
        C2 = G.lattice.resolve("C2")
        C1 = G.subgroup_classes[0]
        orbits = [DesignOrbit(top, parse_rep(f"{m // 2}xregular + {m // 2}xA + {m // 2}xB", top))] * 2
        orbits += [DesignOrbit(C2, parse_rep(f"{m}xA + {m}xB", C2)), DesignOrbit(C1, parse_rep(f"{m}xA", C1))]
        out["scaled"] = Design(p, tuple(orbits))
    return out


def timed(f):  # noqa: ANN001, ANN201
    t = time.perf_counter()
    r = f()
    return time.perf_counter() - t, r


def main() -> int:
    quick = "--quick" in sys.argv
    cl_times: list[float] = []
    cov_times: list[float] = []
    refused = 0
    print(f"{'group':<6} {'V':<26} {'H':>3} {'d':>4} {'clust':>6} {'cl s':>6}  designs (time s, covered/total)")
    for name, rep, m, H, d in problems(quick):
        get_group(name)  # built once, outside the timing
        try:
            p = Problem.create(name, rep, H, d)
            tc, cl = timed(lambda: [option_table(p).degenerate(o) for c in clusterings(p) for o, _ in c.orbits])
            ncl = len(clusterings(p))
        except LimitError as e:
            print(f"{name:<6} {rep[:26]:<26} {H:>3} {d:>4} refused: {e}", flush=True)
            refused += 1
            continue
        cl_times.append(tc)
        parts = []
        for label, des in designs(p, m).items():
            q = Problem.create(name, rep, H, d)  # fresh caches per design
            des = Design(q, des.orbits)
            try:
                tv, vs = timed(lambda: symbolic_coverage(q, des))
            except LimitError as e:
                parts.append(f"{label}: refused ({e.message[:40]})")
                refused += 1
                continue
            cov_times.append(tv)
            parts.append(f"{label} {tv:.2f} {sum(v.covered for v in vs)}/{len(vs)}")
        print(f"{name:<6} {rep[:26]:<26} {H:>3} {d:>4} {ncl:>6} {tc:>6.2f}  " + "; ".join(parts), flush=True)
    if cl_times:
        print(f"\nclusterings: {len(cl_times)} problems, median {statistics.median(cl_times):.3f} s, worst {max(cl_times):.3f} s")
    if cov_times:
        print(f"coverage: {len(cov_times)} checks, median {statistics.median(cov_times):.2f} s, worst {max(cov_times):.2f} s")
    print(f"refused: {refused}")
    if "--no-small" not in sys.argv:
        small()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS): {rss:.0f} MiB")
    return 0


def small() -> None:
    """Atlas sizes: the enumerating reference vs the symbolic engine, same run."""
    print(f"\n{'group':<6} {'V':<12} {'H':>2} {'d':>2} {'design':<8} {'enum s':>8} {'symb s':>8} {'ratio':>7}")
    ratios = []
    for name in GROUPS:
        for rep in ["regular", "2xregular"]:
            for H in (2, 4):
                for d in (1, 2, 4):
                    try:
                        p0 = Problem.create(name, rep, H, d)
                    except LimitError:
                        continue
                    if p0.dim_v > 24:
                        continue
                    for label, des0 in (("regular", Design.regular(p0)), ("short", Design(p0, Design.regular(p0).orbits[:-1]))):
                        p1 = Problem.create(name, rep, H, d)
                        p2 = Problem.create(name, rep, H, d)
                        try:
                            t1, old = timed(lambda: enumerated_coverage(p1, Design(p1, des0.orbits)))
                        except LimitError:
                            print(f"{name:<6} {rep:<12} {H:>2} {d:>2} {label:<8} enumerating checker refused", flush=True)
                            continue
                        t2, new = timed(lambda: symbolic_coverage(p2, Design(p2, des0.orbits)))
                        if [v.covered for v in old] != [v.covered for v in new]:
                            raise SystemExit(f"verdicts differ on {name} {rep} H={H} d={d} {label}")
                        ratios.append(t2 / t1)
                        print(f"{name:<6} {rep:<12} {H:>2} {d:>2} {label:<8} {t1:>8.3f} {t2:>8.3f} {t2 / t1:>7.2f}", flush=True)
    if ratios:
        print(f"symbolic / enumerating time: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f} "
              f"({len(ratios)} checks, verdicts equal)")


if __name__ == "__main__":
    raise SystemExit(main())
