"""The digits tokenisation (benchmarks/tasks/digits.py): rotating or reflecting the IMAGE gives
the tokens moved by the token action (rho_in on each token, up to the order of the tokens)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.tasks.designs import C4, D4
from benchmarks.tasks.digits import rho_in, tokens, transform_images
from benchmarks.tasks.symmetry import task_group


@pytest.mark.parametrize("spec", [C4, D4])
def test_image_action_is_the_token_action(spec):
    tg = task_group(spec, rho_in)
    assert tg.check() < 1e-12
    plain = task_group(spec)
    images = np.random.default_rng(0).integers(0, 17, size=(3, 8, 8)).astype(float)
    T = tokens(images)
    for g in range(tg.order):
        moved = tokens(transform_images(images, plain.rho_in[g]))
        acted = T @ tg.rho_in[g].T.astype(np.float32)
        # same multiset of tokens: sort both by their centre
        key = lambda A: np.lexsort((A[:, 1], A[:, 0]))  # noqa: E731
        for s in range(3):
            assert np.allclose(moved[s][key(moved[s])], acted[s][key(acted[s])], atol=1e-6), g
    # the action is not trivial: a 90 degree rotation changes the image
    assert not np.allclose(transform_images(images, plain.rho_in[1]), images)


def test_transform_images_is_a_group_action():
    plain = task_group(D4)
    images = np.random.default_rng(1).normal(size=(2, 8, 8))
    t = plain.table
    for a in range(plain.order):
        for b in range(plain.order):
            ab = transform_images(transform_images(images, plain.rho_in[b]), plain.rho_in[a])
            assert np.allclose(ab, transform_images(images, plain.rho_in[t[a, b]]))
