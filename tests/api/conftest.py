"""API test fixtures: one app (real core, worker processes) per test module."""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():  # starlette's notice about httpx (pinned by the project)
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def client():
    from eqattn.api.app import create_app

    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c
