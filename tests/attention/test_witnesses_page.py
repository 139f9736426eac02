"""Every scenario of a clustering with its witness, paged (eqattn.attention.views.witnesses_page)."""

from __future__ import annotations

import pytest

from eqattn.attention import Design, Problem
from eqattn.attention.coverage import scenario_count
from eqattn.attention.clusterings import clusterings
from eqattn.attention.views import check_report, witnesses_page
from eqattn.errors import InputError


def _regular_d3():
    p = Problem.create("D3", "regular", 2, 2)
    return p, Design.create(p, [("C1", "2xA")] * 2)


def test_every_scenario_of_a_clustering_has_a_witness():
    # the regular strategy covers everything; clustering #3 of D3/regular/H=2/d=2 has 10 scenarios
    # while the coverage report checks only the scenarios the reduction leaves (one)
    p, d = _regular_d3()
    report = check_report(p, d)
    c = report["clusterings"][2]
    assert c["scenarios"] == 10 and len(c["witness"]) == 1
    pages = [witnesses_page(p, d, 2, off, 4) for off in (0, 4, 8)]
    ws = [w for page in pages for w in page["witnesses"]]
    assert all(page["total"] == 10 for page in pages)
    assert [w["index"] for w in ws] == list(range(10))
    assert all(w["ok"] and w["assignments"] is not None for w in ws)
    assert len({w["text"] for w in ws}) == 10  # ten different scenarios


@pytest.mark.parametrize("args", [("C4", "E1", 2, 1), ("C2", "A + B", 2, 1), ("D3", "regular", 2, 2)])
def test_totals_match_the_scenario_count_and_verdicts(args):
    p = Problem.create(*args)
    d = Design.create(p, [("C1", "A")])
    report = check_report(p, d)
    for c, v in zip(clusterings(p), report["clusterings"]):
        page = witnesses_page(p, d, c.id, 0, 50)
        assert page["total"] == scenario_count(p, c) == v["scenarios"]
        oks = [w["ok"] for w in page["witnesses"]]
        if v["covered"]:
            assert all(oks)
        elif page["total"] <= 50:
            assert not all(oks)  # the counterexample is one of them
            bad = next(w for w in page["witnesses"] if not w["ok"])
            assert bad["shortfall"]


def test_bad_page_arguments_name_their_field():
    p, d = _regular_d3()
    for kw, field in [({"clustering": 9}, "clustering"), ({"clustering": 0, "limit": 0}, "limit"),
                      ({"clustering": 0, "offset": -1}, "offset")]:
        with pytest.raises(InputError) as e:
            witnesses_page(p, d, **kw)
        assert e.value.field == field
