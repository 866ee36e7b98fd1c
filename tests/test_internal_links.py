"""Every internal link and #fragment in the built HTML resolves (tests/links.py)."""

from __future__ import annotations

from links import broken_links


def test_every_internal_link_and_fragment_resolves(html_dir):
    problems = broken_links(html_dir)
    assert problems == [], "\n".join(problems)


def test_a_broken_fragment_in_raw_html_is_reported_with_page_and_link(bad_build):
    problems = broken_links(bad_build.outdir)
    assert 'broken-fragment.html: <a href="index.html#no-such-section"> has no #no-such-section in index.html' in problems


def test_links_that_resolve_are_not_reported(bad_build):
    # The fixture tree's own navigation and the theme's links all resolve.
    problems = broken_links(bad_build.outdir)
    assert [p for p in problems if not p.startswith("broken-fragment.html:")] == []
