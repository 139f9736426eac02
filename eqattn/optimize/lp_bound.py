"""The LP bound: the linear relaxation of the optimiser's program over *every* orbit type,
by column generation (docs/theory-scale.md O11).

The program of a round (program.py) over a scenario set `S` and all types `t = (K', W)`,
`0 < W ≤ V|K'`, is a relaxation of the covering problem (Lemma O1), so its linear relaxation
is one too. Its dual reads: find `μ_{s,j,σ} ≥ 0` (one per demand irrep of each scenario) and
`λ ≥ 0` (the `max_heads` row) with, for every type t,

    π(t) - [G:K'] λ ≤ c_t,     π(t) = Σ_s max(0, max_{j, a hosting} Σ_σ μ_{s,j,σ} min(S_σ, D_σ)),

(`S` the supply of t through the double coset `a`, SPEC §4.4); then every covering design
costs at least `Σ D μ - max_heads λ` (units, P/4). The types are far too many to list at real
sizes, so the LP is solved over a few of them (the *master*; once solving it afresh is slow, kept in one HiGHS
model and warm-started across the rounds: `MasterRounds`), and a *pricing* program per
subgroup `K'` — an integer program over the multiplicities of W — finds the type of largest
`π(t) - c_t - [G:K'] λ` for the master's duals. When that is `δ > 0`, the duals scaled by
`1/θ`, `θ = 1 + δ / c_min`, are still feasible for every type (Farley's bound), so each
round gives a certified bound, and the last one is the LP optimum itself.

    >>> from eqattn.attention import Problem
    >>> from eqattn.attention.hosting import hosting
    >>> from eqattn.optimize.separation import ScenarioSpace
    >>> p = Problem.create("C4", "E1", 2, 1)   # SPEC §6.2: the optimum is 8 parameters
    >>> space = ScenarioSpace(p)
    >>> b = lp_bound(p, hosting(p), space.values, space.initial_keys(), start=())
    >>> 4 * b.units, b.converged
    (8, True)
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from ..attention import Problem
from ..attention.assignment import Demand
from ..attention.hosting import Hosting
from . import solver
from .hosts import box, saturating
from .lp_duals import Certificate, Column, Slots, profits, supply_entries
from .lp_master import MasterRounds

MAX_ROUNDS = 200  # column-generation rounds in one call (quick and exact pricing rounds)
QUICK_COLUMNS = 3  # columns added per subgroup by one quick pricing round
PRICE_TIME = 20.0  # seconds per pricing program at most ...
PRICE_NODES = 2000  # ... or, under a work limit (deterministic), branch-and-bound nodes
PRICE_ENUMERATE = 5000  # types on a subgroup up to which pricing enumerates them instead of solving a program
EPS = 1e-7  # a pricing profit at most this is "no improving type"
SHORT_EPS = 1e-6  # a shortfall at most this is "the key is met"
SEPARATE_KEYS = 20  # keys joining the master per separation round at most
WARM_ITERATIONS = 3000  # once a master solved afresh took this many simplex iterations, the masters are warm-started from the last round's basis
DISAGGREGATE = True  # a key's slots share W in the pricing program (each its own copy z, Σ z ≤ W); a switch for the tests
PRICE_HEURISTICS = False  # the pricing programs with HiGHS's primal heuristics (solver.NO_HEURISTICS; a switch for the benchmarks)
FULL_PRICING = 4  # every this many exact pricing rounds price every subgroup (a certified bound); the others stop at the first improving subgroup

def measured(problem: Problem, measure: str) -> tuple[Problem, str]:
    """The problem and `lp_bound` objective whose bound is in `measure`: "attention_cost" is
    "params" on the problem priced by attention cost (`Problem.priced`, theory-scale B1d: its
    units are the cost); "params", "heads" and "shortfall" are objectives of their own.

        >>> from eqattn.attention import Problem
        >>> q, o = measured(Problem.create("C4", "E1", 2, 1), "attention_cost"); q.price, o
        ('attention_cost', 'params')
    """
    if measure == "attention_cost":
        return problem.priced("attention_cost"), "params"
    return problem, measure


@dataclass(frozen=True)
class LPBound:
    units: int  # the certified lower bound of every covering design, in units (P/4); 0 when none
    value: float  # the certificate's value before rounding up
    converged: bool  # the last master was the LP optimum over all types
    rounds: int
    columns: tuple[Column, ...]  # the master's types
    support: tuple[Column, ...]  # types with n_t > 0 in the last master's optimum
    certificate: Certificate | None
    active: tuple[int, ...] = ()  # positions of the keys with a positive dual in the last master (the next call's start)
    solution: tuple[tuple[Column, float], ...] = ()  # (type, n_t > 0) of the last master's optimum (a fractional design)
    work: int = 0  # simplex iterations and pricing nodes the call used


def _unmet(
    support: Sequence[tuple[Column, float]], outside: Sequence[int], keys: Sequence[tuple[int, ...]], values: Sequence[Demand],
    entries, threads: int | None, time_limit: float, spent: list[int] | None = None,  # noqa: ANN001 - entries: (column, key) -> rows
) -> list[tuple[float, int]] | None:
    """(shortfall, position) of the keys at `outside` that the fractional design `support`
    ((type, n_t) with n_t > 0) does not meet: the least total shortfall `Σ z` of
    `Σ_{t,slot} S·y + z ≥ D`, `Σ_{j,slot} y_t ≤ n_t` (the master's rows of that key), one
    small LP for all of them (its blocks are independent). Most short first; None when the
    LP was not solved (time)."""
    cost: list[float] = []
    rows: list[tuple[list[int], list[float], float, float]] = []
    zs: list[tuple[int, int, int]] = []  # (key position, first z, end)
    for s in outside:
        key = keys[s]
        first = len(cost)
        srow: dict[tuple[int, int], int] = {}
        for j, vi in enumerate(key):
            for g, x in enumerate(values[vi].D.mults):
                if x > 0:
                    srow[(j, g)] = len(rows)
                    rows.append(([len(cost)], [1.0], float(x), np.inf))
                    cost.append(1.0)
        end = len(cost)
        for col, n in support:
            ys = []
            for j, sup in entries(col, s):
                y = len(cost)
                cost.append(0.0)
                ys.append(y)
                for g in np.nonzero(sup)[0]:
                    r = srow.get((j, int(g)))
                    if r is not None:
                        rows[r][0].append(y)
                        rows[r][1].append(float(sup[g]))
            if ys:
                rows.append((ys, [1.0] * len(ys), -np.inf, float(n)))
        zs.append((s, first, end))
    if not cost:
        return []
    sol = solver.solve_linear(cost, [0.0] * len(cost), [np.inf] * len(cost), rows, time_limit=time_limit, threads=threads)
    if spent is not None:
        spent[0] += sol.work
    if sol.status != "optimal":
        return None
    short = [(float(sol.values[a:b].sum()), s) for s, a, b in zs]
    return sorted(((v, s) for v, s in short if v > SHORT_EPS), reverse=True)


def _price(
    sub: int, slots: Slots, values: Sequence[Demand], keys: Sequence[tuple[int, ...]], mu: dict, lam: float,
    max_head_dim: int | None, time_limit: float, threads: int | None, spent: list[int] | None = None, node_limit: int | None = None,
) -> tuple[float, tuple[int, ...] | None, bool]:
    """max over W ≤ V|K' of π(W) - c(W) - [G:K'] λ (an upper bound of it when the program
    stops early), the best W found (None if none has positive profit), and whether the
    maximum is exact (False when the program stopped early: then the upper bound may be
    positive with no W found, and no convergence can be read off it). Over at most
    `PRICE_ENUMERATE` W's the profits of all of them are computed instead (`profits`).
    A scenario's slots (demand, coset) each read their own copy `z ≤ M x` of W, the copies
    summing to at most W (`DISAGGREGATE`; the same integer optimum, a much tighter
    relaxation: theory-scale O11, "A key's slots share W")."""
    ref = slots.subs[sub]
    if math.prod(int(x) + 1 for x in ref.VK) <= PRICE_ENUMERATE:
        Ws = box(np.zeros(len(ref.VK), dtype=np.int64), ref.VK)[1:]  # W = 0 left out
        if max_head_dim is not None:
            Ws = Ws[Ws @ ref.dims <= max_head_dim]
        if not len(Ws):
            return -ref.K.index * lam, None, True
        prof = profits(sub, Ws, slots, values, keys, mu, lam)
        i = int(np.argmax(prof))
        return float(prof[i]), (tuple(int(x) for x in Ws[i]) if prof[i] > EPS else None), True
    nt = len(ref.VK)
    cost: list[float] = [-float(u) for u in slots.linear(sub)]
    lb: list[float] = [0.0] * nt
    ub: list[float] = [float(v) for v in ref.VK]
    integer = [True] * nt
    rows: list[tuple[list[int], list[float], float, float]] = []
    if max_head_dim is not None:
        rows.append((list(range(nt)), [float(x) for x in ref.dims], -np.inf, float(max_head_dim)))
    for s, key in enumerate(keys):
        chosen = []  # the key's slots: (j, demand, slot, the σ it can supply with a dual)
        for j, vi in enumerate(key):
            D = values[vi].D.mults
            for sl in slots.by_value[vi]:
                if sl.K.id != sub:
                    continue
                sig = [g for g in range(len(D)) if D[g] > 0 and mu.get((s, j, g), 0.0) > 0 and (sl.unit[:, g] > 0).any()]
                if sig:
                    chosen.append((j, D, sl, sig))
        split = DISAGGREGATE and len(chosen) > 1
        xs = []
        shares: dict[int, list[int]] = defaultdict(list)  # t -> the slots' copies of W_t
        for j, D, sl, sig in chosen:
            x = len(cost)
            cost.append(0.0)
            lb.append(0.0)
            ub.append(1.0)
            integer.append(True)
            xs.append(x)
            if split:
                # the slot's own copy z ≤ W of the coordinates it uses, the copies of one key
                # summing to at most W (one slot is chosen: z = W there, 0 elsewhere), so a
                # fractional choice of slots shares W instead of each slot using all of it
                # z_t ≤ M x: W_t past M adds nothing to the slot's hosting and supply of its σ
                M = saturating(sl, [D[g] if g in sig else 0 for g in range(len(D))])
                z = {}
                for t in np.flatnonzero((sl.img > 0) | (sl.unit[:, sig] > 0).any(axis=1)):  # (what the slot hosts or supplies through)
                    t = int(t)
                    z[t] = len(cost)
                    cost.append(0.0)
                    lb.append(0.0)
                    ub.append(float(M[t]))
                    integer.append(False)
                    shares[t].append(z[t])
                    rows.append(([z[t], x], [1.0, -float(M[t])], -np.inf, 0.0))  # z ≤ M x
                    if sl.img[t] > 0:  # hosting: z ≥ img when x = 1
                        rows.append(([z[t], x], [1.0, -float(sl.img[t])], 0.0, np.inf))
            else:
                z = {t: t for t in range(nt)}
                for t in range(nt):
                    if sl.img[t] > 0:  # hosting: W ≥ img when x = 1
                        rows.append(([t, x], [1.0, -float(sl.img[t])], 0.0, np.inf))
            for g in sig:
                q = len(cost)
                cost.append(mu[(s, j, g)])
                lb.append(0.0)
                ub.append(float(D[g]))
                integer.append(False)
                rows.append(([q, x], [1.0, -float(D[g])], -np.inf, 0.0))  # q ≤ D_σ x
                ts = [t for t in range(nt) if sl.unit[t, g] > 0]
                rows.append(([q] + [z[t] for t in ts], [1.0] + [-float(sl.unit[t, g]) for t in ts], -np.inf, 0.0))  # q ≤ (W unit)_σ
        for t, zs in shares.items():
            rows.append((zs + [t], [1.0] * len(zs) + [-1.0], -np.inf, 0.0))  # Σ z_t ≤ W_t
        if len(xs) > 1:
            rows.append((xs, [1.0] * len(xs), -np.inf, 1.0))  # one demand and coset per scenario
    heads, fixed = ref.K.index, slots.fixed(sub)
    # the linear relaxation first: its optimum bounds the program's (a maximum over more
    # points); when it shows no improving W, the program is not needed (O11, screening)
    relaxed = solver.solve_linear(cost, lb, ub, rows, maximize=True, time_limit=time_limit, threads=threads)
    if spent is not None:
        spent[0] += relaxed.work
    if relaxed.status == "optimal" and relaxed.objective is not None and relaxed.objective - heads * lam - fixed <= EPS:
        return relaxed.objective - heads * lam - fixed, None, True
    sol = solver.solve_linear(cost, lb, ub, rows, integer, maximize=True, time_limit=time_limit, threads=threads, node_limit=node_limit,
                              heuristics=PRICE_HEURISTICS)
    if spent is not None:
        spent[0] += sol.work
    if sol.status == "infeasible":  # (W = 0 is always feasible)
        raise RuntimeError("internal error: a pricing program is infeasible")
    upper = sol.bound - heads * lam - fixed
    best = None
    if sol.values is not None and sol.objective is not None and sol.objective - heads * lam - fixed > EPS:
        best = tuple(int(round(v)) for v in sol.values[:nt])
    return upper, best, sol.status == "optimal"


def _quick_pricing(slots, support, pools, values, wkeys, mu, lam, add) -> int:  # noqa: ANN001
    """The quick pricing: the profits of joins of the LP's types and of the candidates; the
    QUICK_COLUMNS most profitable of each subgroup are added (`add`). How many were new."""
    new = 0
    for sub in slots.subs:
        mine = [np.asarray(c[1], dtype=np.int64) for c in support if c[0] == sub]
        pool = [np.maximum(a, b) for i, a in enumerate(mine) for b in mine[i + 1:]] + pools.get(sub, [])
        if not pool:
            continue
        Ws = np.unique(np.array(pool), axis=0)
        prof = profits(sub, Ws, slots, values, wkeys, mu, lam)
        for i in np.argsort(-prof)[:QUICK_COLUMNS]:
            if prof[i] > EPS and add((sub, tuple(int(x) for x in Ws[i]))):
                new += 1
    return new


def _exact_pricing(slots, values, wkeys, mu, lam, max_head_dim, deadline, work_limit, threads, spent, add, partial, yielded):  # noqa: ANN001, ANN202
    """The exact pricing, one program per subgroup: `(theta, priced, improving, exact)`.
    `theta` scales the duals into a certified bound (Farley); `priced` is False when a
    program stopped short or a `partial` round stopped at the first subgroup with an
    improving type; `improving` lists the subgroups that gave a new type; `exact` is False
    when a program stopped early with a finite upper bound (its θ is valid, but no improving
    type found does not mean there is none). The subgroups are priced in the order of the
    exact round in which they last gave a type (`yielded`, latest first; then in order), so
    that a partial round asks the subgroups that still improve before the many that price
    out (a schedule: a full round prices them all, and only a full round or one in which no
    subgroup improves certifies)."""
    theta = 1.0
    priced = True
    exact = True
    improving: list[int] = []
    for sub in sorted(slots.subs, key=lambda s: -yielded.get(s, -1)):
        if partial and improving:
            return theta, False, improving, exact
        left = deadline - time.perf_counter()
        if left <= 0:
            priced = False
            break
        upper, W, solved = _price(
            sub, slots, values, wkeys, mu, lam, max_head_dim, left if work_limit is not None else min(PRICE_TIME, left), threads,
            spent, PRICE_NODES if work_limit is not None else None,
        )
        exact = exact and solved
        if not math.isfinite(upper):
            priced = False
            break
        cmin = slots.least(sub)
        if cmin <= 0:  # ("shortfall": no scaling makes an improving type priced out; only the optimum certifies)
            theta = theta if upper <= EPS else math.inf
        else:
            theta = max(theta, 1.0 + max(0.0, upper) / cmin)
        if W is not None and add((sub, W)):
            improving.append(sub)
    return theta, priced, improving, exact


def _column_set(slots: Slots, max_head_dim: int | None, start: Iterable[Column]) -> tuple[list[Column], Callable[[Column], bool]]:
    """The master's columns, from `start`, and `add(c)`: c joins them (True) unless it is known,
    zero, on a subgroup hosting none of the keys' demands, or wider than `max_head_dim`."""
    cols: list[Column] = []
    seen: set[Column] = set()

    def add(c: Column) -> bool:
        if c[0] not in slots.subs or c in seen or not any(c[1]):
            return False
        if max_head_dim is not None and int(np.dot(slots.subs[c[0]].dims, c[1])) > max_head_dim:
            return False
        seen.add(c)
        cols.append(c)
        return True

    for c in start:
        add((int(c[0]), tuple(int(x) for x in c[1])))
    return cols, add


def lp_bound(
    problem: Problem,
    h: Hosting,
    values: Sequence[Demand],
    keys: Sequence[tuple[int, ...]],
    start: Iterable[Column],
    deadline: float = math.inf,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    threads: int | None = None,
    max_rounds: int = MAX_ROUNDS,
    candidates: Iterable[Column] = (),
    active: Iterable[int] = (),
    work_limit: int | None = None,
    objective: str = "params",
) -> LPBound:
    """The LP bound over the scenario keys (demand ids into `values`, D = 0 demands left out)
    and all types within the compute constraints, by column generation from `start`.
    Only a working set of keys is in the master (from `active`, positions into `keys`, e.g.
    the last call's `LPBound.active`); a key the master's solution does not meet joins it
    (row generation, `_unmet`). Any working set gives a valid bound (fewer scenarios, a
    relaxation); when every key is met and no type prices out, it is the LP optimum over all
    keys. Stops there, after `max_rounds`, or at the deadline; the bound returned is the
    best certified one of the rounds. With `work_limit` (simplex iterations plus pricing
    nodes) the call is deterministic: pricing programs stop at PRICE_NODES nodes instead of
    PRICE_TIME seconds, and the call at the work limit (the deadline stops it only when it
    stops the whole run); `LPBound.work` is what it used. `candidates`: types tried by the quick pricing
    (profits computed directly) before the pricing programs are asked. `objective`: what a
    type costs (`Slots`): "params" (the problem's units: P/4, or the attention cost on a
    problem priced by it) or "heads" ([G:K']); the bound is in that measure (every covering
    design within the limits has at least that many heads: the same relaxation, O11)."""
    keys = [tuple(k) for k in keys]
    slots = Slots(problem, h, values, keys, max_heads, objective)
    cols, add = _column_set(slots, max_head_dim, start)
    pools: dict[int, list[np.ndarray]] = defaultdict(list)
    for c in candidates:
        if c[0] in slots.subs:
            pools[c[0]].append(np.asarray(c[1], dtype=np.int64))
    cache: dict[tuple[Column, int], list] = {}

    def entries(c: Column, s: int) -> list:
        e = cache.get((c, s))
        if e is None:
            e = cache[(c, s)] = supply_entries(c, slots, values, keys[s])
        return e

    demanding = [s for s, key in enumerate(keys) if any(any(values[vi].D.mults) for vi in key)]
    if not demanding:
        return LPBound(0, 0.0, True, 0, tuple(cols), (), Certificate((), 0.0, 1.0), ())
    working = sorted({int(a) for a in active if 0 <= int(a) < len(keys)} & set(demanding)) or demanding[:1]
    master = MasterRounds(slots, values, keys, entries, max_heads is not None or max_head_dim is not None, max_heads, threads, WARM_ITERATIONS)
    best: LPBound | None = None
    rounds = exact_rounds = 0
    yielded: dict[int, int] = {}  # subgroup -> the last exact round in which its pricing gave a new type
    solution: tuple[tuple[Column, float], ...] = ()
    used: tuple[int, ...] = ()  # the keys with a positive dual in the last master (the next call's start)
    spent = [0]
    while rounds < max_rounds and time.perf_counter() < deadline and (work_limit is None or spent[0] < work_limit):
        rounds += 1
        left = deadline - time.perf_counter()
        if left <= 0:
            break
        sol, mu, lam, nvar = master.solve(cols, working, left)
        work = master.work
        wkeys = [keys[s] for s in work]
        spent[0] += sol.work
        if sol.status != "optimal" or sol.row_duals is None:
            break
        solution = tuple((c, float(sol.values[n])) for c, n in zip(cols, nvar) if sol.values[n] > 1e-9)
        support = tuple(c for c, _ in solution)
        used = tuple(sorted({work[w] for w, _, _ in mu}))
        # ---- quick pricing: the profits of joins of the LP's types and of the candidates
        if _quick_pricing(slots, support, pools, values, wkeys, mu, lam, add):
            continue
        # ---- row generation: the keys outside the working set the master's solution does not meet
        inside = set(work)
        outside = [s for s in demanding if s not in inside]
        if outside:
            short = _unmet(solution, outside, keys, values, entries, threads, max(deadline - time.perf_counter(), 0.01), spent)
            if short is None:
                break
            if short:
                working.extend(s for _, s in short[:SEPARATE_KEYS])
                continue
        # ---- exact pricing (a certified bound); every FULL_PRICING-th round prices all subgroups
        exact_rounds += 1
        theta, priced, improving, exact = _exact_pricing(
            slots, values, wkeys, mu, lam, max_head_dim, deadline, work_limit, threads, spent, add,
            exact_rounds % FULL_PRICING != 1, yielded,
        )
        yielded.update((sub, exact_rounds) for sub in improving)
        if priced:
            # converged: every key met (none outside short) and no type prices out: θ = 1, or
            # every pricing program solved and none found a type that is not in the master
            # already (a profit within the master's tolerances). A pricing program stopped
            # early with no type found leaves θ > 1 and no new column: a valid bound, not
            # the LP optimum (it must not replace a better bound of an earlier round)
            converged = theta <= 1.0 + 1e-12 or (not improving and exact)
            cert = Certificate(tuple((work[w], j, g, m) for (w, j, g), m in sorted(mu.items())), lam, theta)
            value = cert.value(values, keys, max_heads)
            if best is None or value > best.value or converged:  # the LP optimum: no Farley bound exceeds it
                best = LPBound(max(0, int(math.ceil(value - 1e-6))), value, converged, rounds, tuple(cols), support, cert, used, solution)
            if converged:
                break
        if not improving:
            break
    if best is None:
        return LPBound(0, 0.0, False, rounds, tuple(cols), tuple(c for c, _ in solution), None, used, solution, spent[0])
    if best.converged and master.warm and deadline - time.perf_counter() > 0:
        # the fractional design from the last master solved afresh (`MasterRounds.fresh_solution`)
        sol, fresh = master.fresh_solution(deadline - time.perf_counter())
        spent[0] += sol.work
        if fresh is not None:
            solution = fresh
    return LPBound(best.units, best.value, best.converged, rounds, tuple(cols), tuple(c for c, _ in solution), best.certificate, used,
                   solution, spent[0])
