"""Sphinx adapter of the command check (:mod:`speccheck`): every command, Python block and config on the site.

What is checked and how is :mod:`speccheck.check`'s business; this extension only
hands it each page's source as Sphinx reads it and turns each
:class:`speccheck.Diagnostic` into a build message at the page and line, in the
form ``docs/how-to/eagle3.md:42: ERROR: <message> [command.<rule>]`` (``WARNING:``
for a warning; ``undecided:`` for "cannot be decided here", which fails nothing).
``-W`` makes errors and warnings alike fail the build: pages must be clean. The
build ends with one line counting the command diagnostics of the pages it read. The pinned parsers are built before any
page is read, so a parser that cannot be built stops the build with the reason.

A block that shows a command *meant* to fail carries the class ``expect-fail``
(in a notebook: the cell tag); its commands must then fail. A ``code-block`` may
state the target's architecture with the option ``:architecture:``, which this
extension registers.

The diagnostics of each block are kept in ``command-check-cache.pickle`` in the doctree
folder, keyed by the block and the checker (:class:`speccheck.check.ResultCache`): a page
edited around unchanged commands is checked without building the parsers. A clean build
starts without the cache and checks everything.
"""

from __future__ import annotations

import time
from pathlib import Path

CACHE_FILE = "command-check-cache.pickle"  # in the doctree folder: a clean build starts without it
_state: dict = {"cache": None}


def _cache(app):
    """The result cache, opened on first use: a rebuild that reads no page imports no checker."""
    if _state["cache"] is None:
        from speccheck.check import ResultCache

        _state["cache"] = ResultCache(Path(app.doctreedir) / CACHE_FILE)
    return _state["cache"]


def _forget_cache(app) -> None:
    _state["cache"] = None  # a new build (sphinx.testing runs several in one process) opens its own


def _save_cache(app, exception) -> None:
    if _state["cache"] is not None:
        _state["cache"].save()


def _build_parsers(app, env, docnames) -> None:
    """Build the pinned parsers before reading pages: a failure stops the build with the reason.

    A rebuild whose pages to read hold no block and no inline flag that was not checked before
    (no change at all, or prose edited around unchanged commands) skips this (about 1 s of
    CPU): their diagnostics come from the cache (:class:`speccheck.check.ResultCache`). Should a
    page still need a parser, it is built on first use.
    """
    def text_of(docname: str) -> str:
        try:
            return Path(env.doc2path(docname)).read_text(encoding="utf-8")
        except OSError:
            return "python -m sglang"  # unreadable here: build the parsers, Sphinx reports the file
    if not docnames:
        return
    from speccheck import check
    from speccheck.pinned import substitute  # the text the check will see (pin_substitutions)

    cache = _cache(app)
    if not any(cache.misses(substitute(text_of(d)), Path(env.doc2path(d)).suffix) for d in docnames):
        return
    from sphinx.errors import ExtensionError
    from sphinx.util import logging as sphinx_logging

    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        version = check.build_parsers()
    except Exception as exc:
        raise ExtensionError(f"command_check: cannot build the pinned parsers, so no command can be checked: {exc}",
                             modname=__name__) from exc
    sphinx_logging.getLogger(__name__).info(
        f"command_check: parsers of SGLang {version} and SpecForge built in "
        f"{time.perf_counter() - start:.2f} s ({time.process_time() - cpu_start:.2f} s CPU)")


def _where(app, docname: str) -> str:
    """The page's file as the reader of the build output finds it: relative to the folder the build
    runs in (``docs/how-to/eagle3.md``), absolute when it lies outside."""
    path = Path(app.env.doc2path(docname)).resolve()
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


def _check_page(app, docname: str, source: list[str]) -> None:
    """Report each diagnostic of the page at ``page:line``: errors with Sphinx's ``ERROR:``, warnings with
    ``WARNING:`` (both fail the build under ``-W``), "cannot be decided here" as information that
    fails nothing; each ends with ``[command.<rule>]``. The counts are kept for :func:`_summary`."""
    from sphinx.util import logging as sphinx_logging

    logger = sphinx_logging.getLogger(__name__)
    suffix = Path(app.env.doc2path(docname)).suffix
    from speccheck import check

    counts = {"error": 0, "warning": 0, "undecided": 0}
    where = _where(app, docname)
    for cell, d in check.located(source[0], suffix, _cache(app)):
        counts[d.severity] = counts.get(d.severity, 0) + 1
        location = f"{where}:{d.line}" if cell is None else f"{where}:cell {cell}, line {d.line}"
        text = d.message
        if d.severity == "undecided":
            logger.info(f"undecided: {text} [command.{d.rule}]", location=location)
        else:
            log = logger.error if d.severity == "error" else logger.warning
            log(text, location=location, type="command", subtype=d.rule)
    if any(counts.values()):
        app.env.command_check_counts = {**getattr(app.env, "command_check_counts", {}), docname: counts}
    else:
        getattr(app.env, "command_check_counts", {}).pop(docname, None)


def _merge_counts(app, env, docnames, other) -> None:
    """Parallel reads: the counts of the pages a worker read."""
    env.command_check_counts = {**getattr(env, "command_check_counts", {}),
                                **{d: c for d, c in getattr(other, "command_check_counts", {}).items() if d in docnames}}


def _purge_counts(app, env, docname) -> None:
    getattr(env, "command_check_counts", {}).pop(docname, None)


def _read_now(app, env, docnames) -> None:
    _state["read"] = set(docnames)


def _summary(app, exception) -> None:
    """One line at the end of the build: the command diagnostics of the pages read in this build."""
    if exception is not None or not _state.get("read"):
        return
    from sphinx.util import logging as sphinx_logging

    counts = {d: c for d, c in getattr(app.env, "command_check_counts", {}).items() if d in _state["read"]}
    total = {s: sum(c.get(s, 0) for c in counts.values()) for s in ("error", "warning", "undecided")}
    pages = len(counts)
    found = ", ".join(f"{n} {s}{'' if s == 'undecided' else '(s)'}" for s, n in total.items() if n)
    sphinx_logging.getLogger(__name__).info(
        f"command_check: {found or 'no problems'} in the commands of {len(_state['read'])} page(s) read"
        + (f" ({pages} with findings; warnings and errors are also in the log given with -w, "
           "_build/html-warnings.log for make html)" if pages else ""))


def setup(app):
    # A code block may state the target's architecture for the check (`:architecture: X`);
    # the option has no effect on the rendered block.
    from docutils.parsers.rst import directives
    from sphinx.directives.code import CodeBlock

    CodeBlock.option_spec = {**CodeBlock.option_spec, "architecture": directives.unchanged}
    app.connect("builder-inited", _forget_cache)
    app.connect("env-before-read-docs", _build_parsers)
    app.connect("env-before-read-docs", _read_now)
    app.connect("source-read", _check_page)
    app.connect("env-merge-info", _merge_counts)
    app.connect("env-purge-doc", _purge_counts)
    app.connect("build-finished", _save_cache)
    app.connect("build-finished", _summary)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
