"""Site search by Pagefind: an index by section, written after the HTML build.

Sphinx's own search returns only pages that hold every word of the query and
links to pages, not sections. Pagefind (PyPI ``pagefind[bin]``) indexes the built
HTML offline and returns sub-results per heading that carries an ``id``; the
search page's script (``docs/_static/search-page.js``) then ranks sections by
how many of the query's words they hold, weighted by rarity, so a pasted
question or error line finds the section that answers it.

What this extension does:

- after a successful HTML build, runs Pagefind on a scratch copy of the content
  pages (:data:`CONTENT_GLOB`), indexing only the article (:data:`ROOT_SELECTOR`),
  into ``pagefind/`` in the output. In the copy each section's ``id`` sits on its
  heading (``<section id="x"><h2>`` becomes ``<section><h2 id="x">``), so the index
  records where each section starts and what its heading says; the anchors are
  the same, so results link to the published sections. Entries of the error-message
  reference get their message as a heading (:func:`error_entries_as_headings`). The
  published pages are
  not changed, and nothing is loaded by a page until the reader opens
  ``search.html``.

:raises sphinx.errors.ExtensionError: when Pagefind fails (its output is in the message).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

# The folders of pages that hold answers, and the landing page (genindex, search and 404 are left out).
CONTENT_GLOB = "{index.html,tutorial/**/*.html,how-to/**/*.html,explanation/**/*.html,reference/**/*.html,contributing/**/*.html}"
ROOT_SELECTOR = "article.bd-article"
# Elements whose text is not an answer: the header-link pilcrows, copy buttons, the notebook prompt numbers.
EXCLUDE_SELECTORS = "a.headerlink, button, .prompt, .nbinput .prompt"

_SECTION_HEADING = re.compile(
    r'<section id="(?P<id>[^"]+)">(?P<spans>\s*(?:<span id="[^"]*"></span>)*)\s*<h(?P<level>[1-6])>'
)


def ids_on_headings(body: str) -> str:
    """Move each ``<section id>`` onto the section's heading.

    :param body: the HTML of a page's body, as Sphinx's HTML writer makes it.
    :returns: the same HTML with ``<section><hN id="...">`` instead of ``<section id="..."><hN>``;
        a section whose heading does not follow right after its label spans is left as it is.
    """
    return _SECTION_HEADING.sub(lambda m: f'<section>{m["spans"]}<h{m["level"]} id="{m["id"]}">', body)


# An entry of the error-message reference (sphinxext/content/error_messages_ref.py): a container with the
# entry's id, whose first child holds the message in a <pre>.
_ERROR_ENTRY = re.compile(
    r'<div class="error-message docutils container" id="(?P<id>[^"]+)">\s*'
    r'<div class="error-message-text[^"]*"><div class="highlight"><pre>(?:<span></span>)?(?P<text>.*?)</pre></div>\s*</div>',
    re.S,
)


def error_entries_as_headings(body: str) -> str:
    """Make each error-message entry's text a heading that carries the entry's id.

    Pagefind records the text of an anchor only for headings, so a result for an entry
    would otherwise be titled with the page's title. In the scratch copy the message
    becomes ``<h4 id="err-...">message</h4>``: the result names the message, and its
    words count as the section's heading when results are ranked.

    :param body: a page's HTML as Sphinx's HTML writer makes it.
    :returns: the HTML with every entry rewritten; other HTML is unchanged.
    """
    return _ERROR_ENTRY.sub(lambda m: f'<div class="error-message"><h4 id="{m["id"]}">{m["text"].strip()}</h4>', body)


_REDIRECT = re.compile(r'<meta http-equiv="refresh"', re.I)


def is_redirect_page(html: str) -> bool:
    """Whether a built file is a redirect left at a moved page's old address (``docs/_templates/redirect.html``).

    It is no content: it is not indexed for search, and the tests do not count it as a page.
    """
    return bool(_REDIRECT.search(html[:2000]))


def run_pagefind(outdir: str | Path) -> str:
    """Index the built site with Pagefind into ``<outdir>/pagefind``.

    :param outdir: the HTML output folder.
    :returns: Pagefind's report (its last lines: pages and words indexed).
    :raises ExtensionError: Pagefind is not installed or exits non-zero.
    """
    outdir = Path(outdir)
    with tempfile.TemporaryDirectory() as scratch:
        for page in outdir.rglob("*.html"):
            rel = page.relative_to(outdir)
            if rel.parts[0].startswith("_") or rel.parts[0] == "pagefind":
                continue
            html = page.read_text(encoding="utf-8")
            if is_redirect_page(html):
                continue
            copy = Path(scratch) / rel
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(error_entries_as_headings(ids_on_headings(html)), encoding="utf-8")
        return _pagefind(scratch, outdir / "pagefind")


def _pagefind(site: str, output: Path) -> str:
    # The binary itself: ``python -m pagefind`` would start a Python only to exec it.
    from pagefind_bin import get_executable

    try:
        binary = str(get_executable())
    except FileNotFoundError as error:
        raise ExtensionError(f"cannot find Pagefind: {error}; run `make venv`") from error
    cmd = [binary, "--site", site, "--output-path", str(output), "--glob", CONTENT_GLOB,
           "--root-selector", ROOT_SELECTOR, "--exclude-selectors", EXCLUDE_SELECTORS, "--keep-index-url", "--quiet"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except OSError as error:
        raise ExtensionError(f"cannot run Pagefind: {error}") from error
    if proc.returncode != 0:
        raise ExtensionError(f"Pagefind failed ({' '.join(cmd)}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def index_site(app, exception) -> None:
    if exception is None and app.builder.format == "html" and app.builder.name in ("html", "dirhtml"):
        run_pagefind(app.outdir)
        logger.info("pagefind: indexed the content pages into pagefind/")


def setup(app):
    app.connect("build-finished", index_site)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
