"""The API at its edges: plain-word validation messages, strict JSON types, 405 with Allow,
the Host check, large coverage answers without detail, and cheap work beside expensive work."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
import json
import time

import pytest

EX2 = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1}
DESIGN = {**EX2, "orbits": [{"subgroup": 1, "rep": "B"}]}


def error(resp, status: int = 422) -> dict:
    assert resp.status_code == status, resp.text[:500]
    data = resp.json()
    assert set(data) == {"field", "message", "errors"} and "\n" not in data["message"], data
    return data


# ------------------------------------------------------------------------------ messages
@pytest.mark.parametrize(
    "path, body, field, words",
    [
        ("/api/clusterings", {**EX2, "heads": "abc"}, "heads", 'must be a whole number from 1 to 512, got "abc"'),
        ("/api/clusterings", {**EX2, "heads": 0}, "heads", "must be a whole number from 1 to 512, got 0"),
        ("/api/clusterings", {**EX2, "head_dim": 5000}, "head_dim", "from 1 to 4096, got 5000"),
        ("/api/clusterings", {**EX2, "rep": ""}, "rep", "must not be empty; give text of 1 to 2000 characters"),
        ("/api/clusterings", {**EX2, "extra": 1}, "extra", "not a field of this request; the fields are group, rep, heads, head_dim"),
        ("/api/clusterings", {"group": "C4", "rep": "E1", "heads": 2}, "head_dim", "is required; give a whole number from 1 to 4096"),
        ("/api/optimize", {**EX2, "time_limit": 0}, "time_limit", "must be a number > 0 and <= 300"),
        ("/api/design", {**EX2, "orbits": [{"subgroup": 1, "rep": 3}]}, "orbits[0].rep", "must be text"),
        ("/api/witnesses", {**DESIGN, "clustering": 0, "limit": 99}, "limit", "from 1 to 50, got 99"),
    ],
)
def test_validation_messages_say_what_is_allowed(client, path, body, field, words):
    e = error(client.post(path, json=body))
    assert e["field"] == field and words in e["message"], e
    assert "Input should" not in e["message"] and "String should" not in e["message"], e


def test_query_messages_say_what_is_allowed(client):
    e = error(client.get("/api/subgroup", params={"group": "C4", "id": "x"}))
    assert e == {**e, "field": "id", "message": 'must be a whole number from 0 to 100000, got "x"'}
    e = error(client.get("/api/group", params={"name": ""}))
    assert e["field"] == "name" and e["message"].startswith("must not be empty"), e


@pytest.mark.parametrize(
    "rep, words",
    [
        ("1e30xE1", "bad multiplicity '1e30' in '1e30xE1': a multiplicity is a whole number from 0 to 1000000"),
        ("2.5xB", "bad multiplicity '2.5'"),
        ("2E1", "did you mean '2xE1'?"),
        ("A + 3B", "did you mean '3xB'?"),
        ("Q", "presets: trivial, regular, perm:<subgroup>"),  # no "vector": C4 is no matrix group
    ],
)
def test_rep_messages_name_the_mistake(client, rep, words):
    e = error(client.post("/api/clusterings", json={**EX2, "rep": rep}))
    assert e["field"] == "rep" and words in e["message"], e
    assert "vector" not in e["message"]


# ------------------------------------------------------------------------------ strict types
@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/api/clusterings", {**EX2, "heads": True}, "heads"),
        ("/api/clusterings", {**EX2, "heads": "2"}, "heads"),
        ("/api/clusterings", {**EX2, "head_dim": 1.0}, "head_dim"),
        ("/api/clusterings", {**EX2, "group": 4}, "group"),
        ("/api/optimize", {**EX2, "time_limit": True}, "time_limit"),
        ("/api/optimize", {**EX2, "time_limit": "5"}, "time_limit"),
        ("/api/verify", {**DESIGN, "clustering": 0, "seed": False}, "seed"),
        ("/api/witnesses", {**DESIGN, "clustering": 0, "offset": False}, "offset"),
        ("/api/witnesses", {**DESIGN, "clustering": True}, "clustering"),
    ],
)
def test_the_schema_types_are_not_coerced(client, path, body, field):
    e = error(client.post(path, json=body))
    assert e["field"] == field and "got " in e["message"], e


def test_a_whole_number_is_a_number(client):
    r = client.post("/api/design", json={**DESIGN})
    assert r.status_code == 200
    assert client.post("/api/optimize", json={**EX2, "time_limit": 5}).status_code == 200


def test_405_carries_allow(client):
    r = client.get("/api/clusterings")
    e = error(r, 405)
    assert r.headers["allow"] == "POST" and e["field"] == "method" and "allowed: POST" in e["message"]
    r = client.post("/api/catalog")
    assert error(r, 405)["field"] == "method" and "GET" in r.headers["allow"]


@pytest.mark.parametrize("host", ["localhost:1@evil.com", "[::1]evil", "[::1]:80evil", "localhost:", "localhost:8000:1",
                                  "localhost@evil.com", "127.0.0.1:abc", "[::1"])
def test_host_check_reads_the_whole_header(client, host):
    assert error(client.get("/api/catalog", headers={"host": host}), 400)["field"] == "host"


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST:8000", "127.0.0.1:65535", "[::1]", "[::1]:8000"])
def test_local_hosts_still_pass(client, host):
    assert client.get("/api/catalog", headers={"host": host}).status_code == 200


# ------------------------------------------------------------------------------ large coverage answers
def test_coverage_without_detail_past_the_budget_and_detail_on_demand(client, monkeypatch):
    from eqattn.api import work

    full = client.post("/api/coverage", json=DESIGN).json()
    assert "detail_omitted" not in full and all(c["witness"] for c in full["clusterings"])
    p = work.problem("C4", "E1", 2, 1)
    d = work.Design.create(p, [(1, "B")])
    lean = work.coverage_json(p, d, detail_bytes=100)
    assert lean["detail_omitted"] is True and lean["covered"] == full["covered"] == 3 and lean["total"] == 3
    assert [c["covered"] for c in lean["clusterings"]] == [c["covered"] for c in full["clusterings"]]
    assert all(c["witness"] is None and c["detail_omitted"] for c in lean["clusterings"])
    for c in full["clusterings"]:
        one = client.post("/api/coverage/detail", json={**DESIGN, "clustering": c["id"]})
        assert one.status_code == 200 and one.json() == c
    e = error(client.post("/api/coverage/detail", json={**DESIGN, "clustering": 3}))
    assert e["field"] == "clustering" and "0..2" in e["message"]


def test_coverage_json_is_the_cores_check_report():
    from eqattn.api import work
    from eqattn.attention import check_report

    for args, orbits in [(("C4", "E1", 2, 1), [(1, "B")]), (("D3", "regular", 2, 2), [(0, "A")]), (("C4", "E1", 2, 1), [])]:
        p = work.problem(*args)
        d = work.Design.create(p, orbits)
        assert json.loads(json.dumps(work.coverage_json(p, d))) == json.loads(json.dumps(check_report(p, d)))


def test_a_large_coverage_answer_is_lean():
    """Oh, regular, H = 4, d = 48, 4 orbits 0:48xA: 52 clusterings whose detail passes 1 MB."""
    from eqattn.api import work

    p = work.problem("Oh", "regular", 4, 48)
    d = work.Design.create(p, [(0, "48xA")] * 4)
    full = work.coverage_json(p, d, detail_bytes=1 << 40)
    size = len(json.dumps(full))
    lean = json.dumps(work.coverage_json(p, d, detail_bytes=size // 4))
    assert json.loads(lean)["detail_omitted"] and len(lean) < size / 4, (len(lean), size)


# ------------------------------------------------------------------------------ queues
def test_cheap_work_does_not_wait_for_optimizations_and_waiting_counts():
    """Two long optimizations hold the optimizer's workers: a clusterings call is answered at
    once (it waited for them: 38.9 s), and a third optimize with time_limit 1.5 answers within
    it, its wait included (it answered after the others' time plus its own)."""
    from eqattn.api.engine import Engine
    from eqattn.errors import LimitError

    slow = ("Ih", "4xregular", 8, 60)  # uses its whole time limit (C12 regular H12 d1, before, is proven in 4 s now)

    async def scenario() -> tuple[float, float, object]:
        eng = Engine(heavy=1, light=1, search=2)
        try:
            long_runs = [asyncio.create_task(eng.optimize(*slow, time_limit=20)) for _ in range(2)]
            await asyncio.sleep(0.3)
            t0 = time.monotonic()
            out = await eng.clusterings("C4", "E1", 2, 1)
            cheap = time.monotonic() - t0
            assert out["count"] == 3
            t0 = time.monotonic()
            try:
                third: object = await eng.optimize(*slow, time_limit=1.5)
            except LimitError as e:
                third = e
            queued = time.monotonic() - t0
            for t in long_runs:
                t.cancel()
            await asyncio.gather(*long_runs, return_exceptions=True)
            return cheap, queued, third
        finally:
            eng.close()

    with ThreadPoolExecutor(1) as ex:  # a thread of its own: this one may run Playwright's event loop
        cheap, queued, third = ex.submit(asyncio.run, scenario()).result()
    assert cheap < 10.0, cheap
    assert queued < 1.5 + 2.0, queued  # before: the 20 s of the others, then its own 1.5 s
    assert isinstance(third, LimitError) and third.field == "time_limit" and "waited" in third.message, third
