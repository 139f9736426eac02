"""A design as explicit numbers: coset representatives and Hom_K(V, W) per orbit (SPEC §3).
This is what the PyTorch layer consumes (docs/contracts.md).

Each orbit holds Hom_K(V, W) either by its isotypic blocks (:class:`HomBlocks`, what
:func:`realize_design` builds: ``p`` coordinates, O(dim V dim W) memory, no basis tensor) or
by an explicit orthonormal basis ``(p, dim W, dim V)`` (``eqattn.torch.realize_from_matrices``,
for representations outside the catalog). ``hom_in``, ``hom_out`` and ``cosets`` are the dense
views of either (materialised on access: ``p dim W dim V`` and ``index dim V^2`` floats, meant
for small cases and tests).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..attention.design import Design
from ..attention.problem import Problem
from ..reps import Rep
from .isotypic import HomBlocks, Isotypic, isotypic_of_rep


@dataclass(frozen=True, eq=False)
class RealizedOrbit:
    """One orbit ``(K, W)``: heads at the cosets ``a`` (``coset_reps``, indices into
    ``group_matrices``, whose matrices ``rho(a)`` are in the coordinates of ``hom``/``basis``),
    the space Hom_K(V, W) (``hom`` or ``basis``), and ``change``: ``U`` with the user's
    ``rho_u(g) = U rho(g) U^T`` (None: the design's own coordinates). In the user's
    coordinates ``Wq_u = Wq U^T`` and ``Wo_u = U Wo``.

    ``w_fixed (b, dim W)``: orthonormal basis of W^K (the q/k/v biases equivariance allows);
    ``subgroup``: element indices of K.
    """

    head_dim: int
    coset_reps: tuple[int, ...]
    group_matrices: np.ndarray = field(repr=False)
    hom: HomBlocks | None = None
    basis: np.ndarray | None = field(default=None, repr=False)
    change: np.ndarray | None = field(default=None, repr=False)
    w_fixed: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)
    subgroup: tuple[int, ...] = ()

    @property
    def p(self) -> int:
        """dim Hom_K(V, W)."""
        return self.hom.dim if self.hom is not None else int(self.basis.shape[0])  # type: ignore[union-attr]

    @property
    def index(self) -> int:
        return len(self.coset_reps)

    @property
    def params(self) -> int:
        return 4 * self.p

    @property
    def cosets(self) -> np.ndarray:
        """``(index, n, n)``: ``rho_u(a)`` for the coset representatives."""
        R = self.group_matrices[list(self.coset_reps)]
        return R if self.change is None else self.change @ R @ self.change.T

    @property
    def hom_in(self) -> np.ndarray:
        """Orthonormal basis ``(p, dim W, n)`` of Hom_K(V, W) (user coordinates)."""
        B = self.basis if self.basis is not None else self.hom.dense_basis()  # type: ignore[union-attr]
        return B if self.change is None else B @ self.change.T

    @property
    def hom_out(self) -> np.ndarray:
        """``(p, n, dim W)``: the transposes, a basis of Hom_K(W, V)."""
        return np.ascontiguousarray(self.hom_in.transpose(0, 2, 1))

    def in_basis(self, Q: np.ndarray) -> "RealizedOrbit":
        """The same orbit for ``rho'(g) = Q rho(g) Q^T``: ``A -> A Q^T`` on Hom_K(V, W)."""
        Q = np.asarray(Q, dtype=np.float64)
        return replace(self, change=Q if self.change is None else Q @ self.change)


@dataclass(frozen=True)
class RealizedDesign:
    """``group_matrices (|G|, n, n)`` in the user's coordinates; ``orbits``; ``blocks``: V's
    block form over G's irreps in the orbits' coordinates, ``(offset, copies, dim)`` per irrep
    σ of V (``rho(g)`` is block diagonal with ``copies`` equal ``dim x dim`` blocks from
    ``offset``), or None when rho has no known block form (explicit matrices)."""

    dim_v: int
    group_matrices: np.ndarray
    orbits: tuple[RealizedOrbit, ...]
    blocks: tuple[tuple[int, int, int], ...] | None = None

    @property
    def params(self) -> int:
        return sum(o.params for o in self.orbits)

    def in_basis(self, Q: np.ndarray) -> "RealizedDesign":
        """The same design acting on ``x' = Q x``, i.e. for ``rho'(g) = Q rho(g) Q^T`` (Q orthogonal).

        Rows ``x`` transform as ``x -> x rho(g)^T``; the layer of the result computes
        ``f'(X) = f(X Q) Q^T`` (the change is folded into the expanded weights)."""
        Q = np.asarray(Q, dtype=np.float64)
        return RealizedDesign(
            self.dim_v, Q @ self.group_matrices @ Q.T, tuple(o.in_basis(Q) for o in self.orbits), self.blocks
        )


def _trivial_copies(W: Rep) -> np.ndarray:
    """W^K for W in block form: the coordinate vectors of the copies of K's trivial irrep
    (the same space as ``fixed_vectors(W.matrices())``, without an eigendecomposition).

    >>> from eqattn.groups import get_group
    >>> from eqattn.reps import parse_rep
    >>> _trivial_copies(parse_rep("E1 + 2xA", get_group("C4").subgroup_classes[-1])).tolist()
    [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    """
    irr = W.irreps
    K = W.sub.elements
    cols, pos = [], 0
    for s, m in enumerate(W.mults):
        d = int(irr.dims[s])
        if d == 1 and np.allclose(irr.chars[s][K], 1.0):
            cols += range(pos, pos + m)
        pos += m * d
    return np.eye(W.dim)[cols] if cols else np.zeros((0, W.dim))


def realize_design(problem: Problem, design: Design) -> RealizedDesign:
    """Per orbit the isotypic block structure of Hom_K(V|K, W) (:class:`HomBlocks`); the
    isotypic basis of V|K is built once per subgroup class (:func:`isotypic_of_rep`).

    >>> from eqattn.attention import Problem, Design
    >>> p = Problem.create("C4", "E1", 2, 1)
    >>> r = realize_design(p, Design.create(p, [("C2", "B")]))
    >>> r.params, r.orbits[0].hom_in.shape, r.orbits[0].coset_reps
    (8, (2, 1, 2), (0, 1))
    """
    G = problem.group
    rho = problem.rho
    isos: dict[int, Isotypic] = {}
    out = []
    for o in design.orbits:
        if o.sub.id not in isos:
            isos[o.sub.id] = isotypic_of_rep(problem.V, o.sub)
        hom = HomBlocks(isos[o.sub.id], Isotypic.standard(o.W))
        out.append(
            RealizedOrbit(
                head_dim=o.head_dim,
                coset_reps=tuple(int(a) for a in G.left_transversal(o.sub.elements)),
                group_matrices=rho,
                hom=hom,
                w_fixed=_trivial_copies(o.W),
                subgroup=tuple(int(k) for k in o.sub.elements),
            )
        )
    blocks, pos = [], 0
    for d, m in zip(problem.V.irreps.dims, problem.V.mults):
        if m:
            blocks.append((pos, int(m), int(d)))
            pos += int(m) * int(d)
    return RealizedDesign(problem.dim_v, rho, tuple(out), tuple(blocks))
