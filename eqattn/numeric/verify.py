"""Numerical verification of coverage verdicts (SPEC §4.5): sampled vanilla layers are
G-equivariant, and every witness yields design weights with the same outputs.

For a compact group's stand-in F (docs/theory-continuous.md §5) the equivariance of both
layers is checked under F's generators and under Haar-random elements of the compact group
itself, through V's matrices at any element (numeric/ambient.py): weights built from F are
G-equivariant because Hom_F = Hom_G in the band, and this is where that is measured."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention.clusterings import Clustering
from ..attention.coverage import Verdict, check_coverage
from ..attention.design import Design
from ..attention.problem import Problem
from ..errors import InputError, LimitError, whole_number
from .ambient import ambient_rep, compact_info
from .action import problem_hom
from .construct import design_attention, design_weights, sample_vanilla
from .haar import haar_elements
from .reference import reference_attention


#: Haar samples of a compact group that `verify_design` checks equivariance under
HAAR_SAMPLES = 16

# Memory the weight construction may use (SPEC §3: dense (dim V)-sized matrices per scenario).
MAX_VERIFY_BYTES = 1 << 30


def verify_memory(problem: Problem, design: Design) -> tuple[int, int]:
    """(estimated peak bytes, index of the orbit that needs the most) of `verify_design`,
    computed from the sizes alone (nothing is built). Per scenario, float64, n = dim V,
    r = min(n, H d) (the largest row space of a demand):

    * the group matrices ``|G| n^2``, and per subgroup class in use (at most
      ``min(#classes, H + #orbits)``) its isotypic basis and that basis grouped by slots
      (``2 n^2``); one ``n^2`` isotypic block of a demand and its SVD (``2 n^2``);
    * the vanilla sample: its per-head weights twice (``8 H d n``), the factors of M_j, R_j,
      of a demand's orbit sum and of its conjugate (``6 H d n``);
    * the construction: a demand's row-space basis, its move by rho(a)^T and the slot
      columns moved to each coset of the largest index ``[G:K]`` (``([G:K] + 3) r n``), the
      design weights ``4 Σ dim W_i n`` and a host's random K-map, polar factor and projection
      (``3 max dim W n``).

    Linear in Σ dim W and quadratic only in dim V (never ``p · dim W · dim V``: no Hom basis is
    formed, no head is expanded). Example: C2, V = A + B, one orbit (C2, 1000xB): about 0.1 MB."""
    n = problem.dim_v
    H, d = problem.heads, problem.head_dim
    widths = [o.head_dim for o in design.orbits] or [0]
    index = max((problem.group.order // o.sub.order for o in design.orbits), default=1)
    classes = min(len(problem.group.subgroup_classes), H + len(design.orbits))
    squares = (problem.group.order + 2 * classes + 2) * n * n
    lines = (14 * H * d + (index + 3) * min(n, H * d) + 4 * sum(widths) + 3 * max(widths)) * n
    need = 8 * (squares + lines)
    where = max(range(len(design.orbits)), key=lambda i: design.orbits[i].heads * widths[i], default=-1)
    return need, where


def check_verify_memory(problem: Problem, design: Design, budget: int = MAX_VERIFY_BYTES) -> None:
    """Refuse up front (LimitError naming the orbit) when the estimate exceeds `budget`."""
    need, i = verify_memory(problem, design)
    if need > budget:
        raise LimitError(
            f"orbits[{i}].rep",
            f"building the weights needs about {need / 2**30:.1f} GiB, {need / budget:.1f} times the "
            f"budget of {budget / 2**30:.1f} GiB; use a smaller head dimension",
        )


@dataclass(frozen=True)
class VerifyReport:
    clusterings: int
    scenarios: int
    worst_rel_error: float
    worst_equivariance_error: float
    haar_samples: int = 0  # compact groups: the random elements equivariance was checked under

    @property
    def ok(self) -> bool:
        """The verdict `eqattn verify`, the API and the page give: the output error AND the
        equivariance error (of both layers) within VERIFY_TOLERANCE."""
        return self.worst_rel_error <= VERIFY_TOLERANCE and self.worst_equivariance_error <= VERIFY_TOLERANCE

    def to_json(self) -> dict:
        return {
            "clusterings_verified": self.clusterings,
            "scenarios_verified": self.scenarios,
            "worst_rel_error": self.worst_rel_error,
            "worst_equivariance_error": self.worst_equivariance_error,
            "haar_samples": self.haar_samples,
        }


def check_matrices(problem: Problem, samples: int, rng: np.random.Generator, kind: str | None = None) -> np.ndarray:
    """V's matrices to check equivariance under: every element of a finite G; for a compact
    group (the stand-in's kind, or `kind` for a finite group standing in for one) rho at F's
    generators and at `samples` Haar-random elements (numeric/ambient.py).

    >>> from eqattn.attention import Problem
    >>> p = Problem.create("O3", "1x0e + 1x1o", 2, 1)
    >>> rho = check_matrices(p, 5, np.random.default_rng(0))
    >>> rho.shape[1:], len(rho) - len(p.group.generators)
    ((4, 4), 5)
    """
    info = compact_info(problem.group)
    kind = kind or (info.kind if info is not None else None)
    if kind is None:
        return problem.rho
    amb = ambient_rep(problem.V, kind)
    gens = problem.rho[list(problem.group.generators)]
    return np.concatenate([gens, amb.matrices(haar_elements(kind, samples, rng))])


def equivariance_error(problem: Problem, f, X: np.ndarray, rho: np.ndarray | None = None) -> float:  # noqa: ANN001
    """max_g |f(X rho(g)^T) - f(X) rho(g)^T| / |f(X)| over `rho` (default: all of G).

    ``f`` takes a stack of sequences ``(..., N, n)``: all the moved inputs go through it in
    one call (a chunk of at most EQUIVARIANCE_CHUNK elements at a time)."""
    y = f(X)
    scale = max(np.abs(y).max(), 1e-300)
    rho = problem.rho if rho is None else rho
    worst = 0.0
    for lo in range(0, len(rho), EQUIVARIANCE_CHUNK):
        r = rho[lo : lo + EQUIVARIANCE_CHUNK]
        rt = np.swapaxes(r, 1, 2)
        worst = max(worst, float(np.abs(f(X @ rt) - y @ rt).max() / scale))
    return worst


#: group elements whose moved inputs `equivariance_error` evaluates in one call
EQUIVARIANCE_CHUNK = 64


def verify_scenario(problem: Problem, design: Design, c: Clustering, result, rng: np.random.Generator, tokens: int = 5,  # noqa: ANN001
                    rho: np.ndarray | None = None) -> tuple[float, float]:
    """(relative output error design vs vanilla, equivariance error of both layers under
    `rho`: all of G by default, see `check_matrices`)."""
    s = sample_vanilla(problem, c, result.options, rng)
    X = rng.normal(size=(tokens, problem.dim_v))

    def vanilla(x: np.ndarray) -> np.ndarray:
        return reference_attention(x, s.Wq, s.Wk, s.Wv, s.Wo)

    eq = equivariance_error(problem, vanilla, X, rho)
    w = design_weights(problem, design, result, s, c, rng)
    y0 = vanilla(X)
    y1 = design_attention(problem, design, w, X)
    rel = float(np.abs(y1 - y0).max() / max(np.abs(y0).max(), 1e-12))
    if rho is not None:  # a compact group: the design layer too, under the Haar samples
        eq = max(eq, equivariance_error(problem, lambda x: design_attention(problem, design, w, x), X, rho))
    return rel, eq


def verify_design(problem: Problem, design: Design, seed: int = 0, verdicts: tuple[Verdict, ...] | None = None,
                  samples: int = HAAR_SAMPLES, kind: str | None = None, jobs: int = 1) -> VerifyReport:
    """Verify every covered clustering's witnesses (SPEC §4.5); for a compact group (or a
    finite group standing in for `kind`) under F's generators and `samples` Haar samples.

    Scenario k draws from its own stream ``default_rng([seed, 2, k])``, so the report does not
    depend on ``jobs``: with ``jobs > 1`` the scenarios are split over that many forked
    worker processes (one BLAS thread each), which share the problem's cached isotypic data.

    >>> from eqattn.attention import Problem, Design
    >>> p = Problem.create("C4", "E1", 2, 1)
    >>> r = verify_design(p, Design.create(p, [("C2", "B")]))
    >>> r.scenarios, r.ok
    (3, True)
    """
    check_verify_memory(problem, design)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**32:
        raise InputError("seed", f"must be a whole number from 0 to {2**32 - 1}, got {seed!r}")
    jobs = whole_number(jobs, "jobs", 1, MAX_JOBS)
    compact = kind is not None or compact_info(problem.group) is not None
    rho = check_matrices(problem, samples, np.random.default_rng([int(seed), 1]), kind) if compact else None
    verdicts = verdicts if verdicts is not None else check_coverage(problem, design)
    covered = [v for v in verdicts if v.covered]
    items = [(v.clustering, r) for v in covered for r in v.witnesses]
    task = (problem, design, items, rho, int(seed))
    if jobs == 1 or len(items) < 2:
        results = _run_scenarios(task, range(len(items)))
    else:
        results = _run_parallel(task, jobs)
    worst = max((rel for rel, _ in results), default=0.0)
    worst_eq = max((eq for _, eq in results), default=0.0)
    return VerifyReport(len(covered), len(items), worst, worst_eq, samples if compact else 0)


#: the most worker processes `verify_design` starts
MAX_JOBS = 256


def _run_scenarios(task: tuple, ks) -> list[tuple[float, float]]:  # noqa: ANN001
    problem, design, items, rho, seed = task
    out = []
    for k in ks:
        c, r = items[k]
        out.append(verify_scenario(problem, design, c, r, np.random.default_rng([seed, 2, k]), rho=rho))
    return out


def _child(task: tuple, ks: list[int], send) -> None:  # noqa: ANN001
    """A forked worker: its chunk's results (or the exception) through the pipe."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # the processes are the parallelism: one BLAS thread each
    try:
        send.send((True, _run_scenarios(task, ks)))
    except Exception as e:  # noqa: BLE001 - re-raised in the parent
        send.send((False, e))
    finally:
        send.close()


def _run_parallel(task: tuple, jobs: int) -> list[tuple[float, float]]:
    """The scenarios in interleaved chunks over ``jobs`` forked processes (fork: the problem,
    its caches and the witnesses are inherited, only the results come back)."""
    import multiprocessing as mp

    problem, design = task[0], task[1]
    for o in design.orbits:  # build the shared caches once, before forking
        problem_hom(problem, o.sub, o.W)
    n = len(task[2])
    chunks = [list(range(i, n, jobs)) for i in range(min(jobs, n))]
    ctx = mp.get_context("fork")
    procs = []
    try:
        for ks in chunks:
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(task, ks, send), daemon=True)
            proc.start()
            send.close()
            procs.append((proc, recv))
        results: list = [None] * n
        for ks, (proc, recv) in zip(chunks, procs):
            try:
                ok, part = recv.recv()
            except EOFError:
                proc.join()
                raise RuntimeError(f"a verify worker died (exit code {proc.exitcode})") from None
            if not ok:
                raise part
            for k, res in zip(ks, part):
                results[k] = res
        return results
    finally:
        for proc, recv in procs:
            recv.close()
            if proc.is_alive():
                proc.terminate()
            proc.join()


def verify_clustering(problem: Problem, design: Design, clustering: int, seed: int = 0) -> dict:
    """Numerically check one clustering's verdict (SPEC §4.5): when the design covers it,
    sample a G-equivariant vanilla layer per checked scenario, build the design's weights
    from the witness and report the worst relative output error (and the vanilla layer's
    equivariance error). The "Verify numerically" button of the page.

    >>> from eqattn.attention import Problem, Design
    >>> p = Problem.create("C4", "E1", 2, 1)
    >>> r = verify_clustering(p, Design.create(p, [("C2", "B")]), 0)
    >>> r["covered"], r["scenarios_verified"], r["worst_rel_error"] < 1e-8
    (True, 1, True)
    """
    from ..attention.clusterings import clusterings
    from ..attention.coverage import check_clustering

    cl = clusterings(problem)
    if not 0 <= clustering < len(cl):
        raise InputError("clustering", f"this problem has clusterings 0..{len(cl) - 1}; got {clustering}")
    v = check_clustering(problem, design, cl[clustering])
    rep = verify_design(problem, design, seed=seed, verdicts=(v,))
    return {"clustering": clustering, "covered": v.covered, **rep.to_json(), "tolerance": VERIFY_TOLERANCE,
            "ok": (not v.covered) or rep.ok}


VERIFY_TOLERANCE = 1e-8  # relative output error below which the numbers agree
