"""The group of a task: its elements acting on token inputs and on m x regular features.

A task gives a finite group ``G`` (an eqattn ``FiniteGroup``) and, per element ``g``, the
orthogonal matrix ``rho_in(g)`` acting on one token's geometric input (positions,
velocities, patch pixels...), plus ``rho_out(g)`` on its output. Hidden features are
``m x regular`` in PERMUTATION form, laid out ``(|G|, m)`` (group index major): ``g`` acts by
``(g.h)[k, c] = h[g^{-1} k, c]``, i.e. the matrix ``P(g)`` with ``P(g)[gk, k] = 1`` per channel.

Equivariant maps used by :mod:`models`, each checked in tests/tasks/test_models.py:

* lift ``U -> m x regular``: ``h[k, c] = (W rho_in(g_k)^{-1} u)[c] + b[c]`` (every G-map
  ``U -> regular`` has this form, Frobenius reciprocity);
* group convolution ``m x regular -> m' x regular``: ``h'[k] = sum_j W[g_k^{-1} g_j] h[j]``;
* readout ``m x regular -> U'``: ``y = sum_k rho_out(g_k) A h[k]``; invariants by the mean over k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eqattn.groups import FiniteGroup, get_group

__all__ = ["TaskGroup", "task_group", "regular_perms"]


@dataclass(frozen=True)
class TaskGroup:
    """``G`` with ``rho_in[g]`` (|G|, a, a) on token inputs and ``rho_out[g]`` (|G|, b, b) on outputs."""

    G: FiniteGroup
    rho_in: np.ndarray
    rho_out: np.ndarray

    @property
    def order(self) -> int:
        return self.G.order

    @property
    def table(self) -> np.ndarray:
        return np.asarray(self.G.table)

    @property
    def inv(self) -> np.ndarray:
        return np.asarray(self.G.inv)

    def check(self) -> float:
        """Largest ``|rho(g h) - rho(g) rho(h)|`` over both representations (0 for a homomorphism)."""
        t = self.table
        err = 0.0
        for rho in (self.rho_in, self.rho_out):
            err = max(err, float(np.abs(rho[t] - np.einsum("gij,hjk->ghik", rho, rho)).max()))
        return err


def task_group(spec: str, rho_in: np.ndarray | None = None, rho_out: np.ndarray | None = None) -> TaskGroup:
    """``G = get_group(spec)``; by default ``rho_in = rho_out = G.matrices`` (a point group's own
    matrices). ``rho_in`` / ``rho_out`` may be callables ``G.matrices -> (|G|, a, a)``.

    >>> tg = task_group("Oh"); tg.order, tg.rho_in.shape, tg.check() < 1e-12
    (48, (48, 3, 3), True)
    """
    G = get_group(spec)
    if G.matrices is None:
        raise ValueError(f"{spec}: a matrix group is needed (e.g. 'mat:[[0,-1],[1,0]]' for C4)")
    M = np.asarray(G.matrices, dtype=np.float64)
    rin = M if rho_in is None else (rho_in(M) if callable(rho_in) else np.asarray(rho_in, dtype=np.float64))
    rout = M if rho_out is None else (rho_out(M) if callable(rho_out) else np.asarray(rho_out, dtype=np.float64))
    return TaskGroup(G, rin, rout)


def regular_perms(G: FiniteGroup, m: int) -> np.ndarray:
    """``P(g)`` (|G|, |G| m, |G| m) on features laid out (|G|, m): ``(P(g) h)[k] = h[g^{-1} k]``.

    Row-vector convention of eqattn.torch: a token row transforms ``x -> x P(g)^T``.

    >>> P = regular_perms(get_group("C4"), 2); P.shape, bool((P[1] @ P[1].T == np.eye(8)).all())
    ((4, 8, 8), True)
    """
    t = np.asarray(G.table)
    n = G.order
    out = np.zeros((n, n * m, n * m))
    eye = np.eye(m)
    for g in range(n):
        for k in range(n):
            gk = t[g, k]
            out[g, gk * m:(gk + 1) * m, k * m:(k + 1) * m] = eye
    return out
