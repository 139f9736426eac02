"""The representation parser's messages name the mistake: a bad multiplicity is not an
unknown irrep, a missing x gets "did you mean", and only the presets that apply are offered."""

from __future__ import annotations

import pytest

from eqattn.errors import InputError
from eqattn.groups import get_group
from eqattn.reps import parse_rep


def message(group: str, text: str) -> str:
    G = get_group(group)
    with pytest.raises(InputError) as e:
        parse_rep(text, G.subgroup_classes[-1])
    assert e.value.field == "rep"
    return e.value.message


@pytest.mark.parametrize("text, mult", [("1e30xE1", "1e30"), ("2.5xE1", "2.5"), ("1.0xA", "1.0"), ("1e3 x B", "1e3"), (".5xA", ".5")])
def test_a_bad_multiplicity_is_named(text, mult):
    m = message("C4", text)
    assert m.startswith(f"bad multiplicity {mult!r}") and "whole number from 0 to 1000000" in m and "unknown irrep" not in m, m


@pytest.mark.parametrize("group, text, meant", [("C4", "2E1", "2xE1"), ("C4", "A + 10B", "10xB"), ("D4", "3regular", "3xregular"),
                                                 ("Oh", "2T1u", "2xT1u")])
def test_a_missing_x_gets_did_you_mean(group, text, meant):
    assert f"did you mean {meant!r}?" in message(group, text)


def test_presets_offered_are_the_ones_that_apply():
    c4 = message("C4", "Q")
    assert "presets: trivial, regular, perm:<subgroup>" in c4 and "vector" not in c4
    assert "presets: trivial, regular, vector, perm:<subgroup>" in message("Oh", "Q")
    sub = get_group("C4").subgroup_classes[1]  # C2: no perm:<subgroup> (only for G itself)
    with pytest.raises(InputError) as e:
        parse_rep("Q", sub)
    assert e.value.message.endswith("presets: trivial, regular"), e.value.message


def test_a_close_label_is_suggested():
    assert "(did you mean 'E1'?)" in message("C4", "E")
    assert "did you mean" not in message("C4", "xyz")
