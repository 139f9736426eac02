"""The program round: the integer program over this pass's table and the working set of S
(program.build), then its design checked by the oracle (docs/theory-scale.md O1, O6).

Over every capped type (or the fixed types) the program's bound is a lower bound of the
optimum (Lemma O1: an optimal covering design, capped by the values of S, meets every
scenario of S); over a restricted table it only proposes a candidate. A design that covers
every clustering is the incumbent when cheaper; otherwise its counterexamples join S. A
design past the checker's limits is answered by a design above it (O12: its counterexamples
are the design's too); when that one covers, by scenarios drawn at random and decided on the
design itself (O12b); only when neither finds a counterexample are the restricted programs
asked for checkable designs.
"""

from __future__ import annotations

import logging
import math
import time

from ...errors import LimitError
from ..oracle import ROUND_KEYS
from ..program import build
from ..result import to_design
from .price import lp_lower
from .sampled import may_sample
from .state import AGAIN, Outcome, SearchState, done, stop

RESTRICTED_SHARE = 0.25  # of the loop's time left, for one restricted program
FULL_SHARE = 0.25  # of the loop's time left, for the program over every capped type before the restricted rounds
FIXED_SMALL = 300  # the program over at most this many fixed types gets the time left, else FIXED_SHARE of it
FIXED_SHARE = 0.5
FIXED_VARS = 60_000  # ... and it is solved only with at most this many variables
MAX_PROGRAM_VARS = 300_000  # variables of one program at most (memory: well under 2 GB)
SAMPLED_SHARE = 0.1  # of the loop's time left, for drawing scenarios against one design past the checker's limits
SAMPLED_CHECK = True  # such a design whose design above covers: drawn scenarios decided on it first (O12b; off: checkable programs at once, for the benchmarks)
COARSE_FIRST = True  # a design past the checker's limits: its design above first, then checkable programs (O12; off: the earlier order, for the benchmarks' --switch / --baseline coarse)

log = logging.getLogger("eqattn.optimize")


def stopped_by(sol) -> str:  # noqa: ANN001 - solver.Solution
    return {"time": "time_limit", "work": "work_limit", "error": "solver_error"}.get(str(sol.stopped), "time_limit")


def copies(state: SearchState) -> list[int]:
    """Most copies of each type: no more than the incumbent's cost allows, max_heads allows,
    or any one scenario of S can use (a minimal cover of D uses at most Σ_σ D_σ copies), and
    the fixing's bounds (O13)."""
    assert state.table is not None
    vals = state.catalogue.values
    use = max(sum(vals[v].size for v in key) for key in state.keys)
    out = []
    for t in state.table.types:
        u = use
        cut = state.cutoff()
        if cut is not None:
            u = min(u, (cut + 1 if state.best_units is not None else cut) // t.units)
        if state.limits.max_heads is not None:
            u = min(u, state.limits.max_heads // t.heads)
        if state.limits.max_cost is not None:
            u = min(u, state.limits.max_cost // (t.heads * t.dim))
        out.append(u)
    if state.fixed is not None:
        out = [u if b is None else min(u, b) for u, b in zip(out, state.fixed[1])]
    return out


class ProgramRound:
    """Solve this pass's program and check its design."""

    def applies(self, state: SearchState) -> bool:
        return state.table is not None

    def run(self, state: SearchState) -> Outcome:
        table, restricted, fixed = state.table, state.restricted, state.fixed
        assert table is not None
        state.n_types = len(table)
        U = copies(state)
        state.report(stage="optimum", round=state.rounds, scenarios=len(state.keys), bound=4 * state.lower,
                     incumbent=None if state.best_units is None else 4 * state.best_units)
        if time.perf_counter() > state.deadline - 0.05:
            return stop("time_limit")
        try:
            prog = build(
                table, U, [state.keys[i] for i in sorted(state.working)], state.objective, heads_max=state.limits.max_heads,
                multisets=state.ms_limit if restricted and state.checkable else None, max_vars=MAX_PROGRAM_VARS,
                cutoff=state.cutoff(),
                lower=state.floor_lo if restricted and state.floor else None, cost_max=state.limits.max_cost,
            )
        except LimitError:  # (memory) the program over every capped type: restricted rounds from now on
            if fixed is not None:  # the program over the fixed types: not again
                state.fixing = False
                return AGAIN
            if restricted:
                return stop("scenario_limit")
            state.full, state.price_first = False, True
            return AGAIN
        if fixed is not None and prog.model.num_vars > FIXED_VARS:
            # a large exact program rarely finishes (its root LP alone can take the time left)
            log.debug("round %d: the fixed program has %d variables: not solved", state.rounds, prog.model.num_vars)
            state.fixed_stalled = state.fixed_memo[0]
            return AGAIN
        sol = state.solve(prog.model, self._until(state))
        if fixed is not None:
            state.fixed_programs.append((state.cutoff(), state.n_types, sol.status))
        log.debug(
            "round %d: %s program, %d types, %d variables, %d/%d keys, %s in %.2fs (bound %s), lower %d, incumbent %s",
            state.rounds, "restricted" if restricted else "fixed" if fixed is not None else "full", state.n_types, prog.model.num_vars,
            len(state.working), len(state.keys), sol.status, sol.time_s, sol.bound, state.lower, state.best_units,
        )
        if sol.stopped == "error":
            state.reason = sol.reason
            return stop("solver_error")
        # the program over every capped type ran out of its share: the restricted rounds next
        capped = not restricted and sol.status in ("feasible", "unknown") and time.perf_counter() < state.deadline - 0.05
        if capped and fixed is not None:
            state.fixed_stalled = state.fixed_memo[0]
        state.price_first = state.price_first or capped
        return self._answer(state, prog, sol, capped)

    def _until(self, state: SearchState) -> float:
        """A restricted program wants a candidate, not a bound (a good solution soon beats a
        proof late); the full program before the restricted rounds had their turn gets a
        share of the time too. With a work limit only the work limit (theory-scale O5)."""
        share = RESTRICTED_SHARE if state.restricted else None if state.full else FULL_SHARE
        if state.fixed is not None:
            share = None if len(state.table) <= FIXED_SMALL else FIXED_SHARE
        if state.restricted and state.patient:
            share = None
        if share is None or state.budget.work_limit is not None:
            return state.deadline
        now = time.perf_counter()
        return min(state.deadline, now + max(5.0, share * (state.deadline - now)))

    def _answer(self, state: SearchState, prog, sol, capped: bool) -> Outcome:  # noqa: ANN001
        restricted = state.restricted
        if restricted and sol.status == "infeasible":
            if state.checkable:  # no checkable design meets S: candidates of any shape again
                state.checkable, state.shapes_tried = False, True
                return AGAIN
            if state.lean_table:  # the LP's columns alone do not meet S: the cheapest hosts too
                state.lean = False
                return AGAIN
            if state.floor:  # nothing added to the seed's design is cheaper than the incumbent
                state.floor.clear()
                return AGAIN
            if may_sample(state):  # no candidate to learn from: random scenarios for the limits round
                state.sample_wanted = True
                return AGAIN
            return stop()  # no generated design cheaper than the incumbent meets S
        if sol.status == "infeasible":  # no design (cheaper than the incumbent, within the limits) meets S
            if state.best is not None:
                return state.optimal()
            return done(state.result("infeasible", None, 0))
        if math.isfinite(sol.bound) and not restricted:
            state.lower = max(state.lower, int(math.ceil(sol.bound - 1e-6)))
        if state.proven():
            return state.optimal()
        if sol.values is None:
            if capped:
                return AGAIN
            if restricted and not state.patient and sol.stopped == "time" and time.perf_counter() < state.deadline - 0.05:
                state.patient = True  # no candidate within its share: the next restricted program gets the time left
                return AGAIN
            return stop(stopped_by(sol))
        table = state.table
        counts = {t: int(sol.values[prog.n[t]]) for t in range(len(table.types)) if sol.values[prog.n[t]] > 0}
        design = to_design(state.problem, table, counts)
        try:
            new = state.oracle.keys(design, state.deadline, ROUND_KEYS)
        except LimitError as e:
            log.debug("round %d: the program's design (%d units) is past the checker's limits: %s", state.rounds, design.params // 4, e.message)
            if not COARSE_FIRST and (out := self._checkable(state)) is not None:
                return out
            # a design above it (coarsen.py): its counterexamples are the design's too (O12)
            coarse, new = state.oracle.coarse_keys(design, state.deadline)
            if new is None:
                state.oracle.unchecked = True
            elif new:
                log.debug("round %d: a design above it (%d units) has %d new counterexamples", state.rounds, coarse.params // 4, len(new))
            else:
                if coarse is not None and state.limits.admits(coarse) and state.cheaper(coarse):
                    log.debug("round %d: a design above it (%d units) covers: the incumbent", state.rounds, coarse.params // 4)
                    state.improve(coarse)
                    return AGAIN
                if SAMPLED_CHECK:  # random scenarios decided on the design itself (O12b)
                    new = state.oracle.sampled_keys(design, self._sampling_until(state), ROUND_KEYS, seed=state.rounds, same=True)
                    log.debug("round %d: %d drawn scenarios the design does not meet", state.rounds, len(new))
                if not new:
                    if (out := self._checkable(state)) is not None:
                        return out
                    state.oracle.unchecked = True
                    return stop("scenario_limit")
        if new is None:
            return stop("time_limit")
        if not new:
            return self._covers(state, design, sol, capped)
        index = {k: i for i, k in enumerate(state.keys)}
        again = {index[k] for k in new if k in index} - state.working
        added = state.add_keys(new)
        if not added and not again:
            raise AssertionError("a counterexample of the program's design is already in the program")
        state.recent |= again
        state.working |= again
        if sol.status != "optimal" and not ((restricted or capped) and sol.stopped == "time" and time.perf_counter() < state.deadline):
            return stop(stopped_by(sol))
        return AGAIN

    def _sampling_until(self, state: SearchState) -> float:
        """The end of one drawing: SAMPLED_SHARE of the loop's time left (at least 0.5 s); with
        a work limit the search's deadline (the drawing's fixed size bounds it, O5)."""
        if state.budget.work_limit is not None:
            return state.deadline
        now = time.perf_counter()
        return min(state.deadline, now + max(0.5, SAMPLED_SHARE * (state.deadline - now)))

    def _checkable(self, state: SearchState) -> Outcome | None:
        """The program's design is undecided (past the checker's limits, its design above
        covers): the restricted programs from now on keep their designs checkable (O12), with
        fewer multisets when a checkable one exceeds another limit; None when tried."""
        restricted = state.restricted
        if restricted and not state.checkable and not state.shapes_tried:
            state.checkable = True
            return AGAIN
        if restricted and state.checkable and state.ms_limit > 16 and time.perf_counter() < state.deadline - 0.05:
            state.ms_limit //= 4  # past another limit of the checker (its demand search): fewer multisets
            return AGAIN
        return None

    def _covers(self, state: SearchState, design, sol, capped: bool) -> Outcome:  # noqa: ANN001
        """The program's design covers every clustering."""
        if state.cheaper(design):
            state.improve(design)
        state.floor.clear()  # (a repaired seed design covers: the programs are free again)
        if state.restricted:
            # the cheapest generated design meeting S covers: the LP bound over every type may
            # prove it optimal, or offer the types the generated set lacks
            known = {(t.sub, t.W) for t in state.table.types}
            state.lower = max(state.lower, lp_lower(state, known))
            if state.proven():
                return state.optimal()
            if time.perf_counter() > state.deadline:
                return stop()
            if state.extra <= known:
                state.full = True  # the program over every capped type (when they fit) for the time left
            return AGAIN
        if sol.status == "optimal":
            return state.optimal()
        if capped:
            return AGAIN
        return stop(stopped_by(sol))
