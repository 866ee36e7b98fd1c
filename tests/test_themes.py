"""Light and dark themes are both readable, plots and diagrams included.

Representative pages (the landing page, a how-to page, a notebook with plots, a page
with a hand-written SVG diagram) are screenshotted in the light theme, the dark theme
and on a phone into ``$BUILDDIR/screens/`` for a person to look at; the tests check
what can be measured: the dark theme is dark, plots keep a light backdrop, and the
text of inline SVG diagrams contrasts with the page in both themes. Text contrast of
every page in both themes is axe-core's check in test_pages_in_browser.py.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageStat

import browser
from conftest import BUILDDIR

SHOWCASE = {
    "landing": "index.html",
    "how-to": "how-to/eagle3.html",
    "notebook": "explanation/lossless-sampling.html",
    "diagram": "explanation/draft-trees.html",
}
SCREENS = BUILDDIR / "screens"

# Relative luminance and contrast ratio as WCAG 2 defines them, from a CSS rgb()/rgba() string.
LUMINANCE_JS = """(css) => {
  const [r, g, b] = css.match(/[\\d.]+/g).slice(0, 3).map(Number).map(v => v / 255)
    .map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}"""


def contrast(l1: float, l2: float) -> float:
    """WCAG contrast ratio of two relative luminances (1 to 21)."""
    hi, lo = max(l1, l2), min(l1, l2)
    return (hi + 0.05) / (lo + 0.05)


def mean_brightness(png) -> float:
    """Mean grey level (0 black to 255 white) of a screenshot file."""
    return ImageStat.Stat(Image.open(png).convert("L")).mean[0]


@pytest.fixture(scope="module")
def screenshots(html_dir, site, chromium):
    """Screenshots of the showcase pages: {(name, "light" | "dark" | "phone"): path}."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    shots = {}
    for mode, options in {
        "light": {"viewport": {"width": 1280, "height": 1000}, "color_scheme": "light"},
        "dark": {"viewport": {"width": 1280, "height": 1000}, "color_scheme": "dark"},
        "phone": {"viewport": {"width": 390, "height": 844}, "color_scheme": "light"},
    }.items():
        context = chromium.new_context(**options)
        tab = context.new_page()
        for name, rel in SHOWCASE.items():
            browser.visit(tab, site + rel)
            shots[name, mode] = SCREENS / f"{name}-{mode}.png"
            tab.screenshot(path=shots[name, mode], full_page=True)
        context.close()
    return shots


@pytest.mark.parametrize("name", SHOWCASE)
def test_dark_screenshot_is_dark_and_light_one_is_light(name, screenshots):
    assert mean_brightness(screenshots[name, "light"]) > 180
    assert mean_brightness(screenshots[name, "dark"]) < 90


@pytest.fixture(params=["light", "dark"])
def themed(request, site, chromium):
    """A tab that follows the reader's system theme, set to light or dark: ``(theme, Page)``."""
    context = chromium.new_context(viewport={"width": 1280, "height": 1000}, color_scheme=request.param)
    yield request.param, context.new_page()
    context.close()


def test_plots_keep_a_light_backdrop_in_both_themes(themed, site):
    theme, tab = themed
    browser.visit(tab, site + SHOWCASE["notebook"])
    plots = tab.locator("div.nboutput img")
    assert plots.count() > 0, "the notebook shows its plots"
    for i in range(plots.count()):
        backdrop = plots.nth(i).evaluate("e => getComputedStyle(e).backgroundColor")
        transparent = backdrop in {"rgba(0, 0, 0, 0)", "transparent"}
        if theme == "dark":
            # Matplotlib draws black text; on the dark page it needs the theme's light backdrop.
            assert not transparent and tab.evaluate(LUMINANCE_JS, backdrop) > 0.5, backdrop


def test_diagram_text_contrasts_with_the_page_in_both_themes(themed, site):
    theme, tab = themed
    browser.visit(tab, site + SHOWCASE["diagram"])
    page_bg = tab.evaluate(LUMINANCE_JS, tab.evaluate("getComputedStyle(document.body).backgroundColor"))
    fills = tab.locator("article svg text").evaluate_all("ts => ts.map(t => getComputedStyle(t).fill)")
    assert fills, "the page shows an inline SVG diagram with text"
    for fill in set(fills):
        ratio = contrast(tab.evaluate(LUMINANCE_JS, fill), page_bg)
        assert ratio >= 4.5, f"{theme} theme: diagram text {fill} has contrast {ratio:.1f} with the page"
