"""`Verify numerically` for one clustering (eqattn.numeric.verify.verify_clustering)."""

from __future__ import annotations

import pytest

from eqattn.attention import Design, Problem
from eqattn.errors import InputError
from eqattn.numeric.verify import verify_clustering


def test_covered_clusterings_reproduce_the_vanilla_outputs():
    p = Problem.create("C4", "E1", 2, 1)  # SPEC §6 example 2 with [(C2, B)]
    d = Design.create(p, [("C2", "B")])
    for cid in range(3):
        r = verify_clustering(p, d, cid)
        assert r["covered"] and r["ok"] and r["scenarios_verified"] >= 1
        assert r["worst_rel_error"] < 1e-8 and r["worst_equivariance_error"] < 1e-8


def test_uncovered_clustering_verifies_nothing():
    p = Problem.create("C2", "A + B", 1, 1)  # SPEC §6 example 3
    r = verify_clustering(p, Design.create(p, [("C2", "A"), ("C2", "B")]), 0)
    assert not r["covered"] and r["scenarios_verified"] == 0


def test_unknown_clustering_is_an_input_error():
    p = Problem.create("C4", "E1", 2, 1)
    with pytest.raises(InputError) as e:
        verify_clustering(p, Design.create(p, []), 3)
    assert e.value.field == "clustering"
