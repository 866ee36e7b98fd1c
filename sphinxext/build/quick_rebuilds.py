"""Rebuilds that change nothing do (almost) nothing: measured by ``make bench``.

Four costs of every Sphinx run that a rebuild with no change paid for no result:

* **Templates compiled again.** Every run compiled each Jinja template it rendered from
  source (about 35 of the theme's). Jinja's ``FileSystemBytecodeCache`` now keeps the
  compiled code in ``jinja-cache/`` in the doctree folder, keyed by template name and a
  checksum of its source, so an edited template (the theme's or one in
  ``docs/_templates``) is compiled again.
* **genindex.html, search.html and 404.html rendered again.** Sphinx writes these pages on
  every run, although they depend only on the page titles, the toctree, the index entries,
  the templates and the configuration. When no page was removed, only the pages read
  were written (Sphinx writes every page again after a template or an HTML option
  changes) and no title, toctree or index entry changed, the copies already in the output
  folder are what rendering would give, and they are kept.
* **Citations formatted again.** sphinxcontrib-bibtex formats every citation of the site
  with pybtex after each read (its ``env-updated`` handler), also when nothing was read.
  When no page was read or removed, or the pages read cite the same entries at the same
  places as before and no ``.bib`` file changed (:func:`citation_inputs`), the citations
  restored with the saved environment are kept. When they changed, the pages with a
  ``bibliography`` directive are written again too: sphinxcontrib-bibtex alone left the
  list of references without a new citation until ``make clean``.

* **The search indexes written again.** ``pagefind_search`` runs Pagefind over the output
  after every build (about 0.6 s of CPU), and Sphinx writes ``searchindex.js`` (about
  0.1 s). When nothing changed, the pages they would index are the ones indexed last
  time, and both are kept. So are ``llms.txt`` and ``llms-full.txt``, which
  sphinx-llms-txt otherwise joins from every page's source again (about 0.1 s).

* **Pages around an edited page written again, or not written when they should be.**
  Sphinx writes every page whose toctree lists a page it read (``env.files_to_rebuild``):
  the toctree shows the page's title and, deeper, its headings. When no title, toctree or
  heading changed, those pages would come out as they are, and only the pages read are
  written. When a title or the toctree changed, every page is written instead: each
  page's sidebar and previous/next links show them, and Sphinx alone would leave the
  other pages with the old title until ``make clean``.
* **Plugins looked up again.** pybtex and sphinxcontrib-bibtex find their styles through
  ``importlib.metadata.entry_points``, which reads the metadata of every installed package
  on each call (a few dozen calls per read, about 0.3 s). The installed packages do not
  change during a build, so the entry points are read once per process.

A clean build reads every page, so only the last of these applies to it.
"""

from __future__ import annotations

import functools
import importlib.metadata
import sys
from pathlib import Path

import pybtex.plugin
import sphinxcontrib.bibtex.plugin
from jinja2 import FileSystemBytecodeCache
from sphinxcontrib.bibtex.domain import BibtexDomain

# Pages Sphinx and sphinx-notfound-page write on every run, whatever changed.
REWRITTEN_EVERY_RUN = {"genindex", "search", "404"}
_state = {"read": True, "removed": True, "written": True, "read_docs": set(), "written_docs": set(),
          "navigation": None, "sidebar": None, "headings": None, "citations": None}
_original_env_updated = BibtexDomain.env_updated


def nothing_changed() -> bool:
    """No page was read or removed in this run and none was written."""
    return not (_state["read"] or _state["removed"] or _state["written"])


def sidebar(env) -> str:
    """What every page shows of the others: the titles and the toctree (its sidebar and its
    previous/next links)."""
    titles = sorted((docname, title.astext()) for docname, title in env.titles.items())
    toctree = sorted((docname, list(children)) for docname, children in env.toctree_includes.items())
    return repr((titles, toctree))


def navigation(env) -> str:
    """:func:`sidebar`, with the index entries (glossary terms among them) that ``genindex`` lists."""
    index = sorted((docname, repr(entries)) for docname, entries in env.get_domain("index").entries.items())
    return repr((sidebar(env), index))


def headings(env) -> str:
    """Every page's headings, which the toctrees that list the page show."""
    return repr(sorted((docname, toc.pformat()) for docname, toc in env.tocs.items()))


def only_content_changed(env) -> bool:
    """Pages were edited, but no page was removed, only the pages read were written, and no title,
    toctree entry or index entry changed: the pages in :data:`REWRITTEN_EVERY_RUN` stay as they are."""
    return (not _state["removed"] and _state["written_docs"] <= _state["read_docs"]
            and _state["navigation"] == navigation(env))


def citation_inputs(domain) -> str:
    """What sphinxcontrib-bibtex formats the citations from: the bibliographies, every citation
    reference (page, line, keys) and the ``.bib`` files (path, modification time, keys)."""
    bibfiles = sorted((str(path), repr(bibfile)) for path, bibfile in domain.bibdata.bibfiles.items())
    return repr((sorted(map(repr, domain.bibliographies.items())), sorted(map(repr, domain.citation_refs)), bibfiles))


def _env_updated_unless_nothing_read(self):
    """``BibtexDomain.env_updated``, skipped (no page to write again) when no page was read or
    removed, or when the pages read cite what they cited before."""
    if self.citations and (not (_state["read"] or _state["removed"])
                           or citation_inputs(self) == _state["citations"]):
        return []
    updated = list(_original_env_updated(self))
    if _state["citations"] is not None:  # a rebuild: the lists of references show the new citations
        updated += sorted({key.docname for key in self.bibliographies})
    return updated


def _note_outdated(app, env, added, changed, removed):
    _state["removed"] = bool(removed)
    return []


def _note_read(app, env, docnames):
    _state["read"] = bool(docnames)
    _state["read_docs"] = set(docnames)


def _builder_inited(app) -> None:
    _state.update(read=True, removed=True, written=False, read_docs=set(), written_docs=set(),
                  navigation=navigation(app.env) if app.env.all_docs else None,
                  sidebar=sidebar(app.env) if app.env.all_docs else None,
                  headings=headings(app.env) if app.env.all_docs else None,
                  citations=citation_inputs(app.env.get_domain("cite")) if app.env.all_docs else None)
    _skip_unchanged_search_index()  # here: every extension is loaded by now
    _skip_unchanged_llms_txt(app)
    builder = app.builder
    environment = getattr(getattr(builder, "templates", None), "environment", None)
    if environment is None:  # a builder without Jinja templates (linkcheck, ...)
        return
    folder = Path(app.doctreedir) / "jinja-cache"
    folder.mkdir(parents=True, exist_ok=True)
    environment.bytecode_cache = FileSystemBytecodeCache(str(folder))

    write_documents, handle_page = builder.write_documents, builder.handle_page

    def write_documents_noting(docnames):
        _state["written"] = _state["written"] or bool(docnames)
        _state["written_docs"] |= set(docnames)
        return write_documents(docnames)

    def handle_page_unless_unchanged(pagename, *args, **kwargs):
        if (pagename in REWRITTEN_EVERY_RUN and (nothing_changed() or only_content_changed(app.env))
                and Path(builder.get_outfilename(pagename)).exists()):
            return None
        return handle_page(pagename, *args, **kwargs)

    def write_pages_that_changed(build_docnames, updated_docnames, method="update"):
        if _state["navigation"] is None or not _state["read"]:
            return write(build_docnames, updated_docnames, method)
        if _state["sidebar"] != sidebar(app.env):  # every page shows it
            return write(sorted(app.env.found_docs), updated_docnames, method)
        if _state["headings"] != headings(app.env):
            return write(build_docnames, updated_docnames, method)
        parents, app.env.files_to_rebuild = app.env.files_to_rebuild, {}
        try:  # Sphinx adds no page for the toctrees that list the pages read
            return write(build_docnames, updated_docnames, method)
        finally:
            app.env.files_to_rebuild = parents

    write = builder.write
    builder.write = write_pages_that_changed
    builder.write_documents = write_documents_noting
    if hasattr(builder, "get_outfilename"):  # the HTML builders
        builder.handle_page = handle_page_unless_unchanged
    if hasattr(builder, "dump_search_index"):  # Sphinx's own index: the same pages give the same file
        _keep_when_nothing_changed(builder, "dump_search_index",
                                   lambda: [Path(builder.outdir, builder.searchindex_filename)])


def _keep_when_nothing_changed(owner, name: str, outputs) -> None:
    """Replace ``owner.<name>`` by a wrapper that does nothing when nothing changed and its files exist.

    :param owner: the object (module, class or instance) that holds the function.
    :param outputs: called with the function's arguments; returns the paths the function writes.
        When :func:`nothing_changed` and every one exists, the function is not called.
    Installed once per function (the wrapper is marked), whatever the number of builds in the process.
    """
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_quick", False):
        return  # not there (another release of the extension): it runs as usual

    @functools.wraps(original)
    def keep_when_unchanged(*args, **kwargs):
        if nothing_changed() and all(Path(p).exists() for p in outputs(*args, **kwargs)):
            return None
        return original(*args, **kwargs)

    keep_when_unchanged._quick = True
    setattr(owner, name, keep_when_unchanged)


def _skip_unchanged_llms_txt(app) -> None:
    """Make sphinx-llms-txt keep ``llms.txt`` and ``llms-full.txt`` when nothing changed."""
    manager_class = getattr(sys.modules.get("sphinx_llms_txt.manager"), "LLMSFullManager", None)
    names = (app.config.llms_txt_filename, app.config.llms_txt_full_filename)
    if manager_class is not None:
        _keep_when_nothing_changed(manager_class, "combine_sources",
                                   lambda self, outdir, srcdir: [Path(outdir) / n for n in names])


def _skip_unchanged_search_index() -> None:
    """Make ``pagefind_search.run_pagefind`` keep an existing index when nothing changed."""
    pagefind_search = sys.modules.get("pagefind_search")
    if pagefind_search is not None:  # looked up by name when the build finishes
        _keep_when_nothing_changed(pagefind_search, "run_pagefind",
                                   lambda outdir, *args, **kwargs: [Path(outdir) / "pagefind"])


@functools.cache
def _installed_entry_points():
    return importlib.metadata.entry_points()


def entry_points(**params):
    """``importlib.metadata.entry_points(**params)``, with every package's metadata read once."""
    return _installed_entry_points().select(**params)


def setup(app):
    """Install the shortcuts described in the module docstring."""
    for module in (pybtex.plugin, sphinxcontrib.bibtex.plugin):  # both look the name up on each call
        module.entry_points = entry_points
    BibtexDomain.env_updated = _env_updated_unless_nothing_read
    app.connect("builder-inited", _builder_inited)
    app.connect("env-get-outdated", _note_outdated)
    app.connect("env-before-read-docs", _note_read)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
