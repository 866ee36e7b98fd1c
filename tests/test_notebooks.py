"""Notebooks: stored as text without outputs, executed by the build, and a failing cell fails the build."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import FIXTURES, ROOT

sys.path.insert(0, str(ROOT / "sphinxext" / "notebooks"))
import text_notebooks  # noqa: E402  (sphinxext/notebooks/text_notebooks.py)

DOCS = ROOT / "docs"


def notebooks_under(folder: Path) -> list[Path]:
    """Every text notebook (.myst) under ``folder``, except Jupyter's checkpoint copies."""
    return sorted(p for p in folder.rglob("*" + text_notebooks.SUFFIX) if ".ipynb_checkpoints" not in p.parts)


def read(path: Path):
    return text_notebooks.reads(path.read_text(encoding="utf-8"))


SITE_NOTEBOOKS = [p for p in notebooks_under(DOCS) if not any(part.startswith("_") for part in p.parts)]
ALL_NOTEBOOKS = SITE_NOTEBOOKS + notebooks_under(FIXTURES)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_site_has_notebooks():
    assert len(SITE_NOTEBOOKS) >= 4, "the explanation notebooks are missing from docs/"


def test_no_committed_notebook_is_json():
    tracked = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert not tracked.stdout.split(), (f"notebooks stored as JSON: {tracked.stdout.split()}; convert them with "
                                        "`.venv/bin/python tools/notebooks_to_text.py <file>`")


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=rel)
def test_text_notebook_is_in_the_form_the_converter_writes(path):
    # jupytext writes the same text back (a save from JupyterLab changes nothing but the edit),
    # and the header names the format, so jupytext and nbsphinx read it as a notebook.
    text = path.read_text(encoding="utf-8")
    nb = read(path)
    assert nb.metadata["jupytext"]["text_representation"]["format_name"] == "myst", rel(path)
    assert nb.metadata["kernelspec"]["name"] == "python3", rel(path)
    assert text_notebooks.writes(nb) == text, f"{rel(path)}: not as tools/notebooks_to_text.py writes it"


@pytest.mark.parametrize("path", SITE_NOTEBOOKS, ids=rel)
def test_notebook_opens_with_a_markdown_title(path):
    first = read(path).cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# ")


@pytest.mark.parametrize("path", SITE_NOTEBOOKS, ids=rel)
def test_built_notebook_copy_is_executed_from_the_text(html_dir, path):
    # The downloadable .ipynb next to the page: every code cell of the text, in order, with outputs.
    import nbformat

    built = nbformat.read(html_dir / path.relative_to(DOCS).with_suffix(".ipynb"), as_version=4)
    source_code = [c.source for c in read(path).cells if c.cell_type == "code"]
    assert [c.source for c in built.cells if c.cell_type == "code"] == source_code
    assert any(c.outputs for c in built.cells if c.cell_type == "code"), f"{rel(path)}: no outputs"


@pytest.mark.parametrize("path", SITE_NOTEBOOKS, ids=rel)
def test_built_notebook_page_shows_its_outputs_and_writes_each_figure(html_dir, path):
    # A notebook need not plot; one that does must have its figures written next to the page.
    page = html_dir / path.relative_to(DOCS).with_suffix(".html")
    soup = BeautifulSoup(page.read_text(), "html.parser")
    outputs = soup.select("div.nboutput")
    assert outputs, f"{page.name}: no cell output on the page, so the notebook did not run"
    for img in (img for o in outputs for img in o.find_all("img")):
        assert (page.parent / img["src"]).is_file(), f"{page.name}: figure {img['src']} was not written"
    assert any(pre.get_text().strip() for o in outputs for pre in o.find_all("pre")), \
        f"{page.name}: no text output"


def test_a_failing_cell_fails_the_build_naming_the_notebook_and_the_cell(bad_build):
    assert bad_build.returncode != 0
    assert re.search(
        r"bad-notebook-raises\.myst:25: ERROR: notebook cell 3 of 3 \(code cell 2, id '2'\) raised "
        r"AssertionError: fixture: this cell fails on purpose",
        bad_build.output,
    ), bad_build.output[-3000:]


def test_a_failed_notebook_publishes_no_partial_outputs(bad_build):
    page = bad_build.outdir / "bad-notebook-raises.html"
    assert page.exists(), "the build goes on after a failed notebook, so other problems are reported too"
    text = BeautifulSoup(page.read_text(), "html.parser").get_text(" ")
    assert "Notebook failed to execute" in text
    assert "total = sum" not in text
