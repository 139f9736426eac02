"""The compact groups through the CLI (`eqattn group O3`, `groups`, `clusterings`, `check`,
`optimize`) and the API (`/api/catalog`, `/api/group`, `/api/clusterings`, `/api/coverage`,
`/api/optimize`, `/api/restrictions`)."""

from __future__ import annotations

import json

import pytest

from eqattn.cli.main import main


def run(capsys, *argv):  # noqa: ANN001, ANN002, ANN201
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_group_describes_the_compact_group(capsys) -> None:
    code, out, _ = run(capsys, "group", "O3")
    assert code == 0
    assert "O(3)" in out and "component group C2" in out and "stand-in Ih" in out
    assert "SO3" in out and "1o" in out and "pseudovector" in out and "~" not in out
    code, out, _ = run(capsys, "group", "SO(2)", "--json")
    data = json.loads(out)
    assert code == 0 and data["compact"]["kind"] == "SO2" and [s["name"] for s in data["subgroups"]] == ["SO2"]


def test_cli_group_takes_v_for_the_band(capsys) -> None:
    """`eqattn group O3 -V ...` shows the stand-in every problem of that V is computed on (as
    /api/group's rep=): at l = 3 the character-detecting C6 x Ci, saying what it does."""
    code, out, _ = run(capsys, "group", "O3", "-V", "1x0e + 1x3o")
    assert code == 0 and "stand-in C6xCi (order 12) for the band degrees l <= 3" in out
    assert "not irreducible on it" in out and "  3o " in out
    code, out, _ = run(capsys, "group", "O3", "-V", "1x0e + 1x1o")
    assert code == 0 and "stand-in Oh (order 48)" in out and "irreducible and distinct" in out
    code, _, err = run(capsys, "group", "O3", "-V", "1x20o")
    assert code == 2 and "error: rep: O3 is supported for degrees l <= 16 (got l = 20)" in err


def test_cli_groups_lists_the_four(capsys) -> None:
    code, out, _ = run(capsys, "groups")
    assert code == 0
    for line in ("SO2            compact    SO(2)", "O3             compact    O(3)"):
        assert line in out


def test_cli_clusterings_check_and_optimize(capsys) -> None:
    prob = ["-G", "O3", "-V", "2x0e + 1x1o", "-H", "2", "-d", "1"]
    code, out, _ = run(capsys, "clusterings", *prob)
    assert code == 0 and "3 G-clusterings" in out and "G/SO3 (2 clusters of 1 head)  (degenerate)" in out
    code, out, _ = run(capsys, "check", *prob, "-o", "O3:1x0e", "-o", "O3:1x0e")
    assert code == 0 and "covered: 3 of 3" in out
    code, out, _ = run(capsys, "check", *prob, "-o", "O3:1x0e")
    assert code == 1 and "NOT covered" in out and "counterexample" in out
    code, out, _ = run(capsys, "optimize", *prob, "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "optimal" and data["design_params"] == 16
    code, out, _ = run(capsys, "optimize", "-G", "SO2", "-V", "A + E1 + E2", "-H", "2", "-d", "1")
    assert code == 0 and "optimal design: 24 parameters (proven optimal" in out


@pytest.mark.parametrize("argv, words", [
    (["clusterings", "-G", "SO3", "-V", "1x17", "-H", "1", "-d", "1"], "error: rep: SO3 is supported for degrees l <= 16"),
    (["check", "-G", "O3", "-V", "1x0e", "-H", "1", "-d", "1", "-o", "O3:1x1o"], "error: orbits[0].rep: irrep '1o' is outside the band"),
    (["clusterings", "-G", "O3", "-V", "1x1", "-H", "1", "-d", "1"], "error: rep: O3 irreps carry a parity"),
])
def test_cli_errors_are_one_line(capsys, argv, words) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


# ----- the API ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():  # noqa: ANN201
    from fastapi.testclient import TestClient

    from eqattn.api.app import create_app

    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


def test_api_catalog_and_group(client) -> None:  # noqa: ANN001
    compact = [e for e in client.get("/api/catalog").json() if e["family"] == "compact"]
    assert [e["name"] for e in compact] == ["SO2", "O2", "SO3", "O3"] and all(e["description"] for e in compact)
    g = client.get("/api/group", params={"name": "O3"}).json()
    assert g["compact"]["stand_in"] == "Ih" and [i["label"] for i in g["irreps"]] == ["0e", "0o", "1o", "1e", "2e", "2o"]
    assert [s["name"] for s in g["subgroups"]] == ["SO3", "O3"] and g["presets"] == ["trivial", "vector"]


def test_api_workflow(client) -> None:  # noqa: ANN001
    body = {"group": "O3", "rep": "2x0e + 1x1o", "heads": 2, "head_dim": 1}
    r = client.post("/api/clusterings", json=body)
    assert r.status_code == 200 and r.json()["count"] == 3
    assert r.json()["compact"] == {"kind": "O3", "band": 1, "stand_in": "Oh"}
    design = [{"subgroup": "O3", "rep": "1x0e"}, {"subgroup": "O3", "rep": "1x0e"}]
    r = client.post("/api/coverage", json={**body, "orbits": design})
    assert r.status_code == 200 and r.json()["covered"] == 3
    r = client.post("/api/optimize", json=body)
    assert r.status_code == 200 and r.json()["status"] == "optimal" and r.json()["design_params"] == 16
    r = client.post("/api/design", json={**body, "orbits": [{"subgroup": "O3", "rep": "1x2e"}]})
    assert r.status_code == 422 and r.json()["field"] == "orbits[0].rep" and "outside the band" in r.json()["message"]
    r = client.post("/api/clusterings", json={**body, "rep": "1x0e + 1x17o"})
    assert r.status_code == 422 and r.json()["field"] == "rep" and "l <= 16" in r.json()["message"]
    r = client.post("/api/clusterings", json={**body, "rep": "1x0e + 1x3o"})  # l = 3: the §8 route
    assert r.status_code == 200 and r.json()["count"] == 3
    r = client.get("/api/restrictions", params={"group": "SO2", "rep": "A + E7"})
    assert r.status_code == 200 and r.json()["subgroups"][0]["text"] == "A + E7"
