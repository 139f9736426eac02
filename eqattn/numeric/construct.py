"""Constructive side of the coverage theorem (SPEC §4.5, proof of ⇐):

1. sample vanilla head weights realising a clustering and a scenario (clusters of several
   heads whose single R_h are not equivariant, only their sum);
2. from a witness, build design weights Wq, Wk, Wv in Hom_K(V, W), Wo in Hom_K(W, V) that
   reproduce the vanilla layer: the host through a carries M_i = rho(a)^T M' rho(a), and the
   transfers sum_{t in K̄/L} rho(ta) Wo Wv rho(ta)^T of the hosts add up to the demanded R̄'.

Both are built in closed form from partial isometries (no least-squares solve): with an
orthonormal basis C of the row space of M_i (of R̄'), ``Wk`` is the polar factor of a generic
K-map restricted to C, so ``Wk^T Wk = C C^T`` and ``Wq = Wk M_i^T`` gives ``Wq^T Wk = M_i``;
the hosts of R̄' take orthogonal pieces of C in turn, each host's stacked rows a partial
isometry, so the transfers' Gram matrix is ``C C^T`` and ``Wo`` is read off. The rounding error
is then linear in the condition of the generic maps, not quadratic in the condition of the
stacked value rows (a least-norm solve of ``X Ŵv = R̄'`` followed by the projection of X's
first block onto the Hom space loses ``cond(Ŵv)^2`` digits).

M and R are kept as thin factors ``L R^T`` (:class:`LowRank`, ``q <=`` the cluster orbit's
heads times d columns): every step works on ``(dim V) x q`` matrices and the isotypic blocks of
Hom_K(V, W) (:mod:`eqattn.numeric.action`); no (dim V)^2 operator and no Hom basis is formed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention.clusterings import Clustering
from ..attention.coverage import ScenarioResult
from ..attention.design import Design
from ..attention.options import Option
from ..attention.problem import Problem
from ..groups import SubgroupClass
from ..reps import Rep, irreps_of
from .action import BlockAction, problem_hom, random_hom
from .isotypic import HomBlocks, Isotypic, isotypic_of_rep
from .reference import reference_attention


@dataclass(frozen=True)
class LowRank:
    """``X = left @ right.T`` (``left``, ``right``: ``(n, q)``), a map on V kept by its factors.

    >>> X = LowRank(np.array([[1.0], [2.0]]), np.array([[3.0], [0.0]]))
    >>> X.dense().tolist(), X.apply(np.array([[1.0], [1.0]])).tolist()
    ([[3.0, 0.0], [6.0, 0.0]], [[3.0], [6.0]])
    """

    left: np.ndarray
    right: np.ndarray

    @classmethod
    def of(cls, X: "np.ndarray | LowRank") -> "LowRank":
        """``X`` itself, or a dense ``(n, n)`` matrix as ``X @ I``."""
        return X if isinstance(X, LowRank) else cls(np.asarray(X, dtype=np.float64), np.eye(X.shape[1]))

    def dense(self) -> np.ndarray:
        return self.left @ self.right.T

    def apply(self, Z: np.ndarray) -> np.ndarray:
        """``X @ Z`` for ``Z (n, k)``."""
        return self.left @ (self.right.T @ Z)

    def conj_t(self, act: BlockAction, g: int) -> "LowRank":
        """``rho(g)^T X rho(g)``."""
        return LowRank(act.left(g, self.left, True), act.left(g, self.right, True))

    @property
    def scale(self) -> float:
        """An upper bound of max |X_ij| (for the relative residual checks)."""
        if not self.left.size:
            return 0.0
        return float(np.sqrt((self.left**2).sum(1).max() * (self.right**2).sum(1).max()))


@dataclass(frozen=True)
class VanillaSample:
    """Vanilla weights (H heads) with the per-orbit data they were built from."""

    Wq: np.ndarray  # (H, d, n)
    Wk: np.ndarray
    Wv: np.ndarray
    Wo: np.ndarray  # (H, n, d)
    M: tuple  # per expanded orbit j: M_j (K_j-equivariant), a LowRank or a dense (n, n) array
    R: tuple  # per orbit: R_j (cluster sum at the base coset), likewise


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


def _mix(Bf: np.ndarray, Af: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(Bf T^T, T Af)`` for a random orthogonal T, a product of two Householder reflections
    (``Bf Af`` is unchanged; each head's slice of it is not equivariant alone)."""
    for _ in range(2):
        v = rng.normal(size=Af.shape[0])
        v /= np.linalg.norm(v)
        Af = Af - 2 * np.outer(v, v @ Af)
        Bf = Bf - 2 * np.outer(Bf @ v, v)
    return Bf, Af


def sample_vanilla(problem: Problem, c: Clustering, options: tuple[Option, ...], rng: np.random.Generator) -> VanillaSample:
    G = problem.group
    act = BlockAction.of(problem)
    n, d = problem.dim_v, problem.head_dim
    Wq, Wk, Wv, Wo, Ms, Rs = [], [], [], [], [], []
    for (cid, size), o in zip(c.expanded(), options):
        K = G.subgroup_classes[cid]
        A, B = _random_pair(problem, K, o.a, rng)  # M = B A, image type a
        A2, B2 = _random_pair(problem, K, o.b, rng)  # R = B2 A2
        Ms.append(LowRank(B, A.T))
        Rs.append(LowRank(B2, A2.T))
        cos = G.left_transversal(K.elements)
        rBs, rAs = act.left_many(cos, B), act.right_t_many(A, cos)
        rB2s, rA2s = act.left_many(cos, B2), act.right_t_many(A2, cos)
        for rB, rA, rB2, rA2 in zip(rBs, rAs, rB2s, rA2s):
            wq = _pad_rows(rB.T, d)
            wk = _pad_rows(rA, d)
            # split R = (r B2)(A2 r^T) over the cluster's heads after a random mixing T
            width = size * d
            Bf = np.zeros((n, width))
            Af = np.zeros((width, n))
            Bf[:, : B2.shape[1]] = rB2
            Af[: A2.shape[0], :] = rA2
            Bf, Af = _mix(Bf, Af, rng)
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


def _orbit_sum(problem: Problem, X: LowRank, inner: np.ndarray, outer: np.ndarray, act: BlockAction) -> LowRank:
    """sum over t in outer/inner (left cosets) of rho(t) X rho(t)^T, as stacked factors."""
    ts = _cosets(problem.group, inner, outer)

    def stack(F: np.ndarray) -> np.ndarray:  # (n, |ts| q), coset-major columns
        return np.swapaxes(act.left_many(ts, F), 0, 1).reshape(F.shape[0], -1)

    return LowRank(stack(X.left), stack(X.right))


#: singular values below this fraction of the largest count as zero (their part of a target
#: is dropped, an error of at most this fraction)
PINV_RCOND = 1e-10


def _row_basis(X: LowRank) -> np.ndarray:
    """An orthonormal basis ``(n, r)`` of the row space of ``X = L R^T``: ``R = Q T`` (QR), the
    right singular vectors Z of ``L T^T`` give ``Q Z`` (``O(n q^2)``; accurate to the rounding
    times the condition of X itself, not of its factors' products with anything else)."""
    n, q = X.right.shape
    if q == 0:
        return np.zeros((n, 0))
    Q, T = np.linalg.qr(X.right)
    _, s, zt = np.linalg.svd(X.left @ T.T, full_matrices=False)
    r = int((s > PINV_RCOND * s[0]).sum()) if s[0] > 0 else 0
    return Q @ zt[:r].T


def _check(what: str, got: np.ndarray, want: np.ndarray, scale: float) -> None:
    """Raise unless ``got`` matches ``want`` (a target applied to random probe vectors)."""
    resid = float(np.abs(got - want).max())
    if resid > 1e-7 * max(scale, 1e-300):
        raise ConstructionError(f"{what}: residual {resid:.2e} (target scale {scale:.2e})")


def _probe(n: int) -> np.ndarray:
    return np.random.default_rng(12345).normal(size=(n, 2))


def _query_key(hom: HomBlocks, Mi: LowRank, rng: np.random.Generator, what: str) -> tuple[np.ndarray, np.ndarray]:
    """``(Wq, Wk)`` in Hom_K(V, W) with ``Wq^T Wk = M_i``: ``Wk`` the polar factor of a random
    K-map on the row space C of M_i (``Wk^T Wk = C C^T``, K-equivariant because the polar
    factor of an equivariant map is), ``Wq = Wk M_i^T``; both projected onto the Hom space."""
    C = _row_basis(Mi)
    w, n = hom.target.dim, hom.source.dim
    if C.shape[1] == 0:
        return np.zeros((w, n)), np.zeros((w, n))
    u, s, zt = np.linalg.svd(random_hom(hom, rng) @ C, full_matrices=False)
    if s.size < C.shape[1] or s[-1] <= PINV_RCOND * s[0]:
        raise ConstructionError(f"{what}: W holds rank {int((s > PINV_RCOND * s[0]).sum())} of M's {C.shape[1]}")
    wk = _project(hom, (u @ zt) @ C.T)
    wq = _project(hom, (wk @ Mi.right) @ Mi.left.T)
    z = _probe(n)
    _check(what, wq.T @ (wk @ z), Mi.apply(z), Mi.scale * np.abs(z).max())
    return wq, wk


@dataclass(frozen=True)
class _SlotLayout:
    """V|K̄'s isotypic basis with its columns grouped by slot: per irrep τ of K̄ in V|K̄
    (``m_τ > 0``) the column sets that a K̄-equivariant map's τ-block repeats on. Real type
    (``e_τ = 1``): the block is ``x ⊗ I_d`` in (copy, component) order, so one slot per
    component a, the copies' columns ``offset + j d + a``; complex and quaternionic type: one
    slot, all ``m_τ d_τ`` columns. ``Q`` holds the slots' columns side by side (``ranges``
    into it), or is None for the identity basis (then ``index`` holds V's coordinates)."""

    Q: np.ndarray | None
    ranges: tuple[tuple[tuple[int, int], ...], ...]  # per τ, per slot: (lo, hi) columns of Q
    index: tuple[tuple[np.ndarray, ...], ...]  # per τ, per slot: columns of the isotypic basis
    n: int

    @classmethod
    def of(cls, iso: Isotypic) -> "_SlotLayout":
        irr = irreps_of(iso.sub)
        index = []
        for t, m in enumerate(iso.mults):
            if not m:
                continue
            off, d = int(iso.offsets[t]), int(irr.dims[t])
            if int(irr.es[t]) == 1:
                index.append(tuple(off + a + d * np.arange(m) for a in range(d)))
            else:
                index.append((off + np.arange(m * d),))
        ranges, pos = [], 0
        for slots in index:
            ranges.append(tuple((pos + i * len(slots[0]), pos + (i + 1) * len(slots[0])) for i in range(len(slots))))
            pos += len(slots) * len(slots[0])
        Q = None if iso.Q is None else np.ascontiguousarray(iso.Q[:, np.concatenate([i for sl in index for i in sl])])
        return cls(Q, tuple(ranges), tuple(index), iso.dim)

    def restrict(self, t: int, j: int, X: np.ndarray) -> np.ndarray:
        """``Q_slot^T X`` for slot j of the τ at position t."""
        if self.Q is None:
            return X[self.index[t][j]]
        lo, hi = self.ranges[t][j]
        return self.Q[:, lo:hi].T @ X

    def lift(self, t: int, j: int, u: np.ndarray) -> np.ndarray:
        """``Q_slot u``."""
        if self.Q is not None:
            lo, hi = self.ranges[t][j]
            return self.Q[:, lo:hi] @ u
        out = np.zeros((self.n, u.shape[1]))
        out[self.index[t][j]] = u
        return out


def _slot_layout(problem: Problem, K: SubgroupClass) -> _SlotLayout:
    """The slot layout of V|K, built once per subgroup class (kept on the problem)."""
    iso = problem.cached(("isotypic", K.id), lambda: isotypic_of_rep(problem.V, K))
    return problem.cached(("slots", K.id), lambda: _SlotLayout.of(iso))


def _row_slots(lay: _SlotLayout, X: LowRank) -> list[list[np.ndarray]]:
    """An orthonormal basis of the row space of a K̄-equivariant ``X = L R^T``, per irrep τ
    and slot (:class:`_SlotLayout`): columns ``Q_slot u_τ`` with one ``u_τ`` for the slots of
    τ, from the τ-block on one slot (``m x m``, or by the factors when they are thinner). The
    rank cut is relative to X's largest singular value over all τ."""
    q = X.right.shape[1]
    found = []
    for t in range(len(lay.index)):
        L, R = lay.restrict(t, 0, X.left), lay.restrict(t, 0, X.right)
        if q >= L.shape[0]:
            _, sv, zt = np.linalg.svd(L @ R.T)
            found.append((None, sv, zt))
        else:
            Qr, T = np.linalg.qr(R)
            _, sv, zt = np.linalg.svd(L @ T.T, full_matrices=False)
            found.append((Qr, sv, zt))
    top = max((float(sv[0]) for _, sv, _ in found if sv.size), default=0.0)
    out = []
    for t, (Qr, sv, zt) in enumerate(found):
        r = int((sv > PINV_RCOND * top).sum()) if top > 0 else 0
        u = zt[:r].T if Qr is None else Qr @ zt[:r].T
        out.append([lay.lift(t, j, u) for j in range(len(lay.index[t]))])
    return out


def _transfer(act: BlockAction, lay: _SlotLayout, Rbar: LowRank, hosts: list[tuple[HomBlocks, list[int]]],
              rng: np.random.Generator, what: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per host ``(Hom_K(V, W), [ta for the cosets t of K̄/L], identity coset first)`` its
    ``(Wv, Wo)`` with ``Σ_hosts Σ_t rho(ta) Wo Wv rho(ta)^T = R̄'`` (``lay``: V|K̄'s slots).

    C is an orthonormal basis of the row space of R̄' (K̄-invariant, by isotypic slots). Host
    h's value rows ``F = [Wv rho(ta)^T]_t`` are a K̄-map V -> Ind_L^{K̄} W (Frobenius
    reciprocity: every such map is of this form). F is the polar factor of a random one
    restricted to what is left of C, so ``F^T F`` is the projector onto the piece it covers
    and C keeps the rest; the pieces are orthogonal and fill C (hosting), so ``Σ F^T F = C C^T``
    and ``X = R̄' F^T`` solves ``X F = R̄'`` exactly: its identity-coset block is
    ``rho(a) Wo = R̄' rho(a) Wv^T``. ``F^T F`` is K̄-equivariant, so its restriction to C is
    block diagonal over the slots, the same on the slots of one τ: the polar factor needs one
    SVD per τ of the value rows on one slot (``[K̄:L] dim W x rank_τ``)."""
    C = _row_slots(lay, Rbar)
    n = act.rho.shape[1]
    rank = sum(c.shape[1] for cs in C for c in cs)
    out = []
    for hom, ts in hosts:
        w = hom.target.dim
        widths = [cs[0].shape[1] for cs in C]
        if not sum(widths) or w == 0:
            out.append((np.zeros((w, n)), np.zeros((n, w))))
            continue
        Vt = random_hom(hom, rng)
        allc = np.hstack([c for cs in C for c in cs])
        Ca = act.left(ts[0], allc, transpose=True)  # rho(a)^T C
        first = Vt @ Ca  # the value rows at the identity coset, every slot
        pos = np.cumsum([0] + [c.shape[1] for cs in C for c in cs])
        one = np.hstack([cs[0] for cs in C])  # slot 0 of every τ
        rest = Vt @ act.left_many(ts[1:], one, transpose=True) if len(ts) > 1 else np.zeros((0, w, one.shape[1]))
        starts = np.cumsum([0] + widths)
        svds = []
        slot = 0
        for k, cs in enumerate(C):
            Y = np.vstack([first[:, pos[slot] : pos[slot + 1]]] + [b[:, starts[k] : starts[k + 1]] for b in rest])
            svds.append(np.linalg.svd(Y, full_matrices=Y.shape[0] < Y.shape[1]) if Y.shape[1] else None)
            slot += len(cs)
        top = max((float(sv[1][0]) for sv in svds if sv is not None and sv[1].size), default=0.0)
        mixed = np.zeros_like(first)
        slot = 0
        for k, cs in enumerate(C):
            if svds[k] is None:
                slot += len(cs)
                continue
            _, sv, zt = svds[k]
            r = int((sv > PINV_RCOND * top).sum()) if top > 0 else 0
            Wt = (zt[:r].T / sv[:r]) @ zt[:r]  # (Y^T Y)^{+1/2} on the covered part
            for j in range(len(cs)):
                mixed[:, pos[slot] : pos[slot + 1]] = first[:, pos[slot] : pos[slot + 1]] @ Wt
                cs[j] = cs[j] @ zt[r:].T  # what is left of C
                slot += 1
        wv = _project(hom, mixed @ Ca.T)
        wo = _project(hom, Rbar.conj_t(act, ts[0]).apply(wv.T).T).T  # rho(a)^T R̄' rho(a) Wv^T
        out.append((wv, wo))
    left = sum(c.shape[1] for cs in C for c in cs)
    if left:
        raise ConstructionError(f"{what}: the hosts take {rank - left} of the {rank} dimensions of R's row space")
    z = _probe(n)
    got = np.zeros_like(z)
    for (hom, ts), (wv, wo) in zip(hosts, out):
        for ta, p in zip(ts, wo @ (wv @ act.left_many(ts, z, transpose=True))):
            got += act.left(ta, p)
    _check(what, got, Rbar.apply(z), Rbar.scale * np.abs(z).max())
    return out


def _demand_targets(problem: Problem, result: ScenarioResult, sample: VanillaSample, c: Clustering, dem, act: BlockAction):  # noqa: ANN001
    """(M' or None, R̄', K̄_0's elements) of one demand (the pool: no M', R̄' the sum over all G)."""
    G = problem.group
    expanded = c.expanded()
    kb0 = G.subgroup_classes[dem.kbar]
    if dem.pool:
        parts = [_orbit_sum(problem, LowRank.of(sample.R[j]), G.subgroup_classes[expanded[j][0]].elements,
                            np.arange(G.order), act) for j in dem.orbits]
        n = problem.dim_v
        Rbar = LowRank(np.hstack([x.left for x in parts] or [np.zeros((n, 0))]),
                       np.hstack([x.right for x in parts] or [np.zeros((n, 0))]))
        return None, Rbar, kb0.elements
    j = dem.orbits[0]
    o = result.options[j]
    K = G.subgroup_classes[expanded[j][0]]
    cc = o.conj
    kbar = np.sort(G.conj_table[cc, kb0.elements])  # K̄ = c K̄_0 c^-1
    Rb = _orbit_sum(problem, LowRank.of(sample.R[j]), K.elements, kbar, act)
    return LowRank.of(sample.M[j]).conj_t(act, cc), Rb.conj_t(act, cc), kb0.elements


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

    * ``Wq^T Wk = M_i`` with ``M_i = rho(a)^T M' rho(a)`` (:func:`_query_key`);
    * the transfers add up: ``Σ_hosts Σ_{t ∈ K̄/L} rho(ta) Wo Wv rho(ta)^T = R̄'`` with
      ``L = a K a^-1`` (:func:`_transfer`; the hosts' stacked value rows ``Wv rho(ta)^T`` are,
      by Frobenius reciprocity, exactly the K̄-maps ``V -> ⊕ Ind_L^K̄ W``).

    Both are closed forms on ``(dim V) x rank`` matrices: memory and time grow like
    dim V · (Σ dim W + the clusters' Σ d) (:func:`eqattn.numeric.verify.verify_memory`), and
    each is checked on random probe vectors (:class:`ConstructionError` when it fails). Every
    weight is finally projected onto its Hom space by its blocks (removing rounding)."""
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
            if Mp is not None:
                wq, wk = _query_key(homs[i], Mp.conj_t(act, a), rng, f"M of design orbit {i + 1}")
                weights[i] = (wq, wk, weights[i][2], weights[i][3])
        if not Rbar.left.size or Rbar.scale == 0:
            continue
        hosts = []
        for h in asg.hosts:
            i, a = h.design_orbit, h.a
            L = np.sort(G.conj_table[a, design.orbits[i].sub.elements])
            hosts.append((i, [int(G.table[t, a]) for t in _cosets(G, L, kb0)]))  # ta, identity coset first
        if not sum(homs[i].target.dim for i, _ in hosts):
            raise ConstructionError("R: no parameters in the hosts")
        what = f"R of the {'zero pool' if asg.demand.pool else 'demand'}"
        lay = _slot_layout(problem, G.subgroup_classes[asg.demand.kbar])
        outs = _transfer(act, lay, Rbar, [(homs[i], ts) for i, ts in hosts], rng, what)
        for (i, _), (wv, wo) in zip(hosts, outs):
            wq, wk, _, _ = weights[i]
            weights[i] = (wq, wk, wv, wo)
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
        blocks.append((act.right_t_many(wq, cos), act.right_t_many(wk, cos), act.right_t_many(wv, cos), act.left_many(cos, wo)))
    return blocks


def design_attention(problem: Problem, design: Design, weights: list, X: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """The design layer (SPEC §3) on ``X (..., N, dim V)`` from its per-orbit weights, without
    expanding them to heads: the head at coset a (``W_Q = Wq rho(a)^T``, ``W_O = rho(a) Wo``)
    is the orbit's weights applied to ``X rho(a)`` and written back through ``rho(a)^T``, so
    each orbit is one attention call on its ``|G/K|`` moved copies of X. Equal to
    ``attention_from_blocks(X, expand_design(problem, design, weights))``.

    >>> from eqattn.attention import Problem, Design
    >>> from eqattn.numeric import attention_from_blocks
    >>> p = Problem.create("C4", "E1", 2, 1)
    >>> d = Design.create(p, [("C2", "B")])
    >>> rng = np.random.default_rng(0)
    >>> w = [tuple(rng.normal(size=s) for s in ((1, 2), (1, 2), (1, 2), (2, 1)))]
    >>> X = rng.normal(size=(3, 2))
    >>> bool(np.allclose(design_attention(p, d, w, X), attention_from_blocks(X, expand_design(p, d, w))))
    True
    """
    G = problem.group
    act = BlockAction.of(problem)
    n = problem.dim_v
    lead = X.shape[:-1]
    XT = np.ascontiguousarray(X.reshape(-1, n).T)  # (n, M)
    out = np.zeros((n, XT.shape[1]))
    for o, (wq, wk, wv, wo) in zip(design.orbits, weights):
        if not o.head_dim:
            continue
        cos = G.left_transversal(o.sub.elements)
        Xa = np.swapaxes(act.left_many(cos, XT, transpose=True), 1, 2).reshape((len(cos),) + lead + (n,))  # X rho(a)
        Ya = reference_attention(Xa, wq[None], wk[None], wv[None], wo[None]).reshape(len(cos), -1, n)
        for a, y in zip(cos, Ya):
            out += act.left(int(a), y.T)
    return out.T.reshape(lead + (n,))
