"""Every page of the built site, opened in Chromium: clean, private, accessible, usable on a phone.

Pages are discovered from the build (``browser.site_pages``), so a new page is
checked without being listed here. Each page is loaded once from the local test
server for the desktop checks (requests for any other host are blocked and
recorded) and once more on a phone-sized screen.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest
from axe_playwright_python.sync_playwright import Axe

import browser
from conftest import BUILDDIR

_BUILT = BUILDDIR / "html"
# Before `make html` has run there is nothing to discover; the html_dir fixture then fails the test.
PAGES = browser.site_pages(_BUILT) if (_BUILT / "index.html").exists() else ["index.html"]

# axe-core impact levels that fail a page (the two lower ones, "moderate" and "minor", are reported).
BLOCKING = {"critical", "serious"}
MOBILE = {"width": 390, "height": 844}
# What a reader types at in a `console` or `pycon` block; the rest of such a block is output.
PROMPT = re.compile(r"^(\$ |>>> |\.\.\. )")
CLIPBOARD = ["clipboard-read", "clipboard-write"]


def axe_violations(page, options: dict | None = None) -> list[dict]:
    """axe-core's violations on the page as it is now, as dicts with ``id``, ``impact`` and ``nodes``."""
    return Axe().run(page, options={"resultTypes": ["violations"], **(options or {})}).response["violations"]


def describe(violations: list[dict]) -> str:
    """One readable line per violation: rule, impact, the first offending element, and the rule's help."""
    return "\n".join(f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']} {v['help']}" for v in violations)


def expected_copy(shown: str) -> str:
    """What a copy button must put on the clipboard for a code block that shows ``shown``.

    A block without prompts is a command (or a file) to copy whole. A block with prompts
    shows commands after ``$ ``/``>>> ``/``... `` and output on other lines: only the
    commands are copied, without their prompts, with backslash-continued lines kept.
    One trailing newline is dropped, so that pasting into a shell does not run it at once.
    """
    lines = shown.removesuffix("\n").split("\n")
    if not any(PROMPT.match(line) for line in lines):
        return "\n".join(lines)
    commands, continued = [], False
    for line in lines:
        prompt = PROMPT.match(line)
        if prompt or continued:
            commands.append(line[prompt.end():] if prompt else line)
            continued = line.endswith("\\")
    return "\n".join(commands)


def copied_texts(tab) -> list[tuple[str, str]]:
    """Click every copy button on the page; return ``(text shown in the block, clipboard text)`` pairs."""
    pairs = []
    for button in tab.locator("button.copybtn").all():
        block = tab.locator(button.get_attribute("data-clipboard-target"))
        if button.is_visible():
            button.click()
        else:  # in a closed dropdown or an unselected tab: press it as the reader would once shown
            button.dispatch_event("click")
        pairs.append((block.inner_text(), tab.evaluate("navigator.clipboard.readText()")))
        tab.evaluate("navigator.clipboard.writeText('')")
    return pairs


def set_theme(tab, theme: str) -> None:
    """Switch the page to the ``light`` or ``dark`` theme, as the theme's switcher does, and wait
    until the theme's colour transitions have finished (axe reads colours as they are)."""
    tab.evaluate("""async (theme) => {
        document.documentElement.dataset.theme = theme;
        await new Promise(requestAnimationFrame);
        await Promise.allSettled(document.getAnimations().map(a => a.finished));
    }""", theme)


@pytest.fixture(scope="module", params=PAGES)
def loaded(request, html_dir, site, chromium):
    """One page loaded on a desktop screen, shared by the checks below: ``(page path, Visit, Page)``."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, permissions=CLIPBOARD)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    visit = browser.visit(tab, site + request.param)
    yield request.param, visit, tab
    context.close()


def test_page_requests_nothing_from_other_hosts(loaded):
    rel, visit, _ = loaded
    assert visit.external == [], f"{rel} asked other hosts for {visit.external}"
    assert visit.requests, "the recorder saw the page's own requests"


def test_page_has_no_failed_requests(loaded):
    rel, visit, _ = loaded
    assert visit.failed == [], f"{rel}: {visit.failed}"


def test_page_logs_no_console_errors_or_warnings(loaded):
    rel, visit, _ = loaded
    assert visit.console == [], f"{rel}: {visit.console}"


def test_page_has_no_serious_accessibility_violations(loaded):
    rel, _, tab = loaded
    violations = [v for v in axe_violations(tab) if v["impact"] in BLOCKING]
    assert not violations, f"{rel}:\n{describe(violations)}"


def test_copy_buttons_copy_exactly_the_commands(loaded):
    rel, _, tab = loaded
    for shown, copied in copied_texts(tab):
        assert copied == expected_copy(shown), f"{rel}: the block shows\n{shown}"
        assert not any(PROMPT.match(line) for line in copied.splitlines()), f"{rel}: a prompt was copied"


def test_math_is_mathml_drawn_by_the_browser_without_a_script(loaded):
    rel, visit, tab = loaded
    formulas = tab.locator("span.math, div.math")
    if formulas.count() == 0:
        return  # no formula on this page
    # Every formula is a <math> element the browser lays out (it has a size), with its TeX kept.
    unrendered = formulas.evaluate_all(
        "fs => fs.filter(f => { const m = f.querySelector('math');"
        " return !m || !m.getAttribute('alttext') || m.getBoundingClientRect().width === 0; }).length")
    assert unrendered == 0, f"{rel}: {unrendered} of {formulas.count()} formulas are not rendered MathML"
    assert not any("mathjax" in url.lower() for url in visit.requests), f"{rel} still loads MathJax"


def test_page_text_has_enough_contrast_in_the_dark_theme(loaded):
    rel, _, tab = loaded
    set_theme(tab, "dark")
    try:
        background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background not in {"rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"}, "the dark theme applied"
        violations = axe_violations(tab, {"runOnly": ["color-contrast"]})
    finally:
        set_theme(tab, "light")
    assert not violations, f"{rel} (dark theme):\n{describe(violations)}"


def test_missing_address_gets_the_404_page_with_working_styles(site, page):
    visit = browser.visit(page, site + "no/such/page.html", expect_status=404)
    assert (visit.failed, visit.external, visit.console) == ([], [], [])
    assert "Page not found" in page.title()
    # The theme's stylesheet loaded from the site's path even two folders below it.
    assert page.locator("#pst-primary-sidebar").evaluate("e => getComputedStyle(e).display") != "inline"
    page.get_by_role("link", name="search", exact=True).click()
    page.wait_for_url(site + "search.html")


@pytest.mark.parametrize("rel", PAGES)
def test_page_fits_a_phone_screen_and_its_navigation_opens(rel, html_dir, site, page):
    page.set_viewport_size(MOBILE)
    browser.visit(page, site + rel)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{rel} is {overflow}px wider than a 390px screen: readers must scroll sideways"
    drawer = page.locator("#pst-primary-sidebar-modal")
    assert not drawer.is_visible(), "on a phone the navigation waits behind its button"
    page.get_by_role("button", name="Toggle primary sidebar").click()
    links = drawer.locator("nav.bd-docs-nav a.reference").filter(visible=True)
    links.first.wait_for(state="visible")
    box = drawer.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= MOBILE["width"], "the open navigation fits the screen"
    target = links.last
    expected = urljoin(page.url, target.get_attribute("href")).split("#")[0]
    target.click()
    page.wait_for_url(lambda url: url.split("#")[0] == expected)


@pytest.mark.parametrize("name, url", [
    ("external-script.html", "https://cdn.example.com/tracker.js"),
    ("external-image.html", "https://images.example.com/plot.png"),
])
def test_a_page_that_loads_from_another_host_is_caught(name, url, bad_build, page):
    with browser.serve(bad_build.outdir) as base:
        visit = browser.visit(page, base + name)
    assert visit.external == [url], "the request was blocked, recorded and named"
    assert any(url in failure for failure in visit.failed)


def test_copy_button_leaves_out_prompts_and_output(bad_build, chromium):
    context = chromium.new_context(permissions=CLIPBOARD)
    try:
        tab = context.new_page()
        with browser.serve(bad_build.outdir) as base:
            browser.visit(tab, base + "console-prompts.html")
            [(shown, copied)] = copied_texts(tab)
    finally:
        context.close()
    assert shown.startswith("$ nvidia-smi") and "NVIDIA H100" in shown, "the block shows prompts and output"
    assert copied == "nvidia-smi --query-gpu=name --format=csv,noheader\npython -m pip --version"


def test_page_landmarks_have_distinct_names(loaded):
    """axe's best-practice rule landmark-unique (moderate, so not in BLOCKING): e.g. the source-note asides."""
    rel, _, tab = loaded
    violations = axe_violations(tab, {"runOnly": ["landmark-unique"]})
    assert not violations, f"{rel}:\n{describe(violations)}"
