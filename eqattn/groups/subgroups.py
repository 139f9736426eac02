"""Subgroups up to conjugacy, each class with a fixed representative and standard type (SPEC §5.1).

Algorithm: every subgroup H != 1 is <M, g> for a maximal subgroup M of H and g in H \\ M;
conjugating, M may be taken to be a class representative. So joining each class
representative (by increasing order) with every cyclic subgroup finds every class.

Canonical order of the classes (the stable ids): by order, then the type name, then the
number of conjugates, then the sorted element list of the representative. The
representative of a class is its conjugate with the lexicographically smallest sorted
element list (elements are numbered in the BFS order of the group's generators).

`SubgroupLattice.build(G, standard)` is the one function that builds a lattice; the group
calls it (`FiniteGroup.lattice`) and hands it the standard groups its subgroups are
identified with. This module imports nothing that imports `finite_group` (see there).
"""

from __future__ import annotations

import dataclasses
import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..errors import InputError, LimitError
from ..memo import Memo, memoized
from .identify import identify_classes

if TYPE_CHECKING:  # type names only (the group builds its lattice: module docstring)
    from .finite_group import FiniteGroup
    from .standard import StandardGroups

MAX_SUBGROUPS = 20000
MAX_CLASSES = 1000


def _key(mask: np.ndarray) -> bytes:
    return np.packbits(mask).tobytes()


@dataclass(frozen=True, eq=False)
class SubgroupClass:
    """A conjugacy class of subgroups with its representative K and K's standard type."""

    group: "FiniteGroup"
    id: int
    name: str  # display name: type, with .1, .2 when several classes share a type
    type_name: str  # standard group K is identified with, e.g. "D4", "C2xC2"
    elements: np.ndarray  # sorted element indices of the representative K
    conjugates: tuple[np.ndarray, ...]
    normalizer: np.ndarray
    std: "FiniteGroup"  # the standard group
    phi: np.ndarray  # phi[s] = element of G that std element s maps to (an isomorphism std -> K)
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    @property
    def order(self) -> int:
        return int(self.elements.size)

    @property
    def index(self) -> int:
        return self.group.order // self.order

    @property
    def size(self) -> int:
        """Number of conjugate subgroups."""
        return len(self.conjugates)

    @memoized
    def mask(self) -> np.ndarray:
        m = np.zeros(self.group.order, dtype=bool)
        m[self.elements] = True
        return m

    @memoized
    def local_index(self) -> np.ndarray:
        """local_index[g] = position of g in `elements`, -1 outside K."""
        li = -np.ones(self.group.order, dtype=np.int64)
        li[self.elements] = np.arange(self.order)
        return li

    @memoized
    def phi_inv(self) -> np.ndarray:
        """phi_inv[g] = the std element mapping to g (for g in K), -1 outside."""
        pi = -np.ones(self.group.order, dtype=np.int64)
        pi[self.phi] = np.arange(self.phi.size)
        return pi

    @property
    def is_normal(self) -> bool:
        return self.size == 1

    def __repr__(self) -> str:
        return f"SubgroupClass({self.id}, {self.name!r}, order={self.order})"


@dataclass(frozen=True, eq=False)
class SubgroupLattice:
    group: "FiniteGroup"
    classes: tuple[SubgroupClass, ...]
    # key of every subgroup -> (class id, x) with subgroup = x K x^-1
    located: dict[bytes, tuple[int, int]] = field(repr=False)
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    @staticmethod
    def build(G: "FiniteGroup", standard: "StandardGroups") -> "SubgroupLattice":
        """Every subgroup class of G, identified with the groups of `standard` (module docstring)."""
        n = G.order
        ct = G.conj_table
        located: dict[bytes, tuple[int, int]] = {}
        raw: list[dict] = []

        def add(elems: np.ndarray) -> bool:
            mask = np.zeros(n, dtype=bool)
            mask[elems] = True
            k = _key(mask)
            if k in located:
                return False
            conj = ct[:, elems]  # row x: x S x^-1
            conj_masks = np.zeros((n, n), dtype=bool)
            conj_masks[np.arange(n)[:, None], conj] = True
            keys = [_key(m) for m in conj_masks]
            uniq: dict[bytes, int] = {}
            for x, kk in enumerate(keys):
                uniq.setdefault(kk, x)
            # representative: lexicographically smallest sorted element list
            cands = sorted((tuple(np.nonzero(conj_masks[x])[0]), kk) for kk, x in uniq.items())
            rep_t, rep_k = cands[0]
            rep = np.array(rep_t, dtype=np.int64)
            x_rep = uniq[rep_k]
            # conjugator from the representative: S_x = x S x^-1, rep = x_rep S x_rep^-1,
            # so S_x = (x x_rep^-1) rep (x x_rep^-1)^-1
            cid = len(raw)
            xr_inv = int(G.inv[x_rep])
            for kk, x in uniq.items():
                located[kk] = (cid, int(G.table[x, xr_inv]))
            normalizer = _normalizer(G, rep)
            raw.append(
                {"elements": rep, "conjugates": tuple(np.array(c[0]) for c in cands), "normalizer": normalizer}
            )
            if len(located) > MAX_SUBGROUPS or len(raw) > MAX_CLASSES:
                raise LimitError(
                    "group",
                    f"the subgroup lattice is too large to list: more than {len(raw)} classes "
                    f"and {len(located)} subgroups found so far (limits: {MAX_CLASSES} classes, "
                    f"{MAX_SUBGROUPS} subgroups)",
                )
            return True

        # cyclic subgroups, one generator each
        cyclic: dict[bytes, int] = {}
        for g in range(n):
            c = G.generate([g])
            m = np.zeros(n, dtype=bool)
            m[c] = True
            cyclic.setdefault(_key(m), g)
        cyc_gens = sorted(cyclic.values())

        add(np.array([0]))
        heap: list[tuple[int, int]] = [(1, 0)]
        done = set()
        while heap:
            _, cid = heapq.heappop(heap)
            if cid in done:
                continue
            done.add(cid)
            K = raw[cid]["elements"]
            kmask = np.zeros(n, dtype=bool)
            kmask[K] = True
            kgens = G.small_generators(K)
            for g in cyc_gens:
                if kmask[g]:
                    continue
                H = G.generate(kgens + [g])
                if add(H):
                    heapq.heappush(heap, (H.size, len(raw) - 1))

        ident = identify_classes(G, [r["elements"] for r in raw], standard)
        order = sorted(
            range(len(raw)),
            key=lambda i: (
                raw[i]["elements"].size,
                ident[i][0] if raw[i]["elements"].size < n else "~",
                len(raw[i]["conjugates"]),
                tuple(raw[i]["elements"]),
            ),
        )
        new_id = {old: new for new, old in enumerate(order)}
        type_counts: dict[str, int] = {}
        for i in order:
            type_counts[ident[i][0]] = type_counts.get(ident[i][0], 0) + 1
        seen: dict[str, int] = {}
        classes = []
        for old in order:
            tname, std, phi = ident[old]
            seen[tname] = seen.get(tname, 0) + 1
            name = tname if type_counts[tname] == 1 else f"{tname}.{seen[tname]}"
            classes.append(
                SubgroupClass(
                    group=G,
                    id=new_id[old],
                    name=name,
                    type_name=tname,
                    elements=raw[old]["elements"],
                    conjugates=raw[old]["conjugates"],
                    normalizer=raw[old]["normalizer"],
                    std=std,
                    phi=phi,
                )
            )
        located2 = {k: (new_id[c], x) for k, (c, x) in located.items()}
        return SubgroupLattice(group=G, classes=tuple(classes), located=located2)

    # ----- lookups --------------------------------------------------------------------------
    def locate(self, elems: np.ndarray) -> tuple[SubgroupClass, int]:
        """The class of the subgroup `elems` and x with elems = x K x^-1 (K the representative)."""
        mask = np.zeros(self.group.order, dtype=bool)
        mask[elems] = True
        cid, x = self.located[_key(mask)]
        return self.classes[cid], x

    def resolve(self, ref: str | int, field: str = "subgroup") -> SubgroupClass:
        """A class by id (int or digits) or by display name (case-insensitive)."""
        if isinstance(ref, (int, np.integer)) or (isinstance(ref, str) and ref.strip().isdigit()):
            i = int(ref)
            if 0 <= i < len(self.classes):
                return self.classes[i]
            raise InputError(field, f"subgroup id {i} out of range 0..{len(self.classes) - 1}")
        r = str(ref).strip().replace(" ", "")
        for c in self.classes:
            if c.name.lower() == r.lower():
                return c
        by_type = [c for c in self.classes if c.type_name.lower() == r.lower()]
        if len(by_type) == 1:
            return by_type[0]
        if by_type:
            raise InputError(field, f"{ref!r} is ambiguous: say one of {', '.join(c.name for c in by_type)}")
        raise InputError(
            field,
            f"unknown subgroup {ref!r} of {self.group.name}; known: "
            + ", ".join(f"{c.id}={c.name}" for c in self.classes),
        )

    @memoized
    def all_subgroups(self) -> list[tuple[SubgroupClass, np.ndarray]]:
        return [(c, s) for c in self.classes for s in c.conjugates]


def prune_lattice(
    lat: SubgroupLattice,
    core: np.ndarray,
    rename: Callable[[SubgroupClass], dict] | None = None,
) -> SubgroupLattice:
    """The lattice of the classes whose subgroups contain the normal subgroup `core`,
    renumbered 0.. in their order (`core` first, G last); `rename(cls)` may replace a class's
    display fields (name, type_name, std, phi).

    A compact group's finite stand-in F keeps exactly these classes: the stabilisers of a
    compact group's clusters contain G° (docs/theory-continuous.md, Lemma 1), and F ∩ G° is
    `core`. A normal `core` lies in a subgroup iff it lies in each of its conjugates, so the
    representative decides.

        >>> from eqattn.groups import get_group
        >>> G = get_group("D4")
        >>> C4 = [c for c in G.subgroup_classes if c.name == "C4"][0]
        >>> [c.name for c in prune_lattice(G.lattice, C4.elements).classes]
        ['C4', 'D4']
    """
    G = lat.group
    cmask = np.zeros(G.order, dtype=bool)
    cmask[core] = True
    if not cmask[G.conj_table[:, core]].all():
        raise ValueError("prune_lattice needs a normal subgroup")
    kept = [c for c in lat.classes if np.isin(core, c.elements).all()]
    new_id = {c.id: i for i, c in enumerate(kept)}
    classes = tuple(
        dataclasses.replace(c, id=new_id[c.id], **(rename(c) if rename is not None else {})) for c in kept
    )
    located = {k: (new_id[cid], x) for k, (cid, x) in lat.located.items() if cid in new_id}
    return SubgroupLattice(group=G, classes=classes, located=located)


def _normalizer(G: "FiniteGroup", elems: np.ndarray) -> np.ndarray:
    mask = np.zeros(G.order, dtype=bool)
    mask[elems] = True
    conj = G.conj_table[:, elems]
    return np.nonzero(mask[conj].all(axis=1))[0]
