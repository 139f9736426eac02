"""The top-level Python API (eqattn.facade): values checked against SPEC §6 and the core."""

from __future__ import annotations

import subprocess
import sys

import pytest

import eqattn
from eqattn.attention import Design as CoreDesign
from eqattn.attention import Problem as CoreProblem
from eqattn.attention import check_coverage, clusterings
from eqattn.errors import InputError, LimitError


def test_import_is_lazy() -> None:
    code = "import sys, eqattn; print(sorted(m for m in ('eqattn.facade', 'eqattn.attention', 'numpy', 'torch', 'fastapi') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert set(eqattn.__all__) <= set(dir(eqattn))
    with pytest.raises(AttributeError):
        eqattn.no_such_name  # noqa: B018


def test_spec_example_2() -> None:
    """SPEC §6 example 2: C4 on V = E1, H = 2, d = 1: P_vanilla = 16, the optimum is the orbit
    (C2, B) with 8 parameters, and it covers every clustering."""
    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "E1"), heads=2, head_dim=1)
    assert prob.vanilla_params == 16
    assert len(prob.clusterings()) == prob.count_clusterings() == len(clusterings(prob))
    design = eqattn.optimal_design(prob, time_limit=30)
    assert isinstance(design, eqattn.Design) and isinstance(design, CoreDesign)
    assert design.params == 8
    assert [(o.sub.name, str(o.W)) for o in design.orbits] == [("C2", "B")]
    verdicts = design.check(prob)
    assert verdicts == check_coverage(prob, design) and all(v.covered for v in verdicts)
    assert design.covers()
    data = design.to_json()
    assert CoreDesign.from_json(prob, data) == CoreDesign(prob, design.orbits)


def test_check_reports_an_uncovered_clustering() -> None:
    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "E1"), heads=2, head_dim=1)
    small = eqattn.Design.create(prob, [("C4", "A")])
    assert isinstance(small, eqattn.Design)
    assert eqattn.Design.regular(prob).covers() and eqattn.Design.regular(prob).params == prob.vanilla_params
    assert eqattn.Design.from_json(prob, small.to_json()) == small
    assert not small.covers(prob)
    other = eqattn.Problem(G, eqattn.rep(G, "E1"), heads=3, head_dim=1)
    with pytest.raises(InputError, match="problem"):
        small.check(other)


def test_problem_create_matches_core() -> None:
    a = eqattn.Problem.create("D4", "2xregular", 2, "2")
    b = CoreProblem.create("D4", "2xregular", 2, 2)
    assert isinstance(a, eqattn.Problem)
    assert (a.group, str(a.V), a.heads, a.head_dim, a.vanilla_params) == (b.group, str(b.V), 2, 2, 256)


@pytest.mark.parametrize("build, field", [
    (lambda G: eqattn.Problem(G, "E1", heads=2, head_dim=1), "rep"),
    (lambda G: eqattn.Problem("C4", eqattn.rep(G, "E1"), heads=2, head_dim=1), "group"),
    (lambda G: eqattn.Problem(G, eqattn.rep(G, "E1"), heads=0, head_dim=1), "heads"),
    (lambda G: eqattn.Problem(G, eqattn.rep(G, "E1"), heads=2, head_dim=1.5), "head_dim"),
    (lambda G: eqattn.Problem(G, eqattn.rep(eqattn.group("C2"), "A"), heads=2, head_dim=1), "rep"),
    (lambda G: eqattn.rep(G, "E7"), "rep"),
    (lambda G: eqattn.group(4), "group"),
])
def test_bad_input_names_the_field(build, field: str) -> None:  # noqa: ANN001
    G = eqattn.group("C4")
    with pytest.raises(InputError) as e:
        build(G)
    assert e.value.field == field


def test_limits() -> None:
    G = eqattn.group("C4")
    with pytest.raises(LimitError):
        eqattn.Problem(G, eqattn.rep(G, "E1"), heads=10_000, head_dim=1)
