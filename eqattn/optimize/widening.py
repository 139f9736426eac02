"""The least widening: how much wider than the vanilla layer a covering design must be
(docs/theory-scale.md B1, B2).

Three numbers, each with a status and a valid lower bound: the least attention cost
Σ [G:K_i] dim W_i of any covering design, the fewest heads with every head dim ≤ d, and
the smallest largest head dim with at most H heads.

Where every orbit type has the same parameters per unit of attention cost ρ
(`limits.uniform_ratio`; `V = m × regular` has ρ = 4m, theory-scale B1 / O19b), a design's
parameters are exactly ρ × its attention cost: the fewest-parameter design (the optimiser,
with its proof) is the least-cost one, and its bound divided by ρ bounds the cost. Other V
go to the budget program (budgeted.py) with the cost as objective, and past it to the
optimiser on the problem priced by attention cost (`cost_search`, theory-scale B1d).

    >>> from eqattn.attention import Problem
    >>> w = least_widening(Problem.create("C4", "regular", 2, 1), 20)
    >>> w.min_attention_cost.value, w.min_attention_cost.status, w.params_per_cost
    (6, 'optimal', 4)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Sequence

from ..attention import Design, Problem
from ..attention.assignment import Demand
from ..errors import LimitError
from .budgeted import BudgetProgram, Outcome
from .limits import ComputeLimits, attention_cost, uniform_ratio
from .measure_bound import measure_bound
from .optimizer import DEFAULT_TIME_LIMIT
from .parity import PARITY_MIN_ORDER, parity_split
from .subrep import sub_problems

OBJECTIVES = ("attention_cost", "heads", "max_head_dim")
BOUND_SHARE = 0.25  # of a question's time, for its LP bound in heads or attention cost (measure_bound)
COST_AT_D_SHARE = 0.35  # of the head-count question's time, for the least attention cost at head dim <= d (its bound and design)
SMALLER_SHARE = 0.5  # of the head-count question's time, for that least cost on smaller problems first (bounds_below: O21, B2s)
RUNG_SHARE = 0.5  # of cost_below's time left, for a smaller token space that is not the last (a slow one leaves the next its share: A5 8xregular H8 d60, whose 2x rung proves nothing in 26 s and 4x proves c_60 in 8-16 s)
PART_SHARE = 0.8  # ... instead, where the first of them is the parity split's part (one search, twice: Ih 4xregular H8 d60's proof of 960 heads)
UNDECIDED_GROWTH = 1.5  # a probe after an undecided one gets at least this many times its seconds (least_bound)
COST_SHARE = 0.9  # of least_widening's time for the least attention cost (the headline); the head questions get what it leaves
PART_FIRST_SHARE = 0.4  # of least_widening's time for the head count first where the parity split's parts are the same (O21)
DIM_FIRST_SHARE = 0.1  # ... and then for the head dim, before the least cost
RESUME_MIN_S = 2.0  # seconds left after the three questions that carry an unproven head count on (resume)


@dataclass(frozen=True)
class Extent:
    """One least value: `status` optimal | feasible (value found, not proven least) |
    infeasible (no covering design at all under the other bound) | unknown."""

    value: int | None
    status: str
    lower_bound: int | None  # None when infeasible
    design: Design | None

    def to_json(self) -> dict:
        return {"value": self.value, "status": self.status, "lower_bound": self.lower_bound,
                "design": None if self.design is None else {**self.design.to_json(), "attention_cost": attention_cost(self.design)}}


@dataclass(frozen=True)
class Widening:
    problem: Problem
    min_attention_cost: Extent
    min_heads: Extent  # every head dim <= d
    min_head_dim: Extent  # at most H heads
    params_per_cost: int | None  # ρ when every design has parameters = ρ x attention cost (4m for m x regular)
    time_s: float

    def to_json(self) -> dict:
        p = self.problem
        c = self.min_attention_cost.value
        return {
            "min_attention_cost": self.min_attention_cost.to_json(),
            "min_heads": self.min_heads.to_json(),
            "min_head_dim": self.min_head_dim.to_json(),
            "params_per_cost": self.params_per_cost,
            "vanilla_attention_cost": p.heads * p.head_dim,
            "ratio": None if c is None else c / (p.heads * p.head_dim),
            "statement": self.statement(),
            "time_s": round(self.time_s, 3),
        }

    def statement(self) -> str:
        """The least widening in plain words."""
        p = self.problem
        c = self.min_attention_cost
        base = p.heads * p.head_dim
        if c.value is None:
            return "no covering design was found within the limits"
        proven = "proven" if c.status == "optimal" else f"not proven; at least {c.lower_bound}"
        return (f"every design that keeps the vanilla layer's whole equivariant function class has attention cost "
                f">= {c.lower_bound} ({c.lower_bound / base:.2f} x the layer's {base}); the least found is {c.value} ({proven})")


def uniform_params_per_cost(problem: Problem) -> int | None:
    """ρ (a whole number) when every design has parameters = ρ × attention cost, else None.

        >>> uniform_params_per_cost(Problem.create("D4", "3xregular", 1, 1)), uniform_params_per_cost(Problem.create("C2", "A", 1, 1))
        (12, None)
    """
    r = uniform_ratio(problem)
    return None if r is None or r.denominator != 1 else int(r)


def _from_outcome(r: Outcome) -> Extent:
    if r.status == "infeasible":
        return Extent(None, "infeasible", None, None)
    return Extent(r.value, r.status, r.bound if r.status != "optimal" else r.value or 0, r.design)


def min_attention_cost(problem: Problem, time_limit: float) -> Extent:
    """The least attention cost of a covering design (B1 where parameters = ρ × cost, else B3)."""
    return _least_cost(problem, time_limit)[0]


def _least_cost(problem: Problem, time_limit: float) -> tuple[Extent, tuple]:
    """`min_attention_cost`, and the scenario keys its optimiser met (demand tuples, every
    covering design meets each: `OptimizeResult.scenario_keys`; () from the budget program),
    for the LP bounds of the other questions."""
    from .optimizer import optimize

    rho = uniform_params_per_cost(problem)
    if rho is not None:
        res = optimize(problem, time_limit, constrained=False)
        if res.design is None:
            return Extent(None, "unknown", math.ceil(res.lower_bound / rho), None), res.scenario_keys
        cost = attention_cost(res.design)
        if res.design.params != rho * cost:
            raise RuntimeError("internal error: parameters differ from rho x attention cost")
        status = "optimal" if res.status == "optimal" else "feasible"
        return Extent(cost, status, cost if status == "optimal" else math.ceil(res.lower_bound / rho), res.design), res.scenario_keys
    try:
        prog = BudgetProgram(problem, ComputeLimits())
    except LimitError:
        return cost_search(problem, time_limit)
    return _from_outcome(prog.solve("attention_cost", time_limit=time_limit)), ()


def cost_search(problem: Problem, time_limit: float, max_head_dim: int | None = None) -> tuple[Extent, tuple]:
    """The least attention cost past the budget program: the optimiser on the problem priced
    by attention cost (`Problem.priced`, theory-scale B1d: every orbit counts 4 [G:K] dim W,
    so its least count is 4 × the least cost, with the search's proofs), its design read
    back on the problem; and the scenario keys it met (price-free: coverage only). With
    `max_head_dim`: over the covering designs whose heads all have at most that dimension
    (the optimiser's compute limits, O2; the bound of `heads_by_bisection`, B2).

        >>> e, _ = cost_search(Problem.create("C4", "A + E1", 2, 2), 20)
        >>> e.value, e.status
        (9, 'optimal')
        >>> cost_search(Problem.create("C4", "A + E1", 2, 2), 20, max_head_dim=2)[0].value  # (the least-cost design has a head of dim 3)
        16
    """
    from .optimizer import optimize

    res = optimize(problem.priced("attention_cost"), time_limit, constrained=False, max_head_dim=max_head_dim)
    lower = None if res.lower_bound is None else -(-res.lower_bound // 4)
    if res.status == "infeasible":
        return Extent(None, "infeasible", None, None), res.scenario_keys
    if res.design is None:
        return Extent(None, "unknown", lower, None), res.scenario_keys
    design = Design(problem, res.design.orbits)
    cost = attention_cost(design)
    if 4 * cost != res.design.params:
        raise RuntimeError("internal error: the priced design's count is not 4 x its attention cost")
    lb = min(cost, lower or 0)
    return Extent(cost, "optimal" if lb == cost else "feasible", lb, design), res.scenario_keys


def min_heads(problem: Problem, time_limit: float) -> Extent:
    """The fewest heads of a covering design with every head dim <= d (maximal W suffice:
    coverage is monotone in W and the head count ignores it)."""
    r = BudgetProgram(problem, ComputeLimits(max_head_dim=problem.head_dim), maximal=True).solve("heads", time_limit=time_limit)
    return _from_outcome(r)


def min_head_dim(problem: Problem, time_limit: float) -> Extent:
    """The smallest largest head dim of a covering design with at most H heads, by bisection
    over the bound δ (feasibility is monotone in δ); infeasible when even δ = dim V fails
    (a larger W than V|K never helps, SPEC §5.5)."""
    deadline = time.perf_counter() + time_limit
    lo, hi = 0, problem.dim_v  # lo: proven infeasible (0: no orbit at all), hi: to test
    best: Outcome | None = None
    undecided = False
    top = BudgetProgram(problem, ComputeLimits(max_heads=problem.heads, max_head_dim=hi), maximal=True)
    r = top.solve("heads", time_limit=max(0.1, deadline - time.perf_counter()))
    if r.status == "infeasible":
        return Extent(None, "infeasible", None, None)
    if r.design is None:
        return Extent(None, "unknown", 1, None)
    best = r
    hi = max(o.head_dim for o in r.design.orbits) if r.design.orbits else 0
    if hi == 0:
        return Extent(0, "optimal", 0, r.design)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        left = deadline - time.perf_counter()
        if left <= 0:
            undecided = True
            break
        r = BudgetProgram(problem, ComputeLimits(max_heads=problem.heads, max_head_dim=mid), maximal=True).solve("heads", time_limit=left)
        if r.status == "infeasible":
            lo = mid
        elif r.design is not None:
            best = r
            hi = max(o.head_dim for o in r.design.orbits)
        else:
            undecided = True
            break
    return Extent(hi, "feasible" if undecided else "optimal", lo + 1, best.design)


def least_bound(problem: Problem, lo: int, hi: int, limits_at, measure, time_limit: float, best: Design | None = None) -> Extent:  # noqa: ANN001
    """The least x in (lo, hi] with a covering design within `limits_at(x)`, by bisection with
    the optimiser (`optimize_within`: infeasible is a proof), where the budget program's types
    are too many. Feasibility is monotone in x (the limits grow with x). `hi` must be
    feasible or tested; `lo` is known infeasible (or 0); `measure(design)` is the x a found
    design attains (at most the x it was asked for). `best`: a covering design attaining
    `hi` (then `hi` counts as tested: the bisection carries on from an earlier one).

    A value the optimiser leaves undecided in its share (no design, no proof) is set aside,
    and the next probe is the middle of the interval below it (`_probe`): the optimiser's
    infeasibility proofs come from LP bounds over the scenarios its search meets, about the
    same whatever the limit, so a lower value is likelier decided; an interval above an
    undecided value is probed when none is left below. A probe after an undecided one gets
    at least 1.5 times that one's seconds (halving the share each time left every probe too
    short to decide: S4, 21×regular, H = 8, d = 64 needs about 10 s for one proof). The
    search ends when every value between the ends is undecided, or at the time limit."""
    from .within import optimize_within

    deadline = time.perf_counter() + time_limit
    tested_hi = best is not None
    undecided: set[int] = set()
    last_undecided_s = 0.0
    while True:
        mid = hi if not tested_hi else _probe(lo, hi, undecided)
        left = deadline - time.perf_counter()
        if mid is None or left <= 0.5:
            break
        share = max(left / 2 if tested_hi else left * 0.6, min(left, UNDECIDED_GROWTH * last_undecided_s))
        t = time.perf_counter()
        w = optimize_within(problem, share, **limits_at(mid))
        if w.status == "infeasible":
            if not tested_hi:
                return Extent(None, "infeasible", None, None)
            lo = mid
            undecided = {u for u in undecided if u > lo}
        elif w.design is not None:
            best, hi, tested_hi = w.design, min(mid, measure(w.design)), True
            undecided = {u for u in undecided if u < hi}
        elif not tested_hi:
            break
        else:
            undecided.add(mid)
            last_undecided_s = time.perf_counter() - t
        tested_hi = True
    if best is None:
        return Extent(None, "unknown", lo + 1, None)
    return Extent(hi, "optimal" if hi - lo == 1 else "feasible", lo + 1, best)


def _probe(lo: int, hi: int, undecided: set[int]) -> int | None:
    """The next value `least_bound` asks about: the middle of the lowest open interval between
    consecutive points of {lo} ∪ undecided ∪ {hi} that has a value inside; None when none has.

        >>> _probe(41, 48, set()), _probe(41, 48, {44}), _probe(41, 48, {42, 43, 44}), _probe(41, 48, {42, 43, 44, 45, 46, 47})
        (44, 42, 46, None)
    """
    points = sorted({lo, hi} | {u for u in undecided if lo < u < hi})
    for a, b in zip(points, points[1:]):
        if b - a > 1:
            return (a + b) // 2
    return None


def fewest_heads(problem: Problem, time_limit: float, cost: Extent | None = None, keys: Sequence[tuple[Demand, ...]] = ()) -> Extent:
    """The fewest heads of a covering design with every head dim <= d: the budget program
    (exact) where its types fit, else bisection with the optimiser (`heads_by_bisection`)
    from the larger of the LP bound in heads (O19d; over the empty design's counterexamples
    and `keys`, scenario keys every covering design meets) and ⌈c_d / d⌉ (h heads of dim
    <= d cost at most h d) to the regular design's |G| H heads. `cost`: the least attention
    cost question's answer (`min_attention_cost`), whose bound bounds c_d too; when it is
    proven and its design has every head dim <= d, it is c_d itself (no search again)."""
    try:
        return min_heads(problem, time_limit)
    except LimitError:
        d = problem.head_dim
        at_d = cost if (cost is not None and cost.status == "optimal" and cost.design is not None
                        and all(o.head_dim <= d for o in cost.design.orbits)) else None
        return heads_by_bisection(problem, time_limit, 0 if cost is None else cost.lower_bound or 0, keys, at_d)


def _question(problem: Problem, objective: str):  # noqa: ANN202 - (limits_at, measure) for least_bound
    """A head question as `least_bound` asks it: the limits at x, and the x a design attains."""
    if objective == "heads":
        return (lambda h: {"max_heads": h, "max_head_dim": problem.head_dim}), (lambda a: a.heads)
    if objective == "max_head_dim":
        return (lambda x: {"max_heads": problem.heads, "max_head_dim": x}), (lambda a: max((o.head_dim for o in a.orbits), default=0))
    raise ValueError(f"a head question (heads or max_head_dim), got {objective!r}")


def heads_by_bisection(
    problem: Problem, time_limit: float, cost_lower: int = 0, keys: Sequence[tuple[Demand, ...]] = (), at_d: Extent | None = None,
) -> Extent:
    """`fewest_heads` past the budget program: `least_bound` from the lower bound. First the
    least attention cost c_d of a covering design with every head dim <= d (`at_d` when it
    is known already): h heads of dim <= d cost at most h d, so h >= ⌈c_d / d⌉ (B2), and
    c_d >= `cost_lower` (fewer designs). Its bound comes first from smaller problems
    (`cost_below`, SMALLER_SHARE of the time, PART_SHARE where the parity split's part,
    O21, comes first; then smaller token spaces, B2s), which end the question when they
    show that the regular design's |G| H heads are the fewest; then from V itself
    (`cost_search` under max_head_dim = d, COST_AT_D_SHARE of the question's time, at most
    0.8 of what is left), whose design, when it has fewer heads than the regular design, is
    where the bisection starts from."""
    t0 = time.perf_counter()
    G, H, d = problem.group.order, problem.heads, problem.head_dim
    # the regular design attains |G| H heads of dimension <= d (SPEC §3): the bisection need
    # not spend its first probe finding it
    regular = Design.regular(problem, trimmed=True)
    known = regular if regular.heads == G * H and all(o.head_dim <= d for o in regular.orbits) else None
    top = G * H
    more: tuple = ()
    if at_d is None:
        if known is not None:
            # the least cost at head dim <= d on smaller problems (the parity split's parts, O21;
            # smaller token spaces, B2s): often proven where V's is not, and enough when it
            # shows that fewer than `top` heads cost too little
            share = PART_SHARE if _same_parts(problem) is not None else SMALLER_SHARE
            below = cost_below(problem, share * time_limit, d, (top - 1) * d + 1)
            cost_lower = max(cost_lower, below)
            if -(-cost_lower // d) >= top:
                return Extent(top, "optimal", top, known)
        # (its share of the whole question, as without the smaller problems, while the
        # bisection keeps a fifth of what is left: Oh, 64x(vector + trivial), H8 d64 proves
        # it in about 7 s, after smaller spaces that prove nothing)
        left = t0 + time_limit - time.perf_counter()
        at_d, more = cost_search(problem, max(0.5, min(COST_AT_D_SHARE * time_limit, 0.8 * left)), max_head_dim=d)
    if at_d.design is not None and at_d.design.heads < top:
        known, top = at_d.design, at_d.design.heads
    cost_lower = max(cost_lower, at_d.lower_bound or 0)
    lb = max(measure_bound(problem, "heads", BOUND_SHARE * time_limit, max_head_dim=d, extra=tuple(keys) + tuple(more)),
             -(-cost_lower // d))
    lo = min(max(lb - 1, 0), top - 1)
    return least_bound(problem, lo, top, *_question(problem, "heads"),
                       max(0.5, t0 + time_limit - time.perf_counter()), best=known)


def cost_below(problem: Problem, time_limit: float, max_head_dim: int, enough: int) -> int:
    """A lower bound on the least attention cost of a covering design of `problem` with every
    head dim <= `max_head_dim`, from smaller problems (`bounds_below`): the largest proven
    bound among them, each asked (`cost_search`) in order with the time left (RUNG_SHARE of
    it for a smaller token space with more problems after it); it stops at the first that
    reaches `enough`, or when the time is spent. 0 when there is none.

        >>> cost_below(Problem.create("D4", "4xregular", 2, 4), 20, 4, 10 ** 6)   # (D4, 2xregular, H2 d4: 64)
        64
    """
    deadline = time.perf_counter() + time_limit
    best = 0
    problems = bounds_below(problem)
    for i, terms in enumerate(problems):
        total = 0
        for sub, times in terms:
            left = deadline - time.perf_counter()
            if left < 0.5:
                return best
            if times == 1 and i < len(problems) - 1:  # a smaller token space with more after it
                left *= RUNG_SHARE
            e, _ = cost_search(sub, left, max_head_dim=max_head_dim)
            total += times * (e.lower_bound or 0)
        best = max(best, total)
        if best >= enough:
            break
    return best


def bounds_below(problem: Problem) -> list[tuple[tuple[Problem, int], ...]]:
    """Smaller problems whose least costs (under the same head-dim limit) bound `problem`'s,
    each as the terms of a sum `(problem, times)`: for a group of order >= PARITY_MIN_ORDER
    with a direct factor of order 2 and V₊ ≅ V₋ (as for any multiple of the regular representation),
    one part, twice (Lemma O21: `c(D) = c(D₊) + c(D₋)`); then the smaller token spaces
    `sub_problems` (Lemma B2s), smallest first. Parts that differ are not asked: Oh, 64 ×
    (vector + trivial), has a trivial part whose least cost is small, and asking it first
    cost Oh's d64 row its proof of the fewest heads at 60 s.

        >>> [[(str(q.group.name), str(q.V), k) for q, k in t] for t in bounds_below(Problem.create("Ih", "4xregular", 8, 60))][0]
        [('A5', '4xA + 12xT1 + 12xT2 + 16xG + 20xH', 2)]
    """
    part = _same_parts(problem)
    out: list[tuple[tuple[Problem, int], ...]] = [((part, 2),)] if part is not None else []
    out.extend(((q, 1),) for q in sub_problems(problem))
    return out


def _same_parts(problem: Problem) -> Problem | None:
    """The part of the parity split (O21) of a group of order >= PARITY_MIN_ORDER when both
    parts are the same problem (V₊ ≅ V₋), else None (parts that differ, as for Oh's vector +
    trivial, bound little: not asked)."""
    split = parity_split(problem) if problem.group.order >= PARITY_MIN_ORDER else None
    return split.parts()[0][1] if split is not None and split.same else None


def least_head_dim(problem: Problem, time_limit: float, cost_lower: int = 0) -> Extent:
    """The smallest largest head dim of a covering design with at most H heads: the budget
    program's bisection where its types fit, else `least_bound` with the optimiser from
    ⌈cost_lower / H⌉ (H heads of dim < δ have attention cost < H δ: a design of least cost
    `cost_lower` or more needs δ ≥ cost_lower / H) to dim V."""
    try:
        return min_head_dim(problem, time_limit)
    except LimitError:
        return head_dim_by_bisection(problem, time_limit, cost_lower)


def head_dim_by_bisection(problem: Problem, time_limit: float, cost_lower: int = 0) -> Extent:
    """`least_head_dim` past the budget program: `least_bound` from ⌈cost_lower / H⌉."""
    H = problem.heads
    lo = min(max(-(-cost_lower // H) - 1, 0), problem.dim_v - 1)
    return least_bound(problem, lo, problem.dim_v, *_question(problem, "max_head_dim"), time_limit)


def least(problem: Problem, objective: str, time_limit: float | None = None) -> Extent:
    """One least widening: `objective` "attention_cost" (the least attention cost of a
    covering design), "heads" (the fewest heads with every head dim <= d) or "max_head_dim"
    (the smallest largest head dim with at most H heads); status and a valid lower bound.

        >>> least(Problem.create("C4", "E1", 2, 1), "heads", 10).value
        2
    """
    if objective not in OBJECTIVES:
        from ..errors import InputError

        raise InputError("objective", f"one of {', '.join(OBJECTIVES)}, got {objective!r}")
    tl = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
    if objective == "attention_cost":
        return min_attention_cost(problem, tl)
    if objective == "heads":
        return fewest_heads(problem, tl)
    return least_head_dim(problem, tl)


def least_widening(problem: Problem, time_limit: float | None = None) -> Widening:
    """The three least widenings within `time_limit`: the attention cost first (COST_SHARE:
    the headline; the optimiser returns as soon as it is proven, and its time-limit shares
    need the room: D4, 96×regular, H12 d64 is proven with a share of 45 s, not of 36),
    then the head dim (half of what is left; often infeasible at once), then the head count
    (all that is left), then whatever time is left to an unproven head count or head dim
    (`resume`). Where the budget program's types are too many, the head questions go to
    `least_bound` with the optimiser. Where the parity split's two parts are the same
    problem (O21: `m × regular` of a group of order >= PARITY_MIN_ORDER with a direct
    factor of order 2), the head count is asked first, with PART_FIRST_SHARE of the time
    (one search on the part often proves the regular design's heads the fewest, while the
    least cost at that size may take the whole limit unproven: Ih, 4×regular, H8 d60, 960
    heads proven in 8-16 s; after the cost question, the few seconds it left proved 770),
    then the head dim (DIM_FIRST_SHARE), then the least cost. A schedule: every answer is
    valid."""
    tl = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
    t0 = time.perf_counter()
    heads = dim = None
    if _same_parts(problem) is not None:
        heads = fewest_heads(problem, PART_FIRST_SHARE * tl)
        dim = least_head_dim(problem, DIM_FIRST_SHARE * tl)  # (often infeasible at once: not after a cost question that takes the time)
    cost, keys = _least_cost(problem, COST_SHARE * (t0 + tl - time.perf_counter()))
    if dim is None:
        dim = least_head_dim(problem, max(1.0, (t0 + tl - time.perf_counter()) / 2), cost.lower_bound or 0)
    # the head-dim question often ends at once (infeasible: H heads cannot cover): the head
    # count gets what it leaves, so its search for the least cost at head dim <= d has the
    # room to prove it (S4, 16xregular, H6 d64: ~10 s, which proves the fewest heads)
    if heads is None:
        heads = fewest_heads(problem, max(1.0, t0 + tl - time.perf_counter()), cost, keys)
    # the time left carries an unproven head count on, then an unproven head dim
    left = t0 + tl - time.perf_counter()
    if left > RESUME_MIN_S:
        heads = resume(problem, heads, "heads", left)
    left = t0 + tl - time.perf_counter()
    if left > RESUME_MIN_S:
        dim = resume(problem, dim, "max_head_dim", left)
    return Widening(problem, cost, heads, dim, uniform_params_per_cost(problem), time.perf_counter() - t0)


def resume(problem: Problem, extent: Extent, objective: str, time_limit: float) -> Extent:
    """A head question left `feasible` carried on for `time_limit` more seconds: `least_bound`
    from its valid bound and its covering design, which attains its value (so the value
    only falls and the bound only rises). Other extents come back as they are.

        >>> p = Problem.create("S3", "regular", 2, 1)
        >>> e = resume(p, Extent(12, "feasible", 2, Design.regular(p)), "heads", 60)
        >>> e.value, e.status, e.lower_bound
        (8, 'optimal', 8)
    """
    if extent.status != "feasible" or extent.design is None or extent.value is None or extent.lower_bound is None:
        return extent
    r = least_bound(problem, extent.lower_bound - 1, extent.value, *_question(problem, objective), time_limit, best=extent.design)
    return Extent(r.value, r.status, max(r.lower_bound or 0, extent.lower_bound), r.design)
