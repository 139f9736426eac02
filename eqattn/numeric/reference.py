"""Reference multi-head attention in numpy (SPEC §1):
f(X)_i = sum_h sum_j softmax_j(x_i^T M_h x_j) R_h x_j, M_h = W_Q^T W_K, R_h = W_O W_V."""

from __future__ import annotations

import numpy as np


def reference_attention(X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, Wo: np.ndarray) -> np.ndarray:
    """X: (..., N, n_V) (leading axes: independent sequences); Wq, Wk, Wv: (H, d, n_V);
    Wo: (H, n_V, d). Returns (..., N, n_V). The projections are single matrix products over
    all heads (and all sequences).

    >>> X = np.eye(2)
    >>> W = np.ones((1, 1, 2))
    >>> reference_attention(X, W, W, W, W.transpose(0, 2, 1)).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    H, d, n = Wq.shape
    lead = X.shape[:-1]

    X2 = X.reshape(-1, n)

    def heads(W: np.ndarray) -> np.ndarray:  # (..., H, N, d)
        return np.swapaxes((X2 @ W.reshape(H * d, n).T).reshape(lead + (H, d)), -2, -3)

    Q, K, Vv = heads(Wq), heads(Wk), heads(Wv)
    s = Q @ np.swapaxes(K, -1, -2)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    out = np.swapaxes(p @ Vv, -2, -3).reshape(-1, H * d)  # (... N, H d)
    return (out @ np.swapaxes(Wo, 0, 1).reshape(n, H * d).T).reshape(lead + (n,))


def attention_from_blocks(X: np.ndarray, blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]) -> np.ndarray:
    """Sum of heads with possibly different head dimensions: blocks of (Wq, Wk, Wv, Wo)."""
    out = np.zeros(X.shape)
    for Wq, Wk, Wv, Wo in blocks:
        if Wq.shape[0]:
            out += reference_attention(X, Wq, Wk, Wv, Wo)
    return out
