"""docs/atlas.csv reproduced by the new (symbolic) optimiser engine (issue 9): a stratified sample of 200 atlas
problems proven optimal there; each must be proven optimal again with the same P_opt (optima
are not unique: the cost is compared, not the design). The whole CSV:
`PYTHONPATH=. python3 benchmarks/atlas_check.py` (benchmarks/atlas_check.py draws this
sample with `sample_rows`). About 30 s on a quiet 2-core machine."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from eqattn.attention import Problem
from eqattn.optimize import optimize

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("atlas_check", ROOT / "benchmarks" / "atlas_check.py")
assert _spec is not None and _spec.loader is not None
atlas_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(atlas_check)

SAMPLE = atlas_check.sample_rows(atlas_check.load_rows(atlas_check.ATLAS), 200)


def test_sample_is_stratified():
    assert len(SAMPLE) == 200
    groups = {r["group"] for r in SAMPLE}
    assert len(groups) >= 35  # every group of the atlas
    assert {r["H"] for r in SAMPLE} == {"1", "2", "3", "4", "6"} and {r["d"] for r in SAMPLE} == {"1", "2", "4"}
    assert all(r["status"] == "optimal" for r in SAMPLE)


@pytest.mark.slow
@pytest.mark.parametrize("row", SAMPLE, ids=[f"{r['group']}-{r['V']}-H{r['H']}-d{r['d']}".replace(" ", "") for r in SAMPLE])
def test_atlas_optimum_reproduced(row):
    p = Problem.create(row["group"], row["V"], int(row["H"]), int(row["d"]))
    r = optimize(p, 60, numeric_check=False, threads=1, engine="symbolic")
    assert r.status == "optimal" and r.lower_bound == r.design_params
    assert r.design_params == int(row["P_opt"])
