"""The "my release" view (sphinxext/content/my_release.py, docs/_static/my-release.js).

- The build data holds every corpus report with a release verdict and the flag history's events.
- In Chromium, for releases before and after several fixes, the view lists a report as fixed
  after the chosen release exactly when its verdict is later, a breakage exactly when its verdict
  is at or before it, and the flag events after it; the choice is kept in the address and
  survives a reload; no request leaves the page; axe-core finds no violation.

Expected lists are computed here from the corpus and ``speccheck/data/flag-history.json``, not
copied from the page, and a few named reports pin the comparison down.
"""

from __future__ import annotations

import json

import pytest
from packaging.version import Version

import browser
import my_release
from conftest import ROOT

PAGES = ("reference/known-issues.html", "reference/release-changes.html", "how-to/troubleshooting-acceptance.html")
HISTORY = json.loads((ROOT / "speccheck" / "data" / "flag-history.json").read_text(encoding="utf-8"))
# Reports with a release verdict, read by hand from the wheels (tests/test_field_reports.py re-checks them):
QWEN3_VL_HOOKS = "https://github.com/sgl-project/sglang/issues/17935"  # fixed in 0.5.11
SPEC_V2_PENALTIES = "https://github.com/sgl-project/sglang/pull/22049"  # fixed in 0.5.11
LOGPROB_AUX_STATES = "https://github.com/sgl-project/sglang/issues/17349"  # fixed in 0.5.9
DFLASH_PENALTY = "https://github.com/sgl-project/sglang/issues/28180"  # broken since 0.5.11 (DFLASH arrives)
ANCHOR_FIRST_FIX = "https://github.com/sgl-project/sglang/pull/40203"  # in no release


def data_reports() -> list[dict]:
    return my_release.page_data({entry["section"]: "x.html" for entry in my_release.corpus_entries()})["reports"]


def expected(mine: str) -> dict[str, set]:
    """The URLs (and flag events) the view must list for release ``mine``."""
    me = Version(mine)
    reports = data_reports()
    released = [r for r in reports if r["verdict"] != "not-released"]
    return {
        "fixed": {r["url"] for r in released if r["change"] == "fixed" and Version(r["verdict"]) > me},
        "broken": {r["url"] for r in released if r["change"] == "broken" and Version(r["verdict"]) <= me},
        "unreleased": {r["url"] for r in reports if r["verdict"] == "not-released" and r["change"] == "fixed"},
        "flags": {(f[0], f[1]) for f in my_release.flag_events(HISTORY) if Version(f[1]) > me},
    }


def shown(tab) -> dict[str, set]:
    def urls(group: str) -> set[str]:
        return set(tab.locator(f'[data-group="my-release-{group}"] li').evaluate_all(
            "items => items.map(i => i.dataset.url)"))
    flags = tab.locator('[data-group="my-release-flags"] li').evaluate_all(
        "items => items.map(i => [i.dataset.flag, i.textContent])")
    return {"fixed": urls("fixed"), "broken": urls("broken"), "unreleased": urls("unreleased"),
            "flags": {(name, text.split(" in ")[-1].split(":")[0]) for name, text in flags}}


def test_the_build_data_holds_the_verdicts_and_the_flag_events(html_dir):
    text = (html_dir / "_static" / "my-release-data.js").read_text(encoding="utf-8")
    prefix = "window.SGLANG_MY_RELEASE = "
    assert text.startswith(prefix)
    data = json.loads(text[len(prefix):].rstrip().rstrip(";"))
    assert data["releases"] == HISTORY["releases"] and data["pin"] == HISTORY["releases"][-1]
    by_url = {r["url"]: r for r in data["reports"]}
    assert by_url[QWEN3_VL_HOOKS]["verdict"] == "0.5.11" and by_url[QWEN3_VL_HOOKS]["change"] == "fixed"
    assert by_url[DFLASH_PENALTY]["change"] == "broken"
    assert by_url[ANCHOR_FIRST_FIX]["verdict"] == "not-released"
    assert len(data["flags"]) == len(my_release.flag_events(HISTORY)) > 50
    for report in data["reports"]:
        page, _, anchor = report["section"].partition("#")
        assert (html_dir / page).exists(), report


@pytest.fixture
def view(page, site):
    """Open a page with the view; returns ``open(path, release=None) -> Visit``."""
    def open_(path: str, release: str | None = None):
        visit = browser.visit(page, site + path + (f"?sglang={release}" if release else ""))
        page.wait_for_selector("#my-release [data-out=summary]")
        return visit
    return open_


@pytest.mark.parametrize("release", ["0.5.8", "0.5.10", "0.5.12", "0.5.20"])
def test_the_view_lists_what_differs_between_a_release_and_the_pin(view, page, release):
    visit = view("reference/known-issues.html", release)
    assert not visit.external and not visit.failed and not visit.console, visit
    assert page.locator("#my-release-select").input_value() == release
    want = expected(release)
    assert shown(page) == want
    assert want["fixed"] and want["flags"], "the release chosen should be older than several fixes"
    if Version(release) < Version("0.5.9"):
        assert LOGPROB_AUX_STATES in want["fixed"]
    if Version(release) < Version("0.5.11"):
        assert {QWEN3_VL_HOOKS, SPEC_V2_PENALTIES} <= want["fixed"] and DFLASH_PENALTY not in want["broken"]
    else:
        assert QWEN3_VL_HOOKS not in want["fixed"] and DFLASH_PENALTY in want["broken"]
    assert ANCHOR_FIRST_FIX in want["unreleased"]


def test_the_pin_lists_no_fix_and_no_flag_change(view, page):
    view("reference/known-issues.html")
    assert page.locator("#my-release-select").input_value() == HISTORY["releases"][-1]
    assert "is the release this guide is checked against" in page.locator("[data-out=summary]").inner_text()
    got = shown(page)
    assert got["fixed"] == set() and got["flags"] == set()
    assert got["broken"] == expected(HISTORY["releases"][-1])["broken"]


def test_the_choice_is_kept_in_the_address_and_survives_a_reload(view, page):
    view("how-to/troubleshooting-acceptance.html")
    page.get_by_label("Your SGLang release").select_option("0.5.10")
    assert page.url.endswith("?sglang=0.5.10")
    assert shown(page) == expected("0.5.10")
    page.reload()
    page.wait_for_selector("#my-release [data-out=summary]")
    assert page.locator("#my-release-select").input_value() == "0.5.10"
    assert shown(page) == expected("0.5.10")


def test_an_unknown_release_in_the_address_falls_back_to_the_pin(view, page):
    view("reference/release-changes.html", "9.9.9")
    assert page.locator("#my-release-select").input_value() == HISTORY["releases"][-1]


def test_the_view_works_with_the_keyboard(view, page):
    view("reference/known-issues.html")
    page.locator("#my-release-select").focus()
    page.keyboard.press("ArrowDown")  # the list runs newest first: one step down is the release before the pin
    before_pin = HISTORY["releases"][-2]
    page.wait_for_function(f"location.search === '?sglang={before_pin}'")
    assert shown(page) == expected(before_pin)


@pytest.mark.parametrize("path", PAGES)
def test_each_page_with_the_view_loads_it_without_errors(view, page, path):
    visit = view(path, "0.5.14")
    assert not visit.external and not visit.failed and not visit.console, visit
    assert page.locator("#my-release").count() == 1
    assert shown(page) == expected("0.5.14")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_view_with_results_has_no_axe_violations(view, page, theme):
    from test_pages_in_browser import axe_violations, set_theme

    view("reference/known-issues.html", "0.5.10")
    set_theme(page, theme)
    assert page.locator("#my-release li").count() > 10  # the lists are on the page
    violations = axe_violations(page)
    assert not violations, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in violations]


def test_the_view_fits_a_390_px_screen(view, page):
    page.set_viewport_size({"width": 390, "height": 844})
    view("reference/known-issues.html", "0.5.10")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at a 390 px viewport"
