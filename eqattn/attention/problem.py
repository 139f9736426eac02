"""A problem (G, V, H, d): the vanilla layer and its parameter count (SPEC §1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TypeVar

import numpy as np

from ..errors import InputError, LimitError, whole_number
from ..groups import FiniteGroup, SubgroupClass
from ..memo import Memo
from ..reps import Rep, irreps_of, parse_rep

T = TypeVar("T")

MAX_HEADS = 64
MAX_HEAD_DIM = 256
MAX_DIM_V = 1024
PROBLEM_MEMO = 2048  # entries: V restricted to each subgroup class (<= 1000), tables, hosting
MAX_RHO_BYTES = 1 << 29  # the matrices of V over all of G (numeric realisation only)
PRICES = ("params", "attention_cost")  # what an orbit's count `DesignOrbit.params` measures (see Problem.priced)


def _get_group(spec: str, rep: str) -> FiniteGroup:
    """The catalog group; a compact group's stand-in for the band V's text names."""
    from ..groups.catalog import group_for_rep

    return group_for_rep(spec, rep)


@dataclass(frozen=True, eq=False)
class Problem:
    """G acting on V by rho, a vanilla layer with H heads of dimension d. `price`: what the
    optimiser minimises, "params" (SPEC §1, every problem a user states) or
    "attention_cost" (`priced`: the least-cost search, theory-scale B1d)."""

    group: FiniteGroup
    V: Rep
    heads: int
    head_dim: int
    price: str = "params"
    memo: Memo = field(default_factory=lambda: Memo(PROBLEM_MEMO), init=False, repr=False, compare=False)

    @staticmethod
    def create(group: str | FiniteGroup, rep: str, heads: int | str, head_dim: int | str) -> "Problem":
        G = group if isinstance(group, FiniteGroup) else _get_group(group, rep)
        top = G.subgroup_classes[-1]
        V = parse_rep(rep, top, field="rep")
        if V.dim == 0:
            raise InputError("rep", "V must be non-zero")
        if V.dim > MAX_DIM_V:
            raise LimitError("rep", f"dim V = {V.dim}; at most {MAX_DIM_V} is supported")
        H = whole_number(heads, "heads", 1, MAX_HEADS, text=True)
        d = whole_number(head_dim, "head_dim", 1, MAX_HEAD_DIM, text=True)
        return Problem(G, V, H, d)

    def priced(self, price: str) -> "Problem":
        """The same problem with designs counted by `price` (PRICES): under "attention_cost"
        an orbit's count (`DesignOrbit.params`, `unit_costs`) is 4 [G:K] dim W instead of
        4 dim Hom_K(V, W), so the optimiser's least count is 4 × the least attention cost of
        a covering design, with the same proofs (every bound of the search is linear in the
        per-irrep costs). Coverage does not depend on the price: the copy shares this
        problem's tables (memo).

            >>> p = Problem.create("C4", "E1", 2, 1)
            >>> p.priced("attention_cost").unit_costs(p.group.subgroup_classes[0]).tolist()   # C1: 4 heads x dim 1
            [4]
        """
        if price not in PRICES:
            raise InputError("price", f"one of {', '.join(PRICES)}, got {price!r}")
        if price == self.price:
            return self
        out = Problem(self.group, self.V, self.heads, self.head_dim, price)
        object.__setattr__(out, "memo", self.memo)  # (coverage tables: the same problem)
        return out

    @property
    def top(self) -> SubgroupClass:
        return self.group.subgroup_classes[-1]

    @property
    def dim_v(self) -> int:
        return self.V.dim

    @property
    def vanilla_params(self) -> int:
        """P_vanilla = 4 H d dim V (SPEC §1)."""
        return 4 * self.heads * self.head_dim * self.dim_v

    @property
    def rho(self) -> np.ndarray:
        """(|G|, n_V, n_V) orthogonal matrices of V, indexed by group element. Only the
        numeric layer needs them (the attention layer works on the support-only V', see
        supports.reduced_problem); refused when they would take more than MAX_RHO_BYTES."""
        size = 8 * self.group.order * self.dim_v**2
        if size > MAX_RHO_BYTES:
            raise LimitError(
                "rep",
                f"the matrices of V over G take {size / 2**20:.0f} MiB (|G| = {self.group.order}, dim V = {self.dim_v}); "
                f"numeric realisation is limited to {MAX_RHO_BYTES >> 20} MiB",
            )
        return self.memo.get("rho", self.V.matrices)

    def cached(self, key: str, factory: Callable[[], T]) -> T:
        """Per-problem data computed once (option tables, hosting, clusterings)."""
        return self.memo.get(key, factory)

    def restrict(self, sub: SubgroupClass) -> Rep:
        """V restricted to the representative of `sub`."""
        return self.memo.get(("restrict", sub.id), lambda: self.V.restrict(sub))

    def unit_costs(self, sub: SubgroupClass) -> np.ndarray:
        """Per irrep τ of K: the parameters / 4 one copy of τ in W costs an orbit (K, W),
        m_τ(V|K) e_τ, so that an orbit's count is 4 Σ_τ W_τ m_τ(V|K) e_τ = 4 dim Hom_K(V|K, W)
        (`Rep.hom_dim`, SPEC §3).

            >>> p = Problem.create("C4", "E1", 2, 1)
            >>> p.unit_costs(p.group.subgroup_classes[0]).tolist()   # V|C1 = 2 x trivial
            [2]
        """
        if self.price == "attention_cost":  # [G:K] dim τ per copy (Problem.priced)
            return sub.index * np.asarray(irreps_of(sub).dims, dtype=np.int64)
        VK = self.restrict(sub)
        return np.asarray(VK.mults, dtype=np.int64) * np.asarray(irreps_of(sub).es, dtype=np.int64)

    def to_json(self) -> dict:
        """The problem's keys in every report; a compact group adds `compact` (what the finite
        stand-in of `order` elements stands for: kind, band, stand_in)."""
        out = {
            "group": self.group.name,
            "order": self.group.order,
            "rep": str(self.V),
            "dim_v": self.dim_v,
            "heads": self.heads,
            "head_dim": self.head_dim,
            "vanilla_params": self.vanilla_params,
        }
        info = self.group.compact
        if info is not None:
            out["compact"] = {"kind": info.kind, "band": info.band, "stand_in": info.stand_in}
        return out
