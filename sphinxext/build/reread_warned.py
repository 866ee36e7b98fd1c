"""A page that had a warning or an error is read again by the next build, so its problem is reported again.

Sphinx reads a page again only when its file (or a file it depends on) changed. A build
that failed under ``-W`` still saves its environment, so without this extension the next
build finds nothing out of date and says "build succeeded" while the pages that failed
keep their broken output: a notebook that raised stays an empty "failed to execute" page
after ``pandoc`` is installed, an undefined reference stays unresolved, and the error is
never printed again.

This extension notes the document of every warning and error Sphinx logs (its location,
or the page being read), writes the list to ``docs-with-problems.json`` in the doctree
folder when the build ends, and on the next build returns those documents from
``env-get-outdated``, so that Sphinx reads, checks and writes them again. A page that is
built again without a problem leaves the list. Warnings of the writing phase (an
undefined reference under ``-n``) count too: the list is a file of its own because Sphinx
saves its environment before it writes.
"""

from __future__ import annotations

import json
import logging as std_logging
from pathlib import Path

from sphinx.util import logging

_state: dict = {"app": None, "problems": set()}
RECORD = "docs-with-problems.json"  # in the doctree folder, beside the pickled environment


def _docname_of(record: std_logging.LogRecord, env) -> str | None:
    """The document a Sphinx log record is about, or ``None`` when it names none.

    Args:
        record: a record of the ``sphinx`` logger; ``record.location`` is a
            ``(docname, line)`` tuple, a docname, a docutils node, or (once Sphinx's own
            handler has formatted it) a ``"path:line"`` string.
        env: the build environment (maps source paths to docnames).
    """
    location = getattr(record, "location", None)
    if isinstance(location, tuple) and location:
        location = location[0]
    if location is not None and not isinstance(location, str):  # a docutils node
        location = getattr(location, "source", None)
    if isinstance(location, str) and location:
        if location in env.all_docs or location in env.found_docs:
            return location
        path = location.split(":")[0]
        docname = env.path2doc(path) if Path(path).is_absolute() else None
        if docname:
            return docname
    return env.temp_data.get("docname")


class _Recorder(std_logging.Handler):
    """Notes the document of each warning or error in ``_state["problems"]``."""

    def __init__(self) -> None:
        super().__init__(level=std_logging.WARNING)

    def emit(self, record: std_logging.LogRecord) -> None:
        env = getattr(_state["app"], "env", None)
        docname = _docname_of(record, env) if env is not None else None
        if docname:
            _state["problems"].add(docname)


def _record_file(app) -> Path:
    return Path(app.doctreedir) / RECORD


def _builder_inited(app) -> None:
    _state["app"] = app
    _state["problems"] = set()
    try:
        _state["reread"] = set(json.loads(_record_file(app).read_text()))
    except (OSError, ValueError):
        _state["reread"] = set()


def _outdated(app, env, added, changed, removed) -> list[str]:
    return sorted(d for d in _state.get("reread", ()) if d in env.found_docs and d not in removed)


def _build_finished(app, exception) -> None:
    """Write the documents that had problems in this build (an empty list when none did)."""
    problems = _state["problems"] | (_state.get("reread", set()) if exception else set())
    path = _record_file(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(sorted(problems)))


def setup(app):
    """Attach the recorder to Sphinx's logger and register the events."""
    logger = std_logging.getLogger(logging.NAMESPACE)
    logger.handlers = [h for h in logger.handlers if not isinstance(h, _Recorder)] + [_Recorder()]
    app.connect("builder-inited", _builder_inited)
    app.connect("env-get-outdated", _outdated)
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
