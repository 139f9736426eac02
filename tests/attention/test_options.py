"""The count of maximal profiles (eqattn/attention/options.py, SPEC §4.1) against their
listing, the orbit whose profiles are too many to list refused before it lists them, and
the image of the zero profile (the zero pool's K̄ = G, P = 0, SPEC §4.3)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eqattn.attention import Problem
from eqattn.attention.options import MAX_PROFILES, maximal_profiles, option_table, profile_count
from eqattn.errors import LimitError
from eqattn.groups.catalog import get_group
from eqattn.reps import Rep, irreps_of

GROUPS = ["C2", "C4", "C2xC2", "D3", "D4", "Q8", "A4", "S4", "A5"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GROUPS), st.data())
def test_profile_count_is_the_number_listed(name: str, data: st.DataObject) -> None:
    G = get_group(name)
    K = data.draw(st.sampled_from(G.subgroup_classes))
    bound = Rep(K, tuple(data.draw(st.integers(0, 5)) for _ in range(len(irreps_of(K)))))
    cap = data.draw(st.integers(0, 14))
    assert profile_count(bound, cap) == len(maximal_profiles(bound, cap))


def test_an_orbit_with_too_many_profiles_is_refused_before_listing():
    """Ih, 4×regular, d = 60: the orbit (Ih, 8) has 1 400 283 maximal profiles of dimension
    <= 60 (listing them took minutes); its options are refused with the count."""
    p = Problem.create("Ih", "4xregular", 8, 60)
    top = p.group.subgroup_classes[-1]
    assert profile_count(p.restrict(top), 60) == 1_400_283 > MAX_PROFILES
    with pytest.raises(LimitError) as e:
        option_table(p).options((top.id, 8))
    assert e.value.field == "head_dim" and "(Ih, 8) has 1400283 maximal profiles of dimension <= 60" in e.value.message


@pytest.mark.parametrize("spec", [("D4", "2xregular", 2, 2), ("Oh", "8xvector + 8xtrivial", 2, 9), ("C4", "E1", 2, 1), ("S3", "regular", 2, 2)])
def test_the_zero_profile_has_the_whole_group_and_no_image(spec):
    """`image(K, 0)` is (G, c = 0, P = 0) on every subgroup: the options' table and the drawn
    scenarios (optimize/sampled.py) take the zero pool's option from it."""
    p = Problem.create(*spec)
    table, top = option_table(p), p.group.subgroup_classes[-1]
    for K in p.group.subgroup_classes:
        kb, c, P = table.image(K, Rep(K, (0,) * len(irreps_of(K))))
        assert (kb, c, P.sub.id, P.is_zero()) == (top.id, 0, top.id, True)
