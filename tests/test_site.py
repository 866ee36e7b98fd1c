"""The site builds cleanly and holds the pages the guide promises."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from conftest import BUILDDIR, ROOT

DOCS = ROOT / "docs"

# Pages the foundation promises (issue 2); later pages are checked by their own tests.
REQUIRED_PAGES = [
    "index",
    "tutorial/quickstart-eagle3",
    "how-to/eagle2",
    "how-to/eagle3",
    "how-to/mtp",
    "how-to/torch-compile",
    "how-to/train-draft-specforge",
    "explanation/lossless-sampling",
]


def source_pages() -> list[str]:
    """Docnames of every page source under docs/ (folders starting with '_' hold no pages)."""
    pages = []
    for path in sorted(DOCS.rglob("*")):
        rel = path.relative_to(DOCS)
        if path.suffix not in {".md", ".myst", ".ipynb"} or any(p.startswith(("_", ".")) for p in rel.parts):
            continue
        pages.append(rel.with_suffix("").as_posix())
    return pages


def test_build_logged_no_warnings(html_dir):
    log = BUILDDIR / "html-warnings.log"
    assert log.exists(), "make html writes its warnings to this file"
    assert log.read_text().strip() == "", f"the build warned:\n{log.read_text()}"


def test_every_required_page_is_built(html_dir):
    missing = [p for p in REQUIRED_PAGES if not (html_dir / f"{p}.html").exists()]
    assert not missing


def test_every_source_page_is_in_the_navigation(html_dir):
    nav = BeautifulSoup((html_dir / "index.html").read_text(), "html.parser").select_one("nav.bd-docs-nav")
    assert nav is not None, "the theme's sidebar navigation is missing from index.html"
    linked = {re.sub(r"\.html(#.*)?$", "", a["href"]) for a in nav.find_all("a", href=True)}
    not_in_toctree = [p for p in source_pages() if p != "index" and p not in linked]
    assert not not_in_toctree


def test_pinned_versions_are_shown_on_the_landing_page(html_dir):
    from speccheck.pinned import PINNED

    text = BeautifulSoup((html_dir / "index.html").read_text(), "html.parser").get_text(" ")
    assert f"SGLang {PINNED['sglang']}" in text
    assert f"SpecForge {PINNED['specforge']}" in text


def test_notebook_was_executed_with_text_and_image_output(html_dir):
    soup = BeautifulSoup((html_dir / "explanation" / "lossless-sampling.html").read_text(), "html.parser")
    outputs = soup.select("div.nboutput")
    assert any(o.find("img") for o in outputs), "no image output: the notebook did not run"
    assert any(o.find("pre") and o.find("pre").get_text().strip() for o in outputs), "no text output"


def test_broken_cross_reference_fails_naming_file_and_line(bad_build):
    assert bad_build.returncode != 0
    assert re.search(r"broken-xref\.md:3: WARNING: undefined label: 'no-such-label-anywhere'", bad_build.output)


def test_a_broken_cross_reference_is_reported_at_its_own_line_not_its_paragraphs(bad_build):
    # MyST gives a role its paragraph's first line (sphinxext/build/xref_lines.py corrects it).
    out = bad_build.output
    assert re.search(r"broken-xref-multiline\.md:5: WARNING: undefined label: 'no-such-label-in-a-paragraph'", out)
    assert re.search(r"broken-xref-multiline\.md:6: WARNING: unknown document: 'no-such-document'", out)
    assert re.search(r"broken-xref-multiline\.md:9: WARNING: undefined label: 'no-such-label-in-a-list'", out)
