"""The atlas page (static/atlas.html): filter, sort, and a row opening the designer with the
optimal design loaded (a store made by eqattn.atlas, served through EQATTN_ATLAS)."""

from __future__ import annotations

import pytest

from eqattn.atlas import parse_grid, run_grid

pytestmark = pytest.mark.browser

GRID = {"time_limit": 10, "heads": [1, 2], "head_dims": [1, 2], "group": [{"name": "C4", "reps": ["E1"]}, {"name": "D3", "reps": ["E1"]}]}


def expect(locator):
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    out = tmp_path_factory.mktemp("atlas")
    run_grid(parse_grid(GRID), out, workers=0, quiet=True)
    return out / "atlas.sqlite"


def test_atlas_filter_sort_and_open(page, store, monkeypatch, shot):
    monkeypatch.setenv("EQATTN_ATLAS", str(store))  # the live server runs in this process
    page.goto("/")
    page.wait_for_selector("body[data-ready='1']")
    page.get_by_role("link", name="Atlas").click()
    page.wait_for_selector("body[data-ready='1']")
    expect(page.locator("#count")).to_have_text("8 of 8 problems")
    page.get_by_label("Filter").fill("C4 H=2")
    expect(page.locator("#count")).to_have_text("2 of 8 problems")
    page.get_by_role("button", name="P opt").click()
    expect(page.locator("th[data-key=p_opt]")).to_have_attribute("aria-sort", "ascending")
    first = page.locator("#atlas-body tr").first
    # SPEC §6 example 2: C4, V = E1, H = 2, d = 1 -> 8 parameters, the cheaper of the two
    expect(first.locator("td").nth(6)).to_have_text("8")
    page.get_by_role("button", name="P opt").click()
    expect(page.locator("th[data-key=p_opt]")).to_have_attribute("aria-sort", "descending")
    expect(page.locator("#atlas-body tr").first.locator("td").nth(6)).to_have_text("24")
    assert "q=C4+H%3D2" in page.url and "sort=p_opt" in page.url and "dir=desc" in page.url
    shot(page, "20-atlas-view")
    page.get_by_role("link", name="Open C4, V = E1, H = 2, d = 1 in the designer").click()
    page.wait_for_selector("body[data-ready='1']")
    expect(page.get_by_label("Group G")).to_have_value("C4")
    expect(page.get_by_label("heads H")).to_have_value("2")
    expect(page.get_by_label("head dim d")).to_have_value("1")
    expect(page.locator("#design-params")).to_have_text("8")
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    shot(page, "21-atlas-opened-in-designer")


def test_atlas_without_store_says_how(page, monkeypatch):
    monkeypatch.delenv("EQATTN_ATLAS", raising=False)
    page.goto("/static/atlas.html")
    page.wait_for_selector("body[data-ready='1']")
    expect(page.locator("#atlas-error")).to_contain_text("eqattn serve --atlas")
    expect(page.locator("#count")).to_have_text("0 of 0 problems")
