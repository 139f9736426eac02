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
        self.register_load_state_dict_post_hook(_refresh_after_load)

    def register_exact(
        self, name: str, array: np.ndarray, dtype: torch.dtype, device: Any, persistent: bool = True
    ) -> None:
        """``persistent=False`` keeps the master out of the ``state_dict`` (fixed data rebuilt
        by the constructor, e.g. the expansion's values)."""
        master = torch.as_tensor(np.ascontiguousarray(array, dtype=np.float64))
        try:
            master = master.to(device)
        except (RuntimeError, TypeError):  # a device without float64 keeps the master on the CPU
            pass
        self.register_buffer(name, master, persistent=persistent)
        self.register_buffer(name + "_w", master.to(dtype), persistent=False)
        self._exact_names.append(name)

    def _refresh_working(self) -> None:
        for name in self._exact_names:
            work = self._buffers[name + "_w"]
            self._buffers[name + "_w"] = self._buffers[name].to(dtype=work.dtype, device=work.device)

    def _apply(self, fn, recurse=True):  # type: ignore[override]
        # `fn` (a cast and/or a move) is applied to everything but the float64 masters, which
        # only follow their working copy's device (and stay put on a device without float64).
        order = list(self._buffers)
        masters = {name: self._buffers.pop(name) for name in self._exact_names}
        try:
            out = super()._apply(fn, recurse)
        finally:
            for name, master in masters.items():
                work = self._buffers.get(name + "_w")
                if work is not None and master.device != work.device:
                    try:
                        master = master.to(device=work.device)
                    except (RuntimeError, TypeError):  # e.g. mps has no float64
                        pass
                self._buffers[name] = master
            items = [(k, self._buffers[k]) for k in order]
            self._buffers.clear()
            self._buffers.update(items)
        self._refresh_working()
        return out


def _refresh_after_load(module: nn.Module, incompatible_keys: Any) -> None:
    module._refresh_working()  # type: ignore[operator]
