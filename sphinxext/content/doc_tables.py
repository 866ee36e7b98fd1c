"""One docutils table builder for the extensions that write generated tables (not an extension itself).

Used by ``interaction_map.py`` and ``sglang_drift.py``; Sphinx's HTML writer turns the result
into ``<table>`` with a header row, and the ``colwidths-given`` class makes it write the
``<col>`` widths.
"""

from __future__ import annotations

from docutils import nodes


def table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int],
          classes: list[str]) -> nodes.table:
    """A table with one header row of plain ``header`` texts and one row per entry of ``rows``.

    :param rows: each a list of cells, as many as ``header``; a cell is a node (a paragraph,
        a reference...) put into the table as it is, or a string written as a paragraph.
    :param widths: relative column widths, one per column (docutils ``colwidth`` units).
    :param classes: the table's classes (``colwidths-given`` to keep the widths in the HTML).
    """
    out = nodes.table(classes=list(classes))
    group = nodes.tgroup(cols=len(header))
    out += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for title in header:
        row += nodes.entry("", nodes.paragraph(text=title))
    head += row
    body = nodes.tbody()
    group += body
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            row += nodes.entry("", cell if isinstance(cell, nodes.Node) else nodes.paragraph(text=str(cell)))
        body += row
    return out
