"""Builds other than make html's single process: parallel (-j 2), and rebuilds of text notebooks.

Each test builds a small tree in a temporary copy of the project (``conftest.copy_project``),
never the real one.
"""

from __future__ import annotations

import re
import shutil

import pytest
from bs4 import BeautifulSoup

from conftest import FIXTURES, copy_project, sphinx_build

# A text notebook whose output differs on every execution: the kernel's process id and a
# nanosecond clock. The same output after a rebuild means the kernel did not run.
NOTEBOOK = """\
---
jupytext:
  text_representation:
    extension: .myst
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A cached notebook

{prose}

```{{code-cell}}
import os
import time

print(f"run {{os.getpid()}}-{{time.time_ns()}}")
```
"""


def run_marker(page) -> str:
    """The ``run <pid>-<ns>`` line the notebook printed, from its built page."""
    found = re.search(r"run\s+(\d+-\d+)", page.read_text())
    assert found, f"{page.name}: the notebook's output is missing"
    return found.group(1)


@pytest.fixture(scope="module")
def parallel_build(tmp_path_factory):
    project = tmp_path_factory.mktemp("parallel")
    docs = copy_project(project)
    shutil.copytree(FIXTURES / "parallel", docs, dirs_exist_ok=True)
    return sphinx_build(project, "-j", "2")


def test_every_extension_builds_in_parallel_under_W(parallel_build):
    # Sphinx warns (an error under -W) about any extension that does not declare parallel safety.
    assert parallel_build.returncode == 0, parallel_build.output[-3000:]
    assert "safe for parallel" not in parallel_build.output, parallel_build.output[-3000:]
    # In parallel, Sphinx reports pages in chunks ("citations .. index"): the build did run in parallel.
    assert re.search(r"reading sources\.\.\. \[ *\d+%\] \S+ \.\. \S+", parallel_build.output), \
        parallel_build.output[-3000:]


def test_the_parallel_build_wrote_every_page_with_its_checked_content(parallel_build):
    out = parallel_build.outdir
    for name in ("commands", "citations", "math", "notes", "errors", "notebook", "table"):
        assert (out / f"{name}.html").exists(), f"{name}.html was not written"
    citations = BeautifulSoup((out / "citations.html").read_text(), "html.parser")
    assert citations.select("aside.source-note a"), "the source note has no link"
    assert BeautifulSoup((out / "math.html").read_text(), "html.parser").find("math"), "no MathML"
    assert "42" in BeautifulSoup((out / "notebook.html").read_text(), "html.parser").get_text()


def test_a_prose_edit_reuses_the_outputs_and_a_code_edit_runs_the_notebook(tmp_path):
    docs = copy_project(tmp_path)
    (docs / "index.md").write_text("# Index\n\n```{toctree}\ncached\n```\n")
    source = docs / "cached.myst"
    source.write_text(NOTEBOOK.format(prose="First wording."))
    page = tmp_path / "_build" / "html" / "cached.html"

    first = sphinx_build(tmp_path)
    assert first.returncode == 0, first.output[-3000:]
    executed = run_marker(page)

    source.write_text(NOTEBOOK.format(prose="Second wording."))
    second = sphinx_build(tmp_path)
    assert second.returncode == 0, second.output[-3000:]
    assert "Second wording." in page.read_text(), "the prose edit was not rebuilt"
    assert run_marker(page) == executed, "the notebook ran again although no code cell changed"

    source.write_text(NOTEBOOK.format(prose="Second wording.").replace('print(f"run', 'print(f"run" " "\n      f"'))
    third = sphinx_build(tmp_path)
    assert third.returncode == 0, third.output[-3000:]
    assert run_marker(page) != executed, "a code edit did not run the notebook again"


def test_a_clean_build_runs_the_notebook_again(tmp_path):
    docs = copy_project(tmp_path)
    (docs / "index.md").write_text("# Index\n\n```{toctree}\ncached\n```\n")
    (docs / "cached.myst").write_text(NOTEBOOK.format(prose="Text."))
    page = tmp_path / "_build" / "html" / "cached.html"
    assert sphinx_build(tmp_path).returncode == 0
    executed = run_marker(page)
    shutil.rmtree(tmp_path / "_build")  # make clean
    assert sphinx_build(tmp_path).returncode == 0
    assert run_marker(page) != executed, "a clean build reused outputs from before"


def test_a_rebuild_after_a_failed_build_reports_the_same_problems_again(tmp_path):
    # Sphinx saves its environment even when -W fails the build, so without sphinxext/build/reread_warned.py
    # the next build finds nothing out of date and says "build succeeded" over broken pages.
    docs = copy_project(tmp_path)
    (docs / "index.md").write_text("# Index\n\n```{toctree}\nfails\nlinks\n```\n")
    notebook = docs / "fails.myst"
    notebook.write_text(NOTEBOOK.format(prose="Text.").replace("import os", "import os\nraise ValueError('no')"))
    (docs / "links.md").write_text("# Links\n\nSee {ref}`a-label-nobody-defined`.\n")

    first = sphinx_build(tmp_path)
    assert first.returncode != 0
    assert "fails.myst" in first.output and "links.md:3" in first.output, first.output[-3000:]

    again = sphinx_build(tmp_path)
    assert again.returncode != 0, "a rebuild with no change passed over the pages that failed"
    assert "ValueError" in again.output and "links.md:3" in again.output, again.output[-3000:]

    notebook.write_text(NOTEBOOK.format(prose="Text."))
    (docs / "links.md").write_text("# Links\n\nNothing to see.\n")
    fixed = sphinx_build(tmp_path)
    assert fixed.returncode == 0, fixed.output[-3000:]
    assert "run " in (tmp_path / "_build" / "html" / "fails.html").read_text()
    assert sphinx_build(tmp_path).returncode == 0


def test_a_prose_edit_around_checked_commands_builds_no_parser_and_keeps_their_errors(tmp_path):
    docs = copy_project(tmp_path)
    (docs / "index.md").write_text("# Index\n\n```{toctree}\ncommands\n```\n")
    page = docs / "commands.md"
    command = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
               "--speculative-num-stepz 3")
    page.write_text(f"# Commands\n\nFirst wording.\n\n```bash\n{command}\n```\n")
    first = sphinx_build(tmp_path)
    assert "parsers of SGLang" in first.output and "commands.md:6" in first.output, first.output[-3000:]

    page.write_text(f"# Commands\n\nSecond wording,\nnow two lines.\n\n```bash\n{command}\n```\n")
    second = sphinx_build(tmp_path)
    assert "parsers of SGLang" not in second.output, "the parsers were built for a prose edit"
    assert second.returncode != 0 and "commands.md:7" in second.output and "--speculative-num-stepz" in second.output, \
        second.output[-3000:]


def test_an_edit_rewrites_the_pages_that_list_the_page_only_when_what_they_show_changed(tmp_path):
    # sphinxext/build/quick_rebuilds.py: a body edit writes the edited page alone; a title or a
    # heading, which the index's toctree shows, writes the index too.
    docs = copy_project(tmp_path)
    (docs / "index.md").write_text("# Index\n\n```{toctree}\nfirst\nsecond\n```\n")
    (docs / "first.md").write_text("# First page\n\nSome text.\n")
    second = docs / "second.md"
    second.write_text("# Second page\n\nOld text.\n")
    out = tmp_path / "_build" / "html"
    assert sphinx_build(tmp_path).returncode == 0

    def written() -> dict[str, int]:
        return {name: (out / name).stat().st_mtime_ns for name in ("index.html", "second.html", "genindex.html")}

    before = written()
    second.write_text("# Second page\n\nNew text.\n")
    assert sphinx_build(tmp_path).returncode == 0
    after = written()
    assert "New text." in (out / "second.html").read_text()
    assert after["second.html"] != before["second.html"]
    assert after["index.html"] == before["index.html"], "a body edit wrote the index again"
    assert after["genindex.html"] == before["genindex.html"]

    second.write_text("# Second page\n\nNew text.\n\n## A new heading\n\nMore.\n")
    assert sphinx_build(tmp_path).returncode == 0
    assert "A new heading" in (out / "index.html").read_text(), "the index's toctree misses the new heading"

    second.write_text("# Renamed page\n\nNew text.\n")
    assert sphinx_build(tmp_path).returncode == 0
    index = (out / "index.html").read_text()
    assert "Renamed page" in index and "Second page" not in index
    assert "Renamed page" in (out / "first.html").read_text(), "the next-page link kept the old title"


def test_citations_stay_resolved_across_edits_and_a_new_citation_is_formatted(tmp_path):
    # sphinxext/build/quick_rebuilds.py keeps the formatted citations when the pages read cite what they cited.
    docs = copy_project(tmp_path)
    (docs / "index.md").write_text("# Index\n\n```{toctree}\nciting\nrefs\n```\n")
    citing = docs / "citing.md"
    citing.write_text("# Citing\n\nSpeculative sampling {cite:p}`leviathan2023`.\n")
    (docs / "refs.md").write_text("# References\n\n```{bibliography}\n```\n")
    out = tmp_path / "_build" / "html"
    assert sphinx_build(tmp_path).returncode == 0

    def cited() -> str:
        return BeautifulSoup((out / "citing.html").read_text(), "html.parser").article.get_text(" ", strip=True)

    first = cited()
    assert "Leviathan" in first, first
    citing.write_text("# Citing\n\nOther words. Speculative sampling {cite:p}`leviathan2023`.\n")
    edited = sphinx_build(tmp_path)
    assert edited.returncode == 0, edited.output[-3000:]
    assert "Other words." in cited() and "Leviathan" in cited()

    citing.write_text("# Citing\n\nSpeculative sampling {cite:p}`leviathan2023`, EAGLE {cite:p}`li2024eagle`.\n")
    added = sphinx_build(tmp_path)
    assert added.returncode == 0, added.output[-3000:]
    assert "Li" in cited().split("EAGLE", 1)[1], cited()
    assert "li2024eagle" in (out / "refs.html").read_text().lower() or "EAGLE:" in (out / "refs.html").read_text()
