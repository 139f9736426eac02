"""The optimiser past the list of clusterings: its counterexample loop and its re-check run
over the design's representative clusterings (docs/theory-scale.md C7)."""

from __future__ import annotations

import pytest

from eqattn.attention import Problem
from eqattn.attention import symbolic as symbolic_module
from eqattn.optimize import optimize
from eqattn.optimize import finish as finish_module
from eqattn.optimize import oracle as oracle_module


@pytest.mark.parametrize(("group", "rep", "heads", "head_dim"), [("C4", "8xregular", 4, 8), ("D4", "4xregular", 8, 4)])
def test_the_representative_route_gives_the_listed_answer(group, rep, heads, head_dim, monkeypatch):
    """With the list limit lowered below the problem's count, the same proven optimum comes
    from the representatives, and the note says how many stood for how many."""
    p = Problem.create(group, rep, heads, head_dim)
    listed = optimize(p, 120, work_limit=20000)
    assert listed.status == "optimal"
    assert not any("representative" in n for n in listed.notes)
    for mod in (oracle_module, finish_module, symbolic_module):
        monkeypatch.setattr(mod, "MAX_CLUSTERINGS", 3)
    seen = []
    real = symbolic_module.SymbolicChecker.representatives

    def spy(self, limit=25000):  # noqa: ANN001, ANN202
        out = real(self, limit)
        seen.append(len(out))
        return out

    monkeypatch.setattr(symbolic_module.SymbolicChecker, "representatives", spy)
    past = optimize(Problem.create(group, rep, heads, head_dim), 120, work_limit=20000)
    assert seen, "the representatives were not used"
    assert (past.status, past.design_params, past.lower_bound) == ("optimal", listed.design_params, listed.lower_bound)
    assert any(n.startswith(f"re-checked over {past.verified_clusterings} representative clusterings") for n in past.notes)


def test_d4h_with_16_heads_is_proven():
    """D4h, V = 16×(vector + trivial) (dim 64), H = 16, d = 4: 374 416 clusterings, refused
    before; proven optimal at 13 312 (= 2 × the H = 8 optimum) over 802 representatives."""
    # a work limit (the same path whatever the machine's load; the proof uses 434 units), the clock a safety limit
    r = optimize(Problem.create("D4h", "16xA1g + 16xA2u + 16xEu", 16, 4), 600, work_limit=2000)
    assert (r.status, r.design_params, r.lower_bound) == ("optimal", 13312, 13312)
    assert any("representative clusterings of the 374416" in n for n in r.notes)
