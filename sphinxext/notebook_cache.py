"""Reuse a notebook's outputs when its code has not changed, so a prose edit starts no kernel.

nbsphinx executes a notebook every time Sphinx reads it (``nbsphinx_execute = "always"``),
and Sphinx reads it whenever its file changes - also when only a Markdown cell changed.
This extension wraps nbsphinx's exporter: before executing, it computes a key from
everything that decides what the code cells print,

* the source and metadata (tags) of every code cell, in order;
* the kernel name, nbsphinx's execution arguments, ``nbsphinx_allow_errors`` and
  ``nbsphinx_timeout``;
* the Python version and the name and version of every installed distribution (the
  kernel is the build's Python, see ``make lab``);
* the bytes of each file next to the notebook whose name a code cell mentions (the
  published-benchmarks notebook reads ``published-benchmarks.csv``). Sphinx is also told
  that the notebook depends on those files, so editing one re-reads and re-runs it;

and looks for ``<key>.ipynb`` in ``notebook-cache/`` in the build's doctree folder. On a
hit the code cells get their outputs from there and nothing is executed; on a miss
nbsphinx executes as before and the executed notebook is stored under the key. A failed
execution stores nothing. The cache lives with the doctrees, so a clean build (``make
clean``, CI) executes every notebook from scratch.

A notebook whose own metadata sets ``nbsphinx.execute`` is left to nbsphinx.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import nbformat
import nbsphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

_state: dict = {"dir": None, "env": None, "versions": None}
_original = nbsphinx.Exporter.from_notebook_node


def installed_versions() -> str:
    """``name==version`` of every distribution this Python has, sorted, one a line (computed once)."""
    if _state["versions"] is None:
        names = {f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()}
        _state["versions"] = "\n".join(sorted(names))
    return _state["versions"]


def data_files(nb: nbformat.NotebookNode, folder: Path) -> list[Path]:
    """Files in ``folder`` (not below it) whose names appear in a code cell of ``nb``, sorted."""
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    try:
        names = sorted(p.name for p in folder.iterdir() if p.is_file())
    except OSError:
        return []
    return [folder / name for name in names if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", code)]


def cache_key(nb: nbformat.NotebookNode, settings: dict, folder: Path) -> str:
    """A SHA-256 hex digest of what decides the outputs of ``nb`` (see the module docstring).

    :param nb: the notebook as read from its source (nbformat 4).
    :param settings: kernel name and execution settings (JSON-serialisable).
    :param folder: the folder the notebook runs in.
    """
    digest = hashlib.sha256()
    cells = [(c.source, {k: v for k, v in c.metadata.items() if k != "execution"})
             for c in nb.cells if c.cell_type == "code"]
    kernel = nb.metadata.get("kernelspec", {}).get("name", "")
    digest.update(json.dumps([cells, kernel, settings, sys.version], sort_keys=True).encode())
    digest.update(installed_versions().encode())
    for path in data_files(nb, folder):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def with_outputs(nb: nbformat.NotebookNode, executed: nbformat.NotebookNode) -> nbformat.NotebookNode | None:
    """``nb`` with the outputs, execution counts and run metadata of ``executed``'s code cells.

    Markdown and raw cells stay as in ``nb``. ``None`` when the two do not have the same
    code cells (a hash collision or a damaged cache file).
    """
    done = [c for c in executed.cells if c.cell_type == "code"]
    todo = [c for c in nb.cells if c.cell_type == "code"]
    if [c.source for c in done] != [c.source for c in todo]:
        return None
    merged = copy.deepcopy(nb)
    merged_code = [c for c in merged.cells if c.cell_type == "code"]
    for cell, old in zip(merged_code, done, strict=True):
        cell.outputs = old.get("outputs", [])
        cell.execution_count = old.get("execution_count")
        if "execution" in old.metadata:
            cell.metadata["execution"] = old.metadata["execution"]
    if "language_info" in executed.metadata:
        merged.metadata["language_info"] = executed.metadata["language_info"]
    return merged


def from_notebook_node_cached(self, nb, resources=None, **kw):
    """``nbsphinx.Exporter.from_notebook_node`` that reuses stored outputs when the key matches."""
    cache_dir = _state["dir"]
    folder = Path((resources or {}).get("metadata", {}).get("path", "."))
    docname = (resources or {}).get("nbsphinx_docname")
    if _state["env"] is not None and docname:
        for path in data_files(nb, folder):  # editing the data re-reads (and re-runs) the notebook
            _state["env"].note_dependency(str(path))
    if cache_dir is None or self._execute != "always" or "execute" in nb.metadata.get("nbsphinx", {}):
        return _original(self, nb, resources, **kw)
    settings = {"kernel": self._kernel_name, "arguments": list(self._execute_arguments),
                "allow_errors": self._allow_errors, "timeout": self._timeout}
    key = cache_key(nb, settings, folder)
    stored = cache_dir / f"{key}.ipynb"
    merged = None
    if stored.exists():
        try:
            merged = with_outputs(nb, nbformat.read(stored, as_version=4))
        except Exception:  # a damaged file: execute again and overwrite it
            merged = None
    if merged is not None:
        logger.info("notebook_cache: %s: code unchanged, outputs reused (no kernel started)", docname)
        self._execute = "never"
        try:
            return _original(self, merged, resources, **kw)
        finally:
            self._execute = "always"
    result = _original(self, nb, resources, **kw)
    saved = (resources or {}).get("nbsphinx_save_notebook")
    if saved and os.path.exists(saved):
        cache_dir.mkdir(parents=True, exist_ok=True)
        # Written under a temporary name and renamed: parallel readers never see half a file.
        fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
        with os.fdopen(fd, "wb") as out, open(saved, "rb") as src:
            out.write(src.read())
        os.replace(tmp, stored)
    return result


def _remember(app, env, docnames) -> None:
    _state["dir"] = Path(app.doctreedir) / "notebook-cache"
    _state["env"] = env


def setup(app):
    """Wrap nbsphinx's exporter; the cache folder is set when reading starts."""
    nbsphinx.Exporter.from_notebook_node = from_notebook_node_cached
    app.connect("env-before-read-docs", _remember)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
