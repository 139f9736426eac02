"""The symbolic engine of the optimiser (search.py and rounds/: scenarios, demand values and
orbit types from the symbolic checker's counterexamples) against the enumerating engine,
which stays the cross-check on small problems (costs are compared: optima are not unique),
and at a size the enumerating engine refuses."""

from __future__ import annotations

import pytest

from eqattn.attention import Problem, check_coverage
from eqattn.errors import InputError
from eqattn.numeric import verify_design
from eqattn.optimize import optimize

SMALL = [
    ("C4", "E1", 1, 2),  # SPEC §6.1: 8
    ("C4", "E1", 2, 1),  # SPEC §6.2: 8
    ("C2", "A + B", 1, 1),  # SPEC §6.3: 8
    ("C3", "E1", 4, 1),  # SPEC §6.4: 8 (the zero pool)
    ("C2", "A + 2xB", 1, 2),
    ("C3", "A + E1", 2, 2),
    ("C4", "regular", 2, 1),
    ("C4", "regular", 4, 1),
    ("C4", "2xregular", 4, 2),
    ("D3", "E1", 3, 2),
    ("D3", "regular", 2, 2),
    ("D3", "A1 + E1", 2, 2),
    ("C2xC2", "A.A + B.B", 3, 1),
    ("Q8", "regular", 3, 1),
    ("D4", "regular", 2, 2),
    ("A4", "T", 2, 2),
]


@pytest.mark.parametrize("group, rep, heads, head_dim", SMALL)
def test_symbolic_engine_equals_enumerating_engine(group, rep, heads, head_dim):
    p = Problem.create(group, rep, heads, head_dim)
    old = optimize(p, 60, constrained=False, engine="enumerate")
    new = optimize(p, 60, engine="symbolic")
    assert old.status == new.status == "optimal"
    assert new.design_params == new.lower_bound == old.design_params
    verdicts = check_coverage(p, new.design)
    assert all(v.covered for v in verdicts)
    assert verify_design(p, new.design, verdicts=verdicts).worst_rel_error <= 1e-8


@pytest.mark.parametrize(
    "group, rep, heads, head_dim, max_heads, max_head_dim",
    [("C4", "E1", 2, 1, 1, None), ("C4", "regular", 1, 2, 4, 2), ("D3", "regular", 1, 2, 3, 2), ("C3", "A + E1", 2, 1, 3, 2),
     ("C2", "A + 2xB", 1, 2, 2, 2)],
)
def test_symbolic_engine_with_compute_constraints(group, rep, heads, head_dim, max_heads, max_head_dim):
    p = Problem.create(group, rep, heads, head_dim)
    old = optimize(p, 60, constrained=False, engine="enumerate", max_heads=max_heads, max_head_dim=max_head_dim)
    new = optimize(p, 60, engine="symbolic", max_heads=max_heads, max_head_dim=max_head_dim)
    assert old.status == new.status and old.status in ("optimal", "infeasible")
    assert new.design_params == old.design_params
    if new.design is not None:
        assert new.design.heads <= max_heads
        assert all(o.head_dim <= max_head_dim for o in new.design.orbits if max_head_dim is not None)


def test_symbolic_work_limit_is_deterministic():
    p = Problem.create("C4", "2xregular", 4, 2)
    a = optimize(p, 120, engine="symbolic", work_limit=2).to_json()
    b = optimize(p, 120, engine="symbolic", work_limit=2).to_json()
    for k in ("status", "design_params", "lower_bound", "orbits", "stopped_by", "work", "rounds"):
        assert a[k] == b[k], k
    assert a["lower_bound"] <= 224 <= a["design_params"]
    if a["status"] != "optimal":
        assert a["stopped_by"] == "work_limit"


def test_large_problem_proven_optimal():
    # C2, dim V = 64, H = 4, d = 16: the enumerating engine stops with a 20% gap after 60 s;
    # the symbolic engine proves the regular design (= vanilla) optimal
    p = Problem.create("C2", "32xregular", 4, 16)
    r = optimize(p, 120)
    assert r.status == "optimal" and r.design_params == r.lower_bound == p.vanilla_params
    assert all(v.covered for v in check_coverage(p, r.design))


def test_bad_engine():
    with pytest.raises(InputError) as e:
        optimize(Problem.create("C4", "E1", 2, 1), 5, engine="fast")
    assert e.value.field == "engine"


def test_rounded_lp_design():
    """The LP's fractional design rounded up (theory-scale O14): ⌈n_t⌉ copies of each type of
    its support, larger subgroups first; None over max_heads or when empty."""
    from eqattn.optimize.rounds.rounded import rounded_design as _rounded

    p = Problem.create("C4", "2xregular", 4, 2)
    sol = (((0, (2,)), 1.25), ((2, (1, 0, 1)), 0.5), ((1, (1, 1)), 1e-9))
    d = _rounded(p, sol, None)
    assert [(o.sub.name, o.W.mults) for o in d.orbits] == [("C4", (1, 0, 1)), ("C1", (2,)), ("C1", (2,))]
    assert sum(o.heads for o in d.orbits) == 1 + 4 + 4
    assert _rounded(p, sol, 8) is None and _rounded(p, sol, 9) is not None
    assert _rounded(p, (), None) is None


def test_rounded_lp_designs_and_fixing_keep_the_small_optima(monkeypatch):
    """With the restricted rounds first (every round: LP bound, its rounded design, fixing or
    a restricted program) the symbolic engine still finds the enumerating engine's optimum."""
    from eqattn.optimize.rounds import capped

    monkeypatch.setattr(capped, "FULL_TYPES", 0)
    for group, rep, heads, head_dim in SMALL[::2]:
        p = Problem.create(group, rep, heads, head_dim)
        sym = optimize(p, 60, constrained=False, engine="symbolic")
        ref = optimize(p, 60, constrained=False, engine="enumerate")
        assert (sym.status, sym.design_params) == (ref.status, ref.design_params) == ("optimal", ref.design_params), (group, rep)


def test_check_order_and_partial_checks(monkeypatch):
    """`CounterexampleOracle.keys`: the clusterings that gave a counterexample are checked first next
    time (most recent first); a check stopped by its deadline returns the counterexamples
    found so far, and None only when there are none (never "covers")."""
    import time
    import types as pytypes

    from eqattn.attention import Design, clusterings
    from eqattn.attention.symbolic import SymbolicChecker
    from eqattn.optimize import oracle as ss
    from eqattn.optimize.catalogue import DemandCatalogue

    p = Problem.create("C4", "2xregular", 4, 2)
    ctx = ss.CounterexampleOracle(p, DemandCatalogue(p))
    empty = Design(p, ())
    seen: list = []
    real = SymbolicChecker.first_uncovered

    def spy(self, c):  # noqa: ANN001, ANN202
        seen.append(c)
        return real(self, c)

    monkeypatch.setattr(SymbolicChecker, "first_uncovered", spy)
    keys = ctx.keys(empty, time.perf_counter() + 60, 3)
    assert len(keys) == 3 and seen == list(clusterings(p))[: len(seen)]
    failed = sorted(ctx.failing, key=ctx.failing.get, reverse=True)
    assert len(failed) == 3
    seen.clear()
    assert ctx.keys(empty, time.perf_counter() + 60, 1)
    assert seen[0] == failed[0]  # the most recent failure first
    # a deadline that passes after the first counterexample: that one is returned
    clock = {"late": False}
    monkeypatch.setattr(ss, "time", pytypes.SimpleNamespace(perf_counter=lambda: float("inf") if clock["late"] else 0.0))

    def late(self, c):  # noqa: ANN001, ANN202
        r = real(self, c)
        clock["late"] = clock["late"] or r is not None
        return r

    monkeypatch.setattr(SymbolicChecker, "first_uncovered", late)
    ctx2 = ss.CounterexampleOracle(p, DemandCatalogue(p))
    part = ctx2.keys(empty, 1.0, 60)
    assert part is not None and len(part) == 1
    clock["late"] = True  # past the deadline before any clustering: None, not []
    assert ctx2.keys(empty, 1.0, 60) is None
