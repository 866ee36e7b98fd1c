"""The page templates in docs/_templates/pages/ are valid pages and are shown to contributors.

A contributor starts a page by copying one of these files, so each must build
without a warning as it is (one Sphinx build of all four in a temporary copy of
the project), and the contributing section must show each of them.
"""

from __future__ import annotations

import re
import shutil

import pytest
import yaml

from conftest import ROOT, copy_project, sphinx_build

TEMPLATES = ROOT / "docs" / "_templates" / "pages"
KINDS = ["tutorial", "how-to", "explanation", "reference"]  # the four Diátaxis kinds


@pytest.fixture(scope="module")
def template_build(tmp_path_factory):
    project = tmp_path_factory.mktemp("templates")
    docs = copy_project(project)
    for kind in KINDS:
        shutil.copy2(TEMPLATES / f"{kind}.md", docs / f"{kind}.md")
    (docs / "index.md").write_text("# Templates\n\n```{toctree}\n" + "\n".join(KINDS) + "\n```\n")
    return sphinx_build(project)


def test_there_is_one_template_per_diataxis_kind():
    assert sorted(p.stem for p in TEMPLATES.glob("*.md")) == sorted(KINDS)


def test_templates_build_without_warnings(template_build):
    assert template_build.returncode == 0, template_build.output
    assert "WARNING" not in template_build.output and "ERROR" not in template_build.output, template_build.output


@pytest.mark.parametrize("kind", KINDS)
def test_template_has_a_description_and_a_labelled_title(kind):
    text = (TEMPLATES / f"{kind}.md").read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["myst"]["html_meta"]["description"]
    assert re.search(r"^\([a-z0-9-]+\)=\n# \S", text, flags=re.M), "a (label)= line right before the page title"


def test_contributing_section_shows_every_template():
    text = (ROOT / "docs" / "contributing" / "add-a-page.md").read_text()
    for kind in KINDS:
        assert f"```{{literalinclude}} ../_templates/pages/{kind}.md" in text
