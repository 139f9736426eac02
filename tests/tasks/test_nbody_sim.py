"""The N-body simulator against physics (benchmarks/tasks/nbody_sim.py): total momentum is
conserved along a trajectory, the energy drift at the published step size dt = 0.001 is
measured and bounded, and the dataset statistics are printed next to the published setup's."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.tasks.nbody import PUBLISHED, describe
from benchmarks.tasks.nbody_sim import Recipe, dataset, energy, initial, simulate, statistics

RECIPE = Recipe()


@pytest.fixture(scope="module")
def run():
    """40 trajectories, every frame 0..40 (4,100 steps of dt = 0.001)."""
    return simulate(40, np.random.default_rng(1), RECIPE, frames=tuple(range(41)))


def test_momentum_is_conserved_along_trajectories(run):
    P = run["v"].sum(axis=2)  # (frames, S, 3): total momentum, unit masses
    free = ~run["clipped"]
    assert free.sum() >= 10  # most trajectories never hit the force clip
    drift = np.abs(P[:, free] - P[0, free]).max()
    print(f"momentum drift over 4,100 steps (no clip acted): {drift:.1e}; trajectories with a clip: {run['clipped'].mean():.0%}")
    assert drift < 1e-11
    # the first frame's momentum is the initial one: the kick before the first drift is antisymmetric too
    assert np.abs(P[0, free] - run["v0"][free].sum(axis=1)).max() < 1e-11


def test_energy_drift_at_the_published_step_size(run):
    E = np.stack([energy(run["x"][f], run["v"][f], run["q"], RECIPE) for f in range(41)])
    drift = np.abs(E - E[0]).max(axis=0)  # per trajectory, over frames 0..40
    free = ~run["clipped"]
    med, worst = float(np.median(drift[free])), float(drift[free].max())
    print(f"energy drift |E(t) - E(0)| over 4,100 steps of dt = {RECIPE.dt}: median {med:.1e}, max {worst:.1e} "
          f"(no clip acted); median with clips {float(np.median(drift[~free])) if (~free).any() else float('nan'):.1e}")
    assert med < 1e-2
    assert worst < 0.2
    # halving dt shrinks the drift (a consistent integrator, not a conserved quantity by accident)
    fine = simulate(40, np.random.default_rng(1), Recipe(dt=RECIPE.dt / 2, sample_every=2 * RECIPE.sample_every), frames=(0, 10))
    Ef = [energy(fine["x"][k], fine["v"][k], fine["q"], RECIPE) for k in range(2)]
    coarse = simulate(40, np.random.default_rng(1), RECIPE, frames=(0, 10))
    Ec = [energy(coarse["x"][k], coarse["v"][k], coarse["q"], RECIPE) for k in range(2)]
    both = ~(fine["clipped"] | coarse["clipped"])
    assert np.median(np.abs(Ef[1] - Ef[0])[both]) < np.median(np.abs(Ec[1] - Ec[0])[both])


def test_initial_state_follows_the_recipe():
    x, v, q = initial(4000, np.random.default_rng(0), RECIPE)
    assert np.allclose(np.linalg.norm(v, axis=-1), RECIPE.speed)
    assert set(np.unique(q)) == {-1.0, 1.0} and abs(q.mean()) < 0.05
    i, j = np.triu_indices(5, 1)
    pair = np.linalg.norm(x[:, i] - x[:, j], axis=-1).mean()
    print(f"t = 0: mean pairwise distance {pair:.3f} (recipe: 2 sqrt(2/pi) sqrt(2) = 4/sqrt(pi) = {4 / np.sqrt(np.pi):.3f})")
    assert abs(pair - 4 / np.sqrt(np.pi)) < 0.03


def test_dataset_statistics_next_to_the_published_setup():
    data = dataset((200, 50, 100))
    stats = statistics(data)
    for line in describe(stats):
        print(line)
    # centred inputs; the velocities at the input frame are no longer of norm 0.5 (forces acted)
    assert np.abs(data["train"][0][..., :3].mean(axis=1)).max() < 1e-12
    assert set(np.unique(data["train"][0][..., 6])) == {-1.0, 1.0}
    # the paper's Linear model on this data is in the paper's range (0.0819 on theirs)
    assert 0.5 * PUBLISHED["Linear"] < stats["linear_mse"] < 2 * PUBLISHED["Linear"]
    assert stats["linear_mse"] < stats["static_mse"]
