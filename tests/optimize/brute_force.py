"""Exhaustive reference for the budget questions on small problems (|G| <= 8, dim V <= 8,
H <= 4, d <= 3): every design (a multiset of orbit types (K, W)) within a budget is listed
and checked with the coverage checker (`eqattn.attention.check_coverage`, SPEC §4.5).

Nothing here uses the optimiser (eqattn.optimize): the answers come from listing designs,
so they are an independent route for the least widening, the constrained optima and their
infeasibility, the front of (attention cost, parameters) and the best partial coverage.

What is listed, and why it is complete:

* orbit types: every subgroup class K and every non-zero W <= V|K (SPEC §5.5: a W with
  more of an irrep than V|K has hosts and supplies no larger after clipping, and its
  parameters are the same, while its head dimension and attention cost only grow; so the
  optimum of every question below is attained with W <= V|K);
* designs: every multiset of types within the budget (`max_heads` bounds Σ [G:K_i],
  `max_head_dim` every dim W_i, `max_cost` Σ [G:K_i] dim W_i, `max_params` Σ 4 dim
  Hom_K(V, W)); a budget that leaves the list infinite is refused;
* coverage: the exact checker, memoised per design.

Only the least head dimension and least head count use a reduction (each W replaced by a
maximal W within the head-dimension bound), justified by the monotonicity of coverage in W
(SPEC §4.4: a larger W hosts every option a smaller one hosts, through the same double
cosets, and supplies at least as much). Everything else enumerates all designs.

    >>> from eqattn.attention import Problem
    >>> bf = BruteForce(Problem.create("C4", "E1", 2, 1))
    >>> bf.least_widening().min_attention_cost, bf.optimum(Budget()).params
    (2, 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Iterator

from eqattn.attention import Design, DesignOrbit, Problem, check_clustering, check_coverage, clusterings
from eqattn.attention.coverage import uses_symbolic
from eqattn.reps import Rep

MAX_DESIGNS = 60000  # designs listed for one question (refused past it: the problem is not small)


@dataclass(frozen=True)
class Budget:
    """Bounds on a design; None = no bound."""

    max_heads: int | None = None
    max_head_dim: int | None = None
    max_cost: int | None = None
    max_params: int | None = None


@dataclass(frozen=True)
class Best:
    """The answer of a question over designs: `status` "optimal" or "infeasible"."""

    status: str
    params: int | None = None
    heads: int | None = None
    max_head_dim: int | None = None
    attention_cost: int | None = None
    design: Design | None = None
    covered: int | None = None  # partial coverage: clusterings covered
    of: int | None = None


@dataclass(frozen=True)
class Widening:
    min_attention_cost: int
    min_heads: int  # every head dim <= d
    min_head_dim: int | None  # at most H heads; None: no design with <= H heads covers (dims up to dim V)


def _fields(b: Budget) -> tuple[int | None, int | None, int | None, int | None]:
    return (b.max_heads, b.max_head_dim, b.max_cost, b.max_params)


class BruteForce:
    """All designs of a small problem, with their coverage memoised."""

    def __init__(self, problem: Problem) -> None:
        if uses_symbolic(problem):
            raise ValueError("not a small problem: the checker would not enumerate its scenarios")
        self.problem = problem
        self.types: list[DesignOrbit] = []
        for K in problem.group.subgroup_classes:
            top = problem.restrict(K).mults
            for mults in product(*(range(m + 1) for m in top)):
                W = Rep(K, tuple(mults))
                if W.dim > 0:
                    self.types.append(DesignOrbit(K, W))
        self.clusterings = clusterings(problem)
        self.n_clusterings = len(self.clusterings)
        self._covers: dict[tuple[int, ...], bool] = {}
        self._last_failed = -1
        self._covered: dict[tuple[int, ...], frozenset[int]] = {}
        self.checks = 0

    # --- the designs ---------------------------------------------------------------------
    def cost(self, t: int) -> int:
        o = self.types[t]
        return o.heads * o.head_dim

    def params(self, t: int) -> int:
        return self.types[t].params(self.problem)

    def designs(self, budget: Budget, types: list[int] | None = None, prune=None) -> Iterator[tuple[int, ...]]:  # noqa: ANN001
        """Every multiset of types (sorted tuples of type indices) within `budget`, each type at
        most H times (an assignment uses distinct orbits, one per demand, and a scenario has at
        most H demands: copies past H are never used, and dropping them lowers every cost).

        `prune(chosen, top)`, if given, is called with the partial design and the largest
        design every completion of it lies under (the partial design plus H copies of each type still
        allowed, as many as fit); when it returns True the branch is skipped. Coverage is
        monotone in the design, so `lambda chosen, top: not self.covers(top)` skips only branches
        with no covering design."""
        pool = [t for t in (range(len(self.types)) if types is None else types)
                if budget.max_head_dim is None or self.types[t].head_dim <= budget.max_head_dim]
        H = self.problem.heads
        listed = [0]
        inf = 1 << 60
        use = {t: (self.types[t].heads, self.cost(t), self.params(t)) for t in pool}

        def fits(t: int, left: tuple[int, int, int]) -> int:
            return min([H] + [l // u for l, u in zip(left, use[t]) if u > 0])

        def rec(i: int, left: tuple[int, int, int], chosen: list[int]) -> Iterator[tuple[int, ...]]:
            if prune is not None:
                top = list(chosen)
                for t in pool[i:]:
                    top += [t] * fits(t, left)
                if prune(tuple(chosen), tuple(sorted(top))):
                    return
            yield tuple(chosen)
            listed[0] += 1
            if listed[0] > MAX_DESIGNS:
                raise ValueError(f"more than {MAX_DESIGNS} designs within {budget}: not a small problem")
            for j in range(i, len(pool)):
                t = pool[j]
                if chosen.count(t) >= H:
                    continue
                left2 = tuple(l - u for l, u in zip(left, use[t]))
                if min(left2) < 0:
                    continue
                chosen.append(t)
                yield from rec(j, left2, chosen)  # type: ignore[arg-type]
                chosen.pop()

        yield from rec(0, tuple(inf if b is None else b for b in (budget.max_heads, budget.max_cost, budget.max_params)), [])  # type: ignore[arg-type]

    def design(self, key: tuple[int, ...]) -> Design:
        return Design(self.problem, tuple(self.types[t] for t in key))

    def covered(self, key: tuple[int, ...]) -> frozenset[int]:
        """Ids of the clusterings the design covers (the exact checker)."""
        if key not in self._covered:
            self.checks += 1
            verdicts = check_coverage(self.problem, self.design(key))
            self._covered[key] = frozenset(v.clustering.id for v in verdicts if v.covered)
        return self._covered[key]

    def uncovering(self, chosen: tuple[int, ...], top: tuple[int, ...]) -> bool:
        """A prune for `designs`: no design under `top` covers every clustering."""
        return not self.covers(top)

    def covers(self, key: tuple[int, ...]) -> bool:
        """Whether the design covers every clustering: the same checker clustering by
        clustering (`check_clustering`), stopping at the first one not covered (the last
        clustering found uncovered is tried first)."""
        if key in self._covered:
            return len(self._covered[key]) == self.n_clusterings
        if key not in self._covers:
            self.checks += 1
            design = self.design(key)
            order = sorted(self.clusterings, key=lambda c: c.id != self._last_failed)
            ok = True
            for c in order:
                if not check_clustering(self.problem, design, c).covered:
                    self._last_failed, ok = c.id, False
                    break
            self._covers[key] = ok
        return self._covers[key]

    def summary(self, key: tuple[int, ...]) -> tuple[int, int, int, int]:
        """(params, heads, largest head dim, attention cost)."""
        os = [self.types[t] for t in key]
        return (sum(self.params(t) for t in key), sum(o.heads for o in os),
                max((o.head_dim for o in os), default=0), sum(self.cost(t) for t in key))

    def _best(self, key: tuple[int, ...], covered: int | None = None) -> Best:
        p, h, dm, c = self.summary(key)
        return Best("optimal", p, h, dm, c, self.design(key), covered, self.n_clusterings)

    # --- the questions -------------------------------------------------------------------
    def optimum(self, budget: Budget, objective: str = "params") -> Best:
        """The covering design within `budget` that is least for `objective` ("params": ties
        fewer heads, then a smaller largest head dim; "attention_cost": ties fewer params), or
        infeasible (no design within the budget covers: the pruned listing finds none).
        Otherwise the objective is raised level by level (params by 4, cost by 1) until a
        level holds a covering design; that level is the optimum."""
        if not any(self.covers(k) for k in self.designs(budget, prune=self.uncovering)):
            return Best("infeasible")
        col, step = {"params": (0, 4), "attention_cost": (3, 1)}[objective]
        rank = {"params": lambda s: (s[0], s[1], s[2]), "attention_cost": lambda s: (s[3], s[0])}[objective]
        level = 0
        while True:
            b = list(_fields(budget))
            i = {"params": 3, "attention_cost": 2}[objective]
            b[i] = level if b[i] is None else min(level, b[i])
            found = [k for k in self.designs(Budget(*b), prune=self.uncovering)
                     if self.summary(k)[col] == level and self.covers(k)]
            if found:
                return self._best(min(found, key=lambda k: rank(self.summary(k))))
            level += step

    def least_widening(self) -> Widening:
        """The least attention cost of a covering design; the fewest heads with every head dim
        <= d; the smallest largest head dim with at most H heads (None when none covers)."""
        p = self.problem
        c = 0
        while True:  # the regular design (cost |G| H min(d, dim V)) covers: this ends
            if any(self.covers(k) for k in self.designs(Budget(max_cost=c), prune=self.uncovering)
                   if self.summary(k)[3] == c):
                break
            c += 1
        heads = 0
        maximal_d = self._maximal_types(p.head_dim)
        while not any(self.covers(k) for k in self.designs(Budget(max_heads=heads), maximal_d, self.uncovering)
                      if self.summary(k)[1] == heads):
            heads += 1
        dim = None
        for delta in range(0, p.dim_v + 1):
            if any(self.covers(k) for k in self.designs(Budget(max_heads=p.heads), self._maximal_types(delta), self.uncovering)):
                dim = delta
                break
        return Widening(c, heads, dim)

    def _maximal_types(self, max_dim: int) -> list[int]:
        """Per subgroup, the types whose W is maximal among those of dim <= max_dim (coverage
        is monotone in W, so a least head count or head dim is attained with them)."""
        ok = [t for t, o in enumerate(self.types) if o.head_dim <= max_dim]
        return [t for t in ok if not any(
            s != t and self.types[s].sub.id == self.types[t].sub.id and self.types[t].W <= self.types[s].W for s in ok)]

    def front(self) -> list[Best]:
        """The Pareto front of (attention cost, params) over covering designs: by increasing
        cost, strictly decreasing params; each point the least params at its cost (ties:
        fewer heads, smaller largest head dim). Every point has params <= those of the least-
        cost covering design, so listing the designs within those params is complete."""
        w = self.least_widening().min_attention_cost
        first = self.optimum(Budget(max_cost=w), "attention_cost")
        assert first.params is not None
        best_at: dict[int, tuple[int, ...]] = {}
        for key in self.designs(Budget(max_params=first.params), prune=self.uncovering):
            s = self.summary(key)
            b = best_at.get(s[3])
            if b is not None and self.summary(b)[:3] <= s[:3]:
                continue
            if self.covers(key):
                best_at[s[3]] = key
        points = []
        for c in sorted(best_at):
            if not points or self.summary(best_at[c])[0] < points[-1].params:
                points.append(self._best(best_at[c]))
        return points

    def partial(self, budget: Budget) -> Best:
        """The design within `budget` covering the most clusterings, then the fewest params
        (then fewer heads, smaller largest head dim)."""
        best = None

        def worse(chosen: tuple[int, ...], top: tuple[int, ...]) -> bool:  # no completion covers as many as the best so far
            return best is not None and len(self.covered(top)) < -best[0][0]

        for key in self.designs(budget, prune=worse):
            s = self.summary(key)
            r = (-len(self.covered(key)), s[0], s[1], s[2])
            if best is None or r < best[0]:
                best = (r, key)
        assert best is not None  # the empty design is always within the budget
        return self._best(best[1], -best[0][0])

    def curve(self, costs: list[int]) -> list[int]:
        """The most clusterings covered by a design of attention cost <= c, for each c."""
        out = []
        for c in costs:
            most = [0]

            def no_more(chosen: tuple[int, ...], top: tuple[int, ...]) -> bool:
                return len(self.covered(top)) <= most[0]

            for k in self.designs(Budget(max_cost=c), prune=no_more):
                most[0] = max(most[0], len(self.covered(k)))
            out.append(most[0])
        return out

    def iter_covering(self, budget: Budget) -> Iterator[tuple[int, ...]]:
        for key in self.designs(budget):
            if self.covers(key):
                yield key
