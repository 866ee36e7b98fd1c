"""Pages load only what they use and never wait for a script (sphinxext/output/page_scripts.py,
sphinxext/output/sized_images.py); read from the built HTML, no browser needed."""

from __future__ import annotations

import re

import pytest

import browser
import page_scripts
from conftest import BUILDDIR

_BUILT = BUILDDIR / "html"
PAGES = browser.site_pages(_BUILT) if (_BUILT / "index.html").exists() else ["index.html"]
HEAD = re.compile(r"<head>(.*?)</head>", re.S)
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>")


def local_scripts(html: str) -> list[tuple[str, str]]:
    """``(src, attributes)`` of each ``<script src>`` of the page's own site, in order."""
    found = []
    for attrs in SCRIPT_TAG.findall(html):
        src = re.search(r'\bsrc="([^"]+)"', attrs)
        if src and "://" not in src.group(1):
            found.append((src.group(1).split("?")[0], attrs))
    return found


@pytest.mark.parametrize("rel", PAGES)
def test_no_script_in_the_head_holds_up_the_first_paint(rel, html_dir):
    head = HEAD.search((html_dir / rel).read_text()).group(1)
    blocking = [src for src, attrs in local_scripts(head)
                if not re.search(r"\b(defer|async)\b|type=\"module\"", attrs)
                and not any(src.endswith(keep.removeprefix("_static/")) for keep in page_scripts.KEEP_BLOCKING)]
    assert not blocking, f"{rel} loads these scripts without defer: {blocking}"


@pytest.mark.parametrize("rel", PAGES)
def test_copy_button_and_tab_scripts_only_where_used(rel, html_dir):
    html = (html_dir / rel).read_text()
    body = html.split("<body", 1)[1]
    loaded = {src.rsplit("/", 1)[-1] for src, _ in local_scripts(html)}
    for name, used in page_scripts.ONLY_WHERE_USED.items():
        script = name.rsplit("/", 1)[-1]
        needed = bool(used.search(body))
        assert (script in loaded) == needed, (
            f"{rel} {'lacks' if needed else 'loads'} {script} though it "
            f"{'has' if needed else 'has no'} element for it")


def test_some_page_has_code_and_some_has_none(html_dir):
    """The test above checks both directions only if both kinds of page exist."""
    with_code = [rel for rel in PAGES if 'class="highlight"' in (html_dir / rel).read_text()]
    assert 0 < len(with_code) < len(PAGES)


@pytest.mark.parametrize("rel", PAGES)
def test_every_local_image_has_width_and_height(rel, html_dir):
    unsized = []
    for tag in re.findall(r"<img\b[^>]*>", (html_dir / rel).read_text()):
        src = re.search(r'\bsrc="([^"]+)"', tag).group(1)
        sized = re.search(r'\bwidth="\d+"', tag) and re.search(r'\bheight="\d+"', tag)
        if "://" not in src and not src.startswith("data:") and not sized and "width:" not in tag:
            unsized.append(src)
    assert not unsized, f"{rel} has images without width and height: {unsized}"


RESOURCE = re.compile(r'<(?:script|img)\b[^>]*\bsrc="([^"]+)"|<link\b[^>]*\brel="(?:stylesheet|icon|preload)"[^>]*\bhref="([^"]+)"'
                      r'|<link\b[^>]*\bhref="([^"]+)"[^>]*\brel="(?:stylesheet|icon|preload)"')
MAX_REQUESTS = 12  # the budget for every page, `make bench` measures it in Chromium


@pytest.mark.parametrize("rel", PAGES)
def test_no_page_asks_for_more_than_twelve_files(rel, html_dir):
    html = (html_dir / rel).read_text()
    urls = {next(u for u in m if u).split("?")[0] for m in RESOURCE.findall(html)}
    local = {u for u in urls if "://" not in u and not u.startswith("data:")}
    assert len(local) + 1 <= MAX_REQUESTS, f"{rel}: the page and {sorted(local)}"


@pytest.mark.parametrize("rel", PAGES)
def test_no_page_loads_sphinx_search_highlighting(rel, html_dir):
    # Pagefind's results link to sections without ?highlight=, which is all sphinx_highlight.js reads.
    assert not [src for src, _ in local_scripts((html_dir / rel).read_text()) if src.endswith("sphinx_highlight.js")]


def test_page_specific_stylesheets_are_in_the_page(html_dir):
    notebook = (html_dir / "explanation" / "lossless-sampling.html").read_text()
    assert '<style data-from="_static/nbsphinx-code-cells.css">' in notebook
    assert 'href="../_static/nbsphinx-code-cells.css' not in notebook
    checker = (html_dir / "reference" / "check-a-command.html").read_text()
    assert '<style data-from="_static/check-command.css">' in checker
    assert '<link rel="stylesheet" href="../_static/check-command.css">' not in checker
