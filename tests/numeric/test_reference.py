"""The numpy reference attention against a plain loop over heads and tokens (SPEC §1)."""

import numpy as np

from eqattn.numeric import reference_attention


def test_reference_matches_naive_loops():
    rng = np.random.default_rng(0)
    H, d, n, N = 3, 2, 4, 5
    Wq, Wk, Wv = (rng.normal(size=(H, d, n)) for _ in range(3))
    Wo = rng.normal(size=(H, n, d))
    X = rng.normal(size=(N, n))
    out = np.zeros((N, n))
    for h in range(H):
        M = Wq[h].T @ Wk[h]
        R = Wo[h] @ Wv[h]
        for i in range(N):
            s = np.array([X[i] @ M @ X[j] for j in range(N)])
            w = np.exp(s - s.max())
            w /= w.sum()
            out[i] += sum(w[j] * (R @ X[j]) for j in range(N))
    assert np.allclose(reference_attention(X, Wq, Wk, Wv, Wo), out, atol=1e-12)
