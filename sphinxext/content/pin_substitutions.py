"""``{{ sglang_version }}`` and ``{{ specforge_version }}`` work everywhere in a page, not only in prose.

MyST replaces substitutions in running text only: not in the page's front matter
(``html_meta`` descriptions), not in code blocks (``pip install "sglang==..."``),
and nbsphinx does not replace them in notebooks at all. This extension replaces
them in the source text as Sphinx reads it (``source-read``, before the command
check of ``command_check.py`` sees the text), so one spelling works in prose,
front matter, code blocks and notebook cells, and the version is written only in
``requirements-pinned.txt``.

Per-release ranges of a declared behaviour change are written ``{{ since:ID }}`` and
``{{ last:ID }}`` (``speccheck/data/behaviour-changes.yaml`` ids) and replaced from
``behaviour-history.json`` (:func:`speccheck.behaviour.substitute_releases`), so
``make behaviour-history`` re-dates them; an unknown id is a warning naming the page and line.

An inline code span holding nothing but the reference, `` `{{ sglang_version }}` ``,
is left as it is: that is how the contributing pages show what to type.

``speccheck.check_file`` (``make check-commands``, the pre-commit hook) checks the same
substituted text through :func:`speccheck.pinned.substitute`.

The copies of the sources that the HTML builder puts in ``_sources/`` (the "show source"
files, and what sphinx-llms-txt joins into ``llms-full.txt``) are copied from disk, so
they get the same replacement when the build finishes, before sphinx-llms-txt reads them.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from sphinx.util import logging

from speccheck import behaviour
from speccheck.pinned import substitute

logger = logging.getLogger(__name__)


def _source_read(app, docname: str, source: list[str]) -> None:
    source[0] = substitute(source[0])
    if behaviour.RELEASE_REFERENCE.search(source[0]):
        app.env.note_dependency(str(behaviour.HISTORY))
        try:
            source[0] = behaviour.substitute_releases(source[0], _history())
        except ValueError as error:
            line, _, message = str(error).partition(": ")
            logger.warning(message, location=(docname, int(line.removeprefix("line "))))


@functools.cache
def _history() -> dict:
    return json.loads(behaviour.HISTORY.read_text(encoding="utf-8"))


def _substitute_copied_sources(app, exception) -> None:
    """Replace the references in every file of ``_sources/`` in the HTML output (rewritten only if changed)."""
    sources = Path(app.outdir) / "_sources"
    if exception is not None or not sources.is_dir():
        return
    for file in (f for f in sources.rglob("*") if f.is_file()):
        text = file.read_text(encoding="utf-8")
        replaced = substitute(text)
        if replaced != text:
            file.write_text(replaced, encoding="utf-8")


def setup(app) -> dict:
    # Before every other source-read handler (the command check's runs at 500).
    app.connect("source-read", _source_read, priority=100)
    # Before sphinx-llms-txt's build-finished handler (default priority 500) joins the copies.
    app.connect("build-finished", _substitute_copied_sources, priority=400)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
