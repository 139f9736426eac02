"""The group catalog (eqattn/groups/catalog.py, parse.py): every pattern, caching, errors."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from eqattn.errors import InputError, LimitError
from eqattn.groups import MAX_ORDER, catalog_entries, catalog_help, get_group
from eqattn.groups.parse import evaluate

ORDERS = {
    "C1": 1, "C7": 7, "C60": 60, "D1": 2, "D2": 4, "D3": 6, "D12": 24, "D30": 60, "Q8": 8,
    "A3": 3, "A4": 12, "A5": 60, "S3": 6, "S4": 24, "S5": 120,
    "C2^1": 2, "C2^2": 4, "C2^3": 8, "C2^4": 16,
    "C2xC4": 8, "C2 x C4": 8, " S3 x C2 ": 12, "D4xC2": 16, "A5xC2": 120, "C2xC3xC5": 30, "C2^2xC3": 12,
    "S4xC2": 48, "Q8xC2": 16, "S3xS3": 36, "C3xS3": 18, "C4xC4": 16, "D2xC3": 12,
    "T": 12, "Td": 24, "Th": 24, "O": 24, "Oh": 48, "I": 60, "Ih": 120, "Cs": 2, "Ci": 2,
    "C2v": 4, "C12v": 24, "C1h": 2, "C12h": 24, "D2h": 8, "D12h": 48, "D2d": 8, "D12d": 48,
    "pg:S2": 2, "pg:S4": 4, "pg:S24": 24, "pg:C1": 1, "pg:C12": 12, "pg:D2": 4, "pg:D12": 24,
    "pg:Oh": 48, "pg:C4v": 8, "pg:D3d": 12, "pg : T d": 24,
    "perm:(1,2,3),(1,2)": 6, "perm:(1,2)(3,4),(1,3)": 8, "perm:(1,2,3,4,5)": 5, "perm:()": 1,
    "perm: (1, 2) (3, 4), (1, 3)": 8, "perm:(30,1)": 2,
    "mat:[[0,-1],[1,0]];[[1,0],[0,-1]]": 8,
    "mat:[[1/2,-sqrt(3)/2],[sqrt(3)/2,1/2]]": 6,
    "mat:[[cos(2*pi/5),-sin(2*pi/5)],[sin(2*pi/5),cos(2*pi/5)]],[[1,0],[0,-1]]": 10,
    "mat:[[-1]]": 2,
    "mat:[[0,0,1],[1,0,0],[0,1,0]];[[1,0,0],[0,-1,0],[0,0,-1]]": 12,
}


@pytest.mark.parametrize("spec", sorted(ORDERS))
def test_every_pattern_builds(spec):
    G = get_group(spec)
    assert G.order == ORDERS[spec]
    assert get_group(spec) is G  # built once


def test_families_and_names():
    assert get_group("S3").family == "symmetric"  # keeps partition labels
    assert get_group("A3").family == "alternating"
    assert get_group("C5").family == "cyclic" and get_group("D5").family == "dihedral"
    assert get_group("Q8").family == "Q8"
    assert get_group("C2 x C4").name == "C2xC4" and get_group("C2xC4").family == "product"
    assert get_group("S3 x C2").name == "S3xC2"
    assert get_group("C2^2xC3").name == "C2xC2xC3"  # nested products are flattened
    assert get_group("Oh").family == "point" and get_group("Oh").matrices.shape == (48, 3, 3)
    assert get_group("pg:S4").name == "pg:S4" and get_group("pg:S4").family == "point"
    assert get_group("perm:(1,2,3),(1,2)").family == "custom"
    assert get_group("mat:[[-1]]").family == "custom"


def test_products_split_into_factors():
    G = get_group("C2xC4")
    assert [f.name for f in G.factors] == ["C2", "C4"]
    assert [f.name for f in get_group("D4 x C2").factors] == ["D4", "C2"]
    assert [f.name for f in get_group("C2xC2xC2").factors] == ["C2", "C2", "C2"]


def test_cache_and_aliases():
    assert get_group("C2 x C4") is get_group("C2xC4")
    assert get_group("C2^2") is get_group("C2xC2") is get_group("D2")
    assert get_group("C2^3") is get_group("C2 x C2 x C2")
    assert get_group("D1") is get_group("C2") is get_group("C2^1")
    assert get_group("pg:C4v") is get_group("C4v")
    assert get_group("C1h") is get_group("Cs")
    assert get_group("pg:S2") is get_group("Ci")
    assert get_group("S4") is not get_group("pg:S4")
    assert get_group("S4").family == "symmetric"
    assert get_group("C4") is not get_group("pg:C4") and get_group("C4").family == "cyclic"
    assert get_group("perm:(1,2),(3,4)") is get_group("perm: (1,2), (3,4)")


def test_permutation_groups():
    G = get_group("perm:(1,2)(3,4),(1,3)")
    assert G.perms.shape == (8, 4)
    images = {tuple(p) for p in G.perms}
    assert (1, 0, 3, 2) in images and (2, 1, 0, 3) in images  # 0-based images of the generators
    assert get_group("perm:(1,2,3,4,5),(1,2)").order == 120
    assert get_group("perm:(1,2,3),(2,3,4)").order == 12


def test_matrix_groups():
    G = get_group("mat:[[0,-1],[1,0]];[[1,0],[0,-1]]")
    assert G.matrices.shape == (8, 2, 2)
    assert np.allclose(np.einsum("gij,gkj->gik", G.matrices, G.matrices), np.eye(2))
    assert any(np.allclose(m, [[0, -1], [1, 0]]) for m in G.matrices)


@pytest.mark.parametrize(
    "expr, value",
    [("-sqrt(3)/2", -math.sqrt(3) / 2), ("0.5", 0.5), ("-1", -1.0), ("cos(2*pi/5)", math.cos(2 * math.pi / 5)),
     ("2^-1", 0.5), ("(1+sqrt(5))/4", (1 + math.sqrt(5)) / 4), ("1e-1", 0.1), (".25", 0.25), ("-(-2)", 2.0),
     ("sqrt(2)*sqrt(2)/2", 1.0), ("3-2-1", 0.0), ("8/4/2", 1.0)],
)
def test_evaluator(expr, value):
    assert evaluate(expr) == pytest.approx(value, abs=1e-15)


@pytest.mark.parametrize("expr", ["__import__('os')", "1+", "sqrt(-1)", "foo(1)", "1/0", "exit()", "2**", "(1"])
def test_evaluator_rejects(expr):
    with pytest.raises(InputError) as e:
        evaluate(expr)
    assert e.value.field == "group"


BAD = [
    # (spec, exception class, words the one-line message must contain)
    ("", InputError, ["no group given", "C<n>"]),
    ("X", InputError, ["unknown group 'X'", "C<n> (n<=60)", "D<n> (n<=30)", "perm:"]),
    ("Foo x C2", InputError, ["unknown group 'Foo'"]),
    ("c4", InputError, ["case-sensitive"]),
    ("C0", InputError, ["1 <= n <= 60"]),
    ("C61", InputError, ["1 <= n <= 60", "C61"]),
    ("D31", InputError, ["1 <= n <= 30"]),
    ("A6", InputError, ["3 <= n <= 5"]),
    ("S2", InputError, ["3 <= n <= 5"]),
    ("S6", InputError, ["3 <= n <= 5", "pg:S6"]),
    ("C2^5", InputError, ["1 <= k <= 4"]),
    ("C3^2", InputError, ["C2^k", "C3xC3"]),
    ("C13v", InputError, ["n <= 12"]),
    ("C1v x C2", InputError, ["cannot be a factor"]),
    ("D1h", InputError, ["2 <= n <= 12"]),
    ("pg:S5", InputError, ["even index"]),
    ("pg:S26", InputError, ["even index"]),
    ("pg:C13", InputError, ["n <= 12"]),
    ("C2x", InputError, ["empty factor"]),
    ("Oh x C2", InputError, ["cannot be a factor"]),
    ("C60xC60", LimitError, [str(MAX_ORDER)]),
    ("S5 x S3", LimitError, [str(MAX_ORDER), "720"]),
    ("perm:", InputError, ["at least one generator", "perm:(1,2,3),(1,2)"]),
    ("perm:(1,2,3),(1,2", InputError, ["generator 2 '(1,2' is missing ')'"]),
    ("perm:(1,2(3,4)", InputError, ["generator 1", "missing ')'"]),
    ("perm:(1,2)),(1,3)", InputError, ["')' without a matching '('"]),
    ("perm:(1,2)(2,3)", InputError, ["point 2 appears twice", "disjoint"]),
    ("perm:(1,31)", InputError, ["point 31", "1..30"]),
    ("perm:(0,1)", InputError, ["point 0", "1..30"]),
    ("perm:(1,a)", InputError, ["'a' is not a point"]),
    ("perm:(1,2),,(1,3)", InputError, ["generator 2 is empty"]),
    ("perm:1,2", InputError, ["generator 1 '1'", "cycles"]),
    ("perm:(1,2,3,4,5,6,7),(1,2)", LimitError, [str(MAX_ORDER)]),
    ("mat:", InputError, ["at least one matrix"]),
    ("mat:[[1,2],[3,4]]", InputError, ["generator 1 is not orthogonal", "sqrt(3)/2"]),
    ("mat:[[0.866,-0.5],[0.5,0.866]]", InputError, ["not orthogonal", "1e-09"]),
    ("mat:[[1,0],[0,1]];[[1]]", InputError, ["generator 2 is 1x1", "same size"]),
    ("mat:[[1,0,0],[0,1]]", InputError, ["not square"]),
    ("mat:[[1,0],[0,1]", InputError, ["expected ']'"]),
    ("mat:[[os.system(1)]]", InputError, ["unknown name 'os'"]),
    ("mat:[[1/0]]", InputError, ["division by zero"]),
    ("mat:[1,0]", InputError, ["not a matrix"]),
    ("mat:[[1,0],[0,1]] [[1]]", InputError, ["expected ';'"]),
    ("mat:[[cos(1),-sin(1)],[sin(1),cos(1)]]", LimitError, [str(MAX_ORDER)]),
]


@pytest.mark.parametrize("spec, exc, words", BAD, ids=[b[0] or "empty" for b in BAD])
def test_bad_specs(spec, exc, words):
    with pytest.raises(exc) as e:
        get_group(spec)
    assert e.value.field == "group"
    msg = e.value.message
    assert "\n" not in msg and "Traceback" not in msg
    for w in words:
        assert w in msg, (w, msg)


def test_not_a_string():
    with pytest.raises(InputError) as e:
        get_group(4)  # type: ignore[arg-type]
    assert e.value.field == "group"


def test_garbage_gives_input_errors_only():
    """Random specs either build a group or raise InputError, never anything else."""
    rng = random.Random(7)
    alphabet = "()[],;:x^ CDASQTOIhvdgupermat0123456789.-+*/"
    prefixes = ["", "perm:", "mat:", "pg:", "C2x"]
    for _ in range(400):
        s = rng.choice(prefixes) + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        try:
            G = get_group(s)
        except InputError as e:
            assert e.field == "group" and "\n" not in e.message
        else:
            assert 1 <= G.order <= MAX_ORDER


def test_catalog_entries():
    entries = catalog_entries()
    names = [e["name"] for e in entries]
    assert len(names) == len(set(names))
    for e in entries:
        assert set(e) == {"name", "order", "family"} | ({"description"} if e["family"] == "compact" else set())
        G = get_group(e["name"])
        assert (G.name, G.order, G.family) == (e["name"], e["order"], e["family"])
    fams = {e["family"] for e in entries}
    assert {"cyclic", "dihedral", "Q8", "alternating", "symmetric", "product", "point", "compact"} <= fams
    for must in ("C1", "C4", "D4", "Q8", "A5", "S4", "C2xC2", "C2xC4", "Oh", "Ih", "C4v", "D3h", "D2d", "pg:S4"):
        assert must in names, must


def test_catalog_help_lists_patterns():
    text = catalog_help()
    for w in ("C<n>", "D<n>", "Q8", "C2^k", "Td", "C<n>v", "D<n>d", "pg:S<2n>", "perm:", "mat:", "sqrt(3)/2"):
        assert w in text, w
    assert text.isascii()
