"""POST /api/front, /api/widening, /api/partial against the core (the same JSON as the CLI)."""

from __future__ import annotations


def test_front_endpoint(client):
    r = client.post("/api/front", json={"group": "C4", "rep": "regular", "heads": 2, "head_dim": 1, "time_limit": 20})
    assert r.status_code == 200, r.text
    data = r.json()
    assert {"points", "vanilla_params", "vanilla_attention_cost", "status"} <= set(data)
    assert data["single_point"] is True and data["status"] == "optimal"
    (pt,) = data["points"]
    # V = regular: params = 4 x attention cost for every design
    assert pt["design_params"] == 4 * pt["attention_cost"] == 24
    assert set(pt) >= {"attention_cost", "heads", "max_head_dim", "design_params", "lower_bound", "status", "orbits"}


def test_widening_endpoint(client):
    r = client.post("/api/widening", json={"group": "S3", "rep": "regular", "heads": 2, "head_dim": 1, "time_limit": 20})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["min_attention_cost"]["value"] == 6 and data["min_attention_cost"]["status"] == "optimal"
    assert data["min_heads"]["value"] == 8 and data["min_head_dim"]["status"] == "infeasible"


def test_partial_endpoint_and_its_errors(client):
    body = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "max_heads": 1, "time_limit": 20}
    r = client.post("/api/partial", json=body)
    assert r.status_code == 200, r.text
    part = r.json()["partial"]
    assert (part["covered"], part["of"], part["status"], part["upper_bound"], part["uncovered"]) == (2, 3, "optimal", 2, [1])
    assert r.json()["design_params"] == 8
    # no budget: a 422 naming the field
    r = client.post("/api/partial", json={**body, "max_heads": None})
    assert r.status_code == 422 and r.json()["field"] == "partial"
    r = client.post("/api/partial", json={**body, "max_cost": 0})
    assert r.status_code == 422 and r.json()["field"] == "max_cost"


def test_optimize_takes_a_cost_budget(client):
    """SPEC §6 example 2 (C4, E1, H = 2, d = 1): its least widening is 2, the layer's own cost
    (the design (C2, B)); a budget of 1 is proven infeasible, with its reason."""
    body = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "time_limit": 20}
    r = client.post("/api/optimize", json={**body, "max_cost": 1})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["status"] == "infeasible" and data["constraints"]["max_cost"] == 1 and data["reason"]
    r = client.post("/api/optimize", json={**body, "max_cost": 2})
    data = r.json()
    assert data["status"] == "optimal" and data["attention_cost"] <= 2 and data["design_params"] == 8


def test_partial_endpoint_takes_the_engine_and_a_work_limit(client):
    """/api/partial passes `engine` and `work_limit` to partial_coverage (the names of its
    keywords): the search engine under a work limit of 1 stops there and says so, with the
    honest bound 5 of 5; unlimited, it proves that nothing within 2 heads of dimension 2
    covers a clustering of D4 2×regular H2 d2."""
    body = {"group": "D4", "rep": "2xregular", "heads": 2, "head_dim": 2, "max_heads": 2, "max_head_dim": 2,
            "time_limit": 30}
    r = client.post("/api/partial", json={**body, "engine": "search", "work_limit": 1})
    assert r.status_code == 200, r.text
    part = r.json()["partial"]
    assert (part["engine"], part["stopped_by"], part["status"], part["upper_bound"]) == ("search", "work_limit", "feasible", 5)
    part = client.post("/api/partial", json={**body, "engine": "search"}).json()["partial"]
    assert (part["engine"], part["stopped_by"], part["status"], part["upper_bound"]) == ("search", None, "optimal", 0)
    part = client.post("/api/partial", json={"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "max_heads": 1,
                                             "engine": "program"}).json()["partial"]
    assert (part["engine"], part["covered"], part["status"]) == ("program", 2, "optimal")
    for bad, field in (({"engine": "simplex"}, "engine"), ({"work_limit": 0}, "work_limit")):
        r = client.post("/api/partial", json={**body, **bad})
        assert r.status_code == 422 and r.json()["field"] == field, r.text
