"""A design as explicit numbers: coset matrices and bases of Hom_K(V, W) (SPEC §3).
This is what the PyTorch layer consumes (docs/contracts.md)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..attention.design import Design
from ..attention.problem import Problem
from .equivariant import fixed_vectors, hom_basis, standard_matrices


@dataclass(frozen=True)
class RealizedOrbit:
    head_dim: int
    cosets: np.ndarray  # (index, n_V, n_V): rho(a) for the coset representatives a
    coset_reps: tuple[int, ...]
    hom_in: np.ndarray  # (p, dim W, n_V): orthonormal basis of Hom_K(V, W)
    hom_out: np.ndarray  # (p, n_V, dim W): basis of Hom_K(W, V) (transposes)
    w_fixed: np.ndarray  # (b, dim W): orthonormal basis of W^K (the allowed q/k/v biases)
    subgroup: tuple[int, ...] = ()  # element indices of K

    @property
    def params(self) -> int:
        return 4 * self.hom_in.shape[0]

    def in_basis(self, Q: np.ndarray) -> "RealizedOrbit":
        """The same orbit for ``rho'(g) = Q rho(g) Q^T``: ``A -> A Q^T`` on Hom_K(V, W)."""
        return replace(
            self,
            cosets=Q @ self.cosets @ Q.T,
            hom_in=self.hom_in @ Q.T,
            hom_out=np.einsum("ij,pjk->pik", Q, self.hom_out),
        )


@dataclass(frozen=True)
class RealizedDesign:
    dim_v: int
    group_matrices: np.ndarray  # (|G|, n_V, n_V)
    orbits: tuple[RealizedOrbit, ...]

    @property
    def params(self) -> int:
        return sum(o.params for o in self.orbits)

    def in_basis(self, Q: np.ndarray) -> "RealizedDesign":
        """The same design acting on ``x' = Q x``, i.e. for ``rho'(g) = Q rho(g) Q^T`` (Q orthogonal).

        Rows ``x`` transform as ``x -> x rho(g)^T``; the layer of the result computes
        ``f'(X) = f(X Q) Q^T`` with no extra work per call."""
        Q = np.asarray(Q, dtype=np.float64)
        return RealizedDesign(
            self.dim_v, Q @ self.group_matrices @ Q.T, tuple(o.in_basis(Q) for o in self.orbits)
        )


def realize_design(problem: Problem, design: Design) -> RealizedDesign:
    G = problem.group
    rho = problem.rho
    out = []
    for o in design.orbits:
        reps = G.left_transversal(o.sub.elements)
        basis = hom_basis(o.sub, rho[o.sub.elements], problem.restrict(o.sub), o.W, seed=7)
        out.append(
            RealizedOrbit(
                head_dim=o.head_dim,
                cosets=rho[reps].copy(),
                coset_reps=tuple(reps),
                hom_in=basis,
                hom_out=basis.transpose(0, 2, 1).copy(),
                w_fixed=fixed_vectors(standard_matrices(o.W)),
                subgroup=tuple(int(k) for k in o.sub.elements),
            )
        )
    return RealizedDesign(problem.dim_v, rho.copy(), tuple(out))
