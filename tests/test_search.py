"""Search finds the section that answers a pasted question or error line.

The site's search is Pagefind (``sphinxext/output/pagefind_search.py`` writes the index after
the build; ``docs/_static/search-page.js`` ranks sections on ``search.html``). The query
set ``tests/search-queries.yaml`` holds searches from real user reports, each in two
forms, with the label of the answering section; ``tools/search_eval.py`` runs them in
Chromium. When a query starts to miss, improve the answering section (its heading, its
first paragraph, the words readers use) rather than this file.
"""

from __future__ import annotations

import re
import sys
from urllib.parse import quote, urljoin

import pytest
import yaml

import browser
from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import search_eval  # noqa: E402

REPORTS = ROOT / "docs" / "_data" / "field-reports"


@pytest.fixture(scope="module")
def queries():
    return search_eval.load_queries()


@pytest.fixture(scope="module")
def outcomes(html_dir, queries, chromium):
    return search_eval.run(html_dir, queries, "pagefind", browser=chromium)


def search(page, site: str, query: str) -> list[str]:
    """Search from the landing page with the theme's shortcut (Ctrl+K); return the result links.

    :returns: result addresses relative to the site (``how-to/mtp.html#launch``), best first.
    :raises playwright.sync_api.TimeoutError: the shortcut opened no field, or no result appeared.
    """
    browser.visit(page, site + "index.html")
    page.keyboard.press("Control+k")
    page.locator("input[name=q]:focus").wait_for(state="visible")
    page.keyboard.type(query)
    page.keyboard.press("Enter")
    page.wait_for_url("**/search.html?q=*")
    results = page.locator("#search-results li > a")
    results.first.wait_for(state="visible")
    return [urljoin(page.url, a.get_attribute("href"))[len(site):] for a in results.all()]


def test_the_query_set_has_a_hundred_searches_in_both_forms_from_reports(queries):
    assert len(queries) >= 100
    assert {q.form for q in queries} == {"keywords", "question"}
    known = set()
    for path in REPORTS.glob("*.yaml"):
        known |= {entry["url"] for entry in yaml.safe_load(path.read_text()) or []}
    unknown = sorted({q.report for q in queries} - known)
    assert not unknown, f"queries cite reports that are not in docs/_data/field-reports/: {unknown}"


def test_every_answer_label_is_a_section_of_the_site(html_dir, queries):
    labels = search_eval.label_pages(html_dir)
    missing = sorted({label for q in queries for label in q.labels} - set(labels))
    assert not missing, f"answer labels not in the build: {missing}"


def test_no_search_of_the_query_set_returns_nothing(outcomes):
    empty = [o.query.text for o in outcomes if not o.links]
    assert not empty, f"searches with no result: {empty}"


def test_the_answering_page_is_in_the_top_three_for_95_percent(outcomes):
    result = search_eval.summary(outcomes)
    misses = "\n".join(f"  {m['query']!r}: expected {m['expected']}, got {m['got']}" for m in result["misses"])
    assert result["top3"] >= 0.95, f"top-3 hit rate {result['top3']} on {result['searches']} searches; misses:\n{misses}"


def test_results_link_to_sections(outcomes):
    with_anchor = sum("#" in link for o in outcomes for link in o.links[:3])
    total = sum(len(o.links[:3]) for o in outcomes)
    assert with_anchor >= 0.8 * total, f"only {with_anchor} of the top {total} results link to a section"


def test_the_shortcut_opens_search_and_results_are_section_links(site, page):
    links = search(page, site, "illegal memory access topk")
    assert links and all(link.endswith(".html") or ".html#" in link for link in links)
    assert any("#" in link for link in links[:3])


def test_search_page_urls_keep_working_without_other_hosts(site, page):
    record = browser.visit(page, site + "search.html?q=" + quote("speculative-num-steps"))
    page.locator("#search-results li > a").first.wait_for(state="visible")
    assert not record.external, record.external
    assert not record.failed, record.failed
    assert not record.console, record.console
    assert page.locator("#search-results").get_attribute("aria-live") == "polite"


@pytest.mark.parametrize("query", [
    "--speculative-eagle-topk", "speculative-eagle-topk", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
    "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B", "d2t", "draft_vocab_size", "accept len",
])
def test_what_users_paste_finds_results(query, site, page):
    browser.visit(page, site + "search.html?q=" + quote(query))
    page.locator("#search-results .search-summary").wait_for()
    assert page.locator("#search-results li > a").count() > 0, f"nothing found for {query!r}"


def test_a_query_of_stop_words_only_says_nothing_matches(site, page):
    browser.visit(page, site + "search.html?q=" + quote("what is the"))
    summary = page.locator("#search-results .search-summary")
    summary.wait_for()
    assert "Nothing on this site matches" in summary.text_content()


def test_only_the_search_page_loads_search_code(html_dir):
    heavy = ("pagefind", "searchindex.js", "searchtools.js", "search-page.js")
    offenders = []
    for rel in browser.site_pages(html_dir):
        if rel == "search.html":
            continue
        html = (html_dir / rel).read_text(encoding="utf-8")
        loads = " ".join(re.findall(r'<(?:script|link)\b[^>]*>', html))  # what the page loads, not its text
        offenders += [(rel, name) for name in heavy if name in loads]
    assert not offenders, offenders


def test_the_index_covers_every_content_page(html_dir):
    entry = yaml.safe_load((html_dir / "pagefind" / "pagefind-entry.json").read_text())
    indexed = sum(language["page_count"] for language in entry["languages"].values())
    content = [p for p in browser.site_pages(html_dir) if not p.startswith(("genindex", "search", "404"))]
    assert indexed == len(content), f"Pagefind indexed {indexed} pages; the site has {len(content)} content pages"


def test_published_pages_keep_their_section_ids(html_dir):
    html = (html_dir / "how-to" / "troubleshooting-acceptance.html").read_text(encoding="utf-8")
    assert re.search(r'<section id="(accept-length-one|trouble-accept-one)">', html), "a section keeps its id"
    assert '<h2 id="' not in html  # heading ids exist only in the scratch copy Pagefind indexes


def error_entries(html_dir) -> list[tuple[str, str]]:
    """``(anchor, message)`` of every entry on the error-message reference (``reference/error-messages*.html``,
    the hub and its pages), the message as the page shows it.

    Generated entries (``div.error-message``) give their message block; the hand-written
    entries (``err-*`` sections) the first line of their ``text`` block.
    ``{placeholder}`` parts are filled with a word, as in a real log line.
    """
    from bs4 import BeautifulSoup

    found = []
    for page in sorted((html_dir / "reference").glob("error-messages*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        found += [(div["id"], div.select_one(".error-message-text pre").get_text())
                  for div in soup.select("div.error-message[id]")]
        found += [(sec["id"], sec.select_one("pre").get_text()) for sec in soup.select("section[id^=err-]")]
    return [(anchor, re.sub(r"\{[^{}]*\}", "x", text.strip().splitlines()[0])) for anchor, text in found]


def test_pasting_each_error_message_finds_its_entry_first_and_names_it(html_dir, chromium):
    entries = error_entries(html_dir)
    assert len(entries) >= 80, len(entries)
    outcomes = search_eval.run(html_dir, [search_eval.Query(text, "keywords", "error-messages") for _, text in entries],
                               "pagefind", browser=chromium)
    misses = [f"{text!r}: expected #{anchor}, got {outcome.links[:2]}"
              for (anchor, text), outcome in zip(entries, outcomes, strict=True)
              if not outcome.links or not outcome.links[0].endswith("#" + anchor)]
    assert not misses, f"{len(misses)} of {len(entries)} messages do not find their entry first:\n" + "\n".join(misses)
