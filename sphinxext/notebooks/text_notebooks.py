"""Notebooks stored as text: jupytext's MyST Markdown format, in files ending in ``.myst``.

A notebook under ``docs/`` is a ``.myst`` file: a YAML header (``jupytext:`` and
``kernelspec:``), Markdown cells as plain MyST Markdown separated by ``+++`` lines, and
code cells as ```` ```{code-cell} ```` fences. A pull request that changes a sentence
shows that sentence; JupyterLab with jupytext opens the file as a notebook. The suffix
is ``.myst``, not ``.md``, because MyST-Parser reads every ``.md`` as a page.

nbsphinx reads these files through ``nbsphinx_custom_formats`` in ``conf.py`` with
:func:`reads`. ``tools/notebooks_to_text.py`` converts a ``.ipynb`` into this format.
"""

from __future__ import annotations

import re

import nbformat

# jupytext is imported when a notebook is read or written, not with this module: importing
# it costs about 0.05 s (it also asks pandoc for its version), which a rebuild that reads
# no notebook need not pay.

SUFFIX = ".myst"
FORMAT = "myst"
# The notebook metadata kept in the text header. jupytext's default keeps only kernelspec
# and its own key; language_info is kept too, so a conversion loses no notebook metadata.
METADATA_FILTER = "kernelspec,jupytext,language_info,-jupytext.text_representation.jupytext_version"
_CODE_CELL = re.compile(r"^(`{3,}|~{3,})\{code-cell\}")


def reads(text: str) -> nbformat.NotebookNode:
    """A text notebook as an nbformat 4 notebook whose cell ids are ``"0"``, ``"1"``, ...

    jupytext gives cells random ids; numbering them by position makes every read of
    one file the same notebook, so executed copies and error messages do not change
    from build to build.

    :param text: the content of a ``.myst`` file.
    :raises Exception: whatever jupytext raises for text it cannot read.
    """
    import jupytext

    nb = jupytext.reads(text, fmt={"extension": SUFFIX, "format_name": FORMAT})
    for number, cell in enumerate(nb.cells):
        cell["id"] = str(number)
    return nb


def writes(nb: nbformat.NotebookNode) -> str:
    """The text form of ``nb`` (outputs and execution counts are not part of the format)."""
    import jupytext

    nb = nbformat.from_dict(nb)
    nb.metadata.setdefault("jupytext", {})["notebook_metadata_filter"] = METADATA_FILTER
    return jupytext.writes(nb, fmt={"extension": SUFFIX, "format_name": FORMAT})


def code_cell_lines(text: str) -> list[int]:
    """The 1-based line of each code cell's opening fence in a ``.myst`` file, in order.

    Used to point an error in the n-th code cell at a line of the file.
    """
    return [number for number, line in enumerate(text.splitlines(), start=1) if _CODE_CELL.match(line)]
