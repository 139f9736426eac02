"""The inspector endpoints: subgroup inspector, character table, paged witnesses, verify."""

from __future__ import annotations

REGULAR_D3 = {"group": "D3", "rep": "regular", "heads": 2, "head_dim": 2,
              "orbits": [{"subgroup": "C1", "rep": "2xA"}, {"subgroup": "C1", "rep": "2xA"}]}


def _field(r) -> str:
    body = r.json()
    if "field" in body:  # the {field, message} error shape
        return body["field"]
    return body["detail"][0]["field"]


def test_subgroup_inspector(client):
    r = client.get("/api/subgroup", params={"group": "D4", "id": 1})
    assert r.status_code == 200
    v = r.json()
    assert (v["name"], v["type"], v["order"], v["index"]) == ("C2.1", "C2", 2, 4)
    assert [e["word"] for e in v["elements"]] == ["e", "a^2"]
    assert v["normalizer"]["order"] == 8
    assert [row["character"] for row in v["character_table"]["irreps"]] == [[1.0, 1.0], [1.0, -1.0]]


def test_character_table_of_g(client):
    r = client.get("/api/character-table", params={"group": "D3"})
    assert r.status_code == 200
    t = r.json()
    assert [c["size"] for c in t["classes"]] == [1, 3, 2]
    assert [row["character"] for row in t["irreps"]] == [[1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [2.0, 0.0, -1.0]]


def test_inspector_bad_input_names_the_field(client):
    assert _field(client.get("/api/subgroup", params={"group": "D4", "id": 99})) == "id"
    r = client.get("/api/subgroup", params={"group": "Q9", "id": 0})
    assert r.status_code == 422 and _field(r) == "group"
    r = client.get("/api/character-table", params={"group": "nope"})
    assert r.status_code == 422 and _field(r) == "group"


def test_witness_pages(client):
    seen = []
    for off in (0, 5):
        r = client.post("/api/witnesses", json={**REGULAR_D3, "clustering": 2, "offset": off, "limit": 5})
        assert r.status_code == 200
        page = r.json()
        assert page["total"] == 10
        seen += [w["index"] for w in page["witnesses"] if w["ok"]]
    assert seen == list(range(10))
    r = client.post("/api/witnesses", json={**REGULAR_D3, "clustering": 2, "limit": 500})
    assert r.status_code == 422 and _field(r) == "limit"


def test_verify_one_clustering(client):
    r = client.post("/api/verify", json={**REGULAR_D3, "clustering": 2})
    assert r.status_code == 200
    v = r.json()
    assert v["covered"] and v["ok"] and v["worst_rel_error"] < 1e-8
    r = client.post("/api/verify", json={**REGULAR_D3, "clustering": 30})
    assert r.status_code == 422 and _field(r) == "clustering"


def test_restrictions_and_what_each_element_is(client):
    r = client.get("/api/restrictions", params={"group": "C4", "rep": "E1"})
    assert r.status_code == 200
    c2 = r.json()["subgroups"][1]
    assert c2["text"] == "2xB" and c2["irreps"][0] == {"label": "A", "dim": 1, "multiplicity": 0, "params_per_copy": 0}
    r = client.get("/api/restrictions", params={"group": "C4", "rep": "Z"})
    assert r.status_code == 422 and _field(r) == "rep"
    r = client.get("/api/restrictions", params={"group": "Q9", "rep": "A"})
    assert r.status_code == 422 and _field(r) == "group"
    g = client.get("/api/group", params={"name": "D4"}).json()
    assert g["generators"][0]["description"] == "rotation by π/2"
    assert g["subgroups"][1]["description"] == "{identity, rotation by π}"
    # G/Z(D4) is C2 x C2: the quarter turn and the reflection each swap the 4 clusters in pairs
    assert g["subgroups"][1]["coset_action"] == [[1, 0, 3, 2], [2, 3, 0, 1]]
    v = client.get("/api/subgroup", params={"group": "Oh", "id": 3}).json()
    assert [e["description"] for e in v["elements"]] == ["identity", "reflection in the plane ⟂ (0, 0, 1)"]
    assert v["elements"][1]["matrix"] == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]
