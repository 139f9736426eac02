"""The group catalog: `get_group(spec)` builds (once) the group a user names.

Accepted specs (names are case-sensitive; spaces are optional and ignored):

* abstract groups: `C<n>` (1 <= n <= 60), `D<n>` (order 2n, 3 <= n <= 30; D1 = C2, D2 = C2xC2),
  `Q8`, `A3`..`A5`, `S3`..`S5`, `C2^k` (1 <= k <= 4);
* direct products of those: `G x H x ...`, e.g. `C2xC4`, `S3 x C2`, order <= MAX_ORDER; the
  product is named by its factors joined with `x` (nested products are flattened);
* 3D point groups as matrix groups (see pointgroups.py): `T Td Th O Oh I Ih Cs Ci`, `C<n>v`,
  `C<n>h`, `D<n>h`, `D<n>d` (n <= 12), and with the prefix `pg:` (accepted on every
  point-group name) `pg:C<n>`, `pg:D<n>` (rotation groups) and `pg:S<2n>` (rotoreflections);
* `perm:(1,2,3),(1,2)` and `mat:[[0,-1],[1,0]];[[1,0],[0,-1]]`: custom groups (parse.py);
* the compact groups `SO2 O2 SO3 O3` (also written `SO(3)`), each through its finite stand-in
  for a band (compact.py, stand_in.py): `get_group("O3", band=1)`; without a band, the default
  one (l <= 2, k <= 8). `Problem.create` reads the band off V.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

from ..errors import InputError, LimitError
from . import pointgroups as pg
from .compact import DEFAULT_BAND, compact_kind
from .finite_group import MAX_ORDER, FiniteGroup
from .finite_group import STANDARD as st
from .parse import MAT_EXAMPLE, PERM_EXAMPLE, normalise, parse_matrices, parse_permutations

C_MAX = 60
D_MAX = 30
AS_RANGE = (3, 5)
C2_POWER_MAX = 4

PATTERNS = (
    f"C<n> (n<={C_MAX}), D<n> (n<={D_MAX}), Q8, A3..A5, S3..S5, C2^k (k<={C2_POWER_MAX}), "
    f"products G x H of these (order <= {MAX_ORDER}), point groups {pg.PATTERNS}, "
    f"{PERM_EXAMPLE}, {MAT_EXAMPLE}, compact groups SO2 O2 SO3 O3"
)

CUSTOM_MAX = 64  # custom groups kept per catalog (the most recent ones)


def _err(message: str) -> InputError:
    return InputError("group", message)


def _unknown(name: str) -> InputError:
    return _err(f"unknown group '{name}'; the catalog: {PATTERNS}")


class GroupCatalog:
    """The groups users name, each built once per normalised spec and kept: every catalog group
    (finitely many), the `custom_max` most recently used custom groups (`perm:`, `mat:`).

    Thread-safe: one short lock guards the store, and one lock per spec being built makes
    threads asking for the same group wait for one build while other groups go on. The
    process has one, `CATALOG` (`get_group` asks it): a group is a value hashed by identity
    whose subgroup lattice and irreps live in its memo, so one spec names one object.

        >>> cat = GroupCatalog(custom_max=1)
        >>> cat.get("D4") is cat.get(" D4 "), cat.get("pg:Oh") is cat.get("Oh")
        (True, True)
        >>> g = cat.get("perm:(1,2)"); _ = cat.get("perm:(1,2,3)"); cat.get("perm:(1,2)") is g  # evicted
        False
    """

    def __init__(self, custom_max: int = CUSTOM_MAX) -> None:
        self.custom_max = custom_max
        self.kept: dict[str, FiniteGroup] = {}  # catalog groups (point groups under their canonical name)
        self.custom: OrderedDict[str, FiniteGroup] = OrderedDict()  # most recently used last
        self.lock = threading.RLock()  # guards kept, custom and building (held briefly, never while building)
        self.building: dict[str, threading.RLock] = {}  # one lock per spec being built

    def get(self, spec: str, band: int | None = None) -> FiniteGroup:
        """The group named by `spec`, built once per normalised spec (whitespace removed).

        `band` is read for the compact groups only: the largest l (SO3, O3) or frequency k (SO2,
        O2) the stand-in must keep irreducible; None takes the default band (kept under
        `<kind>@<band>`).

            >>> GroupCatalog().get("SO(3)", band=1).compact.stand_in, get_group("O2").compact.band
            ('O', 8)
        """
        if not isinstance(spec, str):
            raise _err(f"a group is given by its name (text), not {type(spec).__name__}; the catalog: {PATTERNS}")
        key = normalise(spec)
        kind = compact_kind(key)
        if kind is not None:
            key = f"{kind}@{DEFAULT_BAND[kind] if band is None else int(band)}"
        g = self._cached(key)
        if g is not None:
            return g
        with self.lock:
            building = self.building.setdefault(key, threading.RLock())
        with building:  # threads asking for the same group wait for one build; others go on
            try:
                g = self._cached(key)
                if g is None:
                    if kind is not None:
                        from .stand_in import compact_group

                        g = compact_group(kind, int(key.split("@")[1]))
                    else:
                        g = _build_custom(key) if _is_custom(key) else self._point_or_build(key)
                    self._store(key, g)
                return g
            finally:
                with self.lock:
                    self.building.pop(key, None)

    def _point_or_build(self, key: str) -> FiniteGroup:
        """`_build(key)`, except that a point group kept under its canonical name is reused
        (`pg:Oh` and `Oh` are one group)."""
        name = pg.canonical_name(key) if key else None
        if name is not None:
            with self.lock:
                g = self.kept.get(name)
            if g is not None:
                return g
        return _build(key)

    def _cached(self, key: str) -> FiniteGroup | None:
        with self.lock:
            g = self.kept.get(key)
            if g is None and key in self.custom:
                self.custom.move_to_end(key)
                g = self.custom[key]
            return g

    def _store(self, key: str, g: FiniteGroup) -> None:
        with self.lock:
            if _is_custom(key):
                self.custom[key] = g
                while len(self.custom) > self.custom_max:
                    self.custom.popitem(last=False)
            else:
                self.kept[key] = g
                if g.family == "point":
                    self.kept.setdefault(g.name, g)

    def forget_custom(self) -> None:
        """Drop every kept custom group (catalog groups stay)."""
        with self.lock:
            self.custom.clear()


def _is_custom(key: str) -> bool:
    return key.startswith(("perm:", "mat:"))


CATALOG = GroupCatalog()  # the process's catalog (GroupCatalog's docstring says why one)


def get_group(spec: str, band: int | None = None) -> FiniteGroup:
    """The group named by `spec` (catalog names, products, point groups, `perm:`, `mat:`,
    compact groups at `band`; module docstring), from the process's catalog: built once per
    normalised spec.

    >>> get_group("C2xC4").order, get_group("C2xC4") is get_group("C2 x C4")
    (8, True)
    """
    return CATALOG.get(spec, band)


def group_for_rep(spec: str, rep: object) -> FiniteGroup:
    """The group named by `spec` for a representation text `rep`: a compact group's stand-in
    for the band `rep` names (compact.band_of); any other group as `get_group(spec)`.

        >>> group_for_rep("SO2", "A + E7").compact.stand_in, group_for_rep("C4", "E1").name
        ('C15', 'C4')
    """
    from .compact import band_of

    kind = compact_kind(normalise(spec)) if isinstance(spec, str) else None
    if kind is None:
        return get_group(spec)
    return get_group(spec, band=band_of(kind, rep))  # type: ignore[arg-type]


def _build_custom(key: str) -> FiniteGroup:
    if key.startswith("perm:"):
        perms, degree = parse_permutations(key[len("perm:"):])
        return FiniteGroup.from_permutations(key, perms, degree=degree, family="custom")
    mats = parse_matrices(key[len("mat:"):])
    return FiniteGroup.from_matrices(key, mats, family="custom")


def _build(key: str) -> FiniteGroup:
    if not key:
        raise _err(f"no group given; the catalog: {PATTERNS}")
    name = pg.canonical_name(key)
    if name is not None:
        return pg.point_group(name)
    parts = key.split("x")
    if len(parts) == 1:
        return _abstract(key)
    if any(p == "" for p in parts):
        raise _err(f"the product '{key}' has an empty factor; write products like C2xC4 or S3 x C2")
    factors: list[FiniteGroup] = []
    for p in parts:
        if p.startswith(("perm:", "mat:")) or pg.canonical_name(p) is not None:
            raise _err(f"'{p}' cannot be a factor of the product '{key}'; factors are the abstract groups "
                       f"C<n>, D<n>, Q8, A3..A5, S3..S5, C2^k")
        f = _abstract(p)
        factors.extend(getattr(f, "factors", (f,)) if f.family == "product" else (f,))
    order = 1
    for f in factors:
        order *= f.order
    if order > MAX_ORDER:
        raise LimitError("group", f"the product '{key}' has order {order}; the limit is order {MAX_ORDER}")
    return st.direct_product(tuple(factors))


def _abstract(name: str) -> FiniteGroup:
    """One abstract catalog group (not a product)."""
    if name == "Q8":
        return st.quaternion()
    m = re.fullmatch(r"C(\d+)\^(\d+)", name)
    if m:
        base, k = int(m.group(1)), int(m.group(2))
        if base != 2:
            raise _err(f"only powers of C2 are in the catalog (C2^k); write '{name}' as a product like C3xC3")
        if not 1 <= k <= C2_POWER_MAX:
            raise _err(f"C2^k needs 1 <= k <= {C2_POWER_MAX} (got '{name}')")
        return st.abelian((2,) * k)
    m = re.fullmatch(r"([CDAS])(\d+)", name)
    if m is None:
        if re.fullmatch(r"[cdasq]\d+|[cdasq]\d+\^\d+", name) or name.lower() in (x.lower() for x in pg.POLYHEDRAL):
            raise _err(f"unknown group '{name}' (names are case-sensitive); the catalog: {PATTERNS}")
        raise _unknown(name)
    letter, n = m.group(1), int(m.group(2))
    if letter == "C":
        if not 1 <= n <= C_MAX:
            raise _err(f"C<n> needs 1 <= n <= {C_MAX} (got '{name}')")
        return st.cyclic(n)
    if letter == "D":
        if not 1 <= n <= D_MAX:
            raise _err(f"D<n> (the dihedral group of order 2n) needs 1 <= n <= {D_MAX} (got '{name}')")
        if n == 1:
            return st.cyclic(2)
        if n == 2:
            return st.abelian((2, 2))
        return st.dihedral(n)
    lo, hi = AS_RANGE
    if not lo <= n <= hi:
        kind = "A<n> (alternating)" if letter == "A" else "S<n> (symmetric)"
        hint = ""
        if letter == "S" and n % 2 == 0 and 2 <= n <= 2 * pg.N_MAX:
            hint = f"; for the rotoreflection point group write pg:S{n}"
        raise _err(f"{kind} needs {lo} <= n <= {hi} (got '{name}'){hint}")
    return st.alternating(n) if letter == "A" else st.symmetric(n)


# ----- listing --------------------------------------------------------------------------------
LISTED_PRODUCTS = (
    "C2xC4", "C2xC6", "C3xC3", "C4xC4", "S3xC2", "D4xC2", "A4xC2", "S4xC2", "A5xC2", "Q8xC2", "S3xS3", "C3xS3",
)


def listed_specs() -> list[str]:
    """The representative catalog names `catalog_entries` lists (each a valid spec)."""
    out = [f"C{n}" for n in range(1, 13)] + [f"D{n}" for n in range(3, 13)] + ["Q8"]
    out += [f"A{n}" for n in range(3, 6)] + [f"S{n}" for n in range(3, 6)]
    out += ["x".join(["C2"] * k) for k in range(2, C2_POWER_MAX + 1)]
    out += list(LISTED_PRODUCTS)
    out += pg.listed_names()
    out += ["SO2", "O2", "SO3", "O3"]
    return out


def catalog_entries() -> list[dict]:
    """[{"name", "order", "family"}] for a representative range of the catalog (see catalog_help)."""
    out = []
    for spec in listed_specs():
        G = get_group(spec)
        entry: dict = {"name": G.name, "order": G.order, "family": G.family}
        if G.compact is not None:  # order: that of the default band's finite stand-in
            from .compact import DESCRIPTION

            entry["description"] = DESCRIPTION[G.compact.kind]
        out.append(entry)
    return out


def catalog_help() -> str:
    """The accepted group specs, in words."""
    return "\n".join(
        [
            "Groups (names are case-sensitive; spaces are ignored):",
            f"  C<n>            cyclic group of order n, 1 <= n <= {C_MAX}",
            f"  D<n>            dihedral group of order 2n, 3 <= n <= {D_MAX} (D1 = C2, D2 = C2xC2)",
            "  Q8              quaternion group",
            "  A3..A5, S3..S5  alternating and symmetric groups",
            f"  C2^k            elementary abelian group of order 2^k, 1 <= k <= {C2_POWER_MAX}",
            f"  G x H x ...     direct product of the groups above (e.g. C2xC4, S3 x C2), order <= {MAX_ORDER}",
            "  T Td Th O Oh I Ih Cs Ci     3D point groups (matrices in O(3))",
            f"  C<n>v C<n>h D<n>h D<n>d     axial point groups, n <= {pg.N_MAX}",
            "  pg:C<n> pg:D<n> pg:S<2n>    rotation groups and rotoreflection groups as point groups",
            "                  (pg: is accepted on every point-group name; S4 is the symmetric group, pg:S4",
            "                  the rotoreflection group)",
            f"  {PERM_EXAMPLE}   permutation group: generators in 1-based disjoint cycle notation,",
            "                  separated by commas, e.g. perm:(1,2)(3,4),(1,3); points 1..30",
            f"  {MAT_EXAMPLE}   matrix group: orthogonal generators separated by ';',",
            "                  entries like 0.5, -1, sqrt(3)/2, cos(2*pi/5)",
            "  SO2 O2 SO3 O3   compact groups (also SO(2), O(3)); V band-limited: SO3/O3 in e3nn",
            "                  notation (16x0e + 8x1o + 4x2e; SO3: 1x0 + 1x1), l <= 16; SO2: A, E1, E2 ...;",
            "                  O2: A1, A2, E1 ... (k <= 50); computed through a finite stand-in",
        ]
    )
