"""The coverage route at real transformer sizes (issue 9)."""

from __future__ import annotations


def test_coverage_route_past_atlas_sizes(client) -> None:  # noqa: ANN001
    """POST /api/coverage on a problem past the atlas sizes: the symbolic engine, same shapes."""
    body = {"group": "D4", "rep": "8xregular", "heads": 4, "head_dim": 16,
            "orbits": [{"subgroup": "C1", "rep": "16xA"}] * 3}
    r = client.post("/api/coverage", json=body)
    assert r.status_code == 200
    out = r.json()
    assert out["total"] == 23 and 0 < out["covered"] < 23  # three of four regular orbits
    bad = next(c for c in out["clusterings"] if not c["covered"])
    assert bad["counterexample"]["shortfall"] and bad["counterexample"]["text"]
    good = next(c for c in out["clusterings"] if c["covered"])
    assert good["witness"] and good["scenarios"] == len(good["witness"])
