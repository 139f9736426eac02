"""The task benchmarks live in benchmarks/tasks (imported as ``benchmarks.tasks``); one torch thread."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
torch.set_num_threads(1)
