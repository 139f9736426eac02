"""Every group of tests/data/gap_reference.json (computed by GAP, see gap/README.md) against ours.

Every key must be a catalog spec (point group S2n is keyed pg:S<2n>, as in the catalog).
Compared: order, element classes, subgroup classes (count, total number of subgroups, the
multiset of (order, number of conjugates, normal)), the isomorphism types of the subgroups
through a translation of GAP's StructureDescription, and the real irreps (dimension, type).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from eqattn.groups import get_group

from eqattn.reps import irreps

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "gap_reference.json").read_text())
GROUPS = DATA["groups"]
NAMES = list(GROUPS)


def test_reference_is_complete():
    assert len(NAMES) == 83  # the catalog's 81, and AGL(1, 8), AGL(1, 8) x C2 (theory-continuous §8)
    assert DATA["meta"]["generator"] == "gap/reference.g"


@pytest.mark.parametrize("name", NAMES)
def test_subgroup_classes(name):
    G = get_group(name)  # every key must be a catalog spec: nothing is skipped
    ref = GROUPS[name]
    classes = G.subgroup_classes
    assert G.order == ref["order"]
    assert len(G.conjugacy_classes) == ref["num_element_classes"]
    assert len(classes) == ref["num_subgroup_classes"]
    assert sum(c.size for c in classes) == ref["num_subgroups"]
    ours = Counter((c.order, c.size, c.is_normal) for c in classes)
    theirs = Counter((c["order"], c["size"], c["normal"]) for c in ref["subgroup_classes"])
    assert ours == theirs


# ----- isomorphism types: GAP's StructureDescription vs our type names ---------------------------
# Both sides are reduced to a canonical form: the sorted non-abelian direct factors and the
# invariant factors of the abelian part, with D<n> (n = 2m, m odd) = D<m> x C2, S3 = D3,
# A3 = C3. GAP writes the dihedral group of order 2n as D<2n>, "C2 x C2" with spaces, the
# trivial group as "1". A GAP name with a semidirect or non-split part (":", ".", brackets)
# is matched only by order, and must then be one of our fallback names G<order><letter>.
UNKNOWN = "?"
NONABELIAN = {"Q8", "A4", "A5", "S4", "S5"}


def _invariant_factors(orders: list[int]) -> tuple[int, ...]:
    by_prime: dict[int, list[int]] = {}
    for n in orders:
        p = 2
        while n > 1:
            if n % p == 0:
                q = 1
                while n % p == 0:
                    n //= p
                    q *= p
                by_prime.setdefault(p, []).append(q)
            p += 1
    for v in by_prime.values():
        v.sort(reverse=True)
    k = max((len(v) for v in by_prime.values()), default=0)
    inv = []
    for j in range(k):
        m = 1
        for v in by_prime.values():
            if j < len(v):
                m *= v[j]
        inv.append(m)
    return tuple(sorted(inv))


def _canonical(atoms: list[tuple[str, int]]) -> object:
    """atoms: ("C", n) cyclic, ("D", n) dihedral of order 2n, (name, 0) other non-abelian."""
    cyclic, nonab = [], []
    for kind, n in atoms:
        if kind == "C":
            cyclic.append(n)
        elif kind == "D":
            if n == 2:
                cyclic += [2, 2]
            elif n % 2 == 0 and (n // 2) % 2 == 1 and n // 2 >= 3:
                nonab.append(f"D{n // 2}")
                cyclic.append(2)
            else:
                nonab.append(f"D{n}")
        else:
            nonab.append(kind)
    return (tuple(sorted(nonab)), _invariant_factors(cyclic))


def _gap_canonical(structure: str) -> object:
    if any(ch in structure for ch in ":.()[]"):
        return UNKNOWN
    atoms = []
    for part in structure.split(" x "):
        if part == "1":
            continue
        if part == "S3":
            atoms.append(("D", 3))
        elif m := re.fullmatch(r"C(\d+)", part):
            atoms.append(("C", int(m.group(1))))
        elif m := re.fullmatch(r"D(\d+)", part):  # GAP: D<2n> has order 2n
            atoms.append(("D", int(m.group(1)) // 2))
        elif part in NONABELIAN:
            atoms.append((part, 0))
        else:
            raise AssertionError(f"no translation for GAP's {structure!r}: extend the table")
    return _canonical(atoms)


def _our_canonical(type_name: str) -> object:
    atoms = []
    for part in type_name.split("x"):
        if re.fullmatch(r"G\d+[a-z]+", part):  # fallback name: compare by order only
            return UNKNOWN
        if part in ("S3", "A3"):
            atoms.append(("D", 3) if part == "S3" else ("C", 3))
        elif m := re.fullmatch(r"C(\d+)", part):
            atoms.append(("C", int(m.group(1))))
        elif m := re.fullmatch(r"D(\d+)", part):
            atoms.append(("D", int(m.group(1))))
        elif part in NONABELIAN:
            atoms.append((part, 0))
        else:
            raise AssertionError(f"unexpected type name {type_name!r}")
    return _canonical(atoms)


@pytest.mark.parametrize(
    "gap, ours",
    [("1", "C1"), ("D8", "D4"), ("S3", "D3"), ("C2 x C2", "C2xC2"), ("C6 x C2", "C2xC6"), ("D12", "D6"),
     ("C2 x C2 x S3", "D6xC2"), ("C2 x D8", "D4xC2"), ("C3 x S3", "D3xC3"), ("C2 x S4", "S4xC2")],
)
def test_translation_table(gap, ours):
    assert _gap_canonical(gap) == _our_canonical(ours)


def test_translation_distinguishes():
    assert _gap_canonical("C4") != _our_canonical("C2xC2")
    assert _gap_canonical("D8") != _our_canonical("Q8")
    assert _gap_canonical("C5 : C4") == UNKNOWN and _our_canonical("G20a") == UNKNOWN


@pytest.mark.parametrize("name", NAMES)
def test_subgroup_types(name):
    G = get_group(name)
    classes = list(G.subgroup_classes)
    ref = list(GROUPS[name]["subgroup_classes"])
    if G.family == "point":  # the whole point group is named by its point-group name
        classes = classes[:-1]
        ref = [c for c in ref if c["order"] != G.order]
    ours = Counter((c.order, c.size, _our_canonical(c.type_name)) for c in classes)
    theirs = Counter((c["order"], c["size"], _gap_canonical(c["structure"])) for c in ref)
    assert ours == theirs


def test_known_types_exactly():
    """Groups whose subgroups all have unambiguous names: the type names themselves."""
    expect = {
        "S4": "C1 C2 C2 C3 C2xC2 C2xC2 C4 D3 D4 A4 S4",
        "A5": "C1 C2 C3 C2xC2 C5 D3 D5 A4 A5",
        "D4": "C1 C2 C2 C2 C2xC2 C2xC2 C4 D4",
        "Q8": "C1 C2 C4 C4 C4 Q8",
    }
    for name, types in expect.items():
        assert sorted(c.type_name for c in get_group(name).subgroup_classes) == sorted(types.split())


# ----- real irreps ------------------------------------------------------------------------------
def _gap_real_irreps(ref: dict) -> Counter:
    out: Counter = Counter()
    for deg, ind in ref["fs_indicators"]:
        if ind == 1:
            out[(deg, "real")] += 1
        elif ind == -1:
            out[(2 * deg, "quaternionic")] += 1
        else:
            out[(2 * deg, "complex")] += 0.5  # a conjugate pair gives one real irrep
    return out


@pytest.mark.parametrize("name", NAMES)
def test_real_irreps(name):
    ref = GROUPS[name]
    ir = irreps(get_group(name))
    dims = [int(d) for d in ir.dims]
    assert len(dims) == ref["num_real_irreps"]
    assert sorted(dims) == sorted(ref["real_irrep_dims"])
    assert Counter(zip(dims, ir.types)) == _gap_real_irreps(ref)
    assert len(set(ir.labels)) == len(ir.labels)
