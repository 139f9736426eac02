"""Reference multi-head attention in numpy (SPEC §1):
f(X)_i = sum_h sum_j softmax_j(x_i^T M_h x_j) R_h x_j, M_h = W_Q^T W_K, R_h = W_O W_V."""

from __future__ import annotations

import numpy as np


def reference_attention(X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, Wo: np.ndarray) -> np.ndarray:
    """X: (N, n_V); Wq, Wk, Wv: (H, d, n_V); Wo: (H, n_V, d). Returns (N, n_V)."""
    Q = np.einsum("hdv,nv->hnd", Wq, X)
    K = np.einsum("hdv,nv->hnd", Wk, X)
    Vv = np.einsum("hdv,nv->hnd", Wv, X)
    s = np.einsum("hnd,hmd->hnm", Q, K)
    s = s - s.max(axis=2, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=2, keepdims=True)
    heads = np.einsum("hnm,hmd->hnd", p, Vv)
    return np.einsum("hvd,hnd->nv", Wo, heads)


def attention_from_blocks(X: np.ndarray, blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]) -> np.ndarray:
    """Sum of heads with possibly different head dimensions: blocks of (Wq, Wk, Wv, Wo)."""
    out = np.zeros_like(X)
    for Wq, Wk, Wv, Wo in blocks:
        if Wq.shape[0]:
            out += reference_attention(X, Wq, Wk, Wv, Wo)
    return out
