"""The page on a compact group: the picker lists SO2, O2, SO3, O3; O3 with e3nn features
through clusterings to a proven optimum (docs/theory-continuous.md §4.2)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_the_picker_lists_the_compact_groups_and_o3_runs_end_to_end(page, shot):
    from playwright.sync_api import expect

    page.goto("/")
    page.wait_for_selector("body[data-ready='1']")
    group = page.locator("#group-select optgroup[label='Compact (continuous) groups'] option")
    expect(group).to_have_count(4)
    assert group.evaluate_all("os => os.map(o => o.value)") == ["SO2", "O2", "SO3", "O3"]
    expect(group.nth(3)).to_have_text("O3  (O(3), rotations and reflections of space)")

    page.get_by_label("Group G").select_option("O3")
    # V = vector (1x1o): the group comes at V's band, l <= 1, on Oh
    expect(page.locator("#group-info")).to_contain_text("compact · degrees l <= 1 · computed on its finite subgroup Oh")
    page.get_by_label("Tokens V").fill("2x0e + 1x1o")
    page.get_by_label("heads H").fill("2")
    page.get_by_label("head dim d").fill("1")
    expect(page.locator("#vanilla-params")).to_have_text("40")  # 4 * 2 * 1 * 5
    expect(page.get_by_label("multiplicity of 0e in V")).to_have_value("2")
    expect(page.locator("#perm-preset")).to_have_count(0)  # no permutation representation of O(3)
    expect(page.locator("#palette")).to_contain_text("[G:K] = 2 · 2 heads")

    page.get_by_role("button", name="List clusterings").click()
    expect(page.locator("#clusterings-count")).to_have_text("3 clusterings")
    page.get_by_role("button", name="Find optimal design").click()
    # a waiting limit for the optimiser's answer on a loaded machine, not a claim about its speed
    expect(page.locator("#optimize-status")).to_contain_text("Proven optimal: 16 parameters", timeout=60_000)
    expect(page.locator("#design-params")).to_have_text("16")
    expect(page.locator("#coverage-summary")).to_have_text("3 of 3 covered")
    assert "~X" not in page.locator("body").inner_text()
    shot(page, "compact-O3-optimum")
