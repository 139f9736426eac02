"""Convert G-equivariant vanilla weights into the weights of a covering design (SPEC §2, §4.5).

The heads are grouped into clusters (equal M_h = W_Q^T W_K), clusters whose summed R is 0
are dropped, G must permute the rest (M_{g.c} = rho(g) M_c rho(g)^T, R_{g.c} likewise); each
orbit is moved to the base point whose stabiliser is the class representative K; the
profiles (D-ranks per isotypic part) of M and R select an option of the orbit, and the
coverage witness of that scenario gives the design weights (construct.design_weights).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention.clusterings import Clustering
from ..attention.coverage import check_scenario
from ..attention.design import Design
from ..attention.options import option_table
from ..attention.problem import Problem
from ..attention.views import scenario_text
from ..errors import InputError
from ..reps import Rep, irreps_of
from ..reps.schur import isotypic_projector_on
from .construct import VanillaSample, design_weights, expand_design
from .reference import attention_from_blocks, reference_attention


@dataclass(frozen=True)
class Conversion:
    weights: list  # per design orbit (Wq, Wk, Wv, Wo) in K-coordinates
    rel_error: float  # design vs vanilla outputs on random tokens


def _same(A: np.ndarray, B: np.ndarray, scale: float, tol: float) -> bool:
    return bool(np.abs(A - B).max() <= tol * scale)


def profile(problem: Problem, cid: int, X: np.ndarray, tol: float = 1e-8) -> Rep:
    """D-rank of a K-equivariant X on each isotypic part of V|K (SPEC §4.1)."""
    K = problem.group.subgroup_classes[cid]
    irr = irreps_of(K)
    rk = problem.rho[K.elements]
    out = []
    scale = max(np.abs(X).max(), 1e-300)
    for s in range(len(irr)):
        Pi = isotypic_projector_on(problem.V, K, s, rk)
        sv = np.linalg.svd(X @ Pi, compute_uv=False)
        rank = int(np.sum(sv > tol * scale * 10))
        out.append(rank // int(irr.dims[s]))
    return Rep(K, tuple(out))


def convert_vanilla(
    problem: Problem,
    design: Design,
    Wq: np.ndarray,
    Wk: np.ndarray,
    Wv: np.ndarray,
    Wo: np.ndarray,
    tol: float = 1e-8,
    seed: int = 0,
) -> Conversion:
    """Design weights that reproduce the equivariant vanilla layer (Wq, Wk, Wv: (H, d, n), Wo: (H, n, d))."""
    G = problem.group
    rho = problem.rho
    H = Wq.shape[0]
    Ms = np.einsum("hdv,hdw->hvw", Wq, Wk)
    Rs = np.einsum("hvd,hdw->hvw", Wo, Wv)
    mscale = max(np.abs(Ms).max(), 1e-300)
    rscale = max(np.abs(Rs).max(), 1e-300)
    clusters: list[list[int]] = []
    for h in range(H):
        for c in clusters:
            if _same(Ms[h], Ms[c[0]], mscale, tol):
                c.append(h)
                break
        else:
            clusters.append([h])
    Mc = [Ms[c[0]] for c in clusters]
    Rc = [Rs[c].sum(axis=0) for c in clusters]
    live = [i for i, R in enumerate(Rc) if np.abs(R).max() > tol * rscale]
    # G permutes the live clusters
    action = {}
    for i in live:
        for g in range(G.order):
            target = rho[g] @ Mc[i] @ rho[g].T
            j = next((j for j in live if _same(Mc[j], target, mscale, 1e-7)), None)
            if j is None or not _same(Rc[j], rho[g] @ Rc[i] @ rho[g].T, rscale, 1e-7):
                raise InputError("weights", f"the vanilla weights are not G-equivariant (cluster {i + 1}, element g{g})")
            action[(g, i)] = j
    seen: set[int] = set()
    orbits, options, M_list, R_list = [], [], [], []
    table = option_table(problem)
    for i in live:
        if i in seen:
            continue
        orbit = sorted({action[(g, i)] for g in range(G.order)})
        seen.update(orbit)
        stab = np.array([g for g in range(G.order) if action[(g, i)] == i])
        cls, x = G.lattice.locate(stab)  # stab = x K x^-1: the cluster x^-1 . i has stabiliser K
        M0 = rho[x].T @ Mc[i] @ rho[x]
        R0 = rho[x].T @ Rc[i] @ rho[x]
        n = max(len(clusters[j]) for j in orbit)
        a_act = profile(problem, cls.id, M0, tol)
        b_act = profile(problem, cls.id, R0, tol)
        opt = next(
            (o for o in table.all_options((cls.id, n)) if a_act <= o.a and b_act <= o.b and (o.zero or not a_act.is_zero() or cls.order == G.order)),
            None,
        )
        if opt is None:  # pragma: no cover - maximal profiles always dominate
            raise InputError("weights", "no option of the orbit dominates the weights' profiles")
        orbits.append(((cls.id, n), 1))
        options.append(opt)
        M_list.append(M0)
        R_list.append(R0)
    c = Clustering(-1, tuple(orbits))
    res = check_scenario(problem, design, tuple(options))
    if not res.ok:
        raise InputError("orbits", "the design does not cover these weights: " + scenario_text(problem, design, res))
    sample = VanillaSample(Wq, Wk, Wv, Wo, tuple(M_list), tuple(R_list))
    rng = np.random.default_rng(seed)
    w = design_weights(problem, design, res, sample, c, rng)
    X = rng.normal(size=(6, problem.dim_v))
    y0 = reference_attention(X, Wq, Wk, Wv, Wo)
    y1 = attention_from_blocks(X, expand_design(problem, design, w))
    rel = float(np.abs(y1 - y0).max() / max(np.abs(y0).max(), 1e-12))
    return Conversion(w, rel)
