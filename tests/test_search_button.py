"""The search button: named by the text it shows, and it still opens the search (click, Ctrl+K).

axe-core runs with every rule tag, the experimental ones included: the theme's button
was labelled "Search" while it shows "Search Ctrl+K" (label-content-name-mismatch, an
experimental rule, so the default axe run in test_pages_in_browser.py does not see it).
"""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe

# The WCAG A and AA tags, best practices and "experimental" (runOnly by tag selects rules with any of
# them; AAA rules such as enhanced contrast are not the site's target).
ALL_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice", "experimental"]
BLOCKING = {"critical", "serious"}
PAGES = ["index.html", "how-to/eagle3.html", "explanation/lossless-sampling.html"]
BUTTON = "button.search-button-field"


@pytest.fixture
def tab(site, chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.mark.parametrize("rel", PAGES)
def test_no_serious_violation_with_experimental_rules(rel, site, tab):
    tab.goto(site + rel, wait_until="load")
    options = {"runOnly": {"type": "tag", "values": ALL_TAGS}, "resultTypes": ["violations"]}
    violations = Axe().run(tab, options=options).response["violations"]
    blocking = [f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']} {v['help']}"
                for v in violations if v["impact"] in BLOCKING]
    assert not blocking, "\n".join(blocking)


def test_the_button_is_named_by_its_visible_text(site, tab):
    tab.goto(site + "index.html", wait_until="load")
    button = tab.locator(BUTTON).first
    visible = re.sub(r"\s+", " ", button.inner_text()).strip()
    assert visible.startswith("Search"), visible
    # Playwright's role query matches the computed accessible name.
    assert tab.get_by_role("button", name=re.compile(r"^Search\s*Ctrl\s*\+\s*K$")).count() >= 1, visible


def test_click_and_ctrl_k_open_the_search_dialog_and_a_query_goes_to_search_html(site, tab):
    tab.goto(site + "index.html", wait_until="load")
    dialog_input = tab.locator("#pst-search-dialog input[name='q']")
    tab.locator(BUTTON).first.click()
    assert dialog_input.is_visible(), "clicking the button did not open the search dialog"
    tab.keyboard.press("Escape")
    tab.locator("body").click(position={"x": 5, "y": 5})
    tab.keyboard.press("Control+k")
    assert dialog_input.is_visible(), "Ctrl+K did not open the search dialog"
    dialog_input.fill("eagle")
    with tab.expect_navigation():
        dialog_input.press("Enter")
    assert re.search(r"/search\.html\?q=eagle", tab.url), tab.url
