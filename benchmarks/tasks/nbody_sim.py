"""Charged N-body simulator following the recipe of the EGNN benchmark (Satorras et al. 2021,
Table 2; the data generator it reuses from NRI, Kipf et al. 2018), written from the recipe:

* 5 particles in 3-D, unit mass, charges ``q_i = +-1`` with probability 1/2 each;
* initial positions ``N(0, loc_std^2 I)`` with ``loc_std = 1``; initial velocities of norm
  exactly ``0.5`` in uniformly random directions; positions outside the box ``[-5, 5]^3`` are
  reflected back once at the start (no walls afterwards);
* Coulomb forces ``F_i = c sum_j q_i q_j (x_i - x_j) / |x_i - x_j|^3`` (``c = 1``: like charges
  repel), clipped componentwise to ``+-0.1 / dt``;
* ``dt = 0.001``; kick-drift steps (``v += dt F(x)`` then ``x += dt v``) after an initial kick,
  i.e. leapfrog with the velocities at half steps; a frame ``f`` is the state after step
  ``100 (f + 1)`` (positions, and the velocities used for that step's drift);
* the task: from frame 30 (positions, velocities, charges) predict the positions at frame 40,
  1,000 steps later; 3,000 train / 2,000 validation / 2,000 test trajectories.

Energy ``E = 1/2 sum |v_i|^2 + c sum_{i<j} q_i q_j / |x_i - x_j|`` and total momentum
``sum v_i`` are conserved by the exact dynamics; :func:`trajectory_checks` measures both
(the momentum is conserved exactly by the pairwise-antisymmetric forces until a clip acts;
the energy drifts by the integrator's error, mostly at close encounters).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Recipe", "simulate", "energy", "dataset", "statistics"]


@dataclass(frozen=True)
class Recipe:
    n_balls: int = 5
    loc_std: float = 1.0
    speed: float = 0.5
    strength: float = 1.0
    dt: float = 0.001
    box: float = 5.0
    sample_every: int = 100
    frame_in: int = 30
    frame_out: int = 40

    @property
    def max_force(self) -> float:
        return 0.1 / self.dt

    def step_of(self, frame: int) -> int:
        return self.sample_every * (frame + 1)


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(n, 1)
    return i, j


def _incidence(n: int) -> np.ndarray:
    """``B (n, P)``: +1 at the pair's first particle, -1 at its second."""
    i, j = _pairs(n)
    B = np.zeros((n, i.size))
    B[i, np.arange(i.size)] = 1.0
    B[j, np.arange(i.size)] = -1.0
    return B


def forces(x: np.ndarray, q: np.ndarray, recipe: Recipe) -> tuple[np.ndarray, np.ndarray]:
    """``(F, clipped)``: forces ``(S, n, 3)`` and per simulation whether a clip acted."""
    i, j = _pairs(x.shape[1])
    r = x[:, i] - x[:, j]  # (S, P, 3)
    d2 = (r * r).sum(-1)
    f = (recipe.strength * q[:, i] * q[:, j] / (d2 * np.sqrt(d2)))[..., None] * r  # force on i from j
    F = np.einsum("np,spk->snk", _incidence(x.shape[1]), f)  # +f on i, -f on j
    over = np.abs(F) > recipe.max_force
    if over.any():
        F = np.clip(F, -recipe.max_force, recipe.max_force)
    return F, over.any(axis=(1, 2))


def energy(x: np.ndarray, v: np.ndarray, q: np.ndarray, recipe: Recipe) -> np.ndarray:
    """``E`` per simulation: kinetic plus Coulomb potential (``(S,)``)."""
    i, j = _pairs(x.shape[1])
    dist = np.linalg.norm(x[:, i] - x[:, j], axis=-1)
    return 0.5 * (v * v).sum(axis=(1, 2)) + recipe.strength * (q[:, i] * q[:, j] / dist).sum(-1)


def initial(S: int, rng: np.random.Generator, recipe: Recipe) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = recipe.n_balls
    x = rng.normal(size=(S, n, 3)) * recipe.loc_std
    v = rng.normal(size=(S, n, 3))
    v *= recipe.speed / np.linalg.norm(v, axis=-1, keepdims=True)
    q = rng.choice(np.array([-1.0, 1.0]), size=(S, n))
    b = recipe.box
    hi, lo = x > b, x < -b
    x[hi], v[hi] = 2 * b - x[hi], -np.abs(v[hi])
    x[lo], v[lo] = -2 * b - x[lo], np.abs(v[lo])
    return x, v, q


def simulate(S: int, rng: np.random.Generator, recipe: Recipe = Recipe(), frames: tuple[int, ...] | None = None) -> dict:
    """Run ``S`` trajectories to the last requested frame (default ``frame_in, frame_out``).

    Returns ``x, v`` of shape ``(len(frames), S, n, 3)``, ``q (S, n)``, ``clipped (S,)`` (a clip
    acted at some step) and ``x0, v0`` (the initial state before the first kick).
    """
    frames = (recipe.frame_in, recipe.frame_out) if frames is None else tuple(frames)
    x, v, q = initial(S, rng, recipe)
    x0, v0 = x.copy(), v.copy()
    want = {recipe.step_of(f): k for k, f in enumerate(frames)}
    xs = np.zeros((len(frames), S, recipe.n_balls, 3))
    vs = np.zeros_like(xs)
    F, clipped = forces(x, q, recipe)
    v = v + recipe.dt * F
    for step in range(1, max(want) + 1):
        x = x + recipe.dt * v
        if step in want:
            xs[want[step]], vs[want[step]] = x, v
        F, c = forces(x, q, recipe)
        clipped |= c
        v = v + recipe.dt * F
    return {"x": xs, "v": vs, "q": q, "clipped": clipped, "x0": x0, "v0": v0, "frames": frames}


def dataset(sizes: tuple[int, int, int] = (3000, 2000, 2000), seed: int = 43, recipe: Recipe = Recipe()) -> dict:
    """Train / val / test arrays: ``X (S, n, 7)`` = centred position, velocity, charge of each
    particle at ``frame_in``; ``Y (S, n, 3)`` = position at ``frame_out`` minus the input
    centroid (so the MSE of ``Y`` is the MSE of absolute positions); ``c (S, 3)`` the centroid."""
    rng = np.random.default_rng(seed)
    sim = simulate(sum(sizes), rng, recipe)
    x_in, v_in, x_out = sim["x"][0], sim["v"][0], sim["x"][1]
    c = x_in.mean(axis=1)
    X = np.concatenate([x_in - c[:, None], v_in, sim["q"][..., None]], axis=-1)
    Y = x_out - c[:, None]
    out, start = {}, 0
    for name, size in zip(("train", "val", "test"), sizes):
        sl = slice(start, start + size)
        out[name] = (X[sl], Y[sl])
        start += size
    out["clipped"] = float(sim["clipped"].mean())
    return out


def statistics(data: dict) -> dict:
    """Dataset statistics and the EGNN paper's two trivial baselines on this data: zero motion
    and its "Linear" model ``x(T) = x + c v`` (``c`` least-squares on the training set)."""
    Xtr, Ytr = data["train"]
    Xte, Yte = data["test"]
    disp = np.linalg.norm(Yte - Xte[..., :3], axis=-1).mean()
    i, j = _pairs(Xte.shape[1])
    pair = np.linalg.norm(Xte[:, i, :3] - Xte[:, j, :3], axis=-1).mean()
    speed = np.linalg.norm(Xte[..., 3:6], axis=-1).mean()
    dtr = (Ytr - Xtr[..., :3]).ravel()
    vtr = Xtr[..., 3:6].ravel()
    c = float(dtr @ vtr / (vtr @ vtr))
    linear = float(((Xte[..., :3] + c * Xte[..., 3:6] - Yte) ** 2).mean())
    static = float(((Xte[..., :3] - Yte) ** 2).mean())
    return {"mean_displacement": float(disp), "mean_pair_distance": float(pair), "mean_speed": float(speed),
            "linear_c": c, "linear_mse": linear, "static_mse": static, "clipped_fraction": data.get("clipped", float("nan"))}
