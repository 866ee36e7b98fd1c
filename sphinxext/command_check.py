"""Sphinx adapter of the command check (:mod:`speccheck`): every command, Python block and config on the site.

What is checked and how is :mod:`speccheck.check`'s business; this extension only
hands it each page's source as Sphinx reads it and turns each
:class:`speccheck.Diagnostic` into a build warning at the page and line, with
the diagnostic's severity and rule id (``-W`` makes errors and warnings alike
fail the build: pages must be clean). The pinned parsers are built before any
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


def _check_page(app, docname: str, source: list[str]) -> None:
    from sphinx.util import logging as sphinx_logging

    logger = sphinx_logging.getLogger(__name__)
    suffix = Path(app.env.doc2path(docname)).suffix
    from speccheck import check

    for cell, d in check.located(source[0], suffix, _cache(app)):
        text = f"{d.severity}: {d.message} [{d.rule}]"
        if cell is None:
            logger.warning(text, location=(docname, d.line), type="command", subtype=d.rule)
        else:
            logger.warning(f"cell {cell}, line {d.line}: {text}", location=docname, type="command", subtype=d.rule)


def setup(app):
    # A code block may state the target's architecture for the check (`:architecture: X`);
    # the option has no effect on the rendered block.
    from docutils.parsers.rst import directives
    from sphinx.directives.code import CodeBlock

    CodeBlock.option_spec = {**CodeBlock.option_spec, "architecture": directives.unchanged}
    app.connect("builder-inited", _forget_cache)
    app.connect("env-before-read-docs", _build_parsers)
    app.connect("source-read", _check_page)
    app.connect("build-finished", _save_cache)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
