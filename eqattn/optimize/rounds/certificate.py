"""The cost certificate round (docs/theory-scale.md O19): infeasibility under a cost cap.

Every orbit (K, W) has 4 Σ_τ m_τ(V|K) e_τ W_τ parameters and attention cost
[G:K] Σ_τ dim τ W_τ, so every design has at most ρ parameters per unit of attention cost
(`limits.params_per_cost`; ρ = 4m for V = m × regular, with equality). A design within the
limits has attention cost at most C (`ComputeLimits.cost_cap`: max_cost, and max_heads heads
of dimension at most max_head_dim), hence at most ρ C parameters; when the search's lower
bound on the parameters of every covering design within the limits exceeds ρ C, there is
none: the answer is `infeasible`, with that one line as its certificate.
"""

from __future__ import annotations

from ..limits import cost_lower_bound, params_per_cost
from .state import NEXT, Outcome, SearchState, done


def certificate(state: SearchState) -> str | None:
    """The one-line certificate of infeasibility, when the lower bound proves it."""
    cap = state.cost_cap
    if cap is None or state.best is not None:
        return None
    params = 4 * state.lower
    least = cost_lower_bound(state.problem, params)
    if least <= cap:
        return None
    rho = params_per_cost(state.problem)
    if least <= 10 * cap:
        return f"every covering design within the limits has attention cost at least {least}; the limits allow at most {cap}"
    # (a bound this far above the cap comes from the LP's slacks: no fractional design within
    # the limits meets the scenarios; the figure itself means nothing)
    return (
        f"no design within the limits meets the {len(state.keys)} scenarios met, even fractionally: the LP bound over every "
        f"head type within the limits exceeds the {rho * cap} parameters that attention cost {cap} allows (at most {rho} "
        "per unit of attention cost)"
    )


class CostCertificateRound:
    """Ends the search as infeasible when the lower bound exceeds what the cost cap allows."""

    def applies(self, state: SearchState) -> bool:
        return state.cost_cap is not None and state.best is None

    def run(self, state: SearchState) -> Outcome:
        reason = certificate(state)
        if reason is None:
            return NEXT
        state.reason = reason
        return done(state.result("infeasible", None, state.lower))
