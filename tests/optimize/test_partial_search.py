"""Partial coverage by subset searches (optimize/partial_search.py, theory-scale B4b): a size
the budget program refused, a bound that needs a proven-uncoverable pair, honest answers
under a tiny work limit, and bad input. (Agreement with the exhaustive reference on the
small problems: test_budget_vs_brute_force.py.)"""

import pytest
from brute_force import BruteForce, Budget as BFBudget

from eqattn.attention import Problem, check_coverage
from eqattn.errors import InputError
from eqattn.optimize.budget import Budget
from eqattn.optimize.limits import ComputeLimits, attention_cost
from eqattn.optimize.partial import partial_coverage
from eqattn.optimize.partial_search import partial_search


def test_formerly_refused_size_under_a_work_limit():
    """Oh, 1 x regular (dim V 48), H 2, d 24 within the vanilla attention cost 48: the budget
    program refused it (over 4000 orbit types); the searches prove 1 of 5 the most, under a
    work limit (deterministic, no clock in the claim)."""
    p = Problem.create("Oh", "1xregular", 2, 24)
    r = partial_coverage(p, 600, max_cost=48, work_limit=2000)
    assert (r.engine, r.covered, r.of, r.status, r.upper_bound, r.params_proven) == ("search", 1, 5, "optimal", 1, True)
    assert r.stopped_by is None and attention_cost(r.design) <= 48 and r.design.params == 192
    # the covered set, re-derived by the coverage checker on its own
    assert {v.clustering.id for v in check_coverage(p, r.design) if v.covered} == {0}
    assert r.uncovered == (1, 2, 3, 4)


def test_bound_from_a_pair_no_design_covers():
    """C4, B + E1, H 2, d 1 at 4 heads of dimension 1: each clustering alone is covered by
    some design within the budget, no design covers all three; the bound 2 comes from the
    proven-uncoverable set, not from single clusterings."""
    p = Problem.create("C4", "B+E1", 2, 1)
    r = partial_search(p, ComputeLimits(4, 1), Budget.starting(120))
    assert r.infeasible == frozenset() and (len(r.covered), r.upper_bound, r.of) == (2, 2, 3)
    ref = BruteForce(p).partial(BFBudget(4, 1))
    assert r.params_proven and r.design.params == ref.params


@pytest.mark.parametrize("work", [1, 3])
def test_honest_under_a_tiny_work_limit(work):
    """Whatever the limit stops, the count is a real design's and the bound a valid one."""
    p = Problem.create("C2", "2xA+B", 2, 2)
    ref = BruteForce(p).partial(BFBudget(4, 2))
    r = partial_coverage(p, 600, max_heads=4, max_head_dim=2, engine="search", work_limit=work)
    assert r.covered <= ref.covered <= r.upper_bound <= r.of
    assert (r.status == "optimal") == (r.covered == r.upper_bound)
    assert r.status == "optimal" or r.stopped_by is not None
    assert r.covered == sum(v.covered for v in check_coverage(p, r.design))
    assert not r.params_proven or r.design.params == ref.params


def test_bad_engine_and_work_limit():
    p = Problem.create("C4", "E1", 2, 1)
    with pytest.raises(InputError, match="engine"):
        partial_coverage(p, 10, max_heads=1, engine="fast")
    with pytest.raises(InputError, match="work_limit"):
        partial_coverage(p, 10, max_heads=1, work_limit=0)


def test_every_single_search_gets_at_least_a_first_try(monkeypatch):
    """D4, 48xregular, H6 d64 at (12, 64) under a work limit of 100 units (deterministic; at
    200 the orbit types searched alone, B4c, now leave nothing to share):
    the clusterings still undecided after the growing phase share the work left, but no
    search of one clustering gets less than FIRST_WORK units (the wall-clock twin of the same
    line: FIRST_SECONDS). Before, the even share gave one of them 3 units (and on D4h,
    64x(v+t), H8 d64 at (8, 64), 1450 searches 10 ms of the last 15 s each, all undecided)."""
    from eqattn.optimize import partial_search as ps

    p = Problem.create("D4", "48xregular", 6, 64)
    calls = []
    search = ps._Runner.search

    def spy(self, only, until, seconds, work):  # noqa: ANN001, ANN202
        calls.append((len(only), seconds, work))
        return search(self, only, until, seconds, work)

    monkeypatch.setattr(ps._Runner, "search", spy)
    r = partial_search(p, ComputeLimits(12, 64), Budget.starting(600, work_limit=100))
    singles = [(s, w) for n, s, w in calls if n == 1]
    assert len(singles) > 5 and r.stopped_by == "work_limit"
    assert all(w >= ps.FIRST_WORK and s >= ps.FIRST_SECONDS for s, w in singles)
    assert len(r.covered) <= r.upper_bound


def test_a_clustering_at_the_ceiling_no_longer_leaves_the_count_open():
    """D4, 48xregular, H6 d64 within (12, 64): 79 clusterings are refuted by their LP bounds,
    one is covered, and clustering 2 (its LP bound exactly the ceiling, 12 · 64) is refuted
    through the reduced-cost fixing within the head-dim limit (theory-scale O13): the best
    design covers 1 of 81, proven (it was "1 of 81, at most 2", stopped by the type set)."""
    p = Problem.create("D4", "48xregular", 6, 64)
    r = partial_search(p, ComputeLimits(12, 64, None), Budget.starting(60))
    assert (len(r.covered), r.of, r.upper_bound) == (1, 81, 1)
    assert 2 in r.infeasible and len(r.infeasible) == 80
    assert not {v.clustering.id: v for v in check_coverage(p, r.design)}[2].covered


def test_the_searches_of_one_call_share_their_demand_bounds(monkeypatch):
    """Each search of a partial-coverage call interns demands in its own catalogue; the
    scenario bound of a demand value (bounds.demand_bound, a program) is solved once per call
    (`DemandBounds`), not once per search that meets it: on Oh 64x(v+t) H8 d32 at (16, 32)
    that took a third of a minute, and the row went from "at most 76" to proven 0 of 315.
    Here: C4, B+E1, H 2, d 1 at (4, 1) (several searches meet the same demands), the same
    answer as without the sharing, no value solved twice."""
    from eqattn.optimize import bounds
    from eqattn.optimize import partial_search as ps

    p = Problem.create("C4", "B+E1", 2, 1)
    solved = []
    real = bounds.demand_bound
    monkeypatch.setattr(bounds, "demand_bound", lambda pr, h, v, *a, **k: solved.append(v.value()) or real(pr, h, v, *a, **k))
    r = partial_search(p, ComputeLimits(4, 1), Budget.starting(120))
    assert r.searches > 3 and solved and len(solved) == len(set(solved))
    assert (len(r.covered), r.upper_bound, r.of) == (2, 2, 3)
    solved.clear()
    monkeypatch.setattr(ps, "DemandBounds", lambda *a: None)  # the searches' own memos only
    again = partial_search(p, ComputeLimits(4, 1), Budget.starting(120))
    assert len(solved) > len(set(solved)) and (len(again.covered), again.upper_bound) == (2, 2)


def test_the_searches_of_one_call_share_their_hosting_classes(monkeypatch):
    """The checkers of a partial-coverage call's searches list the hosting classes of an
    orbit of a design (hosting_sets.HostingSets.hosting_classes, by subgroup and the design's
    orbit types) once per call (`search.Shared.hosting`), not once per search that checks
    the same rounded design: on D4 96xregular H12 d64 at (24, 64), 7887 listings of 261
    distinct ones took 9 s of the minute. Here: C4, B+E1, H 2, d 1 at (4, 1), the same
    answer as without the sharing, no classes listed twice."""
    from eqattn.attention import hosting_sets
    from eqattn.optimize import partial_search as ps

    p = Problem.create("C4", "B+E1", 2, 1)
    listed = []
    real = hosting_sets.HostingSets.hosting_classes

    def counted(self, orbit):
        key = (orbit[0], tuple(o.key() for o in self.search.type_orbit))
        if orbit[0] not in self._hostclass and (self.memo is None or self.memo.get(key) is None):
            listed.append(key)
        return real(self, orbit)

    monkeypatch.setattr(hosting_sets.HostingSets, "hosting_classes", counted)
    r = partial_search(p, ComputeLimits(4, 1), Budget.starting(120))
    assert r.searches > 3 and listed and len(listed) == len(set(listed))
    assert (len(r.covered), r.upper_bound, r.of) == (2, 2, 3)
    listed.clear()
    monkeypatch.setattr(ps, "HostingMemo", lambda problem: None)  # each search's own memo
    again = partial_search(p, ComputeLimits(4, 1), Budget.starting(120))
    assert len(listed) > len(set(listed)) and (len(again.covered), again.upper_bound) == (2, 2)


def test_a_search_for_feasibility_stops_at_its_first_design():
    """`search(..., stop_at_design=True)` (the parts of partial_search ask only whether a
    design exists): D4, regular, H 2, d 2 has the regular design from the start, so the
    search stops there (`feasible`, `design_found`, no final LP bound) where the full search
    goes on to the proven optimum below it."""
    from eqattn.attention import Design
    from eqattn.optimize.search import search

    p = Problem.create("D4", "regular", 2, 2)
    full = search(p, Budget.starting(30))
    quick = search(p, Budget.starting(30), stop_at_design=True)
    assert full.status == "optimal" and full.design.params < Design.regular(p).params
    assert (quick.status, quick.stopped) == ("feasible", "design_found") and quick.design.params == Design.regular(p).params
    assert all(v.covered for v in check_coverage(p, quick.design))


def test_parts_not_searched_before_growing_are_searched_after_it_once(monkeypatch):
    """D4, 48xregular, H6 d64 at (12, 64) under a work limit of 100 units (deterministic): the
    parts phase stops at its share, the growing runs, then the parts not yet searched get
    their turn (RESUME_SHARE); no part is searched twice."""
    from eqattn.optimize import partial_search as ps

    p = Problem.create("D4", "48xregular", 6, 64)
    seen, phase = [], ["parts"]
    search, grow = ps._Runner._search, ps._Runner.grow

    def spy(self, only, until, seconds, work, stop_at_design=False):  # noqa: ANN001, ANN202
        if stop_at_design:
            seen.append((phase[0], only[0].orbits))
        return search(self, only, until, seconds, work, stop_at_design)

    def grown(self, *a, **k):  # noqa: ANN001, ANN202
        out = grow(self, *a, **k)
        phase[0] = "after growing"
        return out

    monkeypatch.setattr(ps._Runner, "_search", spy)
    monkeypatch.setattr(ps._Runner, "grow", grown)
    r = partial_search(p, ComputeLimits(12, 64), Budget.starting(600, work_limit=100))
    parts = [u for _, u in seen]
    assert len(parts) == len(set(parts)) and {ph for ph, _ in seen} == {"parts", "after growing"}
    assert len(r.covered) <= r.upper_bound


def test_oh_vector_plus_trivial_at_twice_the_heads_is_proven_by_parts():
    """Oh, 64x(vector + trivial), H8 d32 within (16, 32) under a work limit of 300 units
    (deterministic; it uses about 64): no design within the budget covers any of the 315
    clusterings, proven (was "at most 76" in 60 s before the shared demand bounds and the
    parts of B4c); parts of one orbit are among the proofs."""
    p = Problem.create("Oh", "64xvector + 64xtrivial", 8, 32)
    r = partial_search(p, ComputeLimits(16, 32), Budget.starting(600, work_limit=300))
    assert (len(r.covered), r.upper_bound, r.of, r.stopped_by) == (0, 0, 315, None)
    assert len(r.infeasible) == 315 and any(len(part) == 1 and part[0][1] == 1 for part in r.parts)
