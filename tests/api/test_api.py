"""The JSON API: every endpoint, good and bad input (docs/contracts.md), against the real core."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from eqattn.api.app import create_app, field_name
from eqattn.api.deps import get_engine
from eqattn.errors import InputError

EX2 = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1}  # SPEC §6 example 2


def only_error(resp, field: str) -> str:
    """The 422 `{field, message, errors}` names `field` (first or among `errors`); returns its message."""
    assert resp.status_code == 422, resp.text[:500]
    data = resp.json()
    assert set(data) == {"field", "message", "errors"} and data["errors"], data
    assert (data["field"], data["message"]) == (data["errors"][0]["field"], data["errors"][0]["message"])
    fields = {d["field"] for d in data["errors"]}
    assert field in fields, str(data)[:500]
    d = next(d for d in data["errors"] if d["field"] == field)
    assert d["message"] and "\n" not in d["message"]
    return d["message"]


# ------------------------------------------------------------------------------ page
def test_page_has_the_optimiser_button(client):
    assert 'id="optimize"' in client.get("/").text
    assert client.get("/api/features").status_code == 404


def test_page_and_static_files_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert "Vanilla layer" in r.text and "/static/js/app.js" in r.text
    for path in ("/static/js/app.js", "/static/js/api.js", "/static/js/draw.js", "/static/js/state.js", "/static/style.css"):
        assert client.get(path).status_code == 200, path
    assert client.get("/static/nope.js").status_code == 404


def test_openapi_lists_the_endpoints(client):
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/catalog", "/api/group", "/api/clusterings", "/api/design", "/api/coverage", "/api/optimize"):
        assert p in paths
        for op in paths[p].values():  # a response model for 200 and the one error model for errors
            assert "$ref" in str(op["responses"]["200"]["content"]["application/json"]["schema"]), p
            for code in ("400", "413", "422", "500"):
                assert op["responses"][code]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorOut"}


# ------------------------------------------------------------------------------ catalog / group
def test_catalog(client):
    cat = client.get("/api/catalog").json()
    by_name = {e["name"]: e for e in cat}
    assert by_name["C4"]["order"] == 4 and by_name["D3"]["order"] == 6
    assert all({"name", "order", "family"} <= set(e) for e in cat)


def test_group_c4(client):
    g = client.get("/api/group", params={"name": "C4"}).json()
    assert g["name"] == "C4" and g["order"] == 4
    assert [(i["label"], i["dim"], i["type"]) for i in g["irreps"]] == [("A", 1, "real"), ("B", 1, "real"), ("E1", 2, "complex")]
    assert all(len(i["character"]) == len(g["classes"]) for i in g["irreps"])
    assert [s["order"] for s in g["subgroups"]] == [1, 2, 4]
    assert g["subgroups"][-1]["index"] == 1  # the last subgroup is G itself
    assert "trivial" in g["presets"] and "regular" in g["presets"]


def test_group_custom_permutations(client):
    g = client.get("/api/group", params={"name": "perm:(1,2,3),(1,2)"}).json()
    assert g["order"] == 6 and len(g["subgroups"]) == 4


@pytest.mark.parametrize("name", ["Q9", "perm:(1,2,x)"])
def test_group_bad_name_is_422_on_the_name(client, name):
    msg = only_error(client.get("/api/group", params={"name": name}), "name")
    assert name.split(":")[0] in msg or "x" in msg


def test_group_missing_or_empty_name(client):
    only_error(client.get("/api/group"), "name")
    only_error(client.get("/api/group", params={"name": ""}), "name")


# ------------------------------------------------------------------------------ clusterings
def test_clusterings_example_2(client):
    r = client.post("/api/clusterings", json=EX2).json()
    assert r["count"] == 3 and r["vanilla_params"] == 16 and r["dim_v"] == 2
    shapes = sorted(tuple(sorted((o["name"], o["cluster_size"], o["count"]) for o in c["orbits"])) for c in r["clusterings"])
    assert shapes == sorted([(("C4", 1, 2),), (("C4", 2, 1),), (("C2", 1, 1),)])
    for c in r["clusterings"]:
        assert sum(o["index"] * o["cluster_size"] * o["count"] for o in c["orbits"]) == 2


@pytest.mark.parametrize(
    "change, field",
    [
        ({"heads": 0}, "heads"),
        ({"heads": "two"}, "heads"),
        ({"head_dim": -1}, "head_dim"),
        ({"heads": 10**6}, "heads"),
        ({"rep": ""}, "rep"),
        ({"group": ""}, "group"),
    ],
)
def test_clusterings_bad_fields_are_422(client, change, field):
    only_error(client.post("/api/clusterings", json={**EX2, **change}), field)


@pytest.mark.parametrize(
    "change, field, words",
    [
        ({"rep": "2xQ"}, "rep", "unknown irrep"),
        ({"rep": "0"}, "rep", "non-zero"),
        ({"group": "Q9"}, "group", "unknown group"),
        ({"heads": 65}, "heads", "at most"),
    ],
)
def test_clusterings_core_errors_are_422(client, change, field, words):
    assert words in only_error(client.post("/api/clusterings", json={**EX2, **change}), field)


def test_clusterings_missing_and_extra_fields(client):
    body = dict(EX2)
    del body["heads"]
    only_error(client.post("/api/clusterings", json=body), "heads")
    only_error(client.post("/api/clusterings", json={**EX2, "colour": "red"}), "colour")
    r = client.post("/api/clusterings", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422


# ------------------------------------------------------------------------------ design (live counts)
def test_design_counts_example_2(client):
    r = client.post("/api/design", json={**EX2, "orbits": [{"subgroup": 1, "rep": "B"}]}).json()
    assert (r["vanilla_params"], r["design_params"], r["design_heads"], r["dim_v"]) == (16, 8, 2, 2)
    assert r["ratio"] == 0.5
    assert r["rep"]["multiplicities"] == {"A": 0, "B": 0, "E1": 1} or r["rep"]["multiplicities"] == {"E1": 1}
    (o,) = r["orbits"]
    assert (o["name"], o["heads"], o["head_dim"], o["params"]) == ("C2", 2, 1, 8)


def test_design_empty(client):
    r = client.post("/api/design", json={**EX2, "orbits": []}).json()
    assert r["design_params"] == 0 and r["orbits"] == [] and r["vanilla_params"] == 16


def test_design_regular_strategy_equals_vanilla(client):
    # SPEC §3: H copies of (C1, d x trivial) cost exactly 4 H d dim V
    body = {"group": "D3", "rep": "regular", "heads": 2, "head_dim": 2, "orbits": [{"subgroup": 0, "rep": "2xA"}] * 2}
    r = client.post("/api/design", json=body).json()
    assert r["vanilla_params"] == 4 * 2 * 2 * 6 == r["design_params"]
    assert r["rep"]["dim"] == 6 and sum(r["rep"]["multiplicities"].values()) == 4  # A1 + A2 + 2xE1


def test_design_subgroup_by_name_and_presets(client):
    r = client.post("/api/design", json={**EX2, "rep": "perm:C2", "orbits": [{"subgroup": "C2", "rep": "0"}]}).json()
    assert r["dim_v"] == 2 and r["orbits"][0]["params"] == 0 and r["orbits"][0]["head_dim"] == 0


@pytest.mark.parametrize(
    "orbits, field",
    [
        ([{"subgroup": 1, "rep": "B"}, {"subgroup": 1, "rep": "Q"}], "orbits[1].rep"),
        ([{"subgroup": 9, "rep": "A"}], "orbits[0].subgroup"),
        ([{"subgroup": 1}], "orbits[0].rep"),
        ([{"subgroup": [1], "rep": "A"}], "orbits[0].subgroup"),
        ("C2:B", "orbits"),
    ],
)
def test_design_bad_orbits_name_the_orbit(client, orbits, field):
    only_error(client.post("/api/design", json={**EX2, "orbits": orbits}), field)


# ------------------------------------------------------------------------------ coverage
def test_coverage_example_2_is_covered(client):
    r = client.post("/api/coverage", json={**EX2, "orbits": [{"subgroup": 1, "rep": "B"}]}).json()
    assert (r["vanilla_params"], r["design_params"], r["covered"], r["total"]) == (16, 8, 3, 3)
    for c in r["clusterings"]:
        assert c["covered"] and c["counterexample"] is None and c["witness"]


def test_coverage_empty_design_gives_counterexamples(client):
    r = client.post("/api/coverage", json={**EX2, "orbits": []}).json()
    assert (r["covered"], r["total"]) == (1, 3)
    bad = [c for c in r["clusterings"] if not c["covered"]]
    assert len(bad) == 2
    for c in bad:
        ce = c["counterexample"]
        assert ce["scenario"] and ce["shortfall"] and ce["text"]
    missing = sorted(s["missing"] for c in bad for s in c["counterexample"]["shortfall"])
    assert missing == ["B", "E1"]


def test_coverage_example_3_counterexample(client):
    body = {"group": "C2", "rep": "A + B", "heads": 1, "head_dim": 1,
            "orbits": [{"subgroup": "C2", "rep": "A"}, {"subgroup": "C2", "rep": "B"}]}
    r = client.post("/api/coverage", json=body).json()
    assert (r["design_params"], r["covered"], r["total"]) == (8, 0, 1)
    ce = r["clusterings"][0]["counterexample"]
    assert ce["shortfall"][0]["missing"] == "B"
    body["orbits"] = [{"subgroup": "C2", "rep": "A + B"}]
    assert client.post("/api/coverage", json=body).json()["covered"] == 1


@pytest.mark.parametrize("problem", [("D4h", "regular", 16, 1), ("D4h", "regular", 64, 1), ("C4", "E1", 65, 1)])
def test_too_large_problems_are_422_not_500(client, problem):
    body = dict(zip(("group", "rep", "heads", "head_dim"), problem))
    for path in ("/api/clusterings", "/api/coverage"):
        r = client.post(path, json={**body, "orbits": []} if path == "/api/coverage" else body)
        assert "at most" in only_error(r, "heads")


def test_coverage_bad_input(client):
    only_error(client.post("/api/coverage", json={**EX2, "heads": 0, "orbits": []}), "heads")
    only_error(client.post("/api/coverage", json={**EX2, "orbits": [{"subgroup": 1, "rep": "Q"}]}), "orbits[0].rep")


# ------------------------------------------------------------------------------ error handling
class _Broken:
    """An engine double (app.dependency_overrides): a bug in one call, an InputError in another."""

    async def catalog(self):
        raise RuntimeError("disk on fire\nsecond line")

    async def clusterings(self, *a, **kw):
        raise InputError("rep", "no such thing")


def _broken_client(**kw) -> TestClient:
    app = create_app()
    app.dependency_overrides[get_engine] = lambda: _Broken()
    return TestClient(app, **kw)


def test_unexpected_errors_are_a_one_line_500_and_logged(caplog):
    c = _broken_client(raise_server_exceptions=False)
    with caplog.at_level("ERROR", logger="eqattn.api"):
        r = c.get("/api/catalog")
    assert r.status_code == 500
    msg = "internal error: RuntimeError: disk on fire second line"
    assert r.json() == {"field": "server", "message": msg, "errors": [{"field": "server", "message": msg}]}
    assert any("unexpected error" in rec.getMessage() for rec in caplog.records)


def test_input_error_shape():
    r = _broken_client().post("/api/clusterings", json=EX2)
    assert r.status_code == 422
    assert r.json() == {"field": "rep", "message": "no such thing", "errors": [{"field": "rep", "message": "no such thing"}]}


def test_field_name():
    assert field_name(["body", "orbits", 2, "rep"]) == "orbits[2].rep"
    assert field_name(["query", "name"]) == "name"
    assert field_name(["body"]) == "body"
    assert field_name(["body", 1]) == "body"  # a position in malformed JSON
