"""The subgroup inspector and character tables (eqattn.reps.group_views) against hand-worked values
and group-theoretic laws checked by brute force on the multiplication table."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.errors import InputError
from eqattn.groups import get_group
from eqattn.reps.group_views import character_table_json, element_word, subgroup_inspector_json

GROUPS = ["C2", "C4", "C6", "D3", "D4", "Q8", "S4", "C2xC2", "Td"]
E_OF_TYPE = {"real": 1, "complex": 2, "quaternionic": 4}


def _eval_word(G, word: str) -> int:
    """Multiply out `a^2 b` with G's table (an independent reading of the word)."""
    g = 0
    if word == "e":
        return g
    for part in word.split():
        letter, _, k = part.partition("^")
        gen = G.generators["abcdefghijklmnopqrstuvwxyz".index(letter)]
        for _ in range(int(k or 1)):
            g = int(G.table[g, gen])
    return g


def test_character_table_of_c2_and_d4_by_hand():
    t = character_table_json(get_group("C2").subgroup_classes[-1])
    assert [r["character"] for r in t["irreps"]] == [[1.0, 1.0], [1.0, -1.0]]
    d4 = character_table_json(get_group("D4").subgroup_classes[-1])
    assert [c["size"] for c in d4["classes"]] == [1, 1, 2, 2, 2]
    assert sorted(tuple(r["character"]) for r in d4["irreps"])[0] == (1.0, 1.0, -1.0, -1.0, 1.0)
    e = next(r for r in d4["irreps"] if r["dim"] == 2)
    assert e["character"] == [2.0, -2.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", GROUPS)
def test_character_tables_are_orthogonal_for_every_subgroup(name):
    # real characters: <chi_i, chi_j> = e_i delta_ij (e = 1, 2, 4 for real / complex / quaternionic type)
    G = get_group(name)
    for K in G.subgroup_classes:
        t = character_table_json(K)
        sizes = np.array([c["size"] for c in t["classes"]])
        assert sizes.sum() == K.order
        X = np.array([r["character"] for r in t["irreps"]])
        gram = (X * sizes) @ X.T / K.order
        assert np.allclose(gram, np.diag([E_OF_TYPE[r["type"]] for r in t["irreps"]]))
        assert sum(r["dim"] ** 2 / E_OF_TYPE[r["type"]] for r in t["irreps"]) == K.order


@pytest.mark.parametrize("name", GROUPS)
def test_inspector_generators_elements_normaliser_isomorphism(name):
    G = get_group(name)
    for K in G.subgroup_classes:
        v = subgroup_inspector_json(G, K.id)
        assert (v["name"], v["order"], v["index"]) == (K.name, K.order, G.order // K.order)
        elems = {e["index"] for e in v["elements"]}
        assert elems == {int(x) for x in K.elements}
        for e in v["elements"] + v["generators"]:
            assert _eval_word(G, e["word"]) == e["index"]  # each word names its element
        assert {int(x) for x in G.generate([g["index"] for g in v["generators"]])} == elems
        # the normaliser by brute force: g with g K g^-1 = K
        inv = G.inv
        normaliser = [g for g in range(G.order) if {int(G.table[G.table[g, k], inv[g]]) for k in elems} == elems]
        assert v["normalizer"]["order"] == len(normaliser)
        assert v["normal"] == (len(normaliser) == G.order)
        # the isomorphism: standard generator i -> an element of K of the same order
        for img in v["isomorphism"]["images"]:
            assert img["image"]["index"] in elems
            assert img["order"] == img["image"]["order"]
        assert v["isomorphism"]["standard"] == K.type_name


def test_permutation_groups_show_cycles_and_words():
    G = get_group("D4")
    v = subgroup_inspector_json(G, 1)  # C2.1: the centre {e, a^2} of D4
    assert [e["word"] for e in v["elements"]] == ["e", "a^2"]
    assert v["elements"][1]["cycles"] == "(1,3)(2,4)"
    assert v["normalizer"]["class"]["name"] == "D4"
    assert element_word(G, 0) == "e"


def test_large_subgroups_give_their_size_only():
    G = get_group("S5")
    top = G.subgroup_classes[-1]
    v = subgroup_inspector_json(G, top.id)
    assert v["elements"] is None and v["order"] == 120 and v["is_whole_group"]


def test_unknown_subgroup_id_is_an_input_error():
    with pytest.raises(InputError) as e:
        subgroup_inspector_json(get_group("C4"), 7)
    assert e.value.field == "id" and "0..2" in e.value.message
