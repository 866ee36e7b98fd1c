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

nbconvert compiles its Jinja templates from source for every notebook it converts; they
are compiled once into ``jinja-cache/`` in the doctree folder (as Sphinx's own templates
are, ``quick_rebuilds``).

nbsphinx also converts each Markdown cell to reST with two runs of pandoc (about 0.1 s of
CPU per cell). The conversion depends only on the cell's text, nbsphinx and pandoc, so
its result is kept in ``pandoc-cache/`` next to ``notebook-cache/``, one file per
distinct text: after a prose edit only the edited cell goes through pandoc again.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
import nbsphinx
from jinja2 import FileSystemBytecodeCache
from sphinx.util import logging

logger = logging.getLogger(__name__)

_state: dict = {"dir": None, "env": None, "versions": None, "pandoc": None}
_original = nbsphinx.Exporter.from_notebook_node
_original_markdown2rst = nbsphinx.markdown2rst


def installed_versions() -> str:
    """The installed distributions of this Python, sorted, one a line (computed once per process).

    Read from the names of the ``<name>-<version>.dist-info`` folders on ``sys.path``
    (what pip writes), not from each distribution's metadata file: parsing ~150 of those
    would cost a tenth of a second on every rebuild that reads a notebook.
    """
    if _state["versions"] is None:
        found = set()
        for entry in sys.path:
            try:
                found.update(p.name for p in Path(entry or ".").glob("*.dist-info"))
            except OSError:
                continue
        if not found:  # an unusual layout: ask importlib (slower, same information)
            found = {f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()}
        _state["versions"] = "\n".join(sorted(found))
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
    if self.environment.bytecode_cache is None:  # nbconvert's templates, compiled once, not per read
        (cache_dir.parent / "jinja-cache").mkdir(parents=True, exist_ok=True)
        self.environment.bytecode_cache = FileSystemBytecodeCache(str(cache_dir.parent / "jinja-cache"))
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
        _write_atomically(stored, Path(saved).read_bytes())
    return result


def _write_atomically(path: Path, data: bytes) -> None:
    """Write under a temporary name and rename: parallel readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, path)


def markdown2rst_cached(text: str) -> str:
    """``nbsphinx.markdown2rst`` (a Markdown cell to reST through pandoc), kept by text in the cache."""
    if _state["dir"] is None:
        return _original_markdown2rst(text)
    if _state["pandoc"] is None:  # which pandoc, by path, size and time (asking its version runs it)
        found = shutil.which("pandoc")
        stat = os.stat(found) if found else None
        _state["pandoc"] = f"{found}:{stat.st_size}:{stat.st_mtime_ns}" if stat else "none"
    key = hashlib.sha256(f"{nbsphinx.__version__}\0{_state['pandoc']}\0{text}".encode()).hexdigest()
    stored = _state["dir"].parent / "pandoc-cache" / f"{key}.rst"
    try:
        return stored.read_text(encoding="utf-8")
    except OSError:
        pass
    rst = _original_markdown2rst(text)
    _write_atomically(stored, rst.encode("utf-8"))
    return rst


def _remember(app, env, docnames) -> None:
    _state["dir"] = Path(app.doctreedir) / "notebook-cache"
    _state["env"] = env


def setup(app):
    """Wrap nbsphinx's exporter and Markdown conversion; the cache folder is set when reading starts.

    :raises sphinx.errors.ExtensionError: jupytext is not installed. nbsphinx would otherwise
        read every ``.myst`` notebook as reStructuredText and report dozens of odd errors.
    """
    import importlib.util

    from sphinx.errors import ExtensionError

    if importlib.util.find_spec("jupytext") is None:
        raise ExtensionError("jupytext is not installed, so the notebooks (.myst, jupytext MyST) cannot be read: "
                             "run `make venv` (requirements.txt pins jupytext)", modname=__name__)
    nbsphinx.Exporter.from_notebook_node = from_notebook_node_cached
    nbsphinx.markdown2rst = markdown2rst_cached  # looked up by name when an Exporter is made
    app.connect("env-before-read-docs", _remember)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
