"""`DemandSpace.reachable` (one DP over the whole threshold grid) against `witness` (one DP
per threshold vector, SPEC §4.3 demands), on random one-block spaces and on zero pools."""

from __future__ import annotations

import random
from itertools import product

import numpy as np
import pytest

from eqattn.attention.demands import Block, DemandSpace


def _block(rng: random.Random, k: int, r: int) -> Block:
    box = tuple(rng.randint(0, 4) for _ in range(k))
    dims = tuple(rng.choice((1, 1, 2)) for _ in range(k))
    I = np.array([[rng.choice((0, 0, 1, 2)) for _ in range(r)] for _ in range(k)], dtype=np.int64)
    return Block(box, dims, rng.randint(1, 10), I)


@pytest.mark.parametrize("seed", range(40))
def test_reachable_is_witness(seed):
    rng = random.Random(seed)
    r = rng.randint(1, 3)
    blocks = [_block(rng, rng.randint(1, 3), r) for _ in range(1 if seed % 4 else 2)]
    Vbar = tuple(rng.randint(0, 6) for _ in range(r))
    space = DemandSpace(blocks, Vbar)
    fresh = DemandSpace(blocks, Vbar)  # witness answers from a space that never built the grid
    seen = set()
    for L in product(*[range(v + 2) for v in Vbar]):
        got = space.reachable(L)
        assert got == (fresh.witness(L) is not None), (L, seed)
        seen.add(got)
    assert True in seen  # L = 0 is always reachable
