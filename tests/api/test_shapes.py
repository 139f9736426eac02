"""The JSON shapes the page was built against (tests/api/fixtures/, recorded from the core):
the real answers have the same keys, recursively (values may change with the core)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EX2 = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1}


def keys(v: object, path: str = "") -> set[str]:
    """Every key path in a JSON value (lists: the union over their items)."""
    out: set[str] = set()
    if isinstance(v, dict):
        for k, x in v.items():
            if k.startswith("_"):
                continue  # notes of the recorder, not part of the shape
            out.add(f"{path}.{k}")
            out |= keys(x, f"{path}.{k}")
    elif isinstance(v, list):
        for x in v:
            out |= keys(x, f"{path}[]")
    return out


# Keys the fixtures have although the core never produced them (already so at ab32615, before
# the fake backend was removed): scenario options and assignments carry no `text`.
NEVER_PRODUCED = {
    ".clusterings[].counterexample.scenario[].text",
    ".clusterings[].witness[].scenario[].text",
    ".clusterings[].witness[].assignments[].text",
}

CALLS = {
    "catalog.json": ("GET", "/api/catalog", None),
    "group_C4.json": ("GET", "/api/group?name=C4", None),
    "group_D3.json": ("GET", "/api/group?name=D3", None),
    "clusterings_C4_E1_2_1.json": ("POST", "/api/clusterings", EX2),
    "coverage_C4_E1_2_1_.json": ("POST", "/api/coverage", {**EX2, "orbits": []}),
    "coverage_C4_E1_2_1_1-B.json": ("POST", "/api/coverage", {**EX2, "orbits": [{"subgroup": 1, "rep": "B"}]}),
}


def test_every_fixture_is_checked():
    assert sorted(p.name for p in FIXTURES.glob("*.json")) == sorted(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_answers_keep_the_recorded_shape(client, name):
    method, path, body = CALLS[name]
    r = client.get(path) if method == "GET" else client.post(path, json=body)
    assert r.status_code == 200, r.text[:300]
    recorded = json.loads((FIXTURES / name).read_text())
    missing = keys(recorded) - keys(r.json()) - NEVER_PRODUCED
    assert not missing, sorted(missing)[:20]
