"""The executed notebooks copied into the site carry no execution times, so two builds write the same bytes.

nbsphinx saves each notebook as executed (for the page's download link), and the
executor records in every code cell when it was sent, started and finished
(``metadata.execution``: ``iopub.execute_input``, ``shell.execute_reply``, ...).
Those times differ between two builds of one commit, and so does the way a cell's
printed text is cut into stream outputs (the kernel sends it in as many messages as
its flushes happen to make). After the notebooks read in this build are executed,
this extension removes the times and joins consecutive outputs of one stream in
nbsphinx's copies, before nbsphinx copies them into the site. The pages look the
same: they never showed the times, and show consecutive stream outputs as one.
"""

from __future__ import annotations

import os

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment


def strip_execution_times(path: str) -> bool:
    """Remove ``metadata.execution`` from every cell of the notebook at ``path`` and join consecutive
    outputs of the same stream (``stdout``, ``stderr``); return whether the file changed.

    :raises FileNotFoundError: no notebook at ``path``.
    """
    import nbformat

    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    changed = False
    for cell in nb.cells:
        if "execution" in cell.get("metadata", {}):
            del cell.metadata["execution"]
            changed = True
        joined = []
        for output in cell.get("outputs", []):
            previous = joined[-1] if joined else None
            if (output.get("output_type") == "stream" and previous is not None
                    and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
                previous["text"] = "".join(previous["text"]) + "".join(output["text"])
                changed = True
            else:
                joined.append(output)
        if "outputs" in cell:
            cell["outputs"] = joined
    if changed:
        nbformat.write(nb, path)
    return changed


def _remember(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    app._notebook_copies_read = set(docnames)


def _strip(app: Sphinx, env: BuildEnvironment) -> None:
    notebooks = getattr(env, "nbsphinx_notebooks", {})
    auxdir = getattr(env, "nbsphinx_auxdir", None)
    if not auxdir:
        return
    for docname in getattr(app, "_notebook_copies_read", set()) & set(notebooks):
        path = os.path.join(auxdir, notebooks[docname])
        if os.path.exists(path):
            strip_execution_times(path)


def setup(app: Sphinx) -> dict:
    app.connect("env-before-read-docs", _remember)
    app.connect("env-updated", _strip)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
