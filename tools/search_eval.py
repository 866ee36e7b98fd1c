"""Measure the site's search on the query set: is the answering page in the top three?

The query set (``tests/search-queries.yaml``) holds searches taken from real user
reports (``docs/_data/field-reports/``), each in two forms - a few keywords and the
whole question - with the label of the section that answers it. This script runs
every search in headless Chromium against a built site and reports, per engine:

- ``pagefind``: the site's own search page (``search.html?q=...``), what readers use;
- ``sphinx``: Sphinx's built-in search (``searchtools.js`` with the ``searchindex.js``
  that every Sphinx HTML build still writes), through a small harness page written
  into a temporary copy of the site, for comparison.

A hit is a query whose answering page (the page holding the label) is among the
first three distinct pages of the results. Used by ``tests/test_search.py`` and
``make bench``; run by hand with ``python tools/search_eval.py --html _build/html``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import yaml

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ROOT / "tests" / "search-queries.yaml"
sys.path.insert(0, str(ROOT / "tools"))
import site_server  # noqa: E402  (the local server and Chromium flags the tests use)

# Sphinx's own search page, reduced to what searchtools.js needs (Sphinx 9): the options,
# the scripts in the order search.html loads them, and the element it writes results into.
SPHINX_HARNESS = """<!DOCTYPE html><html data-content_root="./"><head><meta charset="utf-8">
<script src="_static/documentation_options.js"></script>
<script src="_static/doctools.js"></script>
<script src="_static/sphinx_highlight.js"></script>
<script src="_static/searchtools.js"></script>
<script src="_static/language_data.js"></script>
</head><body><div id="search-results"></div>
<script src="searchindex.js"></script></body></html>
"""


@dataclass
class Query:
    """One search: its text, its form (``keywords`` or ``question``) and the answering labels.

    :ivar label: the section that answers it; ``also`` holds other sections that answer it as well.
    """

    text: str
    form: str
    label: str
    report: str | None = None
    also: tuple[str, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        return (self.label, *self.also)


@dataclass
class Outcome:
    """What one engine returned for one query.

    :ivar pages: the distinct result pages in order, relative to the site (``how-to/mtp.html``).
    :ivar links: the result links in order, anchors kept.
    """

    query: Query
    expected_pages: set[str]
    pages: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)

    @property
    def hit(self) -> bool:
        return bool(self.expected_pages.intersection(self.pages[:3]))


def load_queries(path: Path = QUERIES) -> list[Query]:
    """Read the query set: a YAML list of ``{report, keywords, question, answer[, also]}``.

    :returns: two :class:`Query` per entry (the keyword form, then the question form).
    :raises ValueError: an entry lacks a field (the message names its position).
    """
    queries = []
    for number, entry in enumerate(yaml.safe_load(path.read_text()), start=1):
        missing = {"keywords", "question", "answer"} - set(entry)
        if missing:
            raise ValueError(f"{path}: entry {number} lacks {sorted(missing)}")
        for form in ("keywords", "question"):
            queries.append(Query(entry[form], form, entry["answer"], entry.get("report"), tuple(entry.get("also", ()))))
    return queries


def label_pages(html_dir: Path) -> dict[str, str]:
    """``{label: page}`` for every ``std:label`` in the build's ``objects.inv``.

    :returns: pages relative to the site root (``how-to/troubleshooting.html``).
    """
    from sphinx.util.inventory import InventoryFile

    with (html_dir / "objects.inv").open("rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    return {name: item.uri.split("#")[0] for name, item in inventory.get("std:label", {}).items()}


def _relative(url: str, base: str) -> str:
    """``url`` relative to the site root, its ``#anchor`` kept (``how-to/mtp.html#launch``)."""
    parts = urlsplit(urljoin(base, url))
    prefix = urlsplit(base).path.rsplit("/", 1)[0] + "/"
    rel = parts.path[len(prefix):] if parts.path.startswith(prefix) else parts.path.lstrip("/")
    rel = rel if rel and not rel.endswith("/") else rel + "index.html"
    return rel + (f"#{parts.fragment}" if parts.fragment else "")


def run(html_dir: Path, queries: list[Query], engine: str = "pagefind", browser=None) -> list[Outcome]:
    """Run every query in Chromium against a built site.

    :param html_dir: the HTML output (``_build/html``) with ``pagefind/`` in it.
    :param engine: ``"pagefind"`` (the site's search page) or ``"sphinx"`` (Sphinx's search).
    :param browser: a Playwright ``Browser`` to use (the tests pass their session's Chromium, since
        Playwright's sync API cannot be started twice in one thread); ``None`` starts one.
    :raises KeyError: a query's answer label is not in the build.
    """
    from playwright.sync_api import sync_playwright

    pages_of = label_pages(html_dir)
    outcomes = [Outcome(q, {pages_of[label] for label in q.labels}) for q in queries]
    with tempfile.TemporaryDirectory() as scratch:
        site = html_dir
        if engine == "sphinx":
            site = Path(scratch) / "html"
            shutil.copytree(html_dir, site)
            (site / "sphinx-search.html").write_text(SPHINX_HARNESS)
        with site_server.serve(site, prefix="/") as base, contextlib.ExitStack() as stack:
            if browser is None:
                playwright = stack.enter_context(sync_playwright())
                browser = playwright.chromium.launch(executable_path=site_server.CHROMIUM, args=site_server.CHROMIUM_ARGS)
                stack.callback(browser.close)
            tab = browser.new_page()
            stack.callback(tab.close)
            for outcome in outcomes:
                if engine == "pagefind":
                    tab.goto(f"{base}search.html?q={quote(outcome.query.text)}")
                    tab.wait_for_selector("#search-results .search-summary", timeout=20_000)
                    hrefs = [a.get_attribute("href") for a in tab.locator("#search-results li > a").all()]
                else:
                    tab.goto(f"{base}sphinx-search.html?q={quote(outcome.query.text)}")
                    # searchtools.js titles the results "Search Results" once the last one is shown.
                    tab.wait_for_function("() => (document.querySelector('#search-results h2') || {}).textContent"
                                          " === 'Search Results'", timeout=20_000)
                    hrefs = [a.get_attribute("href") for a in tab.locator("#search-results li > a").all()]
                outcome.links = [_relative(h, tab.url) for h in hrefs]
                for link in outcome.links:
                    page = link.split("#")[0]
                    if page not in outcome.pages:
                        outcome.pages.append(page)
    return outcomes


def summary(outcomes: list[Outcome]) -> dict:
    """Hit rate in the top three, overall and per form, and the queries that found nothing."""
    def rate(items):
        return round(sum(o.hit for o in items) / len(items), 3) if items else None

    return {
        "searches": len(outcomes),
        "top3": rate(outcomes),
        "top3_keywords": rate([o for o in outcomes if o.query.form == "keywords"]),
        "top3_question": rate([o for o in outcomes if o.query.form == "question"]),
        "empty": [o.query.text for o in outcomes if not o.links],
        "misses": [{"query": o.query.text, "expected": sorted(o.expected_pages), "got": o.pages[:3]}
                   for o in outcomes if not o.hit],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--engine", choices=["pagefind", "sphinx", "both"], default="both")
    parser.add_argument("--misses", action="store_true", help="list the queries that missed")
    args = parser.parse_args(argv)
    queries = load_queries()
    for engine in ["pagefind", "sphinx"] if args.engine == "both" else [args.engine]:
        result = summary(run(args.html, queries, engine))
        if not args.misses:
            result.pop("misses")
        print(engine, json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
