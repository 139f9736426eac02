"""Helpers for the block-module tests: group actions and counts read off characters alone."""

from __future__ import annotations

import numpy as np
import torch

import eqattn

F64 = torch.float64


def rep(G: str, text: str):  # noqa: ANN201
    return eqattn.rep(eqattn.group(G), text)


def rho(V, g: int) -> torch.Tensor:  # noqa: ANN001
    return torch.as_tensor(V.matrices()[g], dtype=F64)


def elements(G: str, k: int = 4, seed: int = 0) -> list[int]:
    """k random non-identity elements of G."""
    order = eqattn.group(G).order
    return [int(g) for g in np.random.default_rng(seed).choice(np.arange(1, order), size=min(k, order - 1), replace=False)]


def chi(V) -> np.ndarray:  # noqa: ANN001
    return np.trace(V.matrices(), axis1=1, axis2=2)


def hom_dim(V, W) -> int:  # noqa: ANN001
    return int(round(float(np.mean(chi(V) * chi(W)))))


def invariant_dim(V) -> int:  # noqa: ANN001
    return int(round(float(np.mean(chi(V)))))


def copies(V) -> int:  # noqa: ANN001
    """sum_tau <chi_V, chi_tau> / <chi_tau, chi_tau> over G's real irreducible characters."""
    chars = V.irreps.chars
    return int(round(sum(float(np.mean(chi(V) * c)) / float(np.mean(c * c)) for c in chars)))


def trivial_copies_of(V) -> int:  # noqa: ANN001
    return invariant_dim(V)
