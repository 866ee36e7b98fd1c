"""Scripts load without holding up the first paint, and only on the pages that use them.

Sphinx and its extensions put plain ``<script src>`` tags in every page's ``<head>``:
the browser stops drawing the page until each one has arrived and run. Here, on every
page:

* each local script gets ``defer``: it still runs in the same order, once the page is
  parsed, which is when these scripts start working anyway (they wait for
  ``DOMContentLoaded``). ``documentation_options.js`` stays as it is, because the
  inline scripts right after it set ``DOCUMENTATION_OPTIONS`` fields;
* sphinx-copybutton's two scripts load only on a page with a highlighted code block,
  and sphinx-design's tab script only on a page with a tab set.

``search.html`` is no exception: its Pagefind script (``_static/search-page.js``) is a
module, which browsers defer anyway, and needs none of Sphinx's scripts.
"""

from __future__ import annotations

import re

# Scripts a page loads only when its body contains the pattern (what the script acts on).
ONLY_WHERE_USED = {
    "_static/clipboard.min.js": re.compile(r'class="highlight"'),  # sphinx-copybutton
    "_static/copybutton.js": re.compile(r'class="highlight"'),
    "_static/design-tabs.js": re.compile(r'class="[^"]*\bsd-tab-set\b'),  # sphinx-design tabs
}
KEEP_BLOCKING = {"_static/documentation_options.js"}


def lighten_scripts(app, pagename, templatename, context, doctree) -> None:
    """Defer the page's local scripts and drop those it has nothing for (see the module docstring)."""
    if "script_files" not in context:
        return
    body = context.get("body", "")
    scripts = []
    for script in context["script_files"]:
        name = str(script.filename or "")
        needs = ONLY_WHERE_USED.get(name)
        if needs is not None and not needs.search(body):
            continue
        attributes = script.attributes
        if (name and "://" not in name and name not in KEEP_BLOCKING and "body" not in attributes
                and not {"async", "defer"} & set(attributes)):
            # Sphinx's script objects are immutable: make the same one with defer added.
            script = type(script)(script.filename, priority=script.priority, **attributes, defer="defer")
        scripts.append(script)
    context["script_files"] = scripts


def setup(app):
    """Sphinx entry point."""
    app.connect("html-page-context", lighten_scripts, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
