"""The compute limits' arithmetic (eqattn/optimize/limits.py): ρ, the parameters per unit of
attention cost, kept per problem and price."""

from __future__ import annotations

from fractions import Fraction

import pytest

from eqattn.attention import Problem
from eqattn.optimize.limits import _params_per_cost, params_per_cost


@pytest.mark.parametrize("G, V, H, d, rho", [("D4", "3xregular", 2, 2, 12), ("C4", "E1", 2, 1, 4), ("C4", "A + E1", 2, 2, 4)])
def test_params_per_cost_is_kept_per_problem_and_price(G, V, H, d, rho):  # noqa: ANN001
    """ρ by hand (V = m × regular: 4m; C4 E1: 4 m e / ([G:K] dim) = 4 at K = C1), kept per
    problem; the problem priced by attention cost shares the memo, and its own ρ (every
    orbit costs 4 [G:K] dim τ per unit of cost: ρ = 4) is not the params problem's."""
    p = Problem.create(G, V, H, d)
    q = p.priced("attention_cost")
    assert params_per_cost(q) == _params_per_cost(q) == Fraction(4)  # asked first on the priced copy
    assert params_per_cost(p) == _params_per_cost(p) == Fraction(rho)
    assert params_per_cost(q) == Fraction(4) and params_per_cost(p) == Fraction(rho)
