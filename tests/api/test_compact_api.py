"""The API on a compact group: /api/group at the band V names (the stand-in every problem of
that V is computed on, catalog.group_for_rep), and /api/verify naming its Haar samples
(docs/theory-continuous.md §5, §6)."""

from __future__ import annotations

import dataclasses


def _labels(g: dict) -> list[str]:
    return [i["label"] for i in g["irreps"]]


def test_group_follows_the_band_of_v(client):
    default = client.get("/api/group", params={"name": "O3"}).json()
    assert (default["compact"]["band"], default["compact"]["stand_in"]) == (2, "Ih")
    assert {"2e", "2o"} <= set(_labels(default))
    low = client.get("/api/group", params={"name": "O3", "rep": "16x0e + 8x1o"}).json()
    assert (low["compact"]["band"], low["compact"]["stand_in"]) == (1, "Oh")
    assert sorted(_labels(low)) == ["0e", "0o", "1e", "1o"]
    assert {s["name"]: [i["label"] for i in s["irreps"]] for s in low["subgroups"]} == {
        "SO3": ["0", "1"], "O3": ["0e", "0o", "1o", "1e"]}
    high = client.get("/api/group", params={"name": "SO2", "rep": "A + E11"}).json()
    assert (high["compact"]["band"], high["compact"]["stand_in"]) == (11, "C23")
    assert "E11" in _labels(high) and "E12" not in _labels(high)
    assert "E9" in _labels(client.get("/api/group", params={"name": "O2", "rep": "A1 + E9"}).json())
    # a finite group: the rep changes nothing
    assert client.get("/api/group", params={"name": "C4", "rep": "E1"}).json() == client.get("/api/group", params={"name": "C4"}).json()


def test_group_band_past_the_limit_is_a_clear_error(client):
    r = client.get("/api/group", params={"name": "O3", "rep": "1x17o"})
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "rep" and "l <= 16" in body["message"]
    # l = 3 is computed through the character-detecting stand-in (docs/theory-continuous.md §8)
    body = client.get("/api/group", params={"name": "O3", "rep": "1x3o"}).json()
    assert body["compact"]["stand_in"] == "C6xCi" and body["compact"]["route"] == "characters"
    assert "not irreducible on it" in body["compact"]["stand_in_role"]


def test_verify_names_the_haar_samples_of_a_compact_group(client):
    body = {"group": "O3", "rep": "2x0e + 1x1o", "heads": 2, "head_dim": 1,
            "orbits": [{"subgroup": "O3", "rep": "0e"}, {"subgroup": "O3", "rep": "0e"}], "clustering": 0}
    r = client.post("/api/verify", json=body)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["covered"] and out["ok"] and out["haar_samples"] == 16
    assert "haar_samples" in client.get("/openapi.json").json()["components"]["schemas"]["VerifyOut"]["properties"]
    finite = client.post("/api/verify", json={"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1,
                                              "orbits": [{"subgroup": "C2", "rep": "B"}], "clustering": 0}).json()
    assert finite["ok"] and finite["haar_samples"] == 0


def test_verify_is_not_ok_when_equivariance_fails(monkeypatch):
    """The page's ✓ needs both numbers within the tolerance, as `eqattn verify` does."""
    from eqattn.api import work
    from eqattn.numeric import verify as numeric_verify

    real = numeric_verify.verify_design
    monkeypatch.setattr(numeric_verify, "verify_design",
                        lambda *a, **kw: dataclasses.replace(real(*a, **kw), worst_equivariance_error=1e-3))
    out = work.verify_clustering("SO3", "1x0 + 1x1", 2, 1, [("SO3", "1x0"), ("SO3", "1x1")], 0)
    assert out["covered"] and out["worst_rel_error"] < out["tolerance"] and not out["ok"]
    monkeypatch.setattr(numeric_verify, "verify_design", real)
    assert work.verify_clustering("SO3", "1x0 + 1x1", 2, 1, [("SO3", "1x0"), ("SO3", "1x1")], 0)["ok"]
