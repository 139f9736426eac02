"""Constructive side of the coverage theorem (SPEC §4.5, proof of ⇐):

1. sample vanilla head weights realising a clustering and a scenario (clusters of several
   heads whose single R_h are not equivariant, only their sum);
2. from a witness, build design weights Wq, Wk, Wv in Hom_K(V, W), Wo in Hom_K(W, V) that
   reproduce the vanilla layer: the host through a carries M_i = rho(a)^T M' rho(a), and the
   transfers sum_{t in K̄/L} rho(ta) Wo Wv rho(ta)^T of the hosts add up to the demanded
   R̄' (found by a least-norm solve after fixing Wv = Ṽ rho(a)^T R̄' rho(a), Ṽ generic).

Every step works on dense (dim V)-sized matrices and the isotypic blocks of Hom_K(V, W)
(:mod:`eqattn.numeric.action`); no basis of a Hom space is formed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..attention.clusterings import Clustering
from ..attention.coverage import ScenarioResult
from ..attention.design import Design
from ..attention.options import Option
from ..attention.problem import Problem
from ..groups import SubgroupClass
from ..reps import Rep
from .action import BlockAction, problem_hom, random_hom
from .isotypic import HomBlocks


@dataclass(frozen=True)
class VanillaSample:
    """Vanilla weights (H heads) with the per-orbit data they were built from."""

    Wq: np.ndarray  # (H, d, n)
    Wk: np.ndarray
    Wv: np.ndarray
    Wo: np.ndarray  # (H, n, d)
    M: tuple[np.ndarray, ...]  # per expanded orbit j: M_j (K_j-equivariant)
    R: tuple[np.ndarray, ...]  # per orbit: R_j (cluster sum at the base coset)


class ConstructionError(RuntimeError):
    pass


def _pad_rows(A: np.ndarray, d: int) -> np.ndarray:
    out = np.zeros((d, A.shape[1]))
    out[: A.shape[0]] = A
    return out


def _random_pair(problem: Problem, K: SubgroupClass, U: Rep, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random A in Hom_K(V, U) and B in Hom_K(U, V) (U block-diagonal standard), by blocks."""
    hom = problem_hom(problem, K, U)
    return random_hom(hom, rng), random_hom(hom, rng).T


def sample_vanilla(problem: Problem, c: Clustering, options: tuple[Option, ...], rng: np.random.Generator) -> VanillaSample:
    G = problem.group
    act = BlockAction.of(problem)
    n, d = problem.dim_v, problem.head_dim
    Wq, Wk, Wv, Wo, Ms, Rs = [], [], [], [], [], []
    for (cid, size), o in zip(c.expanded(), options):
        K = G.subgroup_classes[cid]
        A, B = _random_pair(problem, K, o.a, rng)  # M = B A, image type a
        A2, B2 = _random_pair(problem, K, o.b, rng)  # R = B2 A2
        Ms.append(B @ A)
        Rs.append(B2 @ A2)
        for g in G.left_transversal(K.elements):
            rB = act.left(g, B)
            wq = _pad_rows(rB.T, d)
            wk = _pad_rows(act.right_t(A, g), d)
            # split R = (r B2)(A2 r^T) over the cluster's heads after a random mixing T
            width = size * d
            Bf = np.zeros((n, width))
            Af = np.zeros((width, n))
            Bf[:, : B2.shape[1]] = act.left(g, B2)
            Af[: A2.shape[0], :] = act.right_t(A2, g)
            T = rng.normal(size=(width, width)) + 3 * np.eye(width)
            Bf = Bf @ np.linalg.inv(T)
            Af = T @ Af
            for h in range(size):
                Wq.append(wq)
                Wk.append(wk)
                Wv.append(Af[h * d : (h + 1) * d])
                Wo.append(Bf[:, h * d : (h + 1) * d])
    return VanillaSample(np.array(Wq), np.array(Wk), np.array(Wv), np.array(Wo), tuple(Ms), tuple(Rs))


def _cosets(G, sub: np.ndarray, outer: np.ndarray) -> list[int]:  # noqa: ANN001
    """Representatives of the left cosets t·sub in ``outer`` (a subgroup containing sub), the
    identity first."""
    reps = []
    seen = np.zeros(G.order, dtype=bool)
    for t in np.sort(outer):
        if not seen[t]:
            seen[G.table[t, sub]] = True
            reps.append(int(t))
    return reps


def _orbit_sum(problem: Problem, X: np.ndarray, inner: np.ndarray, outer: np.ndarray, act: BlockAction) -> np.ndarray:
    """sum over t in outer/inner (left cosets) of rho(t) X rho(t)^T."""
    out = np.zeros_like(X)
    for t in _cosets(problem.group, inner, outer):
        out += act.conj(t, X)
    return out


def _min_norm_left(target: np.ndarray, A: np.ndarray, what: str) -> np.ndarray:
    """The least-norm X with ``X A = target``: ``target pinv(A)`` (A has few rows), checked exact.

    Equivariance comes free: for orthogonal actions with ``A = S(k) A R(k)^T`` and
    ``target = T(k) target R(k)^T``, ``pinv(A) = R(k) pinv(A) S(k)^T``, so X intertwines S and
    T; no basis of the Hom space is needed."""
    scale = max(float(np.abs(target).max()), 1e-12)
    X = target @ np.linalg.pinv(A, rtol=PINV_RCOND) if A.shape[0] else np.zeros((target.shape[0], 0))
    resid = float(np.abs(X @ A - target).max())
    if resid > 1e-7 * scale:
        raise ConstructionError(f"{what}: residual {resid:.2e} (target scale {scale:.2e})")
    return X


def _transfer_solve(act: BlockAction, Rbar: np.ndarray, hosts: list[tuple[int, list[int], np.ndarray]], what: str) -> list[np.ndarray]:
    """Per host ``(a, [ta for the cosets t of K̄/L], Wv)`` the block ``rho(a) Wo`` of the
    least-norm ``X = R̄ pinv(Ŵv)``, Ŵv the rows ``Wv rho(ta)^T`` of every host and coset
    (``rows = Σ [K̄:L] dim W``; one ``(n x rows)`` least squares with ``n`` right-hand sides,
    LAPACK's complete orthogonal factorisation ``gelsy``), checked exact."""
    A = np.concatenate([act.right_t(wv, ta) for _, ts, wv in hosts for ta in ts])
    scale = max(float(np.abs(Rbar).max()), 1e-12)
    X = scipy.linalg.lstsq(A.T, Rbar.T, cond=PINV_RCOND, lapack_driver="gelsy")[0].T
    resid = float(np.abs(X @ A - Rbar).max())
    if resid > 1e-7 * scale:
        raise ConstructionError(f"{what}: residual {resid:.2e} (target scale {scale:.2e})")
    out, pos = [], 0
    for _, ts, wv in hosts:
        out.append(X[:, pos : pos + wv.shape[0]])
        pos += len(ts) * wv.shape[0]
    return out


#: singular values below this fraction of the largest count as zero in the solves
PINV_RCOND = 1e-10


def _demand_targets(problem: Problem, result: ScenarioResult, sample: VanillaSample, c: Clustering, dem, act: BlockAction):  # noqa: ANN001
    """(M', R̄', K̄_0's elements) of one demand (the pool: M' = 0, R̄' the sum over all G)."""
    G = problem.group
    n = problem.dim_v
    expanded = c.expanded()
    kb0 = G.subgroup_classes[dem.kbar]
    if dem.pool:
        Rbar = np.zeros((n, n))
        for j in dem.orbits:
            K = G.subgroup_classes[expanded[j][0]]
            Rbar += _orbit_sum(problem, sample.R[j], K.elements, np.arange(G.order), act)
        return np.zeros((n, n)), Rbar, kb0.elements
    j = dem.orbits[0]
    o = result.options[j]
    K = G.subgroup_classes[expanded[j][0]]
    cc = o.conj
    kbar = np.sort(G.conj_table[cc, kb0.elements])  # K̄ = c K̄_0 c^-1
    Rb = _orbit_sum(problem, sample.R[j], K.elements, kbar, act)
    return act.conj_t(cc, sample.M[j]), act.conj_t(cc, Rb), kb0.elements


def design_weights(
    problem: Problem,
    design: Design,
    result: ScenarioResult,
    sample: VanillaSample,
    c: Clustering,
    rng: np.random.Generator,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per design orbit (Wq, Wk, Wv, Wo) in K-coordinates reproducing the vanilla layer.

    Per host (design orbit i at coset a) of a demand with targets M', R̄' (K̄-equivariant):

    * ``Wk = Ã M_i`` with ``M_i = rho(a)^T M' rho(a)`` and Ã a random element of Hom_K(V, W);
      ``Wq^T`` is the least-norm solution of ``Wq^T Wk = M_i``;
    * ``Wv = Ṽ rho(a)^T R̄' rho(a)`` (Ṽ random), and the transfers must add up:
      ``Σ_hosts Σ_{t ∈ K̄/L} rho(ta) Wo Wv rho(ta)^T = R̄'`` with ``L = a K a^-1``. Stacking the
      rows ``Wv rho(ta)^T`` of every host and coset into Ŵv (Frobenius reciprocity: the maps
      of Hom_K̄(⊕ Ind_L^K̄ W, V) are exactly the hosts' ``rho(ta) Wo``), the least-norm
      ``X = R̄' pinv(Ŵv)`` is K̄-equivariant and its identity-coset block is ``rho(a) Wo``.

    Both are dense solves of size (dim V) x (rows), never over a basis: memory and time grow
    like dim V · (dim V + Σ dim W) (:func:`eqattn.numeric.verify.verify_memory`). Every weight
    is finally projected onto its Hom space by its blocks (removing rounding)."""
    if result.assignments is None:
        raise ConstructionError("the scenario has no witness")
    G = problem.group
    act = BlockAction.of(problem)
    n = problem.dim_v
    weights = [
        (np.zeros((o.head_dim, n)), np.zeros((o.head_dim, n)), np.zeros((o.head_dim, n)), np.zeros((n, o.head_dim)))
        for o in design.orbits
    ]
    homs = [problem_hom(problem, o.sub, o.W) for o in design.orbits]
    for asg in result.assignments:
        Mp, Rbar, kb0 = _demand_targets(problem, result, sample, c, asg.demand, act)
        for h in asg.hosts:
            i, a = h.design_orbit, h.a
            hom = homs[i]
            Mi = act.conj_t(a, Mp)  # the head at coset a carries M' itself
            if np.abs(Mi).max() > 0:
                wk = random_hom(hom, rng) @ Mi
                wq = _project(hom, _min_norm_left(Mi, wk, f"M of design orbit {i + 1}").T)
            else:
                wq = wk = np.zeros((design.orbits[i].head_dim, n))
            weights[i] = (wq, wk, weights[i][2], weights[i][3])
        if np.abs(Rbar).max() == 0:
            continue
        hosts = []
        for h in asg.hosts:
            i, a = h.design_orbit, h.a
            wv = random_hom(homs[i], rng) @ act.conj_t(a, Rbar)
            L = np.sort(G.conj_table[a, design.orbits[i].sub.elements])
            hosts.append((i, [int(G.table[t, a]) for t in _cosets(G, L, kb0)], wv))  # ta, identity coset first
        if not sum(wv.shape[0] for _, _, wv in hosts):
            raise ConstructionError("R: no parameters in the hosts")
        what = f"R of the {'zero pool' if asg.demand.pool else 'demand'}"
        outs = _transfer_solve(act, Rbar, [(int(ts[0]), ts, wv) for _, ts, wv in hosts], what)
        for (i, ts, wv), ao in zip(hosts, outs):
            wo = act.left(ts[0], ao, transpose=True)  # rho(a)^T (rho(a) Wo)
            wq, wk, _, _ = weights[i]
            weights[i] = (wq, wk, wv, _project(homs[i], wo.T).T)
    return weights


def _project(hom: HomBlocks, A: np.ndarray) -> np.ndarray:
    """The orthogonal projection of ``A (dim W, dim V)`` onto Hom_K(V, W), by blocks."""
    return hom.compose(hom.coordinates(A)) if hom.dim else np.zeros_like(A)


def expand_design(problem: Problem, design: Design, weights: list) -> list[tuple[np.ndarray, ...]]:  # noqa: ANN001
    """Per orbit, the per-head weights (heads at cosets a: W_Q = Wq rho(a)^T, W_O = rho(a) Wo)."""
    G = problem.group
    act = BlockAction.of(problem)
    blocks = []
    for o, (wq, wk, wv, wo) in zip(design.orbits, weights):
        cos = G.left_transversal(o.sub.elements)
        blocks.append(
            (
                np.array([act.right_t(wq, a) for a in cos]),
                np.array([act.right_t(wk, a) for a in cos]),
                np.array([act.right_t(wv, a) for a in cos]),
                np.array([act.left(a, wo) for a in cos]),
            )
        )
    return blocks
