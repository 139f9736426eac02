"""A finite group materialised as elements 0..n-1 with a multiplication table (SPEC §0, §5.1).

Element 0 is the identity. `table[a, b]` is the index of a*b. Groups are built by closing
a set of generators (permutations or real matrices) under multiplication; for a
permutation group, a*b is the map p -> a(b(p)) (functions compose right to left), so that
permutation matrices form a homomorphism.

The subgroup lattice (`G.lattice`, `G.subgroup_classes`) is built here, on first use, by
`subgroups.SubgroupLattice.build(G, STANDARD)`. The import graph runs one way:
`finite_group` imports `subgroups` (the lattice) and `standard` (the standard groups);
`subgroups` and `identify` import nothing that imports this module (`FiniteGroup` is a type
name there only), and the standard groups are built through the class they are handed
(`StandardGroups(FiniteGroup)`, the one instance `STANDARD`). So the lattice's
identification receives the standard groups explicitly, and nothing is registered at import.

    >>> from eqattn.groups import get_group
    >>> [c.name for c in get_group("C4").subgroup_classes]
    ['C1', 'C2', 'C4']
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Hashable, Sequence

import numpy as np

from ..errors import LimitError
from ..memo import Memo, memoized
from .standard import StandardGroups
from .subgroups import SubgroupClass, SubgroupLattice

if TYPE_CHECKING:
    from .compact import CompactInfo

MAX_ORDER = 500


def _closure(
    gens: Sequence[object],
    identity: object,
    mul: Callable[[object, object], object],
    key: Callable[[object], Hashable],
    field: str,
    limit: int = MAX_ORDER,
) -> tuple[dict, list[object]]:
    """Breadth-first closure under right multiplication by generators.

    Returns the FiniteGroup keywords `table`, `generators`, `parent` (each element's BFS
    parent) and `via` (the generator that reaches it: parent * gen = element), and the
    elements in BFS order.
    """
    elems = [identity]
    index = {key(identity): 0}
    parent = [-1]
    via = [-1]
    i = 0
    while i < len(elems):
        x = elems[i]
        for gi, s in enumerate(gens):
            y = mul(x, s)
            k = key(y)
            if k not in index:
                if len(elems) >= limit:
                    raise LimitError(
                        field, f"the group has more than {limit} elements; the limit is order {limit}"
                    )
                index[k] = len(elems)
                elems.append(y)
                parent.append(i)
                via.append(gi)
        i += 1
    n = len(elems)
    gen_idx = [index[key(s)] for s in gens]
    # left multiplication by each generator: L_s[y] = index(s*y)
    left = np.array([[index[key(mul(s, y))] for y in elems] for s in gens], dtype=np.int64).reshape(len(gens), n)
    table = np.empty((n, n), dtype=np.int64)
    table[0] = np.arange(n)
    for x in range(1, n):
        # x = parent * s  =>  x*y = parent * (s*y)
        table[x] = table[parent[x]][left[via[x]]]
    return {"table": table, "generators": tuple(gen_idx), "parent": np.array(parent), "via": np.array(via)}, elems


@dataclass(frozen=True, eq=False)
class FiniteGroup:
    """A finite group as a multiplication table; hashable by identity (build once, cache)."""

    name: str
    table: np.ndarray  # (n, n) int
    generators: tuple[int, ...]
    parent: np.ndarray  # BFS parent of each element (identity: -1)
    via: np.ndarray  # generator position used to reach each element
    perms: np.ndarray | None = None  # (n, degree): permutation images, if a permutation group
    matrices: np.ndarray | None = None  # (n, k, k): real orthogonal matrices, if a matrix group
    family: str = "custom"  # catalog family (labels), e.g. "cyclic", "point"
    params: tuple[int, ...] = ()
    relabel: np.ndarray | None = None  # from_table: the table's element of each element (BFS order)
    factors: tuple["FiniteGroup", ...] = ()  # direct products: the factors
    components: np.ndarray | None = None  # direct products: (n, k) factor elements of each element
    compact: "CompactInfo | None" = None  # a compact group's finite stand-in: what it stands for (compact.py)
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    # ----- construction -------------------------------------------------------------
    @staticmethod
    def from_permutations(name: str, perms: Sequence[Sequence[int]], degree: int | None = None, **kw: object) -> "FiniteGroup":
        """Permutations given as image tuples on 0..m-1."""
        m = degree if degree is not None else max((len(p) for p in perms), default=1)
        arrs = [np.array(list(p) + list(range(len(p), m)), dtype=np.int64) for p in perms] or [np.arange(m)]
        core, elems = _closure(arrs, np.arange(m), lambda a, b: a[b], lambda a: a.tobytes(), str(kw.pop("field", "group")))
        return FiniteGroup(name=name, perms=np.array(elems), **core, **kw)  # type: ignore[arg-type]

    @staticmethod
    def from_matrices(name: str, mats: Sequence[np.ndarray], **kw: object) -> "FiniteGroup":
        """Real orthogonal matrix generators; closure with entries rounded to 1e-6 as keys."""
        arrs = [np.asarray(m, dtype=float) for m in mats]
        k = arrs[0].shape[0]

        def key(a: np.ndarray) -> bytes:
            return (np.round(a, 6) + 0.0).tobytes()

        core, elems = _closure(arrs, np.eye(k), lambda a, b: a @ b, key, str(kw.pop("field", "group")))
        return FiniteGroup(name=name, matrices=np.array(elems), **core, **kw)  # type: ignore[arg-type]

    @staticmethod
    def from_table(name: str, table: np.ndarray, generators: Sequence[int], **kw: object) -> "FiniteGroup":
        """From a multiplication table whose element 0 is the identity; re-indexed in BFS order
        (`relabel[g]` is the table's element that g is)."""
        t = np.asarray(table)
        core, elems = _closure(list(generators), 0, lambda a, b: int(t[a, b]), lambda a: a, str(kw.pop("field", "group")))
        return FiniteGroup(name=name, relabel=np.array(elems), **core, **kw)  # type: ignore[arg-type]

    # ----- basic data -----------------------------------------------------------------
    @property
    def order(self) -> int:
        return int(self.table.shape[0])

    def __repr__(self) -> str:
        return f"FiniteGroup({self.name!r}, order={self.order})"

    @memoized
    def inv(self) -> np.ndarray:
        n = self.order
        rows, cols = np.nonzero(self.table == 0)
        inv = np.empty(n, dtype=np.int64)
        inv[rows] = cols
        return inv

    @memoized
    def element_orders(self) -> np.ndarray:
        n = self.order
        orders = np.zeros(n, dtype=np.int64)
        cur = np.arange(n)
        ar = np.arange(n)
        for k in range(1, n + 1):
            hit = (cur == 0) & (orders == 0)
            orders[hit] = k
            if orders.all():
                break
            cur = self.table[cur, ar]
        return orders

    def power(self, g: int, k: int) -> int:
        r = 0
        for _ in range(k % int(self.element_orders[g])):
            r = int(self.table[r, g])
        return r

    @memoized
    def is_abelian(self) -> bool:
        return bool((self.table == self.table.T).all())

    @memoized
    def conj_table(self) -> np.ndarray:
        """conj_table[x, g] = x g x^-1."""
        t = self.table
        return t[t, self.inv[:, None]]

    @memoized
    def conjugacy_classes(self) -> tuple[np.ndarray, ...]:
        """Classes ordered by (element order, size, smallest element); the identity's first."""
        ct = self.conj_table
        classes = [np.unique(block) for _, block in _blocks(self.order, lambda g: ct[:, g])]
        orders = self.element_orders
        classes.sort(key=lambda c: (int(orders[c[0]]), len(c), int(c[0])))
        return tuple(classes)

    @memoized
    def class_of(self) -> np.ndarray:
        cl = np.empty(self.order, dtype=np.int64)
        for i, c in enumerate(self.conjugacy_classes):
            cl[c] = i
        return cl

    # ----- subsets -----------------------------------------------------------------------
    def generate(self, gens: Sequence[int]) -> np.ndarray:
        """Sorted elements of the subgroup generated by `gens`."""
        n = self.order
        mask = np.zeros(n, dtype=bool)
        mask[0] = True
        gens_a = np.array(sorted(set(int(g) for g in gens) - {0}), dtype=np.int64)
        if gens_a.size == 0:
            return np.array([0])
        frontier = np.array([0])
        while frontier.size:
            new = self.table[frontier[:, None], gens_a[None, :]].ravel()
            new = np.unique(new[~mask[new]])
            mask[new] = True
            frontier = new
        return np.nonzero(mask)[0]

    def conjugate_set(self, x: int, elems: np.ndarray) -> np.ndarray:
        """Sorted x S x^-1."""
        return np.sort(self.conj_table[x, elems])

    def double_cosets(self, left: np.ndarray, right: np.ndarray) -> list[int]:
        """Representatives (smallest index) of the double cosets left \\ G / right."""
        t = self.table
        return [g for g, _ in _blocks(self.order, lambda g: t[t[left, g][:, None], right[None, :]].ravel())]

    def left_transversal(self, sub: np.ndarray) -> list[int]:
        """Representatives a (smallest index) of the left cosets a*sub."""
        return [g for g, _ in _blocks(self.order, lambda g: self.table[g, sub])]

    def word(self, g: int) -> list[int]:
        """Generator positions w with g = gens[w0] * gens[w1] * ..."""
        w = []
        while g != 0:
            w.append(int(self.via[g]))
            g = int(self.parent[g])
        return w[::-1]

    def small_generators(self, elems: np.ndarray) -> list[int]:
        """A short generating list of the subgroup `elems` (greedy: elements of larger order first)."""
        gens: list[int] = []
        cur = np.array([0])
        mask = np.zeros(self.order, dtype=bool)
        mask[0] = True
        target = elems.size
        cand = sorted(elems.tolist(), key=lambda g: (-int(self.element_orders[g]), g))
        for g in cand:
            if cur.size == target:
                break
            if not mask[g]:
                gens.append(int(g))
                cur = self.generate(gens)
                mask[:] = False
                mask[cur] = True
        return gens

    # ----- subgroup lattice (built lazily, cached) ------------------------------------
    @property
    def lattice(self) -> SubgroupLattice:
        """`SubgroupLattice.build(self, STANDARD)`, once, under this group's own lock (threads
        building other groups go on). The lattice's identification is handed the standard
        groups (module docstring)."""
        lat = self.memo.find("lattice")
        if lat is None:
            with self.memo.get("lattice_lock", threading.RLock):  # one lock object wins (setdefault)
                lat = self.memo.get("lattice", self._build_lattice)
        return lat  # type: ignore[return-value]

    def _build_lattice(self) -> SubgroupLattice:
        if self.compact is not None:  # pragma: no cover - a stand-in's pruned lattice is set when it is built
            raise RuntimeError("a compact group's stand-in gets its pruned lattice from stand_in.compact_group")
        return SubgroupLattice.build(self, STANDARD)

    @property
    def subgroup_classes(self) -> tuple[SubgroupClass, ...]:
        return self.lattice.classes


def _blocks(n: int, block: Callable[[int], np.ndarray]) -> list[tuple[int, np.ndarray]]:
    """A partition of 0..n-1 walked in order: (smallest element g, block(g)) per block."""
    seen = np.zeros(n, dtype=bool)
    out = []
    for g in range(n):
        if not seen[g]:
            b = block(g)
            seen[b] = True
            out.append((g, b))
    return out


STANDARD = StandardGroups(FiniteGroup)  # the standard groups (standard.py), built through this class
