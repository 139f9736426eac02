"""The designer page, driven like a user in Debian's Chromium (Playwright).

Screenshots of the main views go to artifacts/screenshots/ (git-ignored), at 1280x800.
"""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.browser


def expect(locator):
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def open_page(page, query: str = ""):
    page.goto("/" + (f"?{query}" if query else ""))
    page.wait_for_selector("body[data-ready='1']")
    return page


def add_orbit(page, name: str, mults: dict[str, int]) -> int:
    """Click G/name in the palette and type the multiplicities into its steppers; returns its number."""
    page.get_by_role("button", name=f"Add orbit G/{name}", exact=True).click()
    n = page.locator("#cards .card").count()
    for label, m in mults.items():
        page.get_by_label(f"orbit {n}: multiplicity of {label} of {name}", exact=True).fill(str(m))
    return n


def counts(page) -> tuple[str, str, str]:
    return (page.locator("#design-params").inner_text(), page.locator("#vanilla-params").inner_text(),
            page.locator("#ratio").inner_text())


# ------------------------------------------------------------------------------ (1)
def test_regular_orbit_strategy_on_d3(page, shot):
    open_page(page)
    page.get_by_label("Group G").select_option("D3")
    expect(page.locator("#group-info")).to_contain_text("order 6")
    page.locator("#presets").get_by_role("button", name="regular", exact=True).click()
    page.get_by_label("heads H").fill("2")
    page.get_by_label("head dim d").fill("2")
    expect(page.locator("#dim-v")).to_have_text("6")
    expect(page.locator("#vanilla-params")).to_have_text("96")  # 4 * 2 * 2 * 6

    page.get_by_role("button", name="List clusterings").click()
    expect(page.locator("#clusterings-count")).to_have_text("3 clusterings")
    expect(page.locator(".cbox")).to_have_count(3)

    # the regular orbit, d in its one slot, cloned to H copies
    add_orbit(page, "C1", {"A": 2})
    expect(page.locator("#cards .card").nth(0).locator(".params")).to_have_text("48")
    page.get_by_role("button", name="Clone orbit 1").click()
    expect(page.locator("#cards .card")).to_have_count(1)  # identical orbits share a card (issue 29 item 9)
    expect(page.locator("#cards .card .orbit-label")).to_have_text("1–2. 2 × G/C1")
    expect(page.locator("#design-params")).to_have_text("96")
    assert counts(page) == ("96", "96", "1.00")
    expect(page.locator("#design-heads")).to_have_text("12")

    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    expect(page.locator(".cbox.covered")).to_have_count(3)
    expect(page.locator(".cbox.uncovered")).to_have_count(0)
    shot(page, "02-regular-strategy-D3")


# ------------------------------------------------------------------------------ (2)
def test_spec_example_2_design_c2_b(page, shot):
    open_page(page)  # the default view is SPEC §6 example 2: C4, V = E1, H = 2, d = 1
    expect(page.get_by_label("Group G")).to_have_value("C4")
    expect(page.get_by_label("Tokens V")).to_have_value("E1")
    expect(page.locator("#vanilla-params")).to_have_text("16")
    shot(page, "01-default-view")

    page.get_by_role("button", name="List clusterings").click()
    expect(page.locator("#clusterings-count")).to_have_text("3 clusterings")

    add_orbit(page, "C2", {"B": 1})
    expect(page.locator("#design-params")).to_have_text("8")
    assert counts(page) == ("8", "16", "0.50")
    card = page.locator("#cards .card").nth(0)
    expect(card.locator(".head-dim")).to_have_text("1")
    expect(card.locator(".card-dots circle")).to_have_count(2)  # |G/K| = 2 heads

    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    expect(page.locator(".cbox.covered")).to_have_count(3)

    # the witness: which design orbit hosts which vanilla orbit, supplies vs demands
    page.locator(".cbox").filter(has_text="G/C2").click()
    explain = page.locator("#explain")
    expect(explain).to_be_visible()
    expect(explain).to_contain_text("Covered")
    expect(explain.locator("table")).to_contain_text("design orbit 1 (G/C2")
    expect(explain.locator("table")).to_contain_text("supplies")
    shot(page, "03-example2-covered")


# ------------------------------------------------------------------------------ (3)
def test_uncovered_clustering_shows_its_counterexample(page, shot):
    # SPEC §6 example 3: G = C2, V = A + B, H = d = 1; [(C2, A), (C2, B)] does not cover
    open_page(page)
    page.get_by_label("Group G").select_option("C2")
    expect(page.locator("#group-info")).to_contain_text("order 2")
    page.get_by_label("Tokens V").fill("A + B")
    page.get_by_label("heads H").fill("1")
    page.get_by_label("head dim d").fill("1")
    expect(page.locator("#vanilla-params")).to_have_text("8")
    expect(page.get_by_label("multiplicity of B in V")).to_have_value("1")  # steppers follow the text
    add_orbit(page, "C2", {"A": 1})
    add_orbit(page, "C2", {"B": 1})
    expect(page.locator("#design-params")).to_have_text("8")

    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("0 of 1 covered")
    box = page.locator(".cbox.uncovered")
    expect(box).to_have_count(1)
    expect(box).to_contain_text("not covered")
    box.click()
    explain = page.locator("#explain")
    expect(explain).to_contain_text("Not covered")
    expect(explain).to_contain_text("M with profile A and R with profile B")
    expect(explain).to_contain_text("lacks B")
    expect(explain.locator("td.short")).to_have_text("B missing")
    shot(page, "04-counterexample-C2")

    # one orbit (C2, A + B) at the same cost covers it
    page.get_by_role("button", name="Remove orbit 2").click()
    page.get_by_label("orbit 1: multiplicity of B of C2", exact=True).fill("1")
    expect(page.locator("#design-params")).to_have_text("8")
    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("1 of 1 covered")


# ------------------------------------------------------------------------------ (4)
def test_bad_input_shows_an_inline_error(page, shot):
    open_page(page)
    rep = page.get_by_label("Tokens V")
    rep.fill("2xQ")
    err = page.locator("#rep-error")
    expect(err).to_contain_text("Q")
    expect(rep).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#vanilla-params")).to_have_text("–")
    page.get_by_role("button", name="List clusterings").click()
    expect(err).to_contain_text("Q")
    expect(page.locator("h2", has_text="Vanilla layer")).to_be_visible()  # no blank page
    shot(page, "05-bad-input")
    rep.fill("E1")
    expect(err).to_be_empty()
    expect(page.locator("#vanilla-params")).to_have_text("16")

    heads = page.get_by_label("heads H")
    heads.fill("0")
    expect(page.locator("#heads-error")).to_contain_text("1")
    expect(heads).to_have_attribute("aria-invalid", "true")
    heads.fill("2")
    expect(page.locator("#heads-error")).to_be_empty()
    expect(page.locator("#vanilla-params")).to_have_text("16")

    # custom group by permutation generators
    page.get_by_label("Group G").select_option(label="Custom: permutation generators…")
    page.get_by_label("Generators").fill("(1,2,x)")
    page.get_by_role("button", name="Use", exact=True).click()
    expect(page.locator("#group-error")).to_contain_text("not a point")
    page.get_by_label("Generators").fill("(1,2,3),(1,2)")
    page.get_by_label("Generators").press("Enter")
    expect(page.locator("#group-info")).to_contain_text("order 6")
    expect(page.locator("#group-error")).to_be_empty()


# ------------------------------------------------------------------------------ (5)
def test_permalink_reloads_the_same_state(page, browser, live_server, shot):
    open_page(page)
    add_orbit(page, "C2", {"B": 1})
    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    page.locator(".cbox").filter(has_text="G/C2").click()
    expect(page.locator("#explain")).to_be_visible()
    title = page.locator("#explain-title").inner_text()
    url = page.url
    assert "g=C4" in url and "o=1%3AB" in url and "view=coverage" in url

    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    other = ctx.new_page()
    try:
        other.goto(url)
        other.wait_for_selector("body[data-ready='1']")
        expect(other.get_by_label("Group G")).to_have_value("C4")
        expect(other.get_by_label("Tokens V")).to_have_value("E1")
        expect(other.get_by_label("heads H")).to_have_value("2")
        expect(other.get_by_label("head dim d")).to_have_value("1")
        expect(other.locator("#cards .card")).to_have_count(1)
        expect(other.get_by_label("orbit 1: multiplicity of B of C2", exact=True)).to_have_value("1")
        expect(other.locator("#design-params")).to_have_text("8")
        expect(other.locator("#coverage-summary")).to_have_text("3 of 3 covered")
        expect(other.locator("#explain-title")).to_have_text(title)
        assert other.url == url
        shot(other, "06-permalink-reloaded")
    finally:
        ctx.close()


# ------------------------------------------------------------------------------ more
def test_export_and_import_a_design(page, tmp_path):
    open_page(page)
    add_orbit(page, "C2", {"B": 1})
    expect(page.locator("#design-params")).to_have_text("8")
    with page.expect_download() as dl:
        page.get_by_role("button", name="Export JSON").click()
    data = json.loads(open(dl.value.path()).read())
    assert data == {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1, "orbits": [{"subgroup": "C2", "rep": "B"}]}

    page.get_by_role("button", name="Remove orbit 1").click()
    expect(page.locator("#design-params")).to_have_text("0")
    data["orbits"].append({"subgroup": "C1", "rep": "A"})
    f = tmp_path / "design.json"
    f.write_text(json.dumps(data))
    page.locator("#import-file").set_input_files(str(f))
    expect(page.locator("#cards .card")).to_have_count(2)
    expect(page.locator("#design-params")).to_have_text("16")  # 8 + 4 dim Hom_C1(E1, A) = 8 + 8

    f.write_text("{oops")
    page.locator("#import-file").set_input_files(str(f))
    expect(page.locator("#topbar-msg")).to_contain_text("not JSON")


def test_long_computation_shows_progress_and_can_be_cancelled(page):
    # Hold the coverage request in the network (a computation that does not end), cancel it
    # from the page, and check the page stays responsive and can check again.
    open_page(page)
    add_orbit(page, "C2", {"B": 1})
    held = []
    page.route("**/api/coverage", lambda route: held.append(route))
    page.get_by_role("button", name="Check coverage").click()
    progress = page.locator("#coverage-progress")
    expect(progress).to_be_visible()
    expect(progress).to_contain_text("Checking coverage")
    expect(page.get_by_role("button", name="Check coverage")).to_be_disabled()
    page.wait_for_timeout(300)
    expect(progress).not_to_contain_text("… 0.0 s")  # the elapsed time ticks
    progress.get_by_role("button", name="Cancel").click()
    expect(progress).to_be_hidden()
    expect(page.locator("#coverage-summary")).to_have_text("Cancelled.")
    assert held, "the request was sent"
    # the page stays responsive: the live counts still answer, and a new check completes
    page.get_by_label("head dim d").fill("2")
    expect(page.locator("#vanilla-params")).to_have_text("32")
    page.get_by_label("head dim d").fill("1")
    expect(page.locator("#vanilla-params")).to_have_text("16")
    page.unroute_all(behavior="ignoreErrors")
    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")


def test_many_clusterings_scroll_count_and_filter(page, shot):
    open_page(page, "g=C6&v=E1&h=6&d=1")
    page.get_by_role("button", name="List clusterings").click()
    expect(page.locator("#clusterings-count")).to_have_text("30 clusterings")
    expect(page.locator(".cbox")).to_have_count(30)
    expect(page.locator(".orbit-frame.degenerate").first).to_be_attached()
    add_orbit(page, "C3", {"E1": 1})
    page.get_by_role("button", name="Check coverage").click()
    expect(page.locator("#coverage-summary")).to_have_text("23 of 30 covered")
    shot(page, "07-many-clusterings-C6")
    page.get_by_label("Filter clusterings").fill("uncovered")
    expect(page.locator(".cbox.uncovered")).to_have_count(7)
    expect(page.locator(".cbox.covered")).to_have_count(0)
    expect(page.locator("#clusterings-count")).to_contain_text("7 match")
    page.get_by_label("Filter clusterings").fill("degenerate G/C3")
    boxes = page.locator(".cbox")
    for i in range(boxes.count()):
        expect(boxes.nth(i)).to_contain_text("degenerate")
        expect(boxes.nth(i)).to_contain_text("G/C3")
    assert re.search(r"f=degenerate", page.url)


# ------------------------------------------------------------------------------ optimiser
def test_find_optimal_design_loads_a_proven_optimum(page, shot):
    open_page(page)  # SPEC §6 example 2: C4, V = E1, H = 2, d = 1
    button = page.get_by_role("button", name="Find optimal design")
    expect(button).to_be_visible()
    button.click()
    expect(page.locator("#optimize-status")).to_contain_text("Proven optimal: 8 parameters")
    expect(page.locator("#optimize-status .width")).to_have_text(
        "Its width fits your layer's: 2 heads (H = 2), each at most 1 wide (d = 1); attention cost 2 against the layer's 2.")
    expect(page.locator("#design-params")).to_have_text("8")
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    expect(page.locator("#cards .card")).to_have_count(1)
    shot(page, "08-optimal-design")
