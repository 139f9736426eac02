"""A design as explicit numbers: coset matrices and bases of Hom_K(V, W) (SPEC §3).
This is what the PyTorch layer consumes (docs/contracts.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention.design import Design
from ..attention.problem import Problem
from .equivariant import hom_basis


@dataclass(frozen=True)
class RealizedOrbit:
    head_dim: int
    cosets: np.ndarray  # (index, n_V, n_V): rho(a) for the coset representatives a
    coset_reps: tuple[int, ...]
    hom_in: np.ndarray  # (p, dim W, n_V): orthonormal basis of Hom_K(V, W)
    hom_out: np.ndarray  # (p, n_V, dim W): basis of Hom_K(W, V) (transposes)

    @property
    def params(self) -> int:
        return 4 * self.hom_in.shape[0]


@dataclass(frozen=True)
class RealizedDesign:
    dim_v: int
    group_matrices: np.ndarray  # (|G|, n_V, n_V)
    orbits: tuple[RealizedOrbit, ...]

    @property
    def params(self) -> int:
        return sum(o.params for o in self.orbits)


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
            )
        )
    return RealizedDesign(problem.dim_v, rho.copy(), tuple(out))
