"""What the API computes, as plain top-level functions run inside worker processes (jobs.py).

Each takes and returns JSON-ready values (they are pickled across the process boundary) and
calls only the core; nothing here knows about HTTP. A worker keeps its recent problems, so
the keystroke-driven calls of the page (`design`, then `coverage`) reuse them.

Example: `clusterings("C4", "E1", 2, 1)["count"] == 3` (SPEC §6 example 2).
"""

from __future__ import annotations

import json
from typing import Any

from ..attention import Design, Problem, check_coverage, clusterings_report
from ..attention.views import verdict_json
from ..errors import InputError
from ..memo import Memo
from ..optimize import optimize as _optimize
from ..groups import catalog_entries, get_group
from ..groups.catalog import group_for_rep
from ..numeric import verify_design
from ..numeric.expansion import layer_memory
from ..reps import format_rep
from ..reps.group_views import group_json as _group_json

PROBLEM_CACHE = 32
# A coverage answer whose witness detail passes this many bytes of JSON is sent without it
# (verdicts only, `detail_omitted`); POST /api/coverage/detail gives one clustering's detail.
COVERAGE_DETAIL_BYTES = 4 << 20
_PROBLEMS = Memo(PROBLEM_CACHE)  # this worker process's recent problems (the functions here are top level)
Orbits = list[tuple[int | str, str]]


def problem(group: str, rep: str, heads: int, head_dim: int) -> Problem:
    """The core's Problem, kept per worker process (the last PROBLEM_CACHE built)."""
    return _PROBLEMS.get((group, rep, heads, head_dim), lambda: Problem.create(group, rep, heads, head_dim))


def catalog() -> list[dict]:
    return catalog_entries()


def group(name: str, rep: str | None = None) -> dict:
    """eqattn.reps.group_views.group_json of the named group (its lattice is built here, in the
    worker); with `rep`, a compact group's stand-in for the band that rep names
    (catalog.group_for_rep, the one the problem of that V is computed on).

    >>> group("O3", "2x0e + 1x1o")["compact"]["stand_in"], group("O3")["compact"]["stand_in"]
    ('Oh', 'Ih')
    """
    return _group_json(get_group(name) if rep is None else group_for_rep(name, rep))


def group_key(name: str, rep: str | None = None) -> tuple[str, int | None]:
    """What `group(name, rep)` depends on: the name, and for a compact group with `rep` the
    band the rep names (compact.band_of; LimitError past the supported band).

    >>> group_key("O3", "16x0e + 8x1o"), group_key("O3"), group_key("C4", "E1")
    (('O3', 1), ('O3', None), ('C4', None))
    """
    from ..groups.compact import band_of, compact_kind
    from ..groups.parse import normalise

    kind = compact_kind(normalise(name)) if rep is not None else None
    return (name, None if kind is None else band_of(kind, rep))


def clusterings(group: str, rep: str, heads: int, head_dim: int) -> dict:
    return clusterings_report(problem(group, rep, heads, head_dim))


def _design(group: str, rep: str, heads: int, head_dim: int, orbits: Orbits) -> tuple[Problem, Design]:
    p = problem(group, rep, heads, head_dim)
    return p, Design.create(p, orbits)


def design(group: str, rep: str, heads: int, head_dim: int, orbits: Orbits) -> dict:
    """The parameter counts of POST /api/design (SPEC §1, §3)."""
    p, d = _design(group, rep, heads, head_dim, orbits)
    return design_counts(p, d)


def _verdicts(p: Problem, d: Design) -> tuple:
    """eqattn.attention.check_coverage, kept in the problem's memo per design (the page asks
    for one clustering's detail after the verdicts)."""
    key = ("api-verdicts", tuple((o.sub.id, o.W.mults) for o in d.orbits))
    return p.memo.get(key, lambda: check_coverage(p, d))


def coverage_json(p: Problem, d: Design, detail_bytes: int = COVERAGE_DETAIL_BYTES) -> dict:
    """eqattn.attention.check_report's answer (SPEC §4), with the witnesses and counterexamples
    while their JSON stays within `detail_bytes`; past it every clustering keeps its verdict and
    counts and says `detail_omitted` (the answer's size then grows with the clusterings only).

    >>> from eqattn.attention import Problem, Design
    >>> p = Problem.create("C4", "E1", 2, 1); d = Design.create(p, [("C2", "B")])
    >>> full, lean = coverage_json(p, d), coverage_json(p, d, detail_bytes=10)
    >>> full["covered"] == lean["covered"] == 3, "detail_omitted" in full, lean["clusterings"][0]["witness"]
    (True, False, None)
    """
    verdicts = _verdicts(p, d)
    rows = []
    used = 0
    for v in verdicts:
        row = verdict_json(p, d, v)
        used += len(json.dumps(row["witness"])) + len(json.dumps(row["counterexample"]))
        rows.append(row)
        if used > detail_bytes:
            break
    lean = used > detail_bytes
    if lean:
        rows = [_without_detail(verdict_json(p, d, v)) for v in verdicts]
    out = {
        **p.to_json(),
        "design_params": d.params,
        "covered": sum(v.covered for v in verdicts),
        "total": len(verdicts),
        "design": d.to_json(),
        "orbits": [{"subgroup": o.sub.id, "rep": format_rep(o.W)} for o in d.orbits],
        "clusterings": rows,
    }
    if lean:
        out["detail_omitted"] = True
        out["detail_bytes_limit"] = detail_bytes
    return out


def _without_detail(row: dict) -> dict:
    row["witness"] = None
    row["witness_truncated"] = False
    row["counterexample"] = None
    row["detail_omitted"] = True
    return row


def coverage(group: str, rep: str, heads: int, head_dim: int, orbits: Orbits) -> bytes:
    """POST /api/coverage: the JSON, encoded here in the worker (a large answer never stalls the
    server's event loop; it only forwards the bytes)."""
    p, d = _design(group, rep, heads, head_dim, orbits)
    return json.dumps(coverage_json(p, d), separators=(",", ":")).encode()


def coverage_detail(group: str, rep: str, heads: int, head_dim: int, orbits: Orbits, clustering: int) -> dict:
    """One clustering's verdict with its witnesses or counterexample (POST /api/coverage/detail)."""
    p, d = _design(group, rep, heads, head_dim, orbits)
    verdicts = _verdicts(p, d)
    if not 0 <= clustering < len(verdicts):
        raise InputError("clustering", f"this problem has clusterings 0..{len(verdicts) - 1}; got {clustering}")
    return verdict_json(p, d, verdicts[clustering])


def verify(group: str, rep: str, heads: int, head_dim: int, orbits: Orbits, seed: int = 0) -> dict:
    """eqattn.numeric.verify_design's JSON (refused up front when its memory estimate is too large)."""
    p, d = _design(group, rep, heads, head_dim, orbits)
    return verify_design(p, d, seed=seed).to_json()


def optimize(
    group: str, rep: str, heads: int, head_dim: int, search_limit: float,
    max_heads: int | None = None, max_head_dim: int | None = None, work_limit: int | None = None,
    max_cost: int | None = None,
) -> dict:
    """eqattn.optimize JSON; `search_limit` bounds its search (the server's
    deadline, which covers the re-checks as well, is enforced by killing this process)."""
    return _optimize(
        problem(group, rep, heads, head_dim), search_limit,
        max_heads=max_heads, max_head_dim=max_head_dim, max_cost=max_cost, work_limit=work_limit,
    ).to_json()


def _mults(rep: Any) -> dict[str, int]:
    return {str(lab): int(m) for lab, m in zip(rep.irreps.labels, rep.mults)}


def design_counts(problem: Problem, design: Design) -> dict:
    """The parameter counts of POST /api/design from the core's Problem and Design (SPEC §1, §3)."""
    orbits = [{**o.to_json(problem), "multiplicities": _mults(o.W)} for o in design.orbits]
    vanilla = int(problem.vanilla_params)
    params = sum(o["params"] for o in orbits)
    return {
        "group": str(problem.group.name),
        "dim_v": int(problem.dim_v),
        "heads": int(problem.heads),
        "head_dim": int(problem.head_dim),
        "vanilla_params": vanilla,
        "rep": {"text": str(problem.V), "dim": int(problem.dim_v), "multiplicities": _mults(problem.V)},
        "design_params": params,
        "design_heads": sum(o["heads"] for o in orbits),
        "ratio": (params / vanilla) if vanilla else None,
        "orbits": orbits,
        "layer_memory": layer_memory(problem, design).to_json(),
    }


# ------------------------------------------------------------------ the page's explanations
def subgroup(group_name: str, cid: int, rep: str | None = None) -> dict:
    """eqattn.reps.group_views.subgroup_inspector_json: the page's subgroup inspector (a
    compact group at the band `rep` names, as `group`)."""
    from ..reps.group_views import subgroup_inspector_json

    return subgroup_inspector_json(get_group(group_name) if rep is None else group_for_rep(group_name, rep), cid)


def character_table(group_name: str) -> dict:
    """The real character table of G (eqattn.reps.group_views.character_table_json)."""
    from ..reps.group_views import character_table_json

    G = get_group(group_name)
    return {"group": G.name, **character_table_json(G.subgroup_classes[-1])}


def restrictions(group_name: str, rep: str) -> dict:
    """V|K for every subgroup class K (eqattn.reps.group_views.restrictions_json)."""
    from ..reps.group_views import restrictions_json

    return restrictions_json(group_for_rep(group_name, rep), rep)


def witnesses(group: str, rep: str, heads: int, head_dim: int, orbits: Orbits, clustering: int, offset: int, limit: int) -> dict:
    """One page of every scenario of a clustering with its witness (eqattn.attention.views.witnesses_page)."""
    from ..attention.views import witnesses_page

    p, d = _design(group, rep, heads, head_dim, orbits)
    return witnesses_page(p, d, clustering, offset, limit)


def verify_clustering(group: str, rep: str, heads: int, head_dim: int, orbits: Orbits, clustering: int, seed: int = 0) -> dict:
    """"Verify numerically" for one clustering (eqattn.numeric.verify.verify_clustering; its
    `ok` is VerifyReport.ok, the verdict `eqattn verify` prints)."""
    from ..numeric.verify import verify_clustering as _verify_clustering

    p, d = _design(group, rep, heads, head_dim, orbits)
    return _verify_clustering(p, d, clustering, seed)
