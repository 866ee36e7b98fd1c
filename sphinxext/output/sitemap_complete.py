"""Keep ``sitemap.xml`` complete on incremental builds.

sphinx-sitemap lists the pages written during the current run only, so after an
incremental build that rewrote one page, the sitemap names that one page (upstream
issue jdillard/sphinx-sitemap#13). Just before it writes the file, this adds every
other page of the project through sphinx-sitemap's own function, so the sitemap is
the same whether the build was clean or incremental.
"""

from __future__ import annotations

import queue

from sphinx_sitemap import add_html_link


def add_unwritten_pages(app, exception) -> None:
    """``build-finished`` handler (runs before sphinx-sitemap's): queue every page not queued yet."""
    if exception is not None or app.builder.format != "html" or not hasattr(app, "sitemap_links"):
        return
    queued = []
    while True:
        try:
            queued.append(app.sitemap_links.get_nowait())
        except queue.Empty:
            break
    for item in queued:
        app.sitemap_links.put(item)
    present = {link for link, _ in queued}
    suffix = app.config.html_file_suffix or ".html"
    for docname in sorted(app.env.found_docs):
        if docname + suffix not in present:
            add_html_link(app, docname, None, {}, None)


def setup(app):
    """Sphinx entry point."""
    app.connect("build-finished", add_unwritten_pages, priority=499)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
