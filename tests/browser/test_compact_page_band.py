"""The page on a compact group follows the band V names (the server's catalog.group_for_rep,
through GET /api/group with the rep): the design cards offer exactly the irreps of K a head
may use, and the verify line names the Haar samples (docs/theory-continuous.md §5, §6)."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

pytestmark = pytest.mark.browser


def _open(page, query: str) -> None:
    page.goto(f"/?{query}")
    page.wait_for_selector("body[data-ready='1']")


def test_o3_cards_follow_the_band_of_v(page, shot):
    from playwright.sync_api import expect

    _open(page, f"g=O3&v={quote('16x0e + 8x1o')}&h=2&d=1&o=1:0e")
    info = page.locator("#group-info")
    expect(info).to_contain_text("degrees l <= 1 · computed on its finite subgroup Oh")
    card = page.locator("#cards .card").first
    expect(card.get_by_label("orbit 1: multiplicity of 1o of O3")).to_have_count(1)
    expect(card.get_by_label("orbit 1: multiplicity of 2e of O3")).to_have_count(0)  # V has no l = 2
    expect(card.locator(".stepper-boxes label")).to_have_count(4)
    expect(page.get_by_label("multiplicity of 2e in V")).to_have_value("0")  # V can still grow
    page.get_by_label("Tokens V").fill("16x0e + 8x1o + 4x2e")
    expect(info).to_contain_text("degrees l <= 2 · computed on its finite subgroup Ih")
    expect(card.get_by_label("orbit 1: multiplicity of 2e of O3")).to_have_value("0")
    expect(card.locator(".stepper-boxes input")).to_have_count(6)
    page.get_by_label("multiplicity of 2e in V").fill("0")  # back to l <= 1 from the stepper
    expect(info).to_contain_text("degrees l <= 1 · computed on its finite subgroup Oh")
    expect(card.get_by_label("orbit 1: multiplicity of 2e of O3")).to_have_count(0)
    expect(page.get_by_label("multiplicity of 2e in V")).to_have_count(1)
    page.get_by_role("button", name="Undo").click()  # V has 4x2e again: so has the band
    expect(page.get_by_label("Tokens V")).to_have_value("16x0e + 8x1o + 4x2e")
    expect(info).to_contain_text("degrees l <= 2 · computed on its finite subgroup Ih")
    expect(card.get_by_label("orbit 1: multiplicity of 2e of O3")).to_have_count(1)
    shot(page, "compact-O3-band-follow")


def test_so2_cards_offer_the_frequencies_past_the_default_band(page):
    from playwright.sync_api import expect

    _open(page, f"g=SO2&v={quote('A + E11')}&h=1&d=3&o=0:0")
    expect(page.locator("#group-info")).to_contain_text("frequencies k <= 11 · computed on its finite subgroup C23")
    expect(page.get_by_label("multiplicity of E11 in V")).to_have_value("1")
    card = page.locator("#cards .card").first
    expect(card.locator(".stepper-boxes input")).to_have_count(12)  # A, E1..E11 (W = 0: the boxes are open)
    card.get_by_label("orbit 1: multiplicity of E11 of SO2").fill("1")
    expect(card.locator("summary .mono")).to_have_text("W = E11")
    expect(page.locator("#design-params")).to_have_text("8")  # 4 · dim Hom_SO2(V, E11) = 4 · 2


def test_verify_names_the_haar_samples(page, shot):
    from playwright.sync_api import expect

    _open(page, f"g=O3&v={quote('2x0e + 1x1o')}&h=2&d=1&o=1:0e&o=1:0e&view=coverage&sel=0")
    page.get_by_role("button", name="Verify numerically").click()
    result = page.locator("#verify-result")
    expect(result).to_contain_text("Worst relative error")
    expect(result).to_have_class(re.compile(r"\bgood\b"))
    expect(result).to_contain_text("of both layers under the generators of Oh and 16 Haar-random elements of O3")
    shot(page, "compact-O3-verify")


def test_o3_drawer_inspector_and_pytorch_speak_of_the_compact_group(page):
    from playwright.sync_api import expect

    _open(page, f"g=O3&v={quote('2x0e + 1x1o')}&h=2&d=1&o=1:0e&o=1:0e&view=coverage&sel=0")
    explain = page.locator("#explain")
    expect(explain).to_contain_text("[G:K] = 1)")
    expect(explain).not_to_contain_text("order 48")  # K = O(3) is infinite; 48 is the stand-in Oh's order
    expect(page.locator("#gen-legend")).to_contain_text(
        "how the generators of Oh (G's finite stand-in; SO3, the rotations, fixes every cluster) permute")
    page.locator("#explain-close").click()
    page.locator("#palette").get_by_role("button", name="Inspect subgroup SO3").click()
    lead = page.locator("#inspector .lead")
    expect(lead).to_contain_text("SO3 is a closed subgroup of O3 of index 2")
    expect(lead).to_contain_text("finite subgroup Oh (order 48), which keeps the irreps of degrees l <= 1")
    expect(lead).to_contain_text("its part in Oh (order 24)")  # the band in use: O, not Ih's I (order 60)
    page.locator("#inspector-close").click()
    page.locator("#export-torch").click()
    code = page.locator("#torch-code")
    expect(code).to_contain_text("to_e3nn(problem.group, problem.V)")
    expect(code).to_contain_text("layer_e3nn = EquivariantAttention.from_json(DESIGN, basis=change)")


# appended to the page's snippet: its e3nn-layout layer against e3nn's own D(g) at a random
# rotation times the inversion (float32, as the snippet builds it)
_E3NN_CHECK = """
import torch
from e3nn import o3

torch.manual_seed(0)
g = -o3.rand_matrix(dtype=torch.float64)
D = o3.Irreps(str(irreps)).D_from_matrix(g).to(torch.float32)
x = torch.randn(2, 5, irreps.dim)
err = (layer_e3nn(x @ D.T) - layer_e3nn(x) @ D.T).abs().max().item() / layer_e3nn(x).abs().max().item()
print("e3nn-layout equivariance error:", err)
assert err < 1e-4, err
"""


def test_the_o3_pytorch_snippet_runs_on_e3nn_features(page, tmp_path):
    import subprocess
    import sys

    from playwright.sync_api import expect

    _open(page, f"g=O3&v={quote('2x0e + 1x1o')}&h=2&d=1&o=1:0e&o=1:0e")
    expect(page.locator("#design-params")).to_have_text("16")
    page.get_by_role("button", name="PyTorch").click()
    f = tmp_path / "snippet.py"
    f.write_text(page.locator("#torch-code").inner_text() + _E3NN_CHECK)
    run = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "parameters: 16" in run.stdout and "e3nn-layout equivariance error" in run.stdout


def test_typing_in_a_card_keeps_the_focus_when_the_band_changes(page):
    """The band's group answer may arrive while the user types in a design card: the cards are
    drawn again for the new band, and the focus and what was typed stay where they were."""
    from playwright.sync_api import expect

    _open(page, f"g=O3&v={quote('16x0e + 8x1o')}&h=2&d=1&o=1:0e")
    info = page.locator("#group-info")
    expect(info).to_contain_text("computed on its finite subgroup Oh")

    held, released = [], False  # the band's answer waits until the user is in the card

    def hold(route):
        if released:
            route.continue_()
        else:
            held.append(route)

    page.route(re.compile(r".*/api/group\?.*rep=.*"), hold)
    page.get_by_label("Tokens V").fill("16x0e + 8x1o + 4x2e")
    box = page.get_by_label("orbit 1: multiplicity of 1o of O3")
    box.focus()
    page.keyboard.press("ArrowUp")
    expect(box).to_have_value("1")
    for _ in range(50):  # the page's request reaches the handler (a timed delay raced)
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the page asked for no group for the new band"
    released = True
    for route in held:
        route.continue_()
    expect(info).to_contain_text("computed on its finite subgroup Ih")
    expect(page.locator("#cards .card").first.locator(".stepper-boxes input")).to_have_count(6)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "orbit 1: multiplicity of 1o of O3"
    expect(page.get_by_label("orbit 1: multiplicity of 1o of O3")).to_have_value("1")
    page.keyboard.press("ArrowUp")  # typing goes on in the same box
    expect(page.get_by_label("orbit 1: multiplicity of 1o of O3")).to_have_value("2")


def test_the_generators_legend_follows_the_band_when_its_group_comes_after_the_clusterings(page):
    """The clusterings may be drawn before the group for V's band arrives (a loaded machine):
    their legend first names the default band's stand-in Ih, and must name Oh, V's band l <= 1,
    once that group is in (it kept saying Ih)."""
    from playwright.sync_api import expect

    held, released = [], False  # the band's answers wait until the clusterings are drawn
    band = re.compile(r".*/api/group\?.*rep=.*")

    def hold(route):
        if released:
            route.continue_()
        else:
            held.append(route)

    page.route(band, hold)
    _open(page, f"g=O3&v={quote('2x0e + 1x1o')}&h=2&d=1&o=1:0e&o=1:0e&view=coverage")
    legend = page.locator("#gen-legend")
    expect(legend).to_contain_text("how the generators of Ih (G's finite stand-in", timeout=30_000)
    assert held, "the page asked for no group for V's band"
    released = True  # (a timed delay raced: on a loaded machine the clusterings came later)
    for route in held:
        route.continue_()
    expect(legend).to_contain_text("how the generators of Oh (G's finite stand-in; SO3, the rotations, fixes every cluster) permute")
    expect(page.locator("#group-info")).to_contain_text("computed on its finite subgroup Oh")


def test_degree_3_is_computed_on_the_character_detecting_stand_in(page, shot):
    """l = 3 (docs/theory-continuous.md §8): the page takes C6 x Ci for O3, says what that
    stand-in does (its characters tell the band apart; the irreps are O3's own), and the
    optimiser answers on it."""
    from playwright.sync_api import expect

    _open(page, f"g=O3&v={quote('1x0e + 1x3o + 1x3e')}&h=2&d=7")
    info = page.locator("#group-info")
    expect(info).to_contain_text("degrees l <= 3 · computed on its finite subgroup C6xCi")
    expect(page.get_by_label("multiplicity of 3o in V")).to_have_value("1")
    page.get_by_role("button", name="List clusterings").click()
    expect(page.locator(".cbox")).to_have_count(3)
    page.get_by_role("button", name="Find optimal design").click()
    expect(page.locator("#optimize-status")).to_contain_text("Proven optimal: 24 parameters")
    shot(page, "compact-O3-degree-3")
