"""Issue 12, "the designer as people use it": regressions B1-B11 and the new views
(history, narrow screens, glossary, subgroup inspector, witnesses, verify, export).

Screenshots of the new views go to artifacts/screenshots/ (git-ignored) at 1280x800 and 390x844.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys

import pytest

from test_page import add_orbit, expect, open_page

pytestmark = pytest.mark.browser
WARN_RGB = "rgb(179, 89, 0)"  # --warn: the colour of an unproven optimum
GOOD_RGB = "rgb(26, 127, 55)"  # --good: success green, for proven results only


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page scrolls sideways: scrollWidth {width}"


# ------------------------------------------------------------------------------ B1, B2, B11
def test_b1_optimiser_refusal_stays_in_the_optimiser_panel_and_clears(page):
    # B1: ?g=Oh&v=regular&h=4&d=2 -> Find optimal design -> after ~8 s the core refuses with a
    # 422 naming `rep`. The page showed it under Tokens V and never cleared it. The refusal
    # itself is the core's (tests/api); here the server's answer is replayed at once, in the
    # API's error shape, so the test checks where the page puts it without the 8 s wait.
    refusal = {"detail": [{"loc": ["body", "rep"], "type": "value_error", "field": "rep",
                           "msg": "this problem has 87864 head representations (K', W) to consider; "
                                  "at most 10000 useful ones are optimised over"}]}
    open_page(page, "g=Oh&v=regular&h=4&d=2")
    page.route("**/api/optimize", lambda route: route.fulfill(status=422, json=refusal))
    page.get_by_role("button", name="Find optimal design").click()
    err = page.locator("#optimize-error")
    expect(err).to_contain_text("at most 10000")
    expect(err).to_contain_text("Tokens V")  # names the input in words ...
    expect(page.locator("#rep-error")).to_be_empty()  # ... but is not shown under it
    expect(page.get_by_label("Tokens V")).not_to_have_attribute("aria-invalid", "true")
    page.get_by_label("heads H").fill("1")  # its input changed: gone
    expect(err).to_be_empty()
    expect(page.locator("#vanilla-params")).to_have_text("384")  # 4 * 1 * 2 * 48
    page.get_by_label("Group G").select_option("C4")
    expect(page.locator("#rep-error")).to_be_empty()
    expect(err).to_be_empty()


def test_b2_optimiser_status_belongs_to_its_input(page):
    open_page(page)  # SPEC §6 example 2
    page.get_by_role("button", name="Find optimal design").click()
    status = page.locator("#optimize-status")
    expect(status).to_contain_text("Proven optimal: 8 parameters")
    expect(status.locator(".headline")).to_have_css("color", GOOD_RGB)
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    page.get_by_label("heads H").fill("3")
    expect(status).to_be_hidden()
    page.get_by_role("button", name="Undo").click()  # back to the input it was computed for
    expect(page.get_by_label("heads H")).to_have_value("2")
    expect(status).to_contain_text("Proven optimal: 8 parameters")
    page.get_by_role("button", name="Remove orbit 1").click()
    expect(page.locator("#design-params")).to_have_text("0")
    expect(status).to_be_hidden()


def test_b11_unproven_optimum_shows_its_gap_and_is_not_green(page, shot):
    # B11: on big problems the optimiser returns the vanilla-equivalent design with lower
    # bound 0; the page showed it in success green, without the time limit or the gap
    # explained. The core's real answer for D4 / regular / H = d = 2 with a 0.05 s search is
    # such a result; the page's request is answered with it (the server's own deadline
    # covers the re-checks too, so a tiny limit there ends in a time-limit refusal instead).
    from eqattn.attention import Problem
    from eqattn.optimize import optimize

    result = optimize(Problem.create("D4", "regular", 2, 2), 0.05).to_json()
    assert result["status"] != "optimal" and result["lower_bound"] == 0 and result["design_params"] == 128
    sent = []

    def answer(route):
        sent.append(json.loads(route.request.post_data))
        route.fulfill(status=200, json=result)

    open_page(page, "g=D4&v=regular&h=2&d=2")
    limit = page.get_by_label("time limit")
    expect(limit).to_have_value("30")  # the limit is shown ...
    limit.fill("0")  # ... checked ...
    expect(page.locator("#optimize-error")).to_contain_text("more than 0")
    expect(limit).to_have_attribute("aria-invalid", "true")
    limit.fill("0.05")  # ... and adjustable
    expect(page.locator("#optimize-error")).to_be_empty()
    assert "tl=0.05" in page.url
    page.route("**/api/optimize", answer)
    page.get_by_role("button", name="Find optimal design").click()
    status = page.locator("#optimize-status")
    expect(status).to_contain_text("Best found: 128 parameters")
    assert sent and sent[0]["time_limit"] == 0.05 and sent[0]["group"] == "D4"
    expect(status).to_contain_text("gap 100 %")
    expect(status).to_contain_text("lower bound 0")
    expect(status).to_contain_text("not proven optimal")
    expect(status).to_contain_text("at most 100 % of these parameters could still be saved")
    expect(status).to_contain_text("stopped at its time limit")  # result["stopped_by"]
    expect(status).to_have_class(re.compile(r"\bunproven\b"))
    expect(status.locator(".headline")).to_have_css("color", WARN_RGB)
    expect(page.locator("#design-params")).to_have_text("128")
    expect(page.locator("#coverage-summary")).to_have_text("5 of 5 covered", timeout=30000)
    shot(page, "12-optimiser-gap")


def test_optimiser_status_says_what_stopped_the_search_and_shows_the_notes(page):
    """The status names the limit that stopped an unproven search (the result's
    `stopped_by`, not always "time limit") and lists the result's notes, e.g. that the
    symbolic engine was seeded by the search of H / 2 heads (theory-scale O16)."""
    from eqattn.attention import Problem
    from eqattn.optimize import optimize

    proven = optimize(Problem.create("C4", "regular", 8, 1), 30, engine="symbolic").to_json()
    assert proven["status"] == "optimal" and any("seeded by the search of H = 4 heads" in n for n in proven["notes"])
    answers = [proven]
    page.route("**/api/optimize", lambda route: route.fulfill(status=200, json=answers[0]))
    open_page(page, "g=C4&v=regular&h=8&d=1")
    page.get_by_role("button", name="Find optimal design").click()
    status = page.locator("#optimize-status")
    expect(status).to_contain_text("Proven optimal: 96 parameters")
    # more and wider heads than H = 8, d = 1: the width is said, with the ratio of attention costs
    n, w, c = proven["heads_total"], proven["max_head_dim"], proven["attention_cost"]
    assert n > 8 and w > 1
    expect(status.locator(".width")).to_contain_text(
        f"Its width: {n} heads where your layer has 8, heads up to {w} wide where yours are 1; "
        f"attention cost {c} = {c / 8:.1f}× the layer's H·d = 8.")
    expect(status.locator(".notes li")).to_have_count(len(proven["notes"]))
    expect(status.locator(".notes")).to_contain_text("seeded by the search of H = 4 heads")
    # an unproven answer stopped by the checker's limits says so (the answer's own fields)
    unproven = dict(proven, status="feasible", lower_bound=64, gap=(96 - 64) / 96, stopped_by="scenario_limit", notes=[])
    answers[0] = unproven
    page.get_by_label("time limit").fill("31")
    page.get_by_role("button", name="Find optimal design").click()
    expect(status).to_contain_text("Best found: 96 parameters")
    expect(status).to_contain_text("past the coverage checker's size limits")
    expect(status).not_to_contain_text("time limit")
    expect(status.locator(".notes")).to_have_count(0)


# ------------------------------------------------------------------------------ B3: history
def test_b3_back_forward_undo_redo_round_trip(page, live_server):
    open_page(page)
    page.get_by_label("Group G").select_option("D4")
    expect(page.locator("#group-info")).to_contain_text("order 8")
    heads = page.get_by_label("heads H")
    heads.fill("3")
    expect(page.locator("#vanilla-params")).to_have_text("96")  # 4 * 3 * 1 * 8 (V = regular of D4)
    page.wait_for_function("location.search.includes('h=3')")
    page.go_back()
    expect(heads).to_have_value("2")
    expect(page.get_by_label("Group G")).to_have_value("D4")
    page.go_forward()
    expect(heads).to_have_value("3")  # the field follows the URL (B3: it showed 1)
    assert "h=3" in page.url
    page.get_by_role("button", name="Undo").click()
    expect(heads).to_have_value("2")
    page.get_by_role("button", name="Redo").click()
    expect(heads).to_have_value("3")
    page.locator("h2", has_text="Vanilla layer").click()  # focus off the fields
    page.keyboard.press("Control+z")
    expect(heads).to_have_value("2")
    page.keyboard.press("Control+Shift+z")
    expect(heads).to_have_value("3")
    page.get_by_role("button", name="Undo").click()
    page.get_by_role("button", name="Undo").click()  # before the group change
    expect(page.get_by_label("Group G")).to_have_value("C4")
    expect(page.get_by_label("Tokens V")).to_have_value("E1")
    expect(page.locator("#vanilla-params")).to_have_text("16")
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()
    page.get_by_role("button", name="Redo").click()
    page.get_by_role("button", name="Redo").click()
    expect(heads).to_have_value("3")
    # leave the app and come back: the fields show the URL's state, not a browser refill
    page.goto(live_server + "/api/features")
    page.go_back()
    page.wait_for_selector("body[data-ready='1']")
    expect(heads).to_have_value("3")
    expect(page.get_by_label("Group G")).to_have_value("D4")


def test_design_edits_and_views_are_steps_back_restores_coverage(page):
    open_page(page)
    add_orbit(page, "C2", {"B": 1})
    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    add_orbit(page, "C1", {"A": 1})
    expect(page.locator("#design-params")).to_have_text("16")
    page.go_back()  # the multiplicity typed into the new orbit (a step of its own, issue 29 item 8)
    expect(page.locator("#design-params")).to_have_text("8")
    page.go_back()  # adding the orbit
    expect(page.locator("#cards .card")).to_have_count(1)
    expect(page.locator("#design-params")).to_have_text("8")
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")


# ------------------------------------------------------------------------------ B4: narrow screens
def test_b4_phone_layout_has_no_sideways_scroll_and_sheets(phone, shot):
    page = phone
    open_page(page, "g=C6&v=E1&h=6&d=1&o=2:E1")
    no_sideways_scroll(page)
    imp = page.get_by_role("button", name="Import JSON")
    box = imp.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390  # not clipped (B4)
    left = page.locator("#vanilla-panel").bounding_box()
    right = page.locator("#design-panel").bounding_box()
    assert left["width"] > 340 and right["width"] > 340  # one column, full width
    assert right["y"] >= left["y"] + left["height"]
    shot(page, "20-phone-top")
    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("23 of 30 covered")
    no_sideways_scroll(page)
    page.locator(".cbox.uncovered").first.click()
    sheet = page.locator("#explain")
    expect(sheet).to_be_visible()
    b = sheet.bounding_box()
    assert abs(b["y"] + b["height"] - 844) <= 1 and b["width"] >= 389  # a bottom sheet
    assert b["height"] <= 0.75 * 844  # the design stays visible above it
    no_sideways_scroll(page)
    shot(page, "21-phone-explain-sheet")
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    page.get_by_role("button", name="Glossary").click()
    expect(page.locator("#glossary")).to_be_visible()
    no_sideways_scroll(page)
    shot(page, "22-phone-glossary")
    page.get_by_role("button", name="Close the glossary").click()
    page.get_by_role("button", name="Inspect G").click()
    expect(page.locator("#inspector")).to_contain_text("Character table of G")
    no_sideways_scroll(page)
    shot(page, "23-phone-inspector")


# ------------------------------------------------------------------------------ B6, B7, B8
def test_b6_b7_multiplicities_are_whole_numbers_and_typing_replaces_the_zero(page):
    open_page(page)
    page.get_by_role("button", name="Add orbit G/C2", exact=True).click()
    page.keyboard.type("1")  # B7: focus selects the 0, typing replaces it
    first = page.get_by_label("orbit 1: multiplicity of A of C2", exact=True)
    expect(first).to_have_value("1")
    b = page.get_by_label("orbit 1: multiplicity of B of C2", exact=True)
    b.fill("1")
    expect(page.locator("#design-params")).to_have_text("8")  # A of C2 adds nothing: E1|C2 = 2xB
    b.fill("-3")  # B6: refused at the box; the design is invalid, not silently B = 1 (issue 29 item 3)
    card = page.locator("#cards .card").nth(0)
    expect(card.locator(".card-error")).to_contain_text("whole number ≥ 0")
    expect(b).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#design-params")).to_have_text("–")
    b.fill("1.5")
    expect(card.locator(".card-error")).to_contain_text("whole number ≥ 0")
    b.fill("2")
    expect(card.locator(".card-error")).to_be_empty()
    expect(page.locator("#design-params")).to_have_text("16")
    v = page.get_by_label("multiplicity of E1 in V")
    v.fill("-2")
    expect(page.locator("#rep-error")).to_contain_text("whole number ≥ 0")
    expect(page.get_by_label("Tokens V")).to_have_value("-2xE1")  # what the box holds, refused (issue 29 item 3)
    expect(page.locator("#vanilla-params")).to_have_text("–")


def test_b8_import_checks_every_orbit_before_claiming_success(page, tmp_path):
    open_page(page)
    add_orbit(page, "C2", {"B": 1})
    expect(page.locator("#design-params")).to_have_text("8")
    f = tmp_path / "bad.json"
    f.write_text(json.dumps({"group": "C4", "orbits": [{"subgroup": "C2", "rep": "B"}, {"subgroup": "C7", "rep": "Z"}]}))
    page.locator("#import-file").set_input_files(str(f))
    msg = page.locator("#topbar-msg")
    expect(msg).to_contain_text("Import failed")
    expect(msg).to_contain_text("orbit 2")
    expect(msg).not_to_contain_text("Imported")
    expect(page.locator("#cards .card")).to_have_count(1)  # nothing changed
    expect(page.locator("#design-params")).to_have_text("8")


# ------------------------------------------------------------------------------ B9
def test_b9_invalid_input_keeps_the_last_results_dimmed(page):
    open_page(page)
    add_orbit(page, "C2", {"B": 1})
    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    heads = page.get_by_label("heads H")
    heads.fill("")  # cleared to retype
    expect(page.locator("#heads-error")).not_to_be_empty()
    expect(page.locator(".cbox")).to_have_count(3)  # still there ...
    expect(page.locator("#clusterings")).to_have_class(re.compile(r"\bstale\b"))  # ... dimmed
    expect(page.locator("#stale-note")).to_be_visible()
    expect(page.locator("#dim-v")).to_have_text("2")  # dim V does not depend on H
    heads.fill("2")
    expect(page.locator("#clusterings")).not_to_have_class(re.compile(r"\bstale\b"))
    expect(page.locator(".cbox.covered")).to_have_count(3)
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    heads.fill("3")  # a different valid problem: the old results do not apply
    expect(page.locator(".cbox")).to_have_count(0)
    expect(page.locator("#coverage-summary")).to_have_text("")


# ------------------------------------------------------------------------------ B10, verify
def test_b10_every_witness_paged_and_verify_numerically(page, shot):
    # D3, V = regular, H = d = 2, two regular orbits: clustering #3 has 10 scenarios, the
    # coverage check solves one of them
    open_page(page, "g=D3&v=regular&h=2&d=2&o=0:2xA&o=0:2xA&view=coverage&sel=2")
    explain = page.locator("#explain")
    expect(explain).to_contain_text("every one of the 10 scenarios")
    page.get_by_role("button", name="Show all 10 scenarios with witnesses").click()
    pages = page.locator("#witness-pages")
    expect(pages).to_contain_text("Scenarios 1–5 of 10")
    expect(pages.locator(".scenario.good")).to_have_count(5)
    pages.get_by_role("button", name="Next ›").click()
    expect(pages).to_contain_text("Scenarios 6–10 of 10")
    expect(pages.locator(".scenario.good")).to_have_count(5)
    expect(pages.get_by_role("button", name="Next ›")).to_be_disabled()
    texts = pages.locator(".scenario > p:nth-child(2)").all_inner_texts()
    assert len(set(texts)) == 5
    page.get_by_role("button", name="Verify numerically").click()
    result = page.locator("#verify-result")
    expect(result).to_contain_text("Worst relative error")
    expect(result).to_have_class(re.compile(r"\bgood\b"))
    worst = float(re.search(r"error ([0-9.e+-]+)", result.inner_text()).group(1))
    assert worst < 1e-8
    shot(page, "13-all-witnesses-verify")


# ------------------------------------------------------------------------------ explanations
def test_glossary_and_tooltips_on_every_term(page, shot):
    open_page(page, "g=C2&v=A%20%2B%20B&h=1&d=1&o=1:A&o=1:B&view=coverage&sel=0")
    expect(page.locator("#explain")).to_contain_text("Not covered")
    # every term the page marks has a tooltip, and the drawer's terms are there
    missing = page.evaluate("[...document.querySelectorAll('[data-term]')].filter(e => !e.title).map(e => e.dataset.term)")
    assert missing == []
    for key in ("scenario", "kbar", "zero-pool", "coset", "degenerate", "profile", "demand", "witness"):
        expect(page.locator(f"#explain [data-term='{key}']").first).to_be_attached()
    page.locator("#explain [data-term='zero-pool']").first.click()
    glossary = page.locator("#glossary")
    expect(glossary).to_be_visible()
    expect(page.locator("#gl-zero-pool")).to_have_class(re.compile(r"\bhit\b"))
    for name in ("Scenario", "Profile", "K̄", "Zero pool", "Coset g0", "Degenerate", "Gap", "Lower bound"):
        expect(glossary.locator("dt", has_text=name).first).to_be_visible()
    shot(page, "10-glossary")
    page.keyboard.press("Escape")
    expect(glossary).to_be_hidden()


def test_subgroup_inspector_and_character_table(page, shot):
    open_page(page, "g=D4&v=regular&h=1&d=1")
    page.get_by_role("button", name="Inspect subgroup C2.1").click()
    insp = page.locator("#inspector")
    expect(insp).to_contain_text("C2.1 is a subgroup of D4 of order 2 and index 4")
    expect(insp).to_contain_text("g3 = a^2 = (1,3)(2,4)")  # its elements, as words and permutations
    expect(insp).to_contain_text("N_G(K) of order 8")
    expect(insp.locator(".chartable tr")).to_have_count(3)  # header + A + B
    page.get_by_role("button", name="Inspect subgroup C2.2").click()
    expect(insp).to_contain_text("N_G(K) of order 4")  # C2.2 is not the centre
    expect(insp).not_to_contain_text("(1,3)(2,4)")
    page.keyboard.press("Escape")
    expect(insp).to_be_hidden()
    page.get_by_role("button", name="Inspect G").click()
    expect(insp).to_contain_text("Character table of G")
    table = insp.locator(".chartable")
    expect(table.locator("tr")).to_have_count(6)  # header + 5 irreps of D4
    expect(table.locator("tr", has_text="E1")).to_contain_text("-2")
    shot(page, "11-inspector-character-table")


# ------------------------------------------------------------------------------ export
def test_pytorch_snippet_builds_a_layer_with_the_pages_count(page, tmp_path):
    open_page(page, "g=D3&v=regular&h=2&d=2")
    add_orbit(page, "C2", {"A": 2})
    add_orbit(page, "C3", {"A": 1, "E1": 1})
    expect(page.locator("#cards .card")).to_have_count(2)
    body = {"group": "D3", "rep": "regular", "heads": 2, "head_dim": 2,
            "orbits": [{"subgroup": "C2", "rep": "2xA"}, {"subgroup": "C3", "rep": "A + E1"}]}
    count = str(page.request.post("/api/design", data=body).json()["design_params"])
    expect(page.locator("#design-params")).to_have_text(count)  # the page shows the server's count
    page.get_by_role("button", name="PyTorch").click()
    dialog = page.locator("#torch-dialog")
    expect(dialog).to_be_visible()
    code = page.locator("#torch-code").inner_text()
    assert "EquivariantAttention.from_json" in code
    f = tmp_path / "snippet.py"
    f.write_text(code)
    run = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    built = re.search(r"parameters: (\d+)", run.stdout).group(1)
    assert int(built) == int(count.replace(",", ""))
    page.get_by_role("button", name="Close", exact=True).click()
    expect(dialog).to_be_hidden()


def test_csv_report_of_clusterings_and_coverage(page):
    open_page(page, "g=C6&v=E1&h=6&d=1&o=2:E1&view=coverage")
    expect(page.locator("#coverage-summary")).to_have_text("23 of 30 covered")
    with page.expect_download() as dl:
        page.get_by_role("button", name="CSV").click()
    text = open(dl.value.path()).read()
    lines = [ln for ln in text.splitlines() if not ln.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    assert len(rows) == 30
    assert sum(r["covered"] == "yes" for r in rows) == 23
    assert sum(r["covered"] == "no" for r in rows) == 7
    assert all(int(r["heads"]) == 6 for r in rows)
    assert text.startswith("# eqattn report: G=C6; V=E1; H=6; d=1; design=(C3, E1)")
