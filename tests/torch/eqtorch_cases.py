"""Hand-made realisations for the torch-layer tests (no dependency on the core).

Each case is a group given by orthogonal matrices on V, and a design given by per-orbit
subgroup generators with their W-matrices; `expected_p` lists dim Hom_K(V, W) per orbit
computed by hand from SPEC §3 (`sum_tau m_tau(V|K) m_tau(W) e_tau`), so the parameter-count
test does not trust the basis construction.

Also: a numpy reference of SPEC §1 (row-vector convention) used to check the layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from eqattn.torch.manual import realize_from_matrices


def rot(t: float) -> np.ndarray:
    return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])


def closure(gens: list[np.ndarray]) -> np.ndarray:
    """All products of the generators (identity first)."""
    n = gens[0].shape[0]
    elems = [np.eye(n)]
    keys = {np.round(np.eye(n), 8).tobytes()}
    i = 0
    while i < len(elems):
        for g in gens:
            y = g @ elems[i]
            k = (np.round(y, 8) + 0.0).tobytes()
            if k not in keys:
                keys.add(k)
                elems.append(y)
        i += 1
    return np.stack(elems)


def index_of(G: np.ndarray, m: np.ndarray) -> int:
    hits = [i for i, g in enumerate(G) if np.allclose(g, m, atol=1e-9)]
    assert len(hits) == 1, "matrix not in the group"
    return hits[0]


def regular_rep(G: np.ndarray) -> np.ndarray:
    """Regular representation (permutation matrices rho(g) e_h = e_{gh}) of a matrix group."""
    order = len(G)
    out = np.zeros((order, order, order))
    for a in range(order):
        for h in range(order):
            out[a, index_of(G, G[a] @ G[h]), h] = 1.0
    return out


def quat_left(q: tuple[float, float, float, float]) -> np.ndarray:
    a, b, c, d = q
    return np.array([[a, -b, -c, -d], [b, a, -d, c], [c, d, a, -b], [d, -c, b, a]], dtype=float)


@dataclass
class Case:
    name: str
    group: np.ndarray
    orbits: list  # specs for realize_from_matrices
    expected_p: list[int]
    realized: object = field(init=False)

    def __post_init__(self) -> None:
        self.realized = realize_from_matrices(self.group, self.orbits)

    @property
    def params(self) -> int:
        return 4 * sum(self.expected_p)


def make_cases() -> list[Case]:
    cases = []
    # C4 on R^2 by rotations: V = E1 (complex type).
    C4 = closure([rot(np.pi / 2)])
    r, r2 = index_of(C4, rot(np.pi / 2)), index_of(C4, rot(np.pi))
    cases.append(Case("C4-E1:(C4,E1)", C4, [{r: rot(np.pi / 2)}], [2]))
    cases.append(Case("C4-E1:(C2,B)", C4, [{r2: [[-1.0]]}], [2]))  # SPEC §6 example 2
    cases.append(
        Case(
            "C4-E1:(C2,A+B)+(C1,A)+(C4,E1)",  # non-regular W with an idle dimension; mixed head dims
            C4,
            [{r2: np.diag([1.0, -1.0])}, ((), 1), {r: rot(np.pi / 2)}],
            [2, 2, 2],
        )
    )
    cases.append(Case("C4-E1:(C2,A)+(C2,B)", C4, [{r2: [[1.0]]}, {r2: [[-1.0]]}], [0, 2]))
    # D3 on R^2: V = E (real type); C3 has the complex-type E1.
    s = np.diag([1.0, -1.0])
    D3 = closure([rot(2 * np.pi / 3), s])
    i_r, i_s = index_of(D3, rot(2 * np.pi / 3)), index_of(D3, s)
    cases.append(
        Case(
            "D3-E:(C2,A)+(C3,E1)+(D3,E)",
            D3,
            [{i_s: [[1.0]]}, {i_r: rot(2 * np.pi / 3)}, {i_r: rot(2 * np.pi / 3), i_s: s}],
            [1, 2, 1],
        )
    )
    # D3 on its regular representation (n = 6).
    R = regular_rep(D3)
    cases.append(
        Case(
            "D3-regular:(C2,B)+(C3,E1)+(C1,2A)",
            R,
            [{i_s: [[-1.0]]}, {i_r: rot(2 * np.pi / 3)}, ((), 2)],
            [3, 4, 12],
        )
    )
    # Q8 on R^4 = H by left multiplication (quaternionic type).
    Li, Lj = quat_left((0, 1, 0, 0)), quat_left((0, 0, 1, 0))
    Q8 = closure([Li, Lj])
    qi, qj, qm = index_of(Q8, Li), index_of(Q8, Lj), index_of(Q8, -np.eye(4))
    cases.append(
        Case(
            "Q8-H:(Q8,H)+(C4,E1)+(C2,B)",
            Q8,
            [{qi: Li, qj: Lj}, {qi: rot(np.pi / 2)}, {qm: [[-1.0]]}],
            [4, 4, 4],
        )
    )
    # trivial group on R^3: the layer is a vanilla layer with 1 head of dimension 2.
    cases.append(Case("C1-3A:(C1,2A)", np.eye(3)[None], [((), 2)], [6]))
    return cases


# ----- SPEC §1 reference (numpy, float64, row vectors) ----------------------------------------
def softmax_rows(S: np.ndarray) -> np.ndarray:
    S = S - S.max(axis=-1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=-1, keepdims=True)


def reference_attention(X, Wq, Wk, Wv, Wo, mask=None) -> np.ndarray:
    """f(X)_i = sum_h sum_j softmax_j(x_i^T M_h x_j) R_h x_j for X (N, n).

    `mask`: bool (N, N) (True = attend) or float (N, N) added to the scores.
    """
    out = np.zeros_like(X)
    for h in range(len(Wq)):
        S = (X @ Wq[h].T) @ (X @ Wk[h].T).T
        if mask is not None:
            S = np.where(mask, S, -np.inf) if mask.dtype == bool else S + mask
        out += softmax_rows(S) @ (X @ Wv[h].T) @ Wo[h].T
    return out


def heads_from_thetas(realized, thetas) -> tuple[np.ndarray, ...]:
    """Vanilla head weights of a design from its coordinates (independent of the layer code).

    `thetas`: per orbit (tq, tk, tv, to). Heads of smaller dimension are zero-padded.
    """
    D = max((o.head_dim for o in realized.orbits), default=0)
    n = realized.dim_v
    Q, K, V, O = [], [], [], []
    for orbit, (tq, tk, tv, to) in zip(realized.orbits, thetas):
        w = orbit.head_dim
        mats = [np.tensordot(t, orbit.hom_in, axes=1) for t in (tq, tk, tv)] + [np.tensordot(to, orbit.hom_out, axes=1)]
        for a in orbit.cosets:
            for lst, m in zip((Q, K, V), mats[:3]):
                z = np.zeros((D, n))
                z[:w] = m @ a.T
                lst.append(z)
            z = np.zeros((n, D))
            z[:, :w] = a @ mats[3]
            O.append(z)
    return tuple(np.array(x).reshape(-1, *s) for x, s in zip((Q, K, V, O), ((D, n),) * 3 + ((n, D),)))
