"""What elements, subgroups and irreps are in words (eqattn/reps/element_words.py), and the
coset action and V|K of eqattn/reps/group_views.py, checked against hand-worked cases and an
independent route (the motion rebuilt as a matrix; cosets compared as sets; Design counts)."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Design, Problem
from eqattn.groups import get_group
from eqattn.reps.element_words import element_words, motion, subgroup_words
from eqattn.reps.group_views import group_json, restrictions_json


def _rodrigues(theta: float, n: np.ndarray) -> np.ndarray:
    n = n / np.linalg.norm(n)
    K = np.array([[0, -n[2], n[1]], [n[2], 0, -n[0]], [-n[1], n[0], 0]])
    return np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K


@pytest.mark.parametrize("name", ["Oh", "Ih", "pg:D6h", "Td", "pg:S8"])
def test_every_point_group_element_is_the_motion_it_is_said_to_be(name):
    G = get_group(name)
    for g in range(1, G.order):
        M = G.matrices[g]
        kind, theta, n = motion(M)
        if kind == "inversion":
            rebuilt = -np.eye(3)
        elif kind == "rotation":
            rebuilt = _rodrigues(theta, n)
        elif kind == "reflection":
            rebuilt = np.eye(3) - 2 * np.outer(n, n)
        else:
            rebuilt = _rodrigues(theta, n) @ (np.eye(3) - 2 * np.outer(n, n))
        assert np.allclose(rebuilt, M, atol=1e-9), (name, g, kind)


def test_hand_worked_words():
    D4 = get_group("D4")  # r = (0 1 2 3), s: i -> -i on the square's vertices 1..4
    assert [element_words(D4, g) for g in range(8)] == [
        "identity", "rotation by π/2", "reflection across the axis through vertex 1 (and vertex 3)", "rotation by π",
        "reflection across the axis through the midpoint of vertices 1 and 2",
        "reflection across the axis through the midpoint of vertices 2 and 3", "rotation by 3π/2",
        "reflection across the axis through vertex 2 (and vertex 4)"]
    names = {c.name: subgroup_words(D4, c.elements, [int(c.phi[int(s)]) for s in c.std.generators]) for c in D4.subgroup_classes}
    assert names["C2.1"] == "{identity, rotation by π}"  # the centre: C2.1 and C2.2 differ in what they are
    assert names["C2.2"].startswith("{identity, reflection across the axis through vertex")
    S4 = get_group("S4")
    assert element_words(S4, 3) == "swaps 1 and 3; swaps 2 and 4"
    assert element_words(get_group("Q8"), 3) == "quaternion −1"
    assert element_words(get_group("C2xC4"), 3) == "(rotation by π, rotation by π/2)"
    oh = get_group("Oh")
    assert element_words(oh, 3) == "inversion"
    assert element_words(oh, 1) == "rotation by π/2 about (0, 0, 1)"


@pytest.mark.parametrize("name", ["C4", "D4", "S4", "Oh", "C2xC4"])
def test_coset_action_is_the_action_on_the_cosets(name):
    G = get_group(name)
    view = group_json(G)
    for c, s in zip(G.subgroup_classes, view["subgroups"]):
        reps = G.left_transversal(c.elements)
        cosets = [frozenset(int(x) for x in G.table[a, c.elements]) for a in reps]
        assert len(s["coset_action"]) == len(G.generators)
        for gen, images in zip(G.generators, s["coset_action"]):
            assert sorted(images) == list(range(len(cosets)))  # a permutation of the clusters
            for i, j in enumerate(images):
                assert frozenset(int(G.table[gen, x]) for x in cosets[i]) == cosets[j]


def test_restrictions_hand_worked_and_against_design_counts():
    r = restrictions_json(get_group("C4"), "E1")  # SPEC §6 example 2: E1|C2 = 2xB, so A costs nothing
    c2 = r["subgroups"][1]
    assert c2["text"] == "2xB"
    assert [(x["label"], x["multiplicity"], x["params_per_copy"]) for x in c2["irreps"]] == [("A", 0, 0), ("B", 2, 8)]
    oh = restrictions_json(get_group("Oh"), "vector")
    mirror = next(s for s in oh["subgroups"] if s["name"] == "C2.3")  # the mirror z -> -z: (x, y, z) -> (+, +, -)
    assert mirror["text"] == "2xA + B"
    for group, rep in (("D4", "regular"), ("Oh", "vector + trivial"), ("S4", "perm:D4")):
        p = Problem.create(group, rep, 2, 2)
        for s in restrictions_json(get_group(group), rep)["subgroups"]:
            for x in s["irreps"]:
                d = Design.create(p, [(s["name"], x["label"])])
                assert d.params == x["params_per_copy"], (group, s["name"], x["label"])
