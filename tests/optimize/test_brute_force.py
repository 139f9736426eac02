"""The exhaustive reference (brute_force.py) against the hand-worked cases of SPEC §6 and
facts that follow from the definitions alone (tests of the reference itself)."""

from brute_force import BruteForce, Budget
from eqattn.attention import Problem


def test_spec_examples_optima():
    # SPEC §6: the four worked examples all have optimum 8
    for g, v, H, d in [("C4", "E1", 1, 2), ("C4", "E1", 2, 1), ("C2", "A+B", 1, 1), ("C3", "E1", 4, 1)]:
        best = BruteForce(Problem.create(g, v, H, d)).optimum(Budget())
        assert (best.status, best.params) == ("optimal", 8), (g, v, H, d)


def test_example2_widening_and_partial():
    # SPEC §6.2: [(C2, B)] (2 heads of dim 1) is the cheapest cover; nothing cheaper covers
    bf = BruteForce(Problem.create("C4", "E1", 2, 1))
    w = bf.least_widening()
    assert (w.min_attention_cost, w.min_heads, w.min_head_dim) == (2, 2, 1)
    assert [(p.attention_cost, p.params) for p in bf.front()] == [(2, 8)]
    # one head: only (C4, E1) (W <= V|C4 = E1), P = 4 dim End(E1) = 8. It covers {(C4,1),(C4,1)}
    # (nothing to cover) and {(C4,2)} (the zero pool, D = E1 = Ind_C4^C4 E1), not {(C2,1)}
    # (its option has K̄ = C2, and C4 is not inside C2)
    part = bf.partial(Budget(max_heads=1))
    assert (part.covered, part.of, part.params, part.heads) == (2, 3, 8, 1)


def test_example3_needs_head_dim_two():
    # SPEC §6.3: [(C2, A), (C2, B)] does not cover; [(C2, A+B)] does: at head dim 1 with
    # at most 2 heads nothing covers, and the empty design is the best partial (0 of 1)
    bf = BruteForce(Problem.create("C2", "A+B", 1, 1))
    assert bf.optimum(Budget(max_head_dim=1, max_heads=1)).status == "infeasible"
    assert bf.least_widening().min_head_dim == 2
    part = bf.partial(Budget(max_heads=1, max_head_dim=1))
    assert (part.covered, part.of, part.params) == (0, 1, 0)
    assert bf.optimum(Budget(max_heads=1, max_head_dim=2)).params == 8


def test_designs_listing_is_complete():
    # every multiset of types within the budget, each type at most H times: C2, V = A + B has
    # types (C1, A), (C2, A), (C2, B), (C2, A+B) and (C1, 2A) (dims 1, 1, 1, 2, 2; heads 2,1,1,1,2)
    bf = BruteForce(Problem.create("C2", "A+B", 2, 1))
    keys = list(bf.designs(Budget(max_heads=2)))
    assert len(keys) == len(set(keys))
    assert all(bf.summary(k)[1] <= 2 for k in keys)
    # by hand: 1 (empty) + 5 single orbits + C(3+1, 2) = 6 pairs of the 3 one-head types
    assert len(keys) == 1 + 5 + 6
