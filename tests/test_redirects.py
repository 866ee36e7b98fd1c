"""Every address the site has ever published still answers: with its page, or with a redirect.

A page that is renamed or moved gets an entry ``"old docname": "new docname"`` in
``page_redirects`` (``conf.py``); sphinx-reredirects then writes a page at the old
address that sends the reader on. The history check reads every page source that
was ever committed under ``docs/`` in the history of the checked-out commit (which
includes everything merged into ``main``) and requires each one to be a page today
or a redirect.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

DOCS = ROOT / "docs"
# Suffixes of page sources: MyST, notebooks, and the notebook text formats nbsphinx may read.
PAGE_SUFFIXES = (".md", ".myst", ".ipynb", ".rst", ".py")


def conf_literal(name: str):
    """The literal value that ``conf.py`` assigns to ``name`` (read without running ``conf.py``)."""
    for node in ast.parse((ROOT / "conf.py").read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(getattr(t, "id", None) == name for t in targets) and node.value is not None:
            return ast.literal_eval(node.value)
    raise LookupError(f"conf.py assigns no literal to {name}")


def docname(path: str) -> str | None:
    """The docname of a path under ``docs/`` (``how-to/eagle3``), or ``None`` when it is no page source.

    Page sources are ``.md``, ``.ipynb`` and ``.rst`` files, and ``.myst`` and ``.py`` files (notebooks
    stored as text), outside the folders starting with ``_`` or ``.``.
    """
    rel = Path(path)
    if rel.parts[:1] == ("docs",):
        rel = rel.relative_to("docs")
    if rel.suffix not in PAGE_SUFFIXES or any(part.startswith(("_", ".")) for part in rel.parts):
        return None
    return rel.with_suffix("").as_posix()


def current_pages() -> set[str]:
    """Docnames of the page sources in the working tree."""
    return {d for p in DOCS.rglob("*") if p.is_file() for d in [docname(p.relative_to(ROOT).as_posix())] if d}


def historic_pages() -> dict[str, str]:
    """``{docname: first commit that added it}`` for every page source ever committed under docs/ (HEAD's history)."""
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
    assert shallow == "false", "a shallow clone has no history to check: fetch it whole (git fetch --unshallow)"
    log = subprocess.run(["git", "log", "--format=commit %h", "--name-only", "--diff-filter=AR", "HEAD", "--", "docs/"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    seen, commit = {}, ""
    for line in log.splitlines():
        if line.startswith("commit "):
            commit = line.split()[1]
        elif line.strip() and (name := docname(line.strip())):
            seen[name] = commit  # the log runs newest first: the last one kept is the oldest
    return seen


REDIRECTS: dict[str, str] = conf_literal("page_redirects")


def test_every_page_that_ever_existed_is_a_page_or_a_redirect():
    pages = current_pages()
    gone = {name: commit for name, commit in historic_pages().items() if name not in pages and name not in REDIRECTS}
    assert not gone, ("pages that existed but are now neither a page nor a redirect; add each to page_redirects "
                      f"in conf.py, pointing to the page that replaced it (docname: commit that added it): {gone}")


@pytest.mark.parametrize("old, new", REDIRECTS.items() or [pytest.param("", "", marks=pytest.mark.skip("no redirects yet"))])
def test_each_redirect_leaves_a_page_that_no_longer_exists_for_one_that_does(old, new):
    pages = current_pages()
    assert old not in pages, f"{old} is a page again: remove its redirect"
    target = new.split("#", 1)[0]
    assert target in pages, f"{old} redirects to {new}, which is not a page (redirect to the final page, not a chain)"


@pytest.mark.parametrize("old, new", REDIRECTS.items() or [pytest.param("", "", marks=pytest.mark.skip("no redirects yet"))])
def test_the_built_site_answers_at_each_old_address(html_dir, old, new):
    page = html_dir / f"{old}.html"
    assert page.exists(), f"{page} is missing: the redirect was not written"
    target = "../" * old.count("/") + new.split("#", 1)[0] + ".html"
    assert re.search(rf'http-equiv="refresh" content="0; url={re.escape(target)}', page.read_text()), (
        f"{page} does not send the reader to {target}")


def test_redirects_are_written_by_conf_py_from_page_redirects():
    source = (ROOT / "conf.py").read_text()
    assert '"sphinx_reredirects"' in source
    assert (DOCS / conf_literal("redirect_html_template_file")).is_file()


def test_renaming_a_page_needs_only_the_redirect_entry_and_no_clean(tmp_path):
    """Build two pages, rename one as add-a-page.md says, rebuild in the same folder: the old address redirects."""
    from conftest import copy_project, sphinx_build

    docs = copy_project(tmp_path)
    (docs / "index.md").write_text("# Home\n\n```{toctree}\nold-name\n```\n")
    (docs / "old-name.md").write_text("(moving-page)=\n# A page that will move\n\nSome text for the page.\n")
    first = sphinx_build(tmp_path)
    assert first.returncode == 0, first.output[-3000:]
    assert "moved" not in (first.outdir / "old-name.html").read_text().lower()

    (docs / "old-name.md").rename(docs / "new-name.md")
    (docs / "index.md").write_text("# Home\n\n```{toctree}\nnew-name\n```\n")
    conf = tmp_path / "conf.py"
    text = conf.read_text()
    assert "page_redirects: dict[str, str] = {" in text, "conf.py no longer writes page_redirects as add-a-page.md shows"
    conf.write_text(text.replace("page_redirects: dict[str, str] = {",
                                 'page_redirects: dict[str, str] = {"old-name": "new-name", ', 1))
    second = sphinx_build(tmp_path)
    assert second.returncode == 0, second.output[-3000:]
    old = (second.outdir / "old-name.html").read_text()
    assert 'http-equiv="refresh" content="0; url=new-name.html"' in old, old[:500]
    assert (second.outdir / "new-name.html").exists()


def test_the_build_holds_a_redirect_for_each_entry_and_no_other(html_dir):
    import browser

    assert set(browser.redirect_pages(html_dir)) == {f"{old}.html" for old in REDIRECTS}
