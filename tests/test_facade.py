"""The top-level Python API (eqattn.facade): values checked against SPEC §6 and the core."""

from __future__ import annotations

import subprocess
import sys

import pytest

import eqattn
from eqattn.attention import Design as CoreDesign
from eqattn.attention import Problem as CoreProblem
from eqattn.attention import check_coverage, clusterings
from eqattn.errors import InputError, InputTypeError, LimitError


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
    (lambda G: eqattn.group("mat:[[cos(1e999)]]"), "group"),
    (lambda G: eqattn.group("mat:[[0,-1],[1,1e308*10]]"), "group"),
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


def _c4() -> tuple:
    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "E1"), heads=2, head_dim=1)
    return G, prob, eqattn.Design.create(prob, [("C2", "B")])


WRONG_TYPES = [
    # (call, field): a TypeError that is also an InputError naming the argument (README)
    (lambda G, p, d: eqattn.group(5), "group"),
    (lambda G, p, d: eqattn.group(None), "group"),
    (lambda G, p, d: eqattn.rep("C4", "E1"), "group"),
    (lambda G, p, d: eqattn.rep(G, 5), "rep"),
    (lambda G, p, d: eqattn.Problem(G, eqattn.rep(G, "E1"), heads="2", head_dim=1), "heads"),
    (lambda G, p, d: eqattn.Problem(G, eqattn.rep(G, "E1"), heads=True, head_dim=1), "heads"),
    (lambda G, p, d: eqattn.Problem(G, eqattn.rep(G, "E1"), heads=2, head_dim=2.0), "head_dim"),
    (lambda G, p, d: eqattn.optimal_design(None), "problem"),
    (lambda G, p, d: eqattn.optimal_design("D4"), "problem"),
    (lambda G, p, d: eqattn.optimal_design(d), "problem"),
    (lambda G, p, d: eqattn.optimal_design(p, time_limit=True), "time_limit"),
    (lambda G, p, d: eqattn.optimal_design(p, time_limit="30"), "time_limit"),
    (lambda G, p, d: eqattn.optimal_design(p, threads="x"), "threads"),
    (lambda G, p, d: eqattn.optimal_design(p, threads=1.5), "threads"),
    (lambda G, p, d: d.covers("x"), "problem"),
    (lambda G, p, d: d.check(G), "problem"),
    (lambda G, p, d: eqattn.Design.create("C4", [("C2", "B")]), "problem"),
    (lambda G, p, d: eqattn.Design.create(p, "C2:B"), "orbits"),
    (lambda G, p, d: eqattn.Design.regular(None), "problem"),
]


@pytest.mark.parametrize("call, field", WRONG_TYPES, ids=[f"{i}-{f}" for i, (_, f) in enumerate(WRONG_TYPES)])
def test_wrong_types_raise_type_error_naming_the_argument(call, field: str) -> None:  # noqa: ANN001
    G, prob, design = _c4()
    with pytest.raises(TypeError) as e:
        call(G, prob, design)
    assert isinstance(e.value, InputTypeError) and isinstance(e.value, InputError)
    assert e.value.field == field and e.value.message


def test_bad_values_still_raise_value_errors() -> None:
    G, prob, _ = _c4()
    with pytest.raises(ValueError) as e:
        eqattn.optimal_design(prob, threads=0)
    assert e.value.field == "threads" and not isinstance(e.value, TypeError)
    with pytest.raises(InputError, match="time_limit"):
        eqattn.optimal_design(prob, time_limit=-1)


def test_numpy_integers_are_whole_numbers() -> None:
    import numpy as np

    G = eqattn.group("C4")
    prob = eqattn.Problem(G, eqattn.rep(G, "E1"), np.int64(2), np.int32(1))
    assert type(prob.heads) is int and type(prob.head_dim) is int
    assert (prob.heads, prob.head_dim, prob.vanilla_params) == (2, 1, 16)
    assert eqattn.optimal_design(prob, threads=np.int64(1)).params == 8


@pytest.mark.parametrize("count, error, words", [
    (10**9, LimitError, "from 1 to 512"),
    (513, LimitError, "from 1 to 512"),
    (0, InputError, "from 1 to 512"),
    (True, InputError, "whole number"),
    (2.0, InputError, "whole number"),
    ("3", InputError, "whole number"),
])
def test_every_orbit_count_is_checked_before_expanding(count, error, words: str) -> None:  # noqa: ANN001
    """Design.from_json reads an orbit's "count"; a count of 10**9 expanded unchecked took 19 GB."""
    _, prob, _ = _c4()
    with pytest.raises(error, match=words) as e:
        eqattn.Design.from_json(prob, {"orbits": [{"subgroup": 0, "rep": "A", "count": count}]})
    assert e.value.field == "orbits[0].count"


def test_counts_repeat_orbits_up_to_the_limit() -> None:
    _, prob, _ = _c4()
    d = eqattn.Design.from_json(prob, {"orbits": [{"subgroup": "C2", "rep": "B", "count": 3}, {"subgroup": 0, "rep": "A"}]})
    assert [o.sub.name for o in d.orbits] == ["C2", "C2", "C2", "C1"]
    with pytest.raises(LimitError, match="in all"):
        eqattn.Design.from_json(prob, {"orbits": [{"subgroup": 0, "rep": "A", "count": 300}] * 2})


def test_the_layer_json_checks_counts_before_allocating() -> None:
    from eqattn.torch import EquivariantAttention

    data = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "orbits": [{"subgroup": 0, "rep": "A", "count": 10**9}]}
    with pytest.raises(LimitError) as e:
        EquivariantAttention.from_json(data)
    assert e.value.field == "orbits[0].count"
    data["orbits"][0]["count"] = 2
    assert EquivariantAttention.from_json(data).num_parameters == 2 * 4 * 2  # 2 x (C1, A): 4 dim Hom(E1, A) = 8


def test_layer_arguments_of_the_wrong_type() -> None:
    import torch

    from eqattn.torch import EquivariantAttention

    _, prob, design = _c4()
    for call, field in (
        (lambda: EquivariantAttention.from_design(prob), "design"),
        (lambda: EquivariantAttention.from_design(design, dtype="float64"), "dtype"),
        (lambda: EquivariantAttention.from_design(design, basis="x"), "basis"),
        (lambda: EquivariantAttention.from_design(design, dtype=torch.float64).group_action(1.5), "g"),
    ):
        with pytest.raises(TypeError) as e:
            call()
        assert isinstance(e.value, InputTypeError) and e.value.field == field
