"""Notebooks: stored without outputs, executed by every build, and a failing cell fails the build."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import FIXTURES, ROOT

DOCS = ROOT / "docs"


def notebooks_under(folder: Path) -> list[Path]:
    """Every .ipynb under ``folder``, except Jupyter's checkpoint copies."""
    return sorted(p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


SITE_NOTEBOOKS = [p for p in notebooks_under(DOCS) if not any(part.startswith("_") for part in p.parts)]
ALL_NOTEBOOKS = SITE_NOTEBOOKS + notebooks_under(FIXTURES)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_site_has_notebooks():
    assert len(SITE_NOTEBOOKS) >= 4, "the explanation notebooks are missing from docs/"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=rel)
def test_committed_notebook_holds_no_outputs_or_execution_counts(path):
    cells = json.loads(path.read_text())["cells"]
    dirty = [n for n, cell in enumerate(cells, start=1)
             if cell["cell_type"] == "code" and (cell["outputs"] or cell["execution_count"] is not None)]
    assert not dirty, f"{rel(path)}: cells {dirty} hold outputs or execution counts (run nbstripout)"


@pytest.mark.parametrize("path", SITE_NOTEBOOKS, ids=rel)
def test_notebook_opens_with_a_markdown_title(path):
    first = json.loads(path.read_text())["cells"][0]
    assert first["cell_type"] == "markdown" and "".join(first["source"]).startswith("# ")


@pytest.mark.parametrize("path", SITE_NOTEBOOKS, ids=rel)
def test_built_notebook_page_shows_executed_text_and_a_figure(html_dir, path):
    page = html_dir / path.relative_to(DOCS).with_suffix(".html")
    soup = BeautifulSoup(page.read_text(), "html.parser")
    outputs = soup.select("div.nboutput")
    images = [img for o in outputs for img in o.find_all("img")]
    assert images, f"{page.name}: no figure in the outputs, so the notebook did not run"
    for img in images:
        assert (page.parent / img["src"]).is_file(), f"{page.name}: figure {img['src']} was not written"
    assert any(pre.get_text().strip() for o in outputs for pre in o.find_all("pre")), \
        f"{page.name}: no text output"


def test_a_failing_cell_fails_the_build_naming_the_notebook_and_the_cell(bad_build):
    assert bad_build.returncode != 0
    assert re.search(
        r"bad-notebook-raises\.ipynb: ERROR: notebook cell 3 of 3 \(code cell 2, id '2'\) raised "
        r"AssertionError: fixture: this cell fails on purpose",
        bad_build.output,
    ), bad_build.output[-3000:]


def test_a_failed_notebook_publishes_no_partial_outputs(bad_build):
    page = bad_build.outdir / "bad-notebook-raises.html"
    assert page.exists(), "the build goes on after a failed notebook, so other problems are reported too"
    text = BeautifulSoup(page.read_text(), "html.parser").get_text(" ")
    assert "Notebook failed to execute" in text
    assert "total = sum" not in text
