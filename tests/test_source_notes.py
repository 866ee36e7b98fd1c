"""Citations of the pinned source ({source} role, source-note directive) resolve in the installed wheels."""

from __future__ import annotations

import re

import pytest

import source_notes  # noqa: E402  (sphinxext/, on sys.path through conftest)
from test_commands import assert_warns


def test_a_cited_function_resolves_to_its_lines_at_the_pinned_tag():
    citation = source_notes.resolve("sglang/srt/arg_groups/speculative_hook.py::_handle_eagle_family")
    first, last = citation.lines
    source = (source_notes.package_dir("sglang").parent / citation.path).read_text().splitlines()
    assert source[first - 1].lstrip().startswith("def _handle_eagle_family")
    assert last > first
    version = source_notes.PINNED["sglang"]
    assert citation.url == (f"https://github.com/sgl-project/sglang/blob/v{version}/python/"
                            f"sglang/srt/arg_groups/speculative_hook.py#L{first}-L{last}")


def test_a_method_is_cited_with_its_class_name():
    citation = source_notes.resolve("specforge/config/schema.py::Config.from_file")
    assert citation.package == "specforge" and citation.lines


@pytest.mark.parametrize("target, fragment", [
    ("sglang/srt/arg_groups/speculative_hook.py::_no_such_function", "defines no function, class or name"),
    ("sglang/srt/no_such_file.py", "has no file sglang/srt/no_such_file.py"),
    ("sglang/srt/server_args.py#L1-L999999", "are outside"),
    ("torch/nn/modules/linear.py", "cite a file of sglang or specforge"),
])
def test_a_citation_that_does_not_resolve_says_why(target, fragment):
    with pytest.raises(source_notes.CitationError, match=re.escape(fragment)):
        source_notes.resolve(target)


def test_a_bad_citation_fails_the_build_at_its_line(bad_build):
    assert_warns(bad_build, "bad-source-citation.md", 6, "defines no function, class or name '_no_such_function'")
    assert_warns(bad_build, "bad-source-citation.md", 9, "has no file sglang/srt/no_such_file.py")


def test_the_good_citation_on_the_bad_page_is_not_reported(bad_build):
    lines = [w for w in bad_build.output.splitlines() if "bad-source-citation.md:3:" in w]
    assert not lines, lines


def test_citations_on_the_site_link_to_the_pinned_tags(html_dir):
    from bs4 import BeautifulSoup

    versions = source_notes.PINNED
    allowed = (f"https://github.com/sgl-project/sglang/blob/v{versions['sglang']}/python/",
               f"https://github.com/sgl-project/SpecForge/blob/v{versions['specforge']}/")
    links = []
    for page in html_dir.rglob("*.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        links += [(page, a["href"]) for a in soup.select("span.source-note a[href]") if "github.com" in a["href"]]
    assert links, "no page cites the pinned source with {source}"
    wrong = [(str(p.relative_to(html_dir)), href) for p, href in links if not href.startswith(allowed)]
    assert not wrong, wrong


def _note_in(section_title: str | None) -> source_notes.source_note:
    from docutils import nodes

    note = source_notes.source_note()
    if section_title is None:
        container = nodes.paragraph("", "")
        container += note
        return note
    section = nodes.section()
    section += nodes.title(text=section_title)
    section += note
    return note


def test_a_note_is_named_after_its_section_and_numbered_when_the_name_repeats():
    taken: set[str] = set()
    names = [source_notes.note_name(_note_in("Launch"), taken) for _ in range(3)]
    assert names == ["Source: Launch", "Source: Launch (2)", "Source: Launch (3)"]
    assert source_notes.note_name(_note_in(None), taken) == "Source"


def test_source_notes_on_each_built_page_have_distinct_accessible_names(html_dir):
    """axe's landmark-unique: asides of one page need distinct names (37 nodes shared "Source" before)."""
    from bs4 import BeautifulSoup

    repeated = {}
    for page in html_dir.rglob("*.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        names = [a.get("aria-label") for a in soup.select("aside.source-note")]
        if len(names) != len(set(names)):
            repeated[str(page.relative_to(html_dir))] = sorted({n for n in names if names.count(n) > 1})
    assert not repeated, repeated
