"""Fixed bases as float64 master buffers with working copies in the module dtype.

Casting a module (``.float()``, ``.to(bfloat16)``) must not lose the precision of the fixed
Hom bases: ``layer.double()`` after building in float32 gives float64-exact bases, and a
``state_dict`` round trip never loses basis precision.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

__all__ = ["ExactBuffers"]


class ExactBuffers(nn.Module):
    """Fixed bases kept as float64 masters plus working copies in the module dtype.

    ``register_exact(name, array)`` creates the persistent float64 buffer ``name`` (moved
    between devices but never cast) and the non-persistent ``name + "_w"`` (cast like any
    buffer). After every ``.to()/.double()/.cuda()`` and after ``load_state_dict`` the working
    copy is recomputed from the master, so precision is never lost by a round trip.
    """

    def __init__(self) -> None:
        super().__init__()
        self._exact_names: list[str] = []
        self._index_names: list[str] = []
        self.register_load_state_dict_post_hook(_refresh_after_load)

    def register_exact(
        self, name: str, array: np.ndarray, dtype: torch.dtype, device: Any, persistent: bool = True
    ) -> None:
        """``persistent=False`` keeps the master out of the ``state_dict`` (fixed data rebuilt
        by the constructor, e.g. the expansion's values)."""
        master = torch.as_tensor(np.ascontiguousarray(array, dtype=np.float64))
        work = master.to(dtype=dtype, device=device)
        master = _keep_data(master, work.device)
        self.register_buffer(name, master, persistent=persistent)
        self.register_buffer(name + "_w", work, persistent=False)
        self._exact_names.append(name)

    def register_index(self, name: str, array: np.ndarray, device: Any) -> None:
        """A fixed integer buffer (indices of the expansion), never persistent; like the
        masters it keeps its data on ``device="meta"`` (on the CPU), so ``to_empty`` and
        ``reset_parameters`` after a meta construction work."""
        t = torch.as_tensor(np.ascontiguousarray(array, dtype=np.int64))
        self.register_buffer(name, _keep_data(t, torch.empty(0, device=device).device), persistent=False)
        self._index_names.append(name)

    def _refresh_working(self) -> None:
        for name in self._exact_names:
            work = self._buffers[name + "_w"]
            master = self._buffers[name]
            if work.device.type == "meta":
                self._buffers[name + "_w"] = torch.empty(master.shape, dtype=work.dtype, device="meta")
            else:
                self._buffers[name + "_w"] = master.to(dtype=work.dtype, device=work.device)

    def _apply(self, fn, recurse=True):  # type: ignore[override]
        # `fn` (a cast and/or a move) is applied to everything but the float64 masters, which
        # only follow their working copy's device (and stay put on a device without float64).
        order = list(self._buffers)
        masters = {name: self._buffers.pop(name) for name in self._exact_names + self._index_names}
        try:
            out = super()._apply(fn, recurse)
        finally:
            target = next((self._buffers[n + "_w"].device for n in self._exact_names if n + "_w" in self._buffers), None)
            if target is None:  # no float buffer: follow a parameter
                target = next((p.device for p in self.parameters(recurse=False)), None)
            for name, master in masters.items():
                if target is not None and master.device != target:
                    master = _keep_data(master, target)
                self._buffers[name] = master
            items = [(k, self._buffers[k]) for k in order]
            self._buffers.clear()
            self._buffers.update(items)
        self._refresh_working()
        return out


def _keep_data(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``t`` on ``device``, except that data are never moved to "meta" (nor out of it: a meta
    tensor has none) and float64 stays where the device has no float64 (e.g. mps)."""
    if device.type == "meta" or t.device.type == "meta":
        return t
    try:
        return t.to(device=device)
    except (RuntimeError, TypeError):
        return t


def _refresh_after_load(module: nn.Module, incompatible_keys: Any) -> None:
    module._refresh_working()  # type: ignore[operator]
