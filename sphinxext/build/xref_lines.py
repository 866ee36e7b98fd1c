"""A broken cross-reference is reported at its own line, not at the first line of its paragraph.

MyST-Parser gives an inline role the line where its paragraph (or list item) starts, so
Sphinx reported ``{ref}`no-such-label``` on the fifth line of a paragraph as ``page.md:3``.
After a Markdown page is read, this extension finds each reference's own line in the
page's source: the first occurrence of ``{role}`text`` at or after the paragraph's line
that no earlier reference of the page took. References it cannot find keep their line.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx import addnodes

# MyST records a role as reStructuredText: ":ref:`text <label>`" for "{ref}`text <label>`".
_RAW_ROLE = re.compile(r"^:(?P<role>[\w:+-]+):`(?P<content>.*)`$", re.S)
_LOOKAHEAD = 200  # lines searched after the paragraph's first line


def own_line(lines: list[str], start: int, role: str, content: str, taken: set[tuple[int, int]]) -> int | None:
    """The 1-based line of ``{role}`content`` in ``lines`` at or after line ``start``, not in ``taken``.

    :param lines: the page's source lines.
    :param start: the 1-based line the parser gave (where the paragraph starts).
    :param role: the role name as written (``ref``, ``doc``, ``py:func``).
    :param content: the text between the backticks (only its first line is matched).
    :param taken: ``(line index, column)`` of occurrences already given to other references;
        the one found is added.
    :returns: the line, or ``None`` when the text is not found there.
    """
    needle = "{" + role + "}`" + content.split("\n", 1)[0]
    for index in range(max(start - 1, 0), min(len(lines), start - 1 + _LOOKAHEAD)):
        column = lines[index].find(needle)
        while column >= 0:
            if (index, column) not in taken:
                taken.add((index, column))
                return index + 1
            column = lines[index].find(needle, column + 1)
    return None


def place_references(app, doctree) -> None:
    """``doctree-read``: give every cross-reference of a Markdown page its own source line."""
    taken: dict[str, set[tuple[int, int]]] = {}
    texts: dict[str, list[str]] = {}
    for node in doctree.findall(addnodes.pending_xref):
        match = _RAW_ROLE.match(node.rawsource or "")
        if not match or not node.source or node.line is None or not node.source.endswith(".md"):
            continue
        if node.source not in texts:
            try:
                texts[node.source] = Path(node.source).read_text(encoding="utf-8").splitlines()
            except OSError:
                texts[node.source] = []
        line = own_line(texts[node.source], node.line, match["role"], match["content"],
                        taken.setdefault(node.source, set()))
        if line is not None:
            node.line = line


def setup(app):
    """Sphinx entry point."""
    app.connect("doctree-read", place_references)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
