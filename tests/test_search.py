"""The search box finds the right page first for questions readers really type.

Each test presses the theme's search shortcut (Ctrl+K) on the landing page, types
the query, presses Enter, and reads the first result on search.html, in Chromium.
The expected page is the one written for that task or fact. Ranking is Sphinx's
plus one rule in ``sphinxext/search_scorer.js`` (a page whose title, or one of
whose headings, holds every query word ranks higher); when a query starts to rank
another page first, improve that page's title or headings rather than this list.
"""

from __future__ import annotations

import zlib
from urllib.parse import urljoin

import pytest

import browser

# query -> the page that must come first, named by its label (so a renamed page needs no
# change here) or, for a page without one, by its docname; or an address with an anchor,
# where the answer is one option.
EXPECTED_FIRST = {
    "accept length": "speedup",
    "topk": "draft-trees",
    "DP attention": "compatibility",
    "out of memory": "oom-page",
    "d2t": "draft-checkpoint-format",
    "SpecForge export": "train-draft-specforge",
    "torch.compile": "torch-compile-howto",
    "MTP DeepSeek": "mtp-howto",
    "ngram": "ngram-howto",
    "standalone draft": "standalone-howto",
    "EAGLE-2": "eagle2-howto",
    "lossless": "explanation/lossless-sampling",
    "DFLASH": "dflash-howto",
    "benchmark speculative decoding": "bench-page",
    "EAGLE-3 quickstart": "quickstart-eagle3",
    "speculative-num-steps": "reference/server-arguments.html#cmdoption-sglang-serve-speculative-num-steps",
}


def page_of(name: str, html_dir) -> str:
    """The address of ``name``: a label's page (from the site's ``objects.inv``), a docname's page, or as given.

    :raises AssertionError: ``name`` is neither a label nor a built page.
    """
    if ".html" in name:
        return name
    raw = (html_dir / "objects.inv").read_bytes().split(b"\n", 4)[4]
    for line in zlib.decompress(raw).decode().splitlines():
        label, role, _, uri = line.split(" ", 4)[:4]
        if label == name and role == "std:label":
            return uri.split("#", 1)[0]
    assert (html_dir / f"{name}.html").exists(), f"{name} is neither a label nor a page of the site"
    return f"{name}.html"


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


@pytest.mark.parametrize("query, name", EXPECTED_FIRST.items())
def test_search_shortcut_finds_the_right_page_first(query, name, site, page, html_dir):
    expected = page_of(name, html_dir)
    results = search(page, site, query)
    first = results[0] if "#" in expected else results[0].split("#")[0]
    assert first == expected, f"searching {query!r} ranked first {results[0]}; the top five: {results[:5]}"
