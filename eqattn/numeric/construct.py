"""Constructive side of the coverage theorem (SPEC §4.5, proof of ⇐):

1. sample vanilla head weights realising a clustering and a scenario (clusters of several
   heads whose single R_h are not equivariant, only their sum);
2. from a witness, build design weights Wq, Wk, Wv in Hom_K(V, W), Wo in Hom_K(W, V) that
   reproduce the vanilla layer: the host through a carries M_i = rho(a)^T M' rho(a), and the
   transfers sum_{t in K̄/L} rho(ta) Wo Wv rho(ta)^T of the hosts add up to the demanded
   R̄' (found by a linear solve after fixing Wv = Ṽ rho(a)^T R̄' rho(a), Ṽ generic).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention.clusterings import Clustering
from ..attention.coverage import ScenarioResult
from ..attention.design import Design
from ..attention.options import Option
from ..attention.problem import Problem
from .equivariant import hom_basis, random_hom_pair


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


def sample_vanilla(problem: Problem, c: Clustering, options: tuple[Option, ...], rng: np.random.Generator) -> VanillaSample:
    G = problem.group
    rho = problem.rho
    n, d = problem.dim_v, problem.head_dim
    Wq, Wk, Wv, Wo, Ms, Rs = [], [], [], [], [], []
    for (cid, size), o in zip(c.expanded(), options):
        K = G.subgroup_classes[cid]
        rk = rho[K.elements]
        VK = problem.restrict(K)
        A, B = random_hom_pair(K, rk, VK, o.a, rng)  # M = B A, image type a
        A2, B2 = random_hom_pair(K, rk, VK, o.b, rng)  # R = B2 A2
        Ms.append(B @ A)
        Rs.append(B2 @ A2)
        for g in G.left_transversal(K.elements):
            r = rho[g]
            wq = _pad_rows((r @ B).T, d)
            wk = _pad_rows(A @ r.T, d)
            # split R = (r B2)(A2 r^T) over the cluster's heads after a random mixing T
            width = size * d
            Bf = np.zeros((n, width))
            Af = np.zeros((width, n))
            Bf[:, : B2.shape[1]] = r @ B2
            Af[: A2.shape[0], :] = A2 @ r.T
            T = rng.normal(size=(width, width)) + 3 * np.eye(width)
            Bf = Bf @ np.linalg.inv(T)
            Af = T @ Af
            for h in range(size):
                Wq.append(wq)
                Wk.append(wk)
                Wv.append(Af[h * d : (h + 1) * d])
                Wo.append(Bf[:, h * d : (h + 1) * d])
    return VanillaSample(np.array(Wq), np.array(Wk), np.array(Wv), np.array(Wo), tuple(Ms), tuple(Rs))


def _orbit_sum(problem: Problem, X: np.ndarray, inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """sum over t in outer/inner (left cosets) of rho(t) X rho(t)^T."""
    G = problem.group
    rho = problem.rho
    out = np.zeros_like(X)
    seen = np.zeros(G.order, dtype=bool)
    for t in outer:
        if not seen[t]:
            seen[G.table[t, inner]] = True
            out += rho[t] @ X @ rho[t].T
    return out


def _solve_left(basis: np.ndarray, lhs_fn, target: np.ndarray, what: str) -> np.ndarray:  # noqa: ANN001
    """Coefficients theta with sum_s theta_s lhs_fn(basis_s) = target (least squares, exact)."""
    if basis.shape[0] == 0:
        if np.abs(target).max() > 1e-9:
            raise ConstructionError(f"{what}: no parameters but a non-zero target")
        return np.zeros(0)
    cols = np.array([lhs_fn(b).ravel() for b in basis]).T
    theta, *_ = np.linalg.lstsq(cols, target.ravel(), rcond=None)
    resid = np.abs(cols @ theta - target.ravel()).max()
    scale = max(np.abs(target).max(), 1e-12)
    if resid > 1e-7 * scale:
        raise ConstructionError(f"{what}: residual {resid:.2e} (target scale {scale:.2e})")
    return theta


def design_weights(
    problem: Problem,
    design: Design,
    result: ScenarioResult,
    sample: VanillaSample,
    c: Clustering,
    rng: np.random.Generator,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per design orbit (Wq, Wk, Wv, Wo) in K-coordinates reproducing the vanilla layer."""
    if result.assignments is None:
        raise ConstructionError("the scenario has no witness")
    G = problem.group
    rho = problem.rho
    n = problem.dim_v
    weights = [
        (np.zeros((o.head_dim, n)), np.zeros((o.head_dim, n)), np.zeros((o.head_dim, n)), np.zeros((n, o.head_dim)))
        for o in design.orbits
    ]
    expanded = c.expanded()
    for asg in result.assignments:
        dem = asg.demand
        kb0 = G.subgroup_classes[dem.kbar]
        if dem.pool:
            Mp = np.zeros((n, n))
            Rbar = np.zeros((n, n))
            for j in dem.orbits:
                K = G.subgroup_classes[expanded[j][0]]
                Rbar += _orbit_sum(problem, sample.R[j], K.elements, np.arange(G.order))
        else:
            j = dem.orbits[0]
            o = result.options[j]
            K = G.subgroup_classes[expanded[j][0]]
            cc = o.conj
            kbar = np.sort(G.conj_table[cc, kb0.elements])  # K̄ = c K̄_0 c^-1
            Rb = _orbit_sum(problem, sample.R[j], K.elements, kbar)
            Mp = rho[cc].T @ sample.M[j] @ rho[cc]
            Rbar = rho[cc].T @ Rb @ rho[cc]
        for h in asg.hosts:
            i, a = h.design_orbit, h.a
            orb = design.orbits[i]
            Kp = orb.sub
            rk = rho[Kp.elements]
            VK = problem.restrict(Kp)
            basis = hom_basis(Kp, rk, VK, orb.W, seed=int(rng.integers(1 << 30)))  # (p, dimW, n)
            ra = rho[a]
            # M: the head at coset a carries M' itself
            Mi = ra.T @ Mp @ ra
            if np.abs(Mi).max() > 0:
                Ak = np.tensordot(rng.normal(size=basis.shape[0]), basis, axes=1) @ Mi if basis.shape[0] else np.zeros((orb.head_dim, n))
                th = _solve_left(basis, lambda b: b.T @ Ak, Mi, f"M of design orbit {i + 1}")
                Bk = np.tensordot(th, basis, axes=1).T
                wq, wk = Bk.T, Ak
            else:
                wq = wk = np.zeros((orb.head_dim, n))
            weights[i] = (wq, wk, weights[i][2], weights[i][3])
        # R: the hosts' transfers add up to R̄'
        if np.abs(Rbar).max() == 0:
            continue
        hosts = []
        cols_fns = []
        for h in asg.hosts:
            i, a = h.design_orbit, h.a
            orb = design.orbits[i]
            Kp = orb.sub
            rk = rho[Kp.elements]
            basis = hom_basis(Kp, rk, problem.restrict(Kp), orb.W, seed=int(rng.integers(1 << 30)))
            ra = rho[a]
            Vt = np.tensordot(rng.normal(size=basis.shape[0]), basis, axes=1) if basis.shape[0] else np.zeros((orb.head_dim, n))
            wv = Vt @ (ra.T @ Rbar @ ra)
            L = np.sort(G.conj_table[a, Kp.elements])
            hosts.append((i, basis, wv))
            cols_fns.append((basis, wv, a, L))
        # joint linear solve over all hosts' Wo coefficients
        cols = []
        for basis, wv, a, L in cols_fns:
            for b in basis:
                Ri = rho[a] @ (b.T @ wv) @ rho[a].T
                cols.append(_orbit_sum(problem, Ri, L, kb0.elements).ravel())
        if not cols:
            raise ConstructionError("R: no parameters in the hosts")
        Cm = np.array(cols).T
        theta, *_ = np.linalg.lstsq(Cm, Rbar.ravel(), rcond=None)
        resid = np.abs(Cm @ theta - Rbar.ravel()).max()
        if resid > 1e-7 * max(np.abs(Rbar).max(), 1e-12):
            raise ConstructionError(f"R of the {'zero pool' if dem.pool else 'demand'}: residual {resid:.2e}")
        pos = 0
        for i, basis, wv in hosts:
            k = basis.shape[0]
            Wo_i = np.tensordot(theta[pos : pos + k], basis, axes=1).T
            pos += k
            wq, wk, _, _ = weights[i]
            weights[i] = (wq, wk, wv, Wo_i)
    return weights


def expand_design(problem: Problem, design: Design, weights: list) -> list[tuple[np.ndarray, ...]]:  # noqa: ANN001
    """Per orbit, the per-head weights (heads at cosets a: W_Q = Wq rho(a)^T, W_O = rho(a) Wo)."""
    G = problem.group
    rho = problem.rho
    blocks = []
    for o, (wq, wk, wv, wo) in zip(design.orbits, weights):
        cos = G.left_transversal(o.sub.elements)
        R = rho[cos]
        blocks.append(
            (
                np.einsum("dv,hwv->hdw", wq, R),
                np.einsum("dv,hwv->hdw", wk, R),
                np.einsum("dv,hwv->hdw", wv, R),
                np.einsum("hvw,wd->hvd", R, wo),
            )
        )
    return blocks
