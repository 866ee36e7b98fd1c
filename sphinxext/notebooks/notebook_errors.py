"""Report a notebook that fails to execute as a build error naming the notebook and the cell.

nbsphinx executes every notebook (``nbsphinx_execute = "always"``). When a cell raises,
nbsphinx stops the whole Sphinx run with an exception, so the other pages' warnings are
never shown and the message does not say which cell failed. This extension catches that
exception and logs one Sphinx error instead::

    docs/explanation/x.myst:88: ERROR: notebook cell 7 of 12 (code cell 3, id '6') raised
    ValueError: ... [nbsphinx.cell]

For a text notebook (``.myst``, see ``text_notebooks.py``) the line is that of the failed
cell's ```` ```{code-cell} ```` fence; a ``.ipynb`` notebook has no lines, so only the cell
is named.

The build then goes on (``--keep-going`` shows every problem) and still fails, because an
error makes sphinx-build exit non-zero. The failed notebook is rendered as an orphan page
that says it failed; nothing from a half-executed notebook is published.
"""

from __future__ import annotations

import re

import nbformat
import nbsphinx
from docutils.parsers import rst
from sphinx.util import logging

import text_notebooks

logger = logging.getLogger(__name__)

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_RULE = "------------------"


def locate_failed_cell(nb: nbformat.NotebookNode, message: str) -> tuple[int, int, str] | None:
    """Find the cell whose source nbsphinx quotes in a ``CellExecutionError`` message.

    Args:
        nb: the notebook as read from disk (nbformat v4).
        message: the text of the ``nbsphinx.NotebookError``; for an execution error it
            quotes the failing cell's source between two lines of 18 dashes.

    Returns:
        ``(cell_number, code_cell_number, cell_id)`` with 1-based numbers counted over all
        cells and over code cells only, or ``None`` when the message quotes no cell (for
        example a kernel that did not start).
    """
    parts = message.split(_RULE)
    if len(parts) < 3:
        return None
    quoted = parts[1].strip("\n")
    code_number = 0
    for number, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "code":
            continue
        code_number += 1
        if cell.source.strip("\n") == quoted:
            return number, code_number, cell.get("id", "")
    return None


def exception_line(message: str) -> str:
    """The last line of the traceback in ``message`` (e.g. ``ValueError: ...``), without colours."""
    lines = [_ANSI.sub("", line).strip() for line in message.splitlines()]
    candidates = [line for line in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Warning)\b", line)]
    return candidates[-1] if candidates else lines[0]


_original_parse = nbsphinx.NotebookParser.parse


def parse_reporting_cell(self, inputstring: str, document) -> None:
    """``nbsphinx.NotebookParser.parse`` that turns a failed execution into one located error."""
    try:
        _original_parse(self, inputstring, document)
    except nbsphinx.NotebookError as err:
        env = document.settings.env
        message = str(err)
        where, line = "", None
        is_text = str(env.doc2path(env.docname)).endswith(text_notebooks.SUFFIX)
        try:
            nb = text_notebooks.reads(inputstring) if is_text else nbformat.reads(inputstring, as_version=4)
            found = locate_failed_cell(nb, message)
        except Exception:  # an unreadable notebook: nbsphinx's own message says why
            found = None
        if found:
            number, code_number, cell_id = found
            where = f"notebook cell {number} of {len(nb.cells)} (code cell {code_number}, id {cell_id!r}) raised "
            fences = text_notebooks.code_cell_lines(inputstring) if is_text else []
            line = fences[code_number - 1] if code_number <= len(fences) else None
        # nbsphinx registered the notebook for copying before it ran; nothing was saved.
        env.nbsphinx_notebooks.pop(env.docname, None)
        traceback = _ANSI.sub("", message.split(_RULE)[-1]).split("You can ignore this error")[0]
        traceback = traceback.strip().lstrip("-").strip()
        logger.error(
            "%s%s\n%s", where or "notebook failed: ", exception_line(message), traceback,
            location=(env.docname, line) if line else env.docname, type="nbsphinx", subtype="cell",
        )
        rst.Parser.parse(
            self,
            ":orphan:\n\nNotebook failed to execute\n==========================\n\n"
            "This page is left empty because one of its cells raised an error during the build.\n",
            document,
        )


def setup(app):
    """Install the wrapper around nbsphinx's notebook parser."""
    nbsphinx.NotebookParser.parse = parse_reporting_cell
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
