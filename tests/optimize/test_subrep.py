"""Smaller problems bounding the least cost at head dim <= d (optimize/subrep.py,
widening.cost_below, bounds_below): smaller token spaces (docs/theory-scale.md Lemma B2s),
where every least widening and the fewest parameters grow with V, checked against the
exhaustive reference brute_force.py on pairs V₀ < V, and a covering design of V covers V₀
with the same orbits (coverage checker); and the parity split's part (O21)."""

import pytest
from brute_force import BruteForce, Budget

from eqattn.attention import Design, Problem
from eqattn.attention.coverage import check_coverage
from eqattn.errors import LimitError
from eqattn.optimize import widening
from eqattn.optimize.subrep import sub_problems

# (V₀, V) with V₀ <= V, same G, H, d: multiples, and sums that are not multiples
PAIRS = [
    (("C2", "A+B", 2, 1), ("C2", "2xA+2xB", 2, 1)),
    (("C4", "E1", 2, 1), ("C4", "A+E1", 2, 1)),
    (("C4", "regular", 1, 2), ("C4", "2xregular", 1, 2)),
    (("D4", "E1", 2, 2), ("D4", "A1+E1", 2, 2)),
    (("S3", "[2,1]", 2, 1), ("S3", "regular", 2, 1)),
    (("C2xC2", "A.B + B.A", 1, 2), ("C2xC2", "A.A + A.B + B.A", 1, 2)),
]


@pytest.fixture(scope="module")
def refs():
    return {s: BruteForce(Problem.create(*s)) for pair in PAIRS for s in pair}


def _c_d(bf: BruteForce) -> int:
    return bf.optimum(Budget(max_head_dim=bf.problem.head_dim), "attention_cost").attention_cost


@pytest.mark.parametrize("small, big", PAIRS)
def test_every_least_widening_grows_with_v(small, big, refs):
    a, b = refs[small], refs[big]
    wa, wb = a.least_widening(), b.least_widening()
    assert wa.min_attention_cost <= wb.min_attention_cost
    assert wa.min_heads <= wb.min_heads
    assert _c_d(a) <= _c_d(b)
    if wb.min_head_dim is not None:
        assert wa.min_head_dim is not None and wa.min_head_dim <= wb.min_head_dim
    assert a.optimum(Budget()).params <= b.optimum(Budget()).params


@pytest.mark.parametrize("small, big", PAIRS)
def test_a_covering_design_of_v_covers_the_smaller_v_with_the_same_orbits(small, big, refs):
    p0 = refs[small].problem
    for objective in ("params", "attention_cost"):
        best = refs[big].optimum(Budget(), objective)
        on_small = Design(p0, best.design.orbits)
        assert all(v.covered for v in check_coverage(p0, on_small)), (big, objective)


def test_the_rungs_by_hand():
    # D8, 32xregular, d = 64: V1 = regular (dim 16); the first k with 16 k >= 1.5 x 64 is 6
    subs = sub_problems(Problem.create("D8", "32xregular", 8, 64))
    assert [q.V.dim for q in subs] == [96, 192, 384] and all(q.heads == 8 and q.head_dim == 64 for q in subs)
    assert all(q.V <= Problem.create("D8", "32xregular", 8, 64).V for q in subs)
    # gcd 2 of (4, 2): V1 = 2xA + B; k = 1 only
    assert [str(q.V) for q in sub_problems(Problem.create("C2", "4xA + 2xB", 2, 1))] == ["2xA + B"]
    # no common factor, or no multiple below V large enough
    assert sub_problems(Problem.create("C4", "A + E1", 2, 2)) == []
    assert sub_problems(Problem.create("C4", "2xregular", 1, 8)) == []  # 1.5 x 8 = 12 > dim 8


def test_cost_below_is_the_smaller_problems_least_cost_at_head_dim_d(refs):
    # C2, 4x(A+B), H = 2, d = 1: rungs A + B, 2x(A + B); the largest proven is the bound
    p = Problem.create("C2", "4xA+4xB", 2, 1)
    got = widening.cost_below(p, 20, 1, 10 ** 6)
    assert got == _c_d(refs[("C2", "2xA+2xB", 2, 1)]) <= _c_d(BruteForce(p))
    # it stops at the first rung that reaches `enough`
    assert widening.cost_below(p, 20, 1, 1) == _c_d(BruteForce(Problem.create("C2", "A+B", 2, 1)))
    assert widening.cost_below(Problem.create("C4", "A + E1", 2, 2), 20, 2, 10 ** 6) == 0


def test_the_smaller_problem_proves_the_fewest_heads_without_searching_v(monkeypatch):
    """C2xC2, 2xregular, H = 2, d = 1: the regular design's 8 heads are the fewest; the least
    cost at head dim <= 1 of the regular representation (8) shows it, so the search on V
    itself is never asked (every cost_search call is on a smaller V)."""

    class TooMany:  # the budget program past its sizes: the bisection route
        def __init__(self, *a, **k):  # noqa: ANN002, ANN003
            raise LimitError("types", "too many")

    monkeypatch.setattr(widening, "BudgetProgram", TooMany)
    p = Problem.create("C2xC2", "2xregular", 2, 1)
    seen = []
    real = widening.cost_search
    monkeypatch.setattr(widening, "cost_search", lambda q, *a, **k: seen.append(q.V.dim) or real(q, *a, **k))
    e = widening.fewest_heads(p, 40)
    assert (e.value, e.status, e.lower_bound) == (8, "optimal", 8) == (BruteForce(p).least_widening().min_heads, "optimal", 8)
    assert seen == [4] and e.design is not None and e.design.heads == 8


def test_the_parity_part_comes_first_where_the_parts_are_the_same():
    """bounds_below: Ih, 4xregular: one A5 part (4xregular), twice, before the smaller token
    spaces; Oh, 64x(vector + trivial): parts that differ are not asked, only the smaller
    spaces; a group below PARITY_MIN_ORDER: only the smaller spaces."""
    ih = widening.bounds_below(Problem.create("Ih", "4xregular", 8, 60))
    (part, times), = ih[0]
    assert (part.group.name, part.V.dim, times) == ("A5", 240, 2)
    assert [t[0][0].V.dim for t in ih[1:]] == [120, 240] and all(t[0][1] == 1 for t in ih[1:])
    oh = widening.bounds_below(Problem.create("Oh", "64xvector + 64xtrivial", 8, 32))
    assert all(len(t) == 1 and t[0][0].group.name == "Oh" for t in oh)
    d4h = Problem.create("D4h", "4xregular", 2, 8)
    assert [t[0][0].V for t in widening.bounds_below(d4h)] == [q.V for q in sub_problems(d4h)]


def test_the_parity_bound_against_the_enumeration(monkeypatch):
    """C2xC2 = C2 x C2, 2xregular, H = 2, d = 1 (the split asked at any order here): the part
    (C2, 2xregular) twice bounds the least cost at head dim <= 1 from below, as the brute
    force says (Lemma O21 under the head-dim limit)."""
    monkeypatch.setattr(widening, "PARITY_MIN_ORDER", 1)
    p = Problem.create("C2xC2", "2xregular", 2, 1)
    (part, times), = widening.bounds_below(p)[0]
    assert times == 2 and part.group.order == 2
    exact = _c_d(BruteForce(p))
    got = widening.cost_below(p, 20, 1, 10 ** 6)
    assert times * _c_d(BruteForce(part)) <= got <= exact


def test_smaller_problems_that_overrun_their_share_leave_a_valid_answer(monkeypatch):
    """The searches on smaller problems may end past their share (a search overruns its time
    a little); the search on V then still gets a positive time (it refuses a time limit <= 0
    with an InputError) and the answer stays valid: at most the regular design's 8 heads, at
    least the exhaustive least (8) never exceeded by its bound."""
    import time

    def late(problem, time_limit, max_head_dim, enough):  # noqa: ANN001, ANN202
        time.sleep(time_limit + 1.5)
        return 0

    monkeypatch.setattr(widening, "cost_below", late)
    p = Problem.create("C2xC2", "2xregular", 2, 1)
    e = widening.heads_by_bisection(p, 2)
    assert e.value == 8 and (e.lower_bound or 0) <= 8


def test_the_head_count_comes_first_where_the_parts_are_the_same(monkeypatch):
    """least_widening's schedule (a heuristic; every answer valid): where the parity split's
    parts are the same problem, the head count first (PART_FIRST_SHARE of the time, of which
    its smaller problems get PART_SHARE), then the head dim, then the least cost; elsewhere
    the least cost first. The answers equal the exhaustive ones either way (C2xC2 with the
    split asked at any order here; C4)."""
    monkeypatch.setattr(widening, "PARITY_MIN_ORDER", 1)
    calls: list[tuple[str, float]] = []
    for name in ("fewest_heads", "least_head_dim", "_least_cost", "cost_below"):
        real = getattr(widening, name)
        monkeypatch.setattr(widening, name, lambda *a, _n=name, _r=real, **k: calls.append((_n, a[1])) or _r(*a, **k))
    for spec, first in ((("C2xC2", "2xregular", 2, 1), True), (("C4", "2xregular", 2, 2), False)):
        calls.clear()
        p = Problem.create(*spec)
        w = widening.least_widening(p, 40)
        ref = BruteForce(p).least_widening()
        assert (w.min_attention_cost.value, w.min_heads.value, w.min_head_dim.value) == (
            ref.min_attention_cost, ref.min_heads, ref.min_head_dim), spec
        order = [n for n, _ in calls if n != "cost_below"]
        if first:
            assert order[:3] == ["fewest_heads", "least_head_dim", "_least_cost"]
            assert calls[0][1] == pytest.approx(widening.PART_FIRST_SHARE * 40)
            assert [t for n, t in calls if n == "least_head_dim"] == [pytest.approx(widening.DIM_FIRST_SHARE * 40)]
        else:
            assert order[0] == "_least_cost"
    calls.clear()
    e = widening.heads_by_bisection(Problem.create("C2xC2", "2xregular", 2, 1), 20)
    assert e.value == 8 and calls[0] == ("cost_below", pytest.approx(widening.PART_SHARE * 20))
    calls.clear()
    widening.heads_by_bisection(Problem.create("C4", "4xregular", 2, 1), 20)
    assert calls[0] == ("cost_below", pytest.approx(widening.SMALLER_SHARE * 20))


def test_a_smaller_token_space_with_more_after_it_gets_a_share(monkeypatch):
    """cost_below's schedule (a heuristic; the bound is the largest proven among the rungs):
    each rung but the last gets RUNG_SHARE of the time left, so a slow rung leaves the next
    its chance (A5, 8xregular, H8 d60: 2xregular proves nothing in 26 s, 4xregular proves
    c_60 = 28800 in 8-16 s, and with it the fewest heads); the parity part and the last
    rung get all that is left. Searches stubbed to end at once: the limits they get."""
    got: list[tuple[int, float]] = []

    def instant(q, time_limit, max_head_dim=None):  # noqa: ANN001, ANN202
        got.append((q.V.dim, time_limit))
        return widening.Extent(None, "unknown", 1, None), ()

    monkeypatch.setattr(widening, "cost_search", instant)
    p = Problem.create("C4", "16xregular", 2, 1)
    rungs = [q.V.dim for q in sub_problems(p)]
    assert len(rungs) >= 3
    assert widening.cost_below(p, 100, 1, 10 ** 6) == 1
    assert [v for v, _ in got] == rungs
    assert all(t == pytest.approx(widening.RUNG_SHARE * 100, abs=0.5) for _, t in got[:-1])
    assert got[-1][1] == pytest.approx(100, abs=0.5)
    got.clear()
    monkeypatch.setattr(widening, "PARITY_MIN_ORDER", 1)
    q = Problem.create("C2xC2", "4xregular", 2, 1)
    widening.cost_below(q, 100, 1, 10 ** 6)
    assert got[0] == (8, pytest.approx(100, abs=0.5))  # the part (C2, 4xregular), all the time left
