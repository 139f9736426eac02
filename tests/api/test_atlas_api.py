"""GET /api/atlas and the atlas page: the rows of a store, and orbits the designer can load
(the permalink's o=<subgroup id>:<rep> re-checked by POST /api/coverage)."""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from eqattn.api.app import create_app
from eqattn.atlas import parse_grid, run_grid

GRID = {"time_limit": 10, "heads": [1, 2], "head_dims": [1, 2],
        "group": [{"name": "C4", "reps": ["E1"]}, {"name": "D3", "reps": ["A1 + E1"], "heads": [2]}]}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    out = tmp_path_factory.mktemp("atlas")
    run_grid(parse_grid(GRID), out, workers=0, quiet=True)
    return out / "atlas.sqlite"


@pytest.fixture()
def client(store, monkeypatch):
    monkeypatch.delenv("EQATTN_ATLAS", raising=False)
    app = create_app()
    app.state.atlas_store = str(store)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_rows_and_their_designs_cover(client):
    data = client.get("/api/atlas").json()
    assert data["store"] == "atlas.sqlite" and data["total"] == 6 and not data["truncated"]
    rows = data["rows"]
    assert [(r["group"], r["rep"], r["heads"], r["head_dim"]) for r in rows][:2] == [("C4", "E1", 1, 1), ("C4", "E1", 1, 2)]
    # SPEC §6 example 2: C4, V = E1, H = 2, d = 1 -> 8 parameters
    ex = next(r for r in rows if r["group"] == "C4" and r["heads"] == 2 and r["head_dim"] == 1)
    assert (ex["status"], ex["p_vanilla"], ex["p_opt"]) == ("optimal", 16, 8)
    for r in rows:
        body = {"group": r["group"], "rep": r["rep"], "heads": r["heads"], "head_dim": r["head_dim"],
                "orbits": [{"subgroup": o["subgroup"], "rep": o["rep"]} for o in r["orbits"]]}
        cov = client.post("/api/coverage", json=body).json()
        assert cov["covered"] == cov["total"] and cov["design_params"] == r["p_opt"], r


def test_env_variable_and_missing_store(store, monkeypatch, tmp_path):
    monkeypatch.setenv("EQATTN_ATLAS", str(store))
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        assert c.get("/api/atlas").json()["total"] == 6
    monkeypatch.delenv("EQATTN_ATLAS")
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        r = c.get("/api/atlas")
        assert r.status_code == 422 and "eqattn serve --atlas" in r.text
    monkeypatch.setenv("EQATTN_ATLAS", str(tmp_path / "none.sqlite"))
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        r = c.get("/api/atlas")
        assert r.status_code == 422 and "no atlas store" in r.text


def test_page_is_served_and_linked(client):
    assert client.get("/static/atlas.html").status_code == 200
    assert client.get("/static/js/atlas.js").status_code == 200
    assert 'href="/static/atlas.html"' in client.get("/").text
