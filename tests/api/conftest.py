"""API test fixtures. EQATTN_API_BACKEND=fake answers from tests/api/fixtures/ (for work on
the page without the core); the default, `real`, calls the core."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import warnings

import pytest

with warnings.catch_warnings():  # starlette's notice about httpx (pinned by the project)
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

HERE = Path(__file__).resolve().parent


def make_backend():
    if os.environ.get("EQATTN_API_BACKEND", "real") == "fake":
        sys.path.insert(0, str(HERE))
        from fake_backend import FakeBackend

        return FakeBackend()
    return None  # the app's default: the real core


@pytest.fixture(scope="module")
def client():
    from eqattn.api.app import create_app

    with TestClient(create_app(make_backend()), raise_server_exceptions=False) as c:
        yield c
