"""The count of maximal profiles (eqattn/attention/options.py, SPEC §4.1) against their
listing, and the orbit whose profiles are too many to list refused before it lists them."""

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
