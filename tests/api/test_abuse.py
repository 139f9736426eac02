"""Regression tests for issue 11 ("bounded, honest under abuse"): each reproducer of the
issue, now a clear 4xx `{field, message}` or an answer within its limits."""

from __future__ import annotations

import time

import pytest

EX2 = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1}
HUGE = "9223372036854775807xB"  # 2^63 - 1: overflowed int64 (500, or design_params -8)


def error(resp, status: int = 422) -> dict:
    assert resp.status_code == status, resp.text[:500]
    data = resp.json()
    assert set(data) == {"field", "message", "errors"} and "\n" not in data["message"], data
    return data


# ------------------------------------------------------------------------------ huge numbers
@pytest.mark.parametrize("rep", [HUGE, "18446744073709551617xA", "1" + "0" * 5000 + "xA", "1000001xA"])
@pytest.mark.parametrize("path", ["/api/clusterings", "/api/design", "/api/coverage", "/api/optimize"])
def test_huge_multiplicities_of_v_are_refused(client, path, rep):
    body = {**EX2, "group": "C2", "rep": rep}
    if path in ("/api/design", "/api/coverage"):
        body["orbits"] = []
    e = error(client.post(path, json=body))
    assert e["field"] == "rep" and ("at most 1000000" in e["message"] or "at most 2000" in e["message"]), e


def test_huge_orbit_multiplicity_is_refused_not_negative(client):
    body = {"group": "C2", "rep": "A + B", "heads": 1, "head_dim": 1, "orbits": [{"subgroup": "C2", "rep": HUGE}]}
    e = error(client.post("/api/design", json=body))
    assert e["field"] == "orbits[0].rep" and "at most 1000000" in e["message"]


@pytest.mark.parametrize("path", ["/api/design", "/api/coverage"])
def test_orbit_head_dimension_is_capped(client, path):
    body = {"group": "C2", "rep": "A + B", "heads": 1, "head_dim": 1, "orbits": [{"subgroup": "C2", "rep": "1000000xB"}]}
    e = error(client.post(path, json=body))
    assert e["field"] == "orbits[0].rep" and "dim W = 1000000; at most 4096" in e["message"]
    body["orbits"] = [{"subgroup": "C2", "rep": "4096xB"}]  # at the cap: counted exactly (SPEC §3: 4 * 1 * 4096)
    r = client.post(path, json=body)
    assert r.status_code == 200 and r.json()["design_params"] == 4 * 4096


def test_verify_memory_is_refused_up_front():
    from eqattn.attention import Design, Problem
    from eqattn.errors import LimitError
    from eqattn.numeric.verify import MAX_VERIFY_BYTES, verify_design, verify_memory

    p = Problem.create("C2", "512xA + 512xB", 1, 1)
    d = Design.create(p, [("C2", "A")] + [("C2", "4096xB")] * 8)
    need, where = verify_memory(p, d)
    n, widths = 1024, 1 + 8 * 4096  # the estimate's formula (verify_memory's docstring)
    squares = (2 + 2 * 2 + 2) * n * n  # |G|, two per subgroup class in use, a demand's block
    lines = (14 * 1 * 1 + (1 + 3) * 1 + 4 * widths + 3 * 4096) * n  # sample, row space, weights, a host
    assert where == 1 and need == 8 * (squares + lines)
    with pytest.raises(LimitError) as e:
        verify_design(p, d)
    assert e.value.field == "orbits[1].rep" and f"{need / MAX_VERIFY_BYTES:.1f} times the budget" in e.value.message


# ------------------------------------------------------------------------------ body, host, shapes
def test_body_over_one_mib_is_413_before_parsing(client):
    big = b'{"group": "' + b"C" * (2 << 20) + b'"}'
    e = error(client.post("/api/clusterings", content=big, headers={"content-type": "application/json"}), 413)
    assert e["field"] == "body" and "1048576 bytes" in e["message"]


def test_streamed_body_over_the_cap_is_413(client):
    def chunks():
        for _ in range(40):
            yield b" " * 65536

    e = error(client.post("/api/clusterings", content=chunks(), headers={"content-type": "application/json"}), 413)
    assert e["field"] == "body"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil"])
def test_foreign_host_is_refused(client, host):
    e = error(client.get("/api/catalog", headers={"host": host}), 400)
    assert e["field"] == "host" and "--allow-host" in e["message"]
    assert client.get("/api/catalog", headers={"host": "localhost:8000"}).status_code == 200
    assert client.get("/api/catalog", headers={"host": "127.0.0.1"}).status_code == 200


def test_allow_host_adds_a_name():
    from fastapi.testclient import TestClient

    from eqattn.api.app import create_app

    c = TestClient(create_app(allow_hosts=["designer.lan"]))
    assert c.get("/", headers={"host": "designer.lan:8000"}).status_code == 200
    assert c.get("/", headers={"host": "other.lan"}).status_code == 400


@pytest.mark.parametrize(
    "content, field",
    [(b"\xff\xfe\x00garbage", "body"), (b"{not json", "body"), (b"[1, 2]", "body"), (b"", "body"), (b"null", "body")],
)
def test_unreadable_bodies_have_the_error_shape(client, content, field):
    r = client.post("/api/clusterings", content=content, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500
    assert error(r, r.status_code)["field"] == field


def test_unknown_path_and_method_have_the_error_shape(client):
    assert error(client.get("/api/nope"), 404)["field"] == "path"
    assert error(client.get("/api/clusterings"), 405)["field"] == "method"


# ------------------------------------------------------------------------------ time limits
@pytest.mark.parametrize(
    "body",
    [
        {"group": "perm:(1,2,3,4)", "rep": "2xregular + B + perm:C2", "heads": 2, "head_dim": 4096, "time_limit": 1},
        {"group": "C4", "rep": "2xregular + B + E1", "heads": 2, "head_dim": 2500, "time_limit": 1},
        {"group": "A5", "rep": "regular", "heads": 8, "head_dim": 8, "time_limit": 2},
    ],
)
def test_optimize_time_limit_covers_every_phase(client, body):
    client.post("/api/clusterings", json=EX2)  # the workers are up
    t0 = time.monotonic()
    r = client.post("/api/optimize", json=body)
    took = time.monotonic() - t0
    assert took <= body["time_limit"] + 1.0, took  # before: 200 s, 24.8 s and 13.4 s
    if r.status_code == 200:
        assert r.json()["status"] in ("optimal", "feasible")
    else:
        e = error(r)
        assert e["field"] in ("time_limit", "rep", "request", "head_dim"), e  # head_dim: d > 256 refused up front
