"""Give the items of docutils' citation and footnote lists a role that assistive tools accept.

docutils writes a bibliography as ``<div role="list">`` holding entries with
``role="doc-biblioentry"`` (and footnotes as ``role="doc-footnote"``). WAI-ARIA
requires a list's children to be list items, and DPUB-ARIA 1.1 deprecates
``doc-biblioentry``, so axe-core reports the lists as a critical violation
(``aria-required-children``). Each such entry becomes ``role="listitem"``; its
``id``, class and content are unchanged.
"""

from __future__ import annotations

import re

# An opening tag of a citation or footnote entry, as docutils' HTML5 writer emits it.
_ENTRY_ROLE = re.compile(r'(<(?:div|aside) class="(?:citation|footnote)[^"]*"[^>]*?) role="doc-(?:biblioentry|footnote)"')


def listitem_roles(html: str) -> str:
    """Return ``html`` with every citation/footnote entry's role replaced by ``listitem``."""
    return _ENTRY_ROLE.sub(r'\1 role="listitem"', html)


def fix_page(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context`` handler: rewrite the page body before the theme renders it."""
    if "body" in context:
        context["body"] = listitem_roles(context["body"])


def setup(app):
    """Sphinx entry point."""
    app.connect("html-page-context", fix_page)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
