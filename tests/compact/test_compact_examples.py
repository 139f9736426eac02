"""The compact groups SO(2), O(2), SO(3), O(3): docs/theory-continuous.md §4's worked examples
(by hand there), the clustering counts of Corollary 2, the fallback design of Lemma 5, the
stand-ins and the rep notation."""

from __future__ import annotations

import pytest

from eqattn.attention import Design, Problem, check_coverage, clusterings, count_clusterings, option_table
from eqattn.errors import InputError, LimitError
from eqattn.groups import get_group
from eqattn.optimize import optimize
from eqattn.reps import irreps, parse_rep


def _partitions(n: int, mx: int | None = None) -> int:
    mx = n if mx is None else mx
    return 1 if n == 0 else sum(_partitions(n - k, k) for k in range(1, min(n, mx) + 1))


def _pairs_of_partitions(H: int) -> int:
    """(λ, μ) with |λ| + 2|μ| = H (Corollary 2, Γ = C2)."""
    return sum(_partitions(H - 2 * m) * _partitions(m) for m in range(H // 2 + 1))


# ----- §4: the worked examples ------------------------------------------------------------
EXAMPLES = [
    # (group, V, H, d, optimum, the optimal design's orbits as (subgroup, W) — §4 by hand)
    ("SO3", "1x0 + 1x1", 2, 1, 8, [("SO3", "1x0"), ("SO3", "1x0")]),
    ("SO3", "1x0 + 1x1", 2, 2, 12, [("SO3", "1x0"), ("SO3", "1x0 + 1x1")]),
    ("O3", "2x0e + 1x1o", 2, 1, 16, [("O3", "1x0e"), ("O3", "1x0e")]),
    ("SO2", "A + E1 + E2", 2, 1, 24, [("SO2", "A + E1"), ("SO2", "A + E2")]),
    ("O2", "A1 + E1 + E2", 2, 1, 16, [("O2", "A1 + E1"), ("O2", "A1 + E2")]),
    ("SO3", "1x0 + 1x3", 2, 4, 12, [("SO3", "1x0"), ("SO3", "1x0 + 1x3")]),  # §4.5: l = 3 on C6
]


def test_the_degree_3_example_needs_both_orbits() -> None:
    """§4.5: the l = 3 part enters only through the summed R of two heads; each single-orbit
    and twin-orbit design of 8 parameters leaves one clustering uncovered."""
    p = Problem.create("SO3", "1x0 + 1x3", 2, 4)
    assert p.group.compact.stand_in == "C6" and p.vanilla_params == 256
    (c1,) = [c for c in clusterings(p) if c.orbits[0][0][1] == 2]
    assert {(str(o.a), str(o.b)) for o in option_table(p).options(c1.orbits[0][0])} == {("1x0", "1x0 + 1x3")}
    for orbits, covered in (([("SO3", "1x0 + 1x3")], [True, False]), ([("SO3", "1x0")] * 2, [False, True])):
        d = Design.create(p, orbits)
        assert d.params == 8 and [v.covered for v in sorted(check_coverage(p, d), key=lambda v: v.clustering.id)] == covered


@pytest.mark.parametrize("group, rep, H, d, best, orbits", EXAMPLES)
def test_the_worked_examples_are_proven_optima(group, rep, H, d, best, orbits) -> None:
    p = Problem.create(group, rep, H, d)
    res = optimize(p, time_limit=30)
    assert res.status == "optimal" and res.design.params == best
    hand = Design.create(p, orbits)
    assert hand.params == best and all(v.covered for v in check_coverage(p, hand))
    assert sorted((o.sub.name, str(o.W)) for o in res.design.orbits) == sorted(
        (o.sub.name, str(o.W)) for o in hand.orbits)


def test_the_o3_swap_clustering_is_degenerate_and_a_non_degenerate_one_exists() -> None:
    """§4.2: Cc = {(SO3, 1)} (inversion swaps the two heads); degenerate for 2x0e + 1x1o,
    not for 1x0e + 1x0o."""
    p = Problem.create("O3", "2x0e + 1x1o", 2, 1)
    names = {c.id: c.name for c in p.group.subgroup_classes}
    cl = {tuple((names[k], n, c) for (k, n), c in x.orbits): x for x in clusterings(p)}
    assert set(cl) == {(("O3", 2, 1),), (("O3", 1, 2),), (("SO3", 1, 1),)}
    from eqattn.attention import option_table

    N = p.group.subgroup_classes[0]
    t = option_table(p)
    assert t.degenerate((N.id, 1))
    q = Problem.create("O3", "1x0e + 1x0o", 2, 1)
    assert not option_table(q).degenerate((q.group.subgroup_classes[0].id, 1))
    kbar = {p_.group.subgroup_classes[o.kbar].name for p_ in [q] for o in option_table(q).options((0, 1)) if not o.zero}
    assert kbar == {"SO3"}


def test_the_swap_clustering_needs_a_swapped_orbit_when_it_is_not_degenerate() -> None:
    """V = 1x0e + 1x0o: the swap clustering is not covered by G/O3 orbits alone."""
    p = Problem.create("O3", "1x0e + 1x0o", 2, 1)
    only_top = Design.create(p, [("O3", "1x0e + 1x0o"), ("O3", "1x0e + 1x0o")])
    verdicts = {str(v.clustering.orbits): v.covered for v in check_coverage(p, only_top)}
    assert not all(verdicts.values())
    assert optimize(p, time_limit=30).status == "optimal"


# ----- Corollary 2: clusterings of Γ --------------------------------------------------------
@pytest.mark.parametrize("H", [1, 2, 3, 5, 8])
def test_clusterings_are_partitions_for_so_and_pairs_of_partitions_for_o(H) -> None:
    assert count_clusterings(Problem.create("SO3", "1x0 + 1x1", H, 1)) == _partitions(H)
    assert count_clusterings(Problem.create("SO2", "A + E1", H, 1)) == _partitions(H)
    assert count_clusterings(Problem.create("O3", "1x0e + 1x1o", H, 1)) == _pairs_of_partitions(H)
    assert count_clusterings(Problem.create("O2", "A1 + E1", H, 1)) == _pairs_of_partitions(H)


def test_partition_counts_of_the_doc() -> None:
    assert [_partitions(h) for h in (2, 8, 16)] == [2, 22, 231]
    assert _pairs_of_partitions(2) == 3


# ----- Lemma 5: the fallback design ------------------------------------------------------------
@pytest.mark.parametrize("group, rep", [("SO3", "1x0 + 2x1"), ("O3", "1x0e + 1x0o + 1x1o"), ("SO2", "2xA + E1"),
                                         ("O2", "A1 + A2 + E2")])
def test_the_regular_design_of_a_compact_group_is_h_copies_of_the_identity_component(group, rep) -> None:
    p = Problem.create(group, rep, 2, 2)
    d = Design.regular(p)
    N = p.group.subgroup_classes[0]
    assert [o.sub for o in d.orbits] == [N, N] and all(o.W == p.restrict(N) for o in d.orbits)
    assert all(v.covered for v in check_coverage(p, d))
    # 4 H dim End_{G°}(V)
    assert d.params == 4 * 2 * p.restrict(N).hom_dim(p.restrict(N))


# ----- the stand-ins ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind, band, stand_in, order, classes", [
    ("SO3", 1, "O", 24, ["SO3"]), ("SO3", 2, "I", 60, ["SO3"]), ("O3", 0, "Oh", 48, ["SO3", "O3"]),
    ("O3", 2, "Ih", 120, ["SO3", "O3"]), ("SO2", 3, "C7", 7, ["SO2"]), ("O2", 5, "D11", 22, ["SO2", "O2"]),
])
def test_the_stand_in_and_its_pruned_lattice(kind, band, stand_in, order, classes) -> None:
    G = get_group(kind, band=band)
    assert G.compact.stand_in == stand_in and G.order == order
    assert [c.name for c in G.subgroup_classes] == classes
    assert [c.index for c in G.subgroup_classes] == ([2, 1] if len(classes) == 2 else [1])
    assert G.matrices.shape[1:] == ((2, 2) if kind in ("SO2", "O2") else (3, 3))
    assert [l for l in irreps(G).labels if not l.startswith("~")] == list(G.compact.labels)


def test_the_band_is_read_off_v_and_chooses_the_stand_in() -> None:
    assert Problem.create("O3", "1x0e + 1x1o", 1, 1).group.compact.stand_in == "Oh"
    assert Problem.create("O3", "1x0e + 1x2e", 1, 1).group.compact.stand_in == "Ih"
    assert Problem.create("SO2", "A + E3", 1, 1).group.order == 7
    assert Problem.create("O2", "A2", 1, 1).group.compact.stand_in == "D3"


def test_the_irreps_have_the_types_of_the_band() -> None:
    """E_k complex under SO(2), real under O(2) (§3); every l real."""
    so2 = irreps(get_group("SO2", band=2))
    o2 = irreps(get_group("O2", band=2))
    assert dict(zip(so2.labels, so2.types)) == {"A": "real", "E1": "complex", "E2": "complex"}
    assert {l: t for l, t in zip(o2.labels, o2.types) if not l.startswith("~")} == {
        "A1": "real", "A2": "real", "E1": "real", "E2": "real"}
    o3 = irreps(get_group("O3", band=2))
    assert {l: (t, int(d)) for l, t, d in zip(o3.labels, o3.types, o3.dims) if not l.startswith("~")} == {
        "0e": ("real", 1), "0o": ("real", 1), "1o": ("real", 3), "1e": ("real", 3), "2e": ("real", 5), "2o": ("real", 5)}


def test_branching_o3_to_so3_and_induction() -> None:
    """§3: le, lo -> l; Ind l -> le + lo."""
    from eqattn.reps import decompose, induce_character

    G = get_group("O3", band=2)
    N, top = G.subgroup_classes
    V = parse_rep("1x0e + 1x0o + 2x1o + 1x1e + 1x2e + 1x2o", top)
    assert str(V.restrict(N)) == "2x0 + 3x1 + 2x2"
    W = parse_rep("1x1", N)
    ind = decompose(top, induce_character(G, W.character, N.elements, top.elements))
    assert str(ind) == "1x1o + 1x1e"
    G2 = get_group("O2", band=2)
    N2, top2 = G2.subgroup_classes
    assert str(decompose(top2, induce_character(G2, parse_rep("A", N2).character, N2.elements, top2.elements))) == "A1 + A2"
    assert str(decompose(top2, induce_character(G2, parse_rep("E2", N2).character, N2.elements, top2.elements))) == "2xE2"


# ----- the rep notation ---------------------------------------------------------------------------
def test_e3nn_notation_round_trips() -> None:
    p = Problem.create("O3", "16x0e + 8x1o + 4x2e", 8, 16)
    assert str(p.V) == "16x0e + 8x1o + 4x2e" and p.dim_v == 60
    assert str(Problem.create("SO3", "1x0 + 1x1", 1, 1).V) == "1x0 + 1x1"
    assert str(Problem.create("SO3", "1x1 + 0x2 + 1x0", 1, 1).V) == "1x0 + 1x1"
    assert str(Problem.create("O3", "vector", 1, 1).V) == "1x1o"
    assert str(Problem.create("SO2", "vector + A", 1, 1).V) == "A + E1"


@pytest.mark.parametrize("group, rep, words", [
    ("SO3", "1x17", "l <= 16 (got l = 17)"),
    ("O3", "1x0e + 1x20o", "character-detecting stand-in C_2l"),
    ("SO2", "E51", "k <= 50"),
])
def test_bands_past_the_limit_are_refused_with_the_reason(group, rep, words) -> None:
    with pytest.raises(LimitError) as e:
        Problem.create(group, rep, 1, 1)
    assert e.value.field == "rep" and words in e.value.message


@pytest.mark.parametrize("group, rep, words", [
    ("O3", "1x1", "carry a parity: write '1e' or '1o'"),
    ("SO3", "1x1o", "carry no parity"),
    ("O3", "regular", "no regular or permutation representation"),
    ("SO2", "B", "unknown irrep 'B'"),
    ("O2", "A", "one-dimensional irreps are A1, A2"),
    ("O3", "1x~X1", "unknown irrep"),
])
def test_bad_compact_reps_are_named(group, rep, words) -> None:
    with pytest.raises(InputError) as e:
        Problem.create(group, rep, 1, 1)
    assert e.value.field == "rep" and words in e.value.message, e.value.message
    assert "~" not in e.value.message.replace("'~X1'", "")


def test_head_spaces_outside_the_band_are_refused() -> None:
    p = Problem.create("O3", "2x0e + 1x1o", 2, 1)  # band l <= 1: the stand-in is Oh
    with pytest.raises(InputError) as e:
        Design.create(p, [("O3", "1x2e")])
    assert e.value.field == "orbits[0].rep" and "outside the band" in e.value.message and "l <= 1" in e.value.message
    q = Problem.create("SO2", "A + E1", 1, 1)
    with pytest.raises(InputError) as e:
        Design.create(q, [("SO2", "E2")])
    assert "outside the band" in e.value.message
    with pytest.raises(InputError) as e:
        Design.create(Problem.create("SO2", "A", 1, 1), [("SO2", "vector")])
    assert "outside the band" in e.value.message


def test_out_of_band_slots_are_never_shown() -> None:
    from eqattn.reps.group_views import group_json

    for kind in ("SO2", "O2", "SO3", "O3"):
        g = group_json(get_group(kind))
        labels = [i["label"] for i in g["irreps"]] + [i["label"] for s in g["subgroups"] for i in s["irreps"]]
        assert labels and not any(l.startswith("~") for l in labels)
        assert g["compact"]["kind"] == kind and "regular" not in g["presets"]
