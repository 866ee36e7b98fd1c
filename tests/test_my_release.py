"""The "my release" view (sphinxext/content/my_release.py, docs/_static/my-release.js).

- The build data holds every corpus report with a release verdict (with its algorithm, MTP
  written as NEXTN), the algorithms to filter by, and the flag history's events.
- In Chromium, for releases before and after several fixes, the view shows five separate lists:
  a report is fixed after the chosen release exactly when its ``fixed`` verdict is later, a
  breakage exactly when its ``broken`` verdict is at or before it, an answer that needs a newer
  release when its ``added`` verdict is later or in no release, a fix in no release when its
  ``fixed`` verdict is ``not-released``; the flag events after it are listed by release. The
  algorithm filter keeps the reports about the chosen algorithm and those about none.
- Both choices are kept in the address and survive a reload; no request leaves the page;
  axe-core finds no violation; the view fits a phone.

Expected lists are computed here (:func:`lists`) from the corpus and
``speccheck/data/flag-history.json``, not copied from the page, and a few named reports pin
the comparison down. The corpus may hold no ``added`` verdict yet, so a synthetic data object
(:data:`SYNTHETIC`, served in place of the build's data file) covers every kind of verdict
with lists worked out by hand.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from packaging.version import Version

import browser
import my_release
from conftest import ROOT

PAGES = ("reference/known-issues.html", "reference/release-changes.html", "how-to/troubleshooting-acceptance.html")
HISTORY = json.loads((ROOT / "speccheck" / "data" / "flag-history.json").read_text(encoding="utf-8"))
GROUPS = ("fixed", "broken", "added", "flags", "unreleased")
# Reports with a release verdict, read by hand from the wheels (tests/test_field_reports.py re-checks them):
QWEN3_VL_HOOKS = "https://github.com/sgl-project/sglang/issues/17935"  # fixed in 0.5.11
SPEC_V2_PENALTIES = "https://github.com/sgl-project/sglang/pull/22049"  # fixed in 0.5.11
LOGPROB_AUX_STATES = "https://github.com/sgl-project/sglang/issues/17349"  # fixed in 0.5.9
DFLASH_PENALTY = "https://github.com/sgl-project/sglang/issues/28180"  # broken since 0.5.11 (DFLASH arrives)
ANCHOR_FIRST_FIX = "https://github.com/sgl-project/sglang/pull/40203"  # in no release


def real_data() -> dict:
    """``my_release.page_data`` for the corpus, with a placeholder address for every section."""
    return my_release.page_data({entry["section"]: "x.html" for entry in my_release.corpus_entries()})


def lists(data: dict, mine: str, algorithm: str = "") -> dict[str, set]:
    """The URLs (and ``(flag, release)`` events) each list of the view must hold for release ``mine``.

    :param data: the object the view reads (``my_release.page_data``'s shape).
    :param algorithm: "" for every algorithm, else an entry of ``data["algorithms"]``.
    """
    at = {v: i for i, v in enumerate(data["releases"])}
    me = at[mine]
    out = {group: set() for group in GROUPS}
    for r in data["reports"]:
        if algorithm and r["algorithm"] not in (None, algorithm):
            continue
        unreleased = r["verdict"] == "not-released"
        later = unreleased or at[r["verdict"]] > me
        if r["change"] == "fixed" and unreleased:
            out["unreleased"].add(r["url"])
        elif r["change"] == "fixed" and later:
            out["fixed"].add(r["url"])
        elif r["change"] == "broken" and not later:
            out["broken"].add(r["url"])
        elif r["change"] == "added" and later:
            out["added"].add(r["url"])
    out["flags"] = {(f[0], f[1]) for f in data["flags"] if at[f[1]] > me}
    return out


def expected(mine: str, algorithm: str = "") -> dict[str, set]:
    return lists(real_data(), mine, algorithm)


def shown(tab) -> dict[str, set]:
    """What the view lists now, in the shape of :func:`lists`."""
    out = {}
    for group in GROUPS:
        items = tab.locator(f'[data-group="my-release-{group}"] li')
        if group == "flags":
            out[group] = {tuple(x) for x in items.evaluate_all(
                "items => items.map(i => [i.dataset.flag, i.dataset.release])")}
        else:
            out[group] = set(items.evaluate_all("items => items.map(i => i.dataset.url)"))
    return out


def headings(tab) -> dict[str, str]:
    """Each list's heading text, by list."""
    return {g: tab.locator(f"#my-release-{g}").inner_text() for g in GROUPS}


def test_the_build_data_holds_the_verdicts_the_algorithms_and_the_flag_events(html_dir):
    text = (html_dir / "_static" / "my-release-data.js").read_text(encoding="utf-8")
    prefix = "window.SGLANG_MY_RELEASE = "
    assert text.startswith(prefix)
    data = json.loads(text[len(prefix):].rstrip().rstrip(";"))
    assert data["releases"] == HISTORY["releases"] and data["pin"] == HISTORY["releases"][-1]
    by_url = {r["url"]: r for r in data["reports"]}
    assert by_url[QWEN3_VL_HOOKS]["verdict"] == "0.5.11" and by_url[QWEN3_VL_HOOKS]["change"] == "fixed"
    assert by_url[DFLASH_PENALTY]["change"] == "broken" and by_url[DFLASH_PENALTY]["algorithm"] == "DFLASH"
    assert by_url[ANCHOR_FIRST_FIX]["verdict"] == "not-released"
    assert len(data["flags"]) == len(my_release.flag_events(HISTORY)) > 50
    # The filter offers exactly the algorithms the reports name, MTP folded into NEXTN.
    named = {r["algorithm"] for r in data["reports"]} - {None}
    assert set(data["algorithms"]) == named and len(data["algorithms"]) == len(named) >= 3
    assert "MTP" not in named
    corpus = {e["url"]: e for e in my_release.corpus_entries()}
    for report in data["reports"]:
        page, _, anchor = report["section"].partition("#")
        assert (html_dir / page).exists(), report
        said = corpus[report["url"]]["algorithm"]
        assert report["algorithm"] == ("NEXTN" if said == "MTP" else said), report


def test_a_choices_event_says_what_it_adds_and_drops():
    assert my_release._choices_detail(["a", "b", "c"], ["a", "c", "d", "e"]) == "adds d, e; drops b"
    assert my_release._choices_detail(["a"], ["a", "b"]) == "adds b"
    assert my_release._choices_detail("x", "y") == '"x" -> "y"'


@pytest.fixture
def view(page, site):
    """Open a page with the view; returns ``open(path, release=None, algorithm=None) -> Visit``."""
    def open_(path: str, release: str | None = None, algorithm: str | None = None):
        query = "&".join(f"{k}={v}" for k, v in (("sglang", release), ("algorithm", algorithm)) if v)
        visit = browser.visit(page, site + path + (f"?{query}" if query else ""))
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
    # Each list says how long it is, and the reports in it run from the oldest verdict to the newest.
    for group, text in headings(page).items():
        assert text.endswith(f"({len(want[group])})"), (group, text)
    at = {v: i for i, v in enumerate(HISTORY["releases"])}
    verdicts = page.locator('[data-group="my-release-fixed"] li').evaluate_all(
        "items => items.map(i => i.dataset.verdict)")
    assert [at[v] for v in verdicts] == sorted(at[v] for v in verdicts)


def test_the_algorithm_filter_keeps_that_algorithm_and_reports_about_none(view, page):
    data = real_data()
    # The algorithm with the most reports fixed after 0.5.10 and one other, both from the data.
    counts = Counter(r["algorithm"] for r in data["reports"] if r["algorithm"] and r["url"] in expected("0.5.10")["fixed"])
    busiest = counts.most_common(1)[0][0]
    other = next(a for a in data["algorithms"] if a != busiest)
    for algorithm in (busiest, other):
        view("reference/known-issues.html", "0.5.10", algorithm)
        assert page.locator("#my-release-algorithm").input_value() == algorithm
        want = expected("0.5.10", algorithm)
        assert shown(page) == want
        assert want["flags"] == expected("0.5.10")["flags"], "flag events are not filtered"
        listed = page.locator("#my-release li[data-url]").evaluate_all("items => items.map(i => i.dataset.algorithm)")
        assert set(listed) <= {algorithm, ""}, listed
    # The filter leaves reports out: each algorithm's list of fixes is a strict part of the whole one.
    for algorithm in (busiest, other):
        assert expected("0.5.10", algorithm)["fixed"] < expected("0.5.10")["fixed"]


def test_the_pin_lists_no_fix_and_no_flag_change(view, page):
    view("reference/known-issues.html")
    pin = HISTORY["releases"][-1]
    assert page.locator("#my-release-select").input_value() == pin
    assert page.locator("#my-release-algorithm").input_value() == ""
    assert "is the release this guide is checked against" in page.locator("[data-out=summary]").inner_text()
    got = shown(page)
    assert got["fixed"] == set() and got["flags"] == set()
    assert got == expected(pin)


def test_both_choices_are_kept_in_the_address_and_survive_a_reload(view, page):
    view("how-to/troubleshooting-acceptance.html")
    page.get_by_label("Your SGLang release").select_option("0.5.10")
    assert page.url.endswith("?sglang=0.5.10")
    algorithm = real_data()["algorithms"][0]
    page.get_by_label("Speculative algorithm").select_option(algorithm)
    assert page.url.endswith(f"?sglang=0.5.10&algorithm={algorithm}")
    assert shown(page) == expected("0.5.10", algorithm)
    page.reload()
    page.wait_for_selector("#my-release [data-out=summary]")
    assert page.locator("#my-release-select").input_value() == "0.5.10"
    assert page.locator("#my-release-algorithm").input_value() == algorithm
    assert shown(page) == expected("0.5.10", algorithm)
    page.get_by_label("Speculative algorithm").select_option("")
    assert page.url.endswith("?sglang=0.5.10"), "every algorithm: the address drops the parameter"
    assert shown(page) == expected("0.5.10")


def test_unknown_choices_in_the_address_fall_back_to_the_pin_and_every_algorithm(view, page):
    view("reference/release-changes.html", "9.9.9", "LOOKAHEAD")
    assert page.locator("#my-release-select").input_value() == HISTORY["releases"][-1]
    assert page.locator("#my-release-algorithm").input_value() == ""


def test_the_view_works_with_the_keyboard(view, page):
    view("reference/known-issues.html")
    page.locator("#my-release-select").focus()
    page.keyboard.press("ArrowDown")  # the list runs newest first: one step down is the release before the pin
    before_pin = HISTORY["releases"][-2]
    page.wait_for_function(f"location.search === '?sglang={before_pin}'")
    assert shown(page) == expected(before_pin)


@pytest.mark.parametrize("path", PAGES)
def test_each_page_with_the_view_loads_it_with_headings_below_its_section(view, page, path):
    visit = view(path, "0.5.14")
    assert not visit.external and not visit.failed and not visit.console, visit
    assert page.locator("#my-release").count() == 1
    assert shown(page) == expected("0.5.14")
    # The lists' headings are one level below the heading of the section that holds the view.
    section_level, list_levels = page.evaluate("""() => {
        const section = document.getElementById('my-release').closest('section');
        const own = section.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5');
        const lists = [...document.querySelectorAll('.my-release__heading')].map(h => Number(h.tagName[1]));
        return [Number(own.tagName[1]), lists];
    }""")
    assert list_levels == [section_level + 1] * len(GROUPS)


# A synthetic release history with one report for each case around release 0.5.1 (names say
# what each should do there), served in place of the build's data file.
SYNTHETIC = {
    "pin": "0.6.0",
    "releases": ["0.4.0", "0.5.0", "0.5.1", "0.5.2", "0.6.0"],
    "algorithms": ["EAGLE3", "DFLASH"],
    "reports": [
        {"url": f"https://example.org/{name}", "title": name, "change": change, "verdict": verdict,
         "status": "still-applies", "algorithm": algorithm, "section": "reference/known-issues.html"}
        for name, change, verdict, algorithm in [
            ("fixed-before", "fixed", "0.5.0", "EAGLE3"),
            ("fixed-next", "fixed", "0.5.2", "EAGLE3"),
            ("fixed-at-pin", "fixed", "0.6.0", "DFLASH"),
            ("fixed-next-any", "fixed", "0.5.2", None),
            ("broken-at-mine", "broken", "0.5.1", "EAGLE3"),
            ("broken-later", "broken", "0.5.2", "DFLASH"),
            ("broken-long-ago-any", "broken", "0.4.0", None),
            ("added-before", "added", "0.5.0", "EAGLE3"),
            ("added-next", "added", "0.5.2", "EAGLE3"),
            ("added-at-pin", "added", "0.6.0", "DFLASH"),
            ("added-unreleased-any", "added", "not-released", None),
            ("fixed-unreleased", "fixed", "not-released", "DFLASH"),
            ("broken-unreleased", "broken", "not-released", "EAGLE3"),
        ]],
    "flags": [["--old", "0.5.0", "added", ""], ["--same", "0.5.1", "choices", "adds x"],
              ["--gone", "0.5.2", "removed", ""], ["--new", "0.5.2", "added", ""],
              ["--tuned", "0.6.0", "default", "1 -> 2"]],
}


def urls(*names: str) -> set[str]:
    return {f"https://example.org/{name}" for name in names}


@pytest.fixture
def synthetic(page, site):
    """Open known-issues with :data:`SYNTHETIC` as the view's data; returns ``open(query) -> Visit``."""
    body = f"window.SGLANG_MY_RELEASE = {json.dumps(SYNTHETIC)};\n"
    page.route("**/_static/my-release-data.js",
               lambda route: route.fulfill(status=200, content_type="text/javascript", body=body))

    def open_(query: str):
        visit = browser.visit(page, site + "reference/known-issues.html" + query)
        page.wait_for_selector("#my-release [data-out=summary]")
        assert not visit.external and not visit.failed and not visit.console, visit
        return visit
    return open_


def test_every_kind_of_verdict_lands_in_its_own_list(synthetic, page):
    synthetic("?sglang=0.5.1")
    assert shown(page) == {
        "fixed": urls("fixed-next", "fixed-at-pin", "fixed-next-any"),
        "broken": urls("broken-at-mine", "broken-long-ago-any"),
        "added": urls("added-next", "added-at-pin", "added-unreleased-any"),
        "flags": {("--gone", "0.5.2"), ("--new", "0.5.2"), ("--tuned", "0.6.0")},
        "unreleased": urls("fixed-unreleased"),
    } == lists(SYNTHETIC, "0.5.1")
    # Oldest verdict first, then by title; an answer in no release comes last.
    order = page.locator('[data-group="my-release-fixed"] li').evaluate_all("i => i.map(x => x.dataset.url)")
    assert order == [*sorted(urls("fixed-next", "fixed-next-any")), *urls("fixed-at-pin")]
    order = page.locator('[data-group="my-release-added"] li').evaluate_all("i => i.map(x => x.dataset.url)")
    assert order == [*urls("added-next"), *urls("added-at-pin"), *urls("added-unreleased-any")]
    added = page.locator('[data-group="my-release-added"] li').all_inner_texts()
    assert "needs 0.5.2" in added[0] and "needs a release after 0.6.0" in added[2]
    # The flag events are grouped by release; within one, a removal comes before an addition.
    releases = page.locator("details.my-release__release").evaluate_all("d => d.map(x => x.dataset.release)")
    assert releases == ["0.5.2", "0.6.0"]
    first = page.locator('details[data-release="0.5.2"] li').evaluate_all("i => i.map(x => x.dataset.flag)")
    assert first == ["--gone", "--new"]
    assert page.locator('details[data-release="0.5.2"] summary').inner_text() == "0.5.2: removed 1, added 1"


def test_the_algorithm_filter_on_every_kind_of_verdict(synthetic, page):
    synthetic("?sglang=0.5.1&algorithm=EAGLE3")
    assert shown(page) == {
        "fixed": urls("fixed-next", "fixed-next-any"),
        "broken": urls("broken-at-mine", "broken-long-ago-any"),
        "added": urls("added-next", "added-unreleased-any"),
        "flags": {("--gone", "0.5.2"), ("--new", "0.5.2"), ("--tuned", "0.6.0")},
        "unreleased": set(),
    } == lists(SYNTHETIC, "0.5.1", "EAGLE3")
    assert page.locator("#my-release-unreleased").inner_text().endswith("(0)")
    page.get_by_label("Speculative algorithm").select_option("DFLASH")
    assert page.url.endswith("?sglang=0.5.1&algorithm=DFLASH")
    assert shown(page) == lists(SYNTHETIC, "0.5.1", "DFLASH")
    assert shown(page)["unreleased"] == urls("fixed-unreleased")


@pytest.mark.parametrize("release", SYNTHETIC["releases"])
def test_synthetic_lists_for_every_release(synthetic, page, release):
    synthetic(f"?sglang={release}")
    assert shown(page) == lists(SYNTHETIC, release)
    if release == SYNTHETIC["pin"]:  # at the pin only what no release has is left
        assert shown(page)["added"] == urls("added-unreleased-any") and not shown(page)["fixed"]
    if release == "0.4.0":
        assert shown(page)["broken"] == urls("broken-long-ago-any")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_view_with_results_has_no_axe_violations(view, page, theme):
    from test_pages_in_browser import axe_violations, set_theme

    view("reference/known-issues.html", "0.5.10")
    set_theme(page, theme)
    assert page.locator("#my-release li").count() > 10  # the lists are on the page
    page.locator("details.my-release__release").first.evaluate("d => { d.open = true; }")
    violations = axe_violations(page)
    assert not violations, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in violations]


def test_the_view_fits_a_390_px_screen(view, page):
    page.set_viewport_size({"width": 390, "height": 844})
    view("reference/known-issues.html", "0.5.10")
    page.locator("details.my-release__release").evaluate_all("ds => ds.forEach(d => { d.open = true; })")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at a 390 px viewport"
