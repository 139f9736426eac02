"""JSON views of problems, clusterings and coverage: the CLI and the web page render these."""

from __future__ import annotations

from ..reps import format_rep
from .clusterings import Clustering, clusterings
from .assignment import Demand
from .coverage import ScenarioResult, Verdict, check_coverage
from .design import Design
from .options import Option, option_table
from .problem import Problem

MAX_WITNESSES = 50  # witnesses per clustering in the JSON (the rest are counted)


def _orbit_json(problem: Problem, orbit: tuple[int, int], count: int) -> dict:
    cid, n = orbit
    K = problem.group.subgroup_classes[cid]
    return {
        "subgroup": cid,
        "name": K.name,
        "type": K.type_name,
        "order": K.order,
        "index": K.index,
        "cluster_size": n,
        "count": count,
        "degenerate": option_table(problem).degenerate(orbit),
    }


def clustering_json(problem: Problem, c: Clustering) -> dict:
    orbits = [_orbit_json(problem, o, k) for o, k in c.orbits]
    return {
        "id": c.id,
        "heads": sum(o["index"] * o["cluster_size"] * o["count"] for o in orbits),
        "degenerate": any(o["degenerate"] for o in orbits),
        "orbits": orbits,
        "text": clustering_text(problem, c),
    }


def clustering_text(problem: Problem, c: Clustering) -> str:
    parts = []
    for (cid, n), k in c.orbits:
        K = problem.group.subgroup_classes[cid]
        times = f"{k} x " if k > 1 else ""
        parts.append(f"{times}G/{K.name} ({K.index} cluster{'s' if K.index > 1 else ''} of {n} head{'s' if n > 1 else ''})")
    return " + ".join(parts)


def clusterings_report(problem: Problem) -> dict:
    cl = clusterings(problem)
    return {**problem.to_json(), "count": len(cl), "clusterings": [clustering_json(problem, c) for c in cl]}


def _sub(problem: Problem, cid: int) -> str:
    return problem.group.subgroup_classes[cid].name


def option_json(problem: Problem, j: int, o: Option) -> dict:
    cid, n = o.orbit
    return {
        "orbit": j,
        "subgroup": _sub(problem, cid),
        "cluster_size": n,
        "a": format_rep(o.a),
        "b": format_rep(o.b),
        "kbar": _sub(problem, o.kbar),
        "P": format_rep(o.P),
        "D": format_rep(o.D),
        "zero": o.zero,
        "degenerate": problem.group.subgroup_classes[o.kbar].order != problem.group.subgroup_classes[cid].order,
    }


def demand_label(problem: Problem, r: ScenarioResult, d: Demand) -> str:
    if d.pool:
        return "zero pool"
    j = d.orbits[0]
    return f"orbit {j + 1} (G/{_sub(problem, r.options[j].orbit[0])})"


def scenario_json(problem: Problem, design: Design, r: ScenarioResult) -> dict:
    out: dict = {
        "scenario": [option_json(problem, j, o) for j, o in enumerate(r.options)],
        "demands": [
            {"demand": demand_label(problem, r, d), "kbar": _sub(problem, d.kbar), "D": format_rep(d.D), "P": format_rep(d.P)}
            for d in r.demands
        ],
    }
    if r.assignments is not None:
        out["assignments"] = [
            {
                "demand": demand_label(problem, r, a.demand),
                "kbar": _sub(problem, a.demand.kbar),
                "D": format_rep(a.demand.D),
                "hosts": [
                    {
                        "design_orbit": h.design_orbit,
                        "coset_rep": h.a,
                        "supply": format_rep(h.supply),
                    }
                    for h in a.hosts
                ],
            }
            for a in r.assignments
        ]
    else:
        out["shortfall"] = [
            {"demand": demand_label(problem, r, d), "kbar": _sub(problem, d.kbar), "missing": format_rep(m)}
            for d, m in r.shortfall
        ]
    out["text"] = scenario_text(problem, design, r)
    return out


def _scenario_words(problem: Problem, r: ScenarioResult) -> str:
    bits = []
    for j, o in enumerate(r.options):
        K = _sub(problem, o.orbit[0])
        if o.zero:
            bits.append(f"orbit {j + 1} (G/{K}) has M = 0 (rank too small) and R with profile {format_rep(o.b)}")
        else:
            bits.append(
                f"orbit {j + 1} (G/{K}) has M with profile {format_rep(o.a)} and R with profile {format_rep(o.b)}"
                f" (stabiliser {_sub(problem, o.kbar)}, demand {format_rep(o.D)})"
            )
    return "; ".join(bits) if bits else "no orbits"


def scenario_text(problem: Problem, design: Design, r: ScenarioResult) -> str:
    head = f"When {_scenario_words(problem, r)}: "
    if r.assignments is not None:
        if not r.assignments:
            return head + "nothing needs hosting (every demand is 0)."
        parts = []
        for a in r.assignments:
            hosts = ", ".join(
                f"design orbit {h.design_orbit + 1} (G/{design.orbits[h.design_orbit].sub.name}, W = {format_rep(design.orbits[h.design_orbit].W)}) "
                f"through coset g{h.a} supplies {format_rep(h.supply)}"
                for h in a.hosts
            )
            parts.append(
                f"the {demand_label(problem, r, a.demand)} demands {format_rep(a.demand.D)} of {_sub(problem, a.demand.kbar)}: {hosts}"
            )
        return head + "; ".join(parts) + "."
    short = "; ".join(
        f"the {demand_label(problem, r, d)} (on {_sub(problem, d.kbar)}) lacks {format_rep(m)}" for d, m in r.shortfall
    )
    return head + "no assignment of design orbits meets every demand. In the best attempt " + (short or "the hosts run out") + "."


def verdict_json(problem: Problem, design: Design, v: Verdict) -> dict:
    out = clustering_json(problem, v.clustering)
    out["covered"] = v.covered
    out["scenarios"] = v.scenarios
    out["scenarios_checked"] = len(v.witnesses) + (1 if v.counterexample else 0)
    out["witness"] = [scenario_json(problem, design, r) for r in v.witnesses[:MAX_WITNESSES]] if v.covered else None
    out["witness_truncated"] = v.covered and len(v.witnesses) > MAX_WITNESSES
    out["counterexample"] = scenario_json(problem, design, v.counterexample) if v.counterexample else None
    if v.counterexample is not None:
        out["counterexample"]["explanation"] = out["counterexample"]["text"]
    return out


def check_report(problem: Problem, design: Design) -> dict:
    verdicts = check_coverage(problem, design)
    return {
        **problem.to_json(),
        "design_params": design.params,
        "covered": sum(v.covered for v in verdicts),
        "total": len(verdicts),
        "design": design.to_json(),
        "orbits": [{"subgroup": o.sub.id, "rep": format_rep(o.W)} for o in design.orbits],
        "clusterings": [verdict_json(problem, design, v) for v in verdicts],
    }
