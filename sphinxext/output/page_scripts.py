"""Scripts load without holding up the first paint, and only on the pages that use them; small styles inline.

Sphinx and its extensions put plain ``<script src>`` tags in every page's ``<head>``:
the browser stops drawing the page until each one has arrived and run. Here, on every
page:

* each local script gets ``defer``: it still runs in the same order, once the page is
  parsed, which is when these scripts start working anyway (they wait for
  ``DOMContentLoaded``). ``documentation_options.js`` stays as it is, because the
  inline scripts right after it set ``DOCUMENTATION_OPTIONS`` fields;
* sphinx-copybutton's two scripts load only on a page with a highlighted code block,
  and sphinx-design's tab script only on a page with a tab set;
* Sphinx's ``sphinx_highlight.js`` is left out: it marks the words of a Sphinx search
  (``?highlight=`` in a result's link), and the site's search (Pagefind,
  ``search-page.js``) links to sections without that parameter;
* a small stylesheet only some pages use (nbsphinx's cell styles on notebook pages, the
  stylesheets the raw HTML of the calculator and the "Check a command" page link) is
  written into the page as ``<style data-from="_static/...">``: the same rules, one
  request fewer, and the page depends on the stylesheet, so an incremental build rewrites
  it when the stylesheet changes. ``site.css`` (``site_css.py``) holds the stylesheets
  every page uses.

``search.html`` is no exception: its Pagefind script (``_static/search-page.js``) is a
module, which browsers defer anyway, and needs none of Sphinx's scripts.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes

# Scripts a page loads only when its body contains the pattern (what the script acts on).
ONLY_WHERE_USED = {
    "_static/clipboard.min.js": re.compile(r'class="highlight"'),  # sphinx-copybutton
    "_static/copybutton.js": re.compile(r'class="highlight"'),
    "_static/design-tabs.js": re.compile(r'class="[^"]*\bsd-tab-set\b'),  # sphinx-design tabs
}
KEEP_BLOCKING = {"_static/documentation_options.js"}
# Scripts no page needs (see the module docstring).
DROPPED = {"_static/sphinx_highlight.js"}
# Page-specific stylesheets up to this size are written into the page instead of linked.
INLINE_CSS_MAX_BYTES = 8192
_BODY_STYLESHEET = re.compile(r'<link rel="stylesheet" href="(?:\.\./)*_static/(?P<name>[\w.-]+\.css)">')


def lighten_scripts(app, pagename, templatename, context, doctree) -> None:
    """Defer the page's local scripts and drop those it has nothing for (see the module docstring)."""
    if "script_files" not in context:
        return
    body = context.get("body", "")
    scripts = []
    for script in context["script_files"]:
        name = str(script.filename or "")
        needs = ONLY_WHERE_USED.get(name)
        if name in DROPPED or (needs is not None and not needs.search(body)):
            continue
        attributes = script.attributes
        if (name and "://" not in name and name not in KEEP_BLOCKING and "body" not in attributes
                and not {"async", "defer"} & set(attributes)):
            # Sphinx's script objects are immutable: make the same one with defer added.
            script = type(script)(script.filename, priority=script.priority, **attributes, defer="defer")
        scripts.append(script)
    context["script_files"] = scripts


def _stylesheet(app, name: str) -> str | None:
    """The text of ``_static/<name>``, from the project's static folders or the output, if small enough.

    The project's folders come first: Sphinx copies them into the output only after writing the
    pages, so the output holds the previous build's copy of a stylesheet just edited.
    """
    folders = [Path(app.confdir, p) for p in app.config.html_static_path] + [Path(app.outdir, "_static")]
    for folder in folders:
        path = folder / name
        if path.is_file() and path.stat().st_size <= INLINE_CSS_MAX_BYTES:
            return path.read_text(encoding="utf-8")
    return None


def _style(name: str, css: str) -> str:
    return f'<style data-from="_static/{name}">\n{css.strip()}\n</style>'


def inline_small_styles(app, pagename, templatename, context, doctree) -> None:
    """Write the page's small page-specific stylesheets into it (see the module docstring).

    Runs after ``site_css`` has taken out the stylesheets its bundle holds, so what is left
    in ``css_files`` is what only some pages link.
    """
    if "css_files" in context:
        kept = []
        for css in context["css_files"]:
            name = str(css.filename or "")
            text = _stylesheet(app, name.removeprefix("_static/")) if name.startswith("_static/") else None
            if text is None:
                kept.append(css)
            else:
                context["metatags"] = context.get("metatags", "") + _style(name.removeprefix("_static/"), text)
        context["css_files"] = kept
    if "body" in context and "_static/" in context["body"]:
        def replace(match: re.Match) -> str:
            text = _stylesheet(app, match["name"])
            return match[0] if text is None else _style(match["name"], text)

        context["body"] = _BODY_STYLESHEET.sub(replace, context["body"])


def note_linked_stylesheets(app, doctree) -> None:
    """Make a page depend on the small stylesheets its raw HTML links, since their text is written into it.

    Without this an incremental build keeps the old rules in a page after its stylesheet changes.
    """
    for node in doctree.findall(nodes.raw):
        for match in _BODY_STYLESHEET.finditer(node.astext()):
            for folder in app.config.html_static_path:
                path = Path(app.confdir, folder, match["name"])
                if path.is_file():
                    app.env.note_dependency(str(path))


def setup(app):
    """Sphinx entry point."""
    app.connect("doctree-read", note_linked_stylesheets)
    app.connect("html-page-context", lighten_scripts, priority=900)
    app.connect("html-page-context", inline_small_styles, priority=1000)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
