"""The engine "auto" picks (optimizer.auto_engine) and the hand-over from the enumerating
engine to the symbolic search (optimizer.merge_answers): at atlas sizes with a large
scenario space the enumerating engine set up for seconds and ended unproven or refused
(S4, regular, H8 d8: LimitError) where the symbolic search proves the optimum in seconds.
Expected optima are the enumerating engine's own on the small cases and the exhaustive
listing (brute_force.py) on the hand-over cases."""

from __future__ import annotations

import pytest

from eqattn.attention import Design, Problem, check_coverage
from eqattn.errors import LimitError
from eqattn.optimize import optimizer
from eqattn.optimize.budget import Usage
from eqattn.optimize.finish import Answer
from eqattn.optimize.optimizer import AUTO_MAX_VALUES, auto_engine, merge_answers, optimize
from eqattn.optimize.separation import ScenarioSpace
from eqattn.optimize.vanilla import pad_to_vanilla

from brute_force import BruteForce, Budget


def test_auto_engine_by_size():
    assert auto_engine(Problem.create("C2", "A + B", 2, 2))[0] == "enumerate"
    engine, space, why = auto_engine(Problem.create("D4", "regular", 2, 2))
    assert engine == "enumerate" and space is not None and len(space.values) <= AUTO_MAX_VALUES and why is None
    # past the atlas sizes: symbolic, as before
    assert auto_engine(Problem.create("C4", "96xregular", 6, 64)) == ("symbolic", None, None)
    # a large scenario space (D4, 2xregular, H4 d4: 11733 demand values)
    engine, space, why = auto_engine(Problem.create("D4", "2xregular", 4, 4))
    assert engine == "symbolic" and space is None and "11733 demand values" in why
    # a space the enumerating engine cannot list at all
    p = Problem.create("D6", "2xregular", 4, 8)
    with pytest.raises(LimitError):
        ScenarioSpace(p)
    engine, _, why = auto_engine(p)
    assert engine == "symbolic" and "cannot list" in why


def test_auto_proves_what_the_enumerating_engine_refuses():
    """D6, 2xregular, H4 d8: the enumerating engine refuses it up front; "auto" proves the
    symbolic engine's optimum (1664), says why it chose that engine, and answers the
    constrained-vanilla question by the same search."""
    p = Problem.create("D6", "2xregular", 4, 8)
    with pytest.raises(LimitError):
        optimize(p, 30, engine="enumerate")
    res = optimize(p, 60)
    sym = optimize(p, 60, engine="symbolic")
    assert res.status == sym.status == "optimal"
    assert res.design_params == res.lower_bound == sym.design_params == 1664
    assert res.constrained.possible is False and res.constrained.status == "infeasible"  # (4 heads of dim 8 do not cover)
    assert any("cannot list this problem's scenarios" in n for n in res.notes)
    assert all(v.covered for v in check_coverage(p, res.design))


HANDOVER = [("C4", "regular", 2, 1), ("D3", "regular", 2, 2), ("C2", "A + 2xB", 2, 2), ("C2xC2", "A.A + B.B", 3, 1)]


@pytest.mark.parametrize("group, rep, heads, head_dim", HANDOVER)
def test_handover_keeps_the_exhaustive_optimum(monkeypatch, group, rep, heads, head_dim):
    """With the enumerating engine's share too short to prove anything, the symbolic search
    goes on: the answer is the exhaustive optimum, proven, with the hand-over said and the
    constrained-vanilla result the enumerating engine's."""
    p = Problem.create(group, rep, heads, head_dim)
    monkeypatch.setattr(optimizer, "AUTO_ENUMERATE_SHARE", 1e-9)
    res = optimize(p, 60)
    best = BruteForce(p).optimum(Budget()).params
    assert res.status == "optimal" and res.design_params == res.lower_bound == best
    assert any("the symbolic search went on" in n for n in res.notes)
    assert res.constrained is not None
    assert all(v.covered for v in check_coverage(p, res.design))


def _answer(design, status, lower, constrained=None, ties=False):  # noqa: ANN001, ANN202
    return Answer(design, status, lower, None if status in ("optimal", "infeasible") else "time_limit", 1, 1, 1, Usage(work=3),
                  constrained=constrained, ties_proven=ties, notes=[status])


def test_merge_answers_law():
    p = Problem.create("C4", "regular", 2, 1)
    cheap = optimize(p, 30).design  # 48 parameters, optimal
    regular = Design.regular(p, trimmed=True)
    assert cheap.params < regular.params
    cv = object()
    # the cheaper design wins; the larger bound holds; it is proven when it meets the bound
    m = merge_answers(_answer(regular, "feasible", 5, cv, ties=True), _answer(cheap, "feasible", cheap.params // 4))
    assert m.design is cheap and m.status == "optimal" and m.lower_units == cheap.params // 4 and m.stopped is None
    assert m.constrained is cv and not m.ties_proven and m.usage.work == 6 and m.notes == ["feasible", "feasible"]
    # the enumerating engine's bound with the search's design
    m = merge_answers(_answer(cheap, "feasible", cheap.params // 4, cv), _answer(regular, "feasible", 2))
    assert m.design is cheap and m.status == "optimal"
    # neither proven: the better bound is kept, the status stays
    m = merge_answers(_answer(regular, "feasible", 3), _answer(regular, "feasible", 7))
    assert m.status == "feasible" and m.lower_units == 7 and m.stopped == "time_limit"
    # the search's proof of infeasibility ends it, with no design
    m = merge_answers(_answer(regular, "feasible", 3, cv), _answer(None, "infeasible", 0))
    assert m.status == "infeasible" and m.design is None and m.constrained is cv


VANILLA = [("C8", "E3", 2, 2), ("C8", "E1", 4, 1), ("S4", "[4] + [3,1]", 2, 1), ("C6", "E1", 2, 4), ("C4", "E1", 2, 1),
           ("D4", "regular", 2, 2), ("C3", "A + E1", 2, 2), ("D3", "A1 + E1", 2, 2)]


@pytest.mark.parametrize("group, rep, heads, head_dim", VANILLA)
def test_constrained_vanilla_by_the_search_equals_the_enumerating_engine(monkeypatch, group, rep, heads, head_dim):
    """Where "auto" takes the symbolic engine at atlas size it asks the constrained-vanilla
    question with the same search within H heads of dim <= d, then pads (vanilla.py): the
    answer (yes / no) is the enumerating engine's, the padded design has exactly H heads of
    dim d and covers, and it costs no less than the enumerating engine's cheapest."""
    p = Problem.create(group, rep, heads, head_dim)
    ref = optimize(p, 60, engine="enumerate").constrained
    assert ref.status in ("optimal", "infeasible")
    monkeypatch.setattr(optimizer, "AUTO_MAX_VALUES", -1)  # every problem "too large" for the enumerating engine
    res = optimize(p, 60)
    assert any("the constrained-vanilla question by the same search" in n for n in res.notes)
    c = res.constrained
    assert c.possible == ref.possible
    if c.possible:
        assert c.design.heads == heads and all(o.head_dim == head_dim for o in c.design.orbits)
        assert all(v.covered for v in check_coverage(p, c.design))
        assert c.design.params >= ref.design.params
        if c.status == "optimal":
            assert c.design.params == ref.design.params
    else:
        assert c.status == "infeasible" and c.design is None


def test_pad_to_vanilla():
    p = Problem.create("C4", "regular", 3, 2)
    d = Design.create(p, [("C4", "A + B")])  # one head of dim 2
    padded = pad_to_vanilla(d)
    assert padded.heads == 3 and [o.head_dim for o in padded.orbits] == [2, 2, 2]
    assert padded.params >= d.params
    small = Design.create(p, [("C4", "A")])  # dim 1: filled with the cheapest irrep of dim 1
    assert [o.head_dim for o in pad_to_vanilla(small).orbits] == [2, 2, 2]
    with pytest.raises(ValueError):
        pad_to_vanilla(Design.regular(p))  # 12 heads > 3
