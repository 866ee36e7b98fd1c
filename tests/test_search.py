"""The search box finds the right page first for questions readers really type.

Each test presses the theme's search shortcut (Ctrl+K) on the landing page, types
the query, presses Enter, and reads the first result on search.html, in Chromium.
The expected page is the one written for that task or fact. Ranking is Sphinx's
plus one rule in ``sphinxext/search_scorer.js`` (a page whose title, or one of
whose headings, holds every query word ranks higher); when a query starts to rank
another page first, improve that page's title or headings rather than this list.
"""

from __future__ import annotations

from urllib.parse import urljoin

import pytest

import browser

# query -> the page (and anchor, where the answer is one option) that must come first
EXPECTED_FIRST = {
    "accept length": "explanation/speedup.html",
    "topk": "explanation/draft-trees.html",
    "DP attention": "reference/compatibility.html",
    "out of memory": "how-to/memory-oom.html",
    "d2t": "reference/draft-checkpoint-format.html",
    "SpecForge export": "how-to/train-draft-specforge.html",
    "torch.compile": "how-to/torch-compile.html",
    "MTP DeepSeek": "how-to/mtp.html",
    "ngram": "how-to/ngram.html",
    "standalone draft": "how-to/standalone.html",
    "EAGLE-2": "how-to/eagle2.html",
    "lossless": "explanation/lossless-sampling.html",
    "DFLASH": "how-to/dflash.html",
    "benchmark speculative decoding": "how-to/benchmark.html",
    "EAGLE-3 quickstart": "tutorial/quickstart-eagle3.html",
    "speculative-num-steps": "reference/server-arguments.html#cmdoption-sglang-serve-speculative-num-steps",
}


def search(page, site: str, query: str) -> list[str]:
    """Search from the landing page with the keyboard shortcut; return the result links in order.

    :returns: result addresses relative to the site (``how-to/mtp.html``), anchors kept.
    :raises playwright.sync_api.TimeoutError: the shortcut opened no search field, or no result appeared.
    """
    browser.visit(page, site + "index.html")
    page.keyboard.press("Control+k")
    field = page.locator("input[name=q]:focus")
    field.wait_for(state="visible")
    page.keyboard.type(query)
    page.keyboard.press("Enter")
    page.wait_for_url("**/search.html?q=*")
    results = page.locator("#search-results li > a")
    results.first.wait_for(state="visible")
    return [urljoin(page.url, a.get_attribute("href"))[len(site):] for a in results.all()]


@pytest.mark.parametrize("query, expected", EXPECTED_FIRST.items())
def test_search_shortcut_finds_the_right_page_first(query, expected, site, page):
    results = search(page, site, query)
    first = results[0] if "#" in expected else results[0].split("#")[0]
    assert first == expected, f"searching {query!r} ranked first {results[0]}; the top five: {results[:5]}"
