"""verify for compact groups: the vanilla and design layers are checked under Haar samples of
the compact group (numeric/verify.py with numeric/ambient.py). Run through the finite point
groups standing in for O(3)/SO(3), restricted to the clusterings whose stabilisers contain the
rotation subgroup (docs/theory-continuous.md §5), and a control that the check can fail."""

from __future__ import annotations

import numpy as np
import pytest

from eqattn.attention import Design, Problem
from eqattn.attention.coverage import check_coverage
from eqattn.errors import InputError
from eqattn.numeric.verify import check_matrices, verify_design


def _contains_rotations(problem: Problem, cid: int) -> bool:
    G = problem.group
    K = G.subgroup_classes[cid]
    rot = np.nonzero(np.linalg.det(np.asarray(G.matrices)) > 0)[0]
    return bool(K.mask[rot].all())


def _rotations_class(problem: Problem) -> tuple[int, str]:
    """(id, V restricted to it) of the class of the rotation subgroup (O in Oh, I in Ih)."""
    rot = np.nonzero(np.linalg.det(np.asarray(problem.group.matrices)) > 0)[0]
    K = next(c for c in problem.group.subgroup_classes if c.order == len(rot) and c.mask[rot].all())
    return K.id, str(problem.restrict(K))


def _through_rotations(problem: Problem, design: Design) -> tuple:
    return tuple(v for v in check_coverage(problem, design)
                 if all(_contains_rotations(problem, cid) for cid, _ in v.clustering.expanded()))


@pytest.mark.parametrize("group,kind,rep,d,orbits", [
    ("Oh", "O3", "2xA1g + T1u", 1, [("Oh", "A1g"), ("Oh", "A1g")]),          # doc §4.2: 16 parameters
    ("Oh", "O3", "A1g + A1u + T1u", 2, [("rot", "V"), ("Oh", "A1g + A1u"), ("Oh", "A1g + T1u")]),
    ("O", "SO3", "A1 + T1", 2, [("O", "A1 + T1"), ("O", "A1")]),              # doc §4.1 d = 2: 12
    ("Ih", "O3", "Ag + T1u + Hg", 2, [("rot", "V"), ("Ih", "Ag + T1u"), ("Ih", "Ag + Hg")]),
])
def test_verify_checks_both_layers_under_haar_samples(group: str, kind: str, rep: str, d: int, orbits: list) -> None:
    p = Problem.create(group, rep, 2, d)
    design = Design.create(p, [_rotations_class(p) if ref == "rot" else (ref, W) for ref, W in orbits])
    verdicts = _through_rotations(p, design)
    assert any(v.covered for v in verdicts)
    report = verify_design(p, design, seed=3, verdicts=verdicts, samples=12, kind=kind)
    assert report.haar_samples == 12 and report.scenarios >= 1
    assert report.worst_rel_error < 1e-8
    assert report.worst_equivariance_error < 1e-10
    assert report.to_json()["haar_samples"] == 12


def test_the_haar_check_fails_for_a_clustering_through_a_finite_subgroup() -> None:
    """Three heads permuted by Oh through D4h (T1u = A2u + Eu there): Oh-equivariant, not O(3)."""
    p = Problem.create("Oh", "T1u", 3, 1)
    design = Design.regular(p)
    d4h = [c.id for c in p.group.subgroup_classes if c.order == 16]
    verdicts = tuple(v for v in check_coverage(p, design) if v.covered and {cid for cid, _ in v.clustering.expanded()} <= set(d4h))
    assert verdicts
    finite = verify_design(p, design, seed=0, verdicts=verdicts)
    assert finite.worst_equivariance_error < 1e-10 and finite.haar_samples == 0
    compact = verify_design(p, design, seed=0, verdicts=verdicts, samples=8, kind="O3")
    assert compact.worst_equivariance_error > 1e-3


def test_check_matrices_are_the_generators_then_the_samples() -> None:
    p = Problem.create("Oh", "A1g + T1u", 1, 1)
    rho = check_matrices(p, 4, np.random.default_rng(0), kind="O3")
    assert np.allclose(rho[: len(p.group.generators)], p.rho[list(p.group.generators)])
    assert rho.shape == (len(p.group.generators) + 4, 4, 4)
    assert check_matrices(p, 4, np.random.default_rng(0)) is p.rho
    with pytest.raises(InputError, match="Oh"):
        check_matrices(Problem.create("Oh", "Eg", 1, 1), 4, np.random.default_rng(0), kind="O3")


@pytest.mark.parametrize("group,rep,H,d", [
    ("O3", "2x0e + 1x1o", 2, 1),           # doc §4.2, with the clustering inversion swaps
    ("O3", "1x0e + 1x0o + 1x1o + 1x2e", 2, 2),
    ("SO3", "1x0 + 1x1", 2, 2),            # doc §4.1
    ("SO2", "A + E1 + E2", 2, 1),          # doc §4.3
    ("O2", "A1 + A2 + E1 + E3", 2, 2),
])
def test_verify_on_the_compact_stand_ins_checks_haar_samples(group: str, rep: str, H: int, d: int) -> None:
    import eqattn

    p = Problem.create(group, rep, H, d)
    design = eqattn.optimal_design(p)
    report = verify_design(p, design, seed=1)
    assert report.haar_samples == 16 and report.clusterings == len(check_coverage(p, design))
    assert report.worst_rel_error < 1e-8 and report.worst_equivariance_error < 1e-10


def test_the_stand_ins_band_labels_agree_with_the_characters() -> None:
    """h6/compact's label -> (l, parity) / k against the character match on F (ambient.py)."""
    from eqattn.numeric.ambient import ambient_rep

    for group, rep in (("O3", "1x0e + 1x0o + 1x1o + 1x1e + 1x2e + 1x2o"), ("O3", "1x0e + 1x0o + 1x1o + 1x1e"),
                       ("SO3", "1x0 + 1x1 + 1x2"), ("SO2", "A + E1 + E2 + E3 + E4"), ("O2", "A1 + A2 + E1 + E2 + E3 + E4")):
        V = Problem.create(group, rep, 1, 1).V
        assert ambient_rep(V).band == ambient_rep(V, band={}).band, (group, rep)


def test_eqattn_verify_prints_the_haar_check(capsys) -> None:  # noqa: ANN001
    from eqattn.cli.main import main

    code = main(["verify", "-G", "O3", "-V", "2x0e + 1x1o", "-H", "2", "-d", "1", "-o", "O3:1x0e", "-o", "O3:1x0e"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "verified 3 scenarios in 3 covered clusterings" in out
    assert "under the generators and 16 Haar-random elements of O3" in out and out.rstrip().endswith("OK")
    assert main(["verify", "-G", "O3", "-V", "2x0e + 1x1o", "-H", "2", "-d", "1", "--json", "-o", "O3:1x0e", "-o", "O3:1x0e"]) == 0
    assert '"haar_samples": 16' in capsys.readouterr().out
