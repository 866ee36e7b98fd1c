"""Every page loads one small stylesheet, ``_static/site.css``, instead of seven large ones.

The book theme alone links ``styles/theme.css`` (which ``@import``\\ s ``basic.css``)
and ``styles/pydata-sphinx-theme.css`` (376 KB: all of Bootstrap and a CSS rule for
each of Font Awesome's 2,000 icons); the extensions add five more files. Each one
blocks the first paint, so on a phone the page stays blank for seconds.

After the HTML build this extension writes ``site.css``:

1. the theme's two stylesheets and every stylesheet that all pages link (in the
   order a page links them) are concatenated;
2. a rule is left out when one of its selectors' class or id names appears in no
   built page (``class``/``id`` attributes), no inline script and no script a page
   loads: the rule can then match nothing, now or after a script runs;
3. the Font Awesome web fonts are cut down to the icons the remaining rules use and
   inlined, so icons cost no extra request.

Pages link ``site.css`` in place of those files (``docs/_templates/static/webpack-macros.html``
and :func:`drop_bundled`). ``tests/test_site_css.py`` checks that every element of
sample pages gets the same computed style from ``site.css`` as from the original files,
and that every icon shown has its glyph in the inlined font. The file is rewritten only
when its inputs change, so a rebuild with no change costs a few milliseconds.
"""

from __future__ import annotations

import base64
import hashlib
import io
import pickle
import posixpath
import re
from pathlib import Path

BUNDLE = "site.css"  # under _static/
# What the theme links before the extensions' stylesheets (styles/theme.css is only
# `@import "../basic.css"`), paths under _static/.
THEME_CSS = ["basic.css", "styles/pydata-sphinx-theme.css"]
_CLASS_OR_ID = re.compile(r"[.#](-?[A-Za-z_][\w-]*(?:\\.[\w-]*)*)")
_ATTR_SELECTOR = re.compile(r"\[[^\]]*\]")
_WORD = re.compile(r"[A-Za-z0-9_-]+")
_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")


class _State:
    """The site-wide stylesheets seen on the pages of this build (paths under _static/)."""

    def __init__(self) -> None:
        self.sources: list[str] | None = None


def _bundleable(css) -> bool:
    """A stylesheet under ``_static/`` with no attribute that changes when it applies (``media``...)."""
    name = str(css.filename)
    return name.startswith("_static/") and name.endswith(".css") and set(css.attributes) <= {"rel", "type"}


def _file_tokens(path: Path) -> tuple[set[str], set[Path]]:
    """Class/id names one built file can use, and the local scripts it loads.

    A page gives its ``class``/``id`` attribute values and every word of its inline
    scripts; a script gives every word (scripts add classes at run time).
    """
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".html":
        return set(_WORD.findall(text)), set()
    tokens, scripts = set(), set()
    for value in re.findall(r'\b(?:class|id)="([^"]*)"', text):
        tokens.update(value.split())
    for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", text, re.S):
        tokens.update(_WORD.findall(body))
        src = re.search(r'\bsrc="([^"?#]+)', attrs)
        if src and "://" not in src.group(1) and not src.group(1).startswith("/"):
            scripts.add((path.parent / src.group(1)).resolve())
    return tokens, scripts


def _page_tokens(html_dir: Path, cache: dict) -> set[str]:
    """Every class and id name that a page or a script of the built site can use.

    :param html_dir: the HTML output directory.
    :param cache: ``{path: (mtime_ns, size, tokens, scripts)}`` from the last build; files
        that did not change are not read again, and the dict is updated in place.
    """

    def tokens_of(path: Path) -> tuple[set[str], set[Path]]:
        stat = path.stat()
        key = str(path)
        if key not in cache or cache[key][:2] != (stat.st_mtime_ns, stat.st_size):
            cache[key] = (stat.st_mtime_ns, stat.st_size, *_file_tokens(path))
        return cache[key][2], cache[key][3]

    tokens: set[str] = set()
    scripts: set[Path] = set()
    for page in html_dir.rglob("*.html"):
        if "_static" not in page.parts:
            page_tokens, page_scripts = tokens_of(page)
            tokens |= page_tokens
            scripts |= page_scripts
    for script in scripts:
        # MathJax styles what it draws itself; its 1 MB of code holds no class of ours.
        if script.is_file() and "mathjax" not in script.parts:
            tokens |= tokens_of(script)[0]
    return tokens


def _strip_functional(selector: str) -> str:
    """``selector`` without the arguments of ``:not()``, ``:is()``, ``:has()``...: a rule
    stays when a name appears only there, since those names need not be present."""
    out, depth = [], 0
    for i, char in enumerate(selector):
        if depth:
            depth += {"(": 1, ")": -1}.get(char, 0)
        elif char == "(" and i and (selector[i - 1].isalnum() or selector[i - 1] == "-"):
            depth = 1
        else:
            out.append(char)
    return "".join(out)


def _selector_can_match(selector: str, tokens: set[str]) -> bool:
    """False when the selector needs a class or id that the site never uses."""
    selector = _strip_functional(_ATTR_SELECTOR.sub("", selector))
    return all(name.replace("\\", "") in tokens for name in _CLASS_OR_ID.findall(selector))


def _split_selectors(prelude) -> list[str]:
    """The comma-separated selectors of a rule (commas inside ``:is(a, b)`` do not split)."""
    import tinycss2
    parts, current = [], []
    for token in prelude:
        if token.type == "literal" and token.value == ",":
            parts.append(current)
            current = []
        else:
            current.append(token)
    parts.append(current)
    return [tinycss2.serialize(part).strip() for part in parts]


def _prune(nodes, tokens: set[str], glyphs: set[int]) -> list[str]:
    """Serialize the rules of ``nodes`` that can match, recording icon code points in ``glyphs``."""
    import tinycss2
    out = []
    for node in nodes:
        if node.type == "qualified-rule":
            selectors = [s for s in _split_selectors(node.prelude) if _selector_can_match(s, tokens)]
            if not selectors:
                continue
            _collect_glyphs(node.content, glyphs)
            out.append(",".join(selectors) + "{" + tinycss2.serialize(node.content).strip() + "}")
        elif node.type == "at-rule":
            keyword = node.lower_at_keyword
            if keyword == "charset":
                continue  # one @charset, at the top of site.css
            if keyword in ("media", "supports", "layer", "container") and node.content is not None:
                inner = _prune(tinycss2.parse_blocks_contents(node.content, skip_whitespace=True), tokens, glyphs)
                if inner:
                    out.append(f"@{node.at_keyword} {tinycss2.serialize(node.prelude).strip()}{{{''.join(inner)}}}")
            else:
                out.append(tinycss2.serialize([node]))
        elif node.type == "comment" and node.value.startswith("!"):
            out.append(f"/*{node.value}*/")  # licence notices (Bootstrap's) stay
    return out


def _collect_glyphs(tokens, glyphs: set[int]) -> None:
    """Add the code points of one- or two-character strings (icon glyphs such as ``"\\f09b"``)."""
    for token in tokens:
        if token.type == "string" and 0 < len(token.value) <= 2:
            glyphs.update(ord(char) for char in token.value)
        elif getattr(token, "content", None) and not isinstance(token.content, str):
            _collect_glyphs(token.content, glyphs)
        elif getattr(token, "arguments", None):
            _collect_glyphs(token.arguments, glyphs)


def _rebase_urls(css: str, source_dir: str) -> str:
    """Make relative ``url()``\\ s of a file in ``_static/<source_dir>`` relative to ``_static/``."""

    def rebase(match: re.Match) -> str:
        url = match.group(2)
        if url.startswith(("data:", "/", "#")) or "://" in url:
            return match.group(0)
        return f'url("{posixpath.normpath(posixpath.join(source_dir, url))}")'

    return _URL.sub(rebase, css)


def _inline_fonts(css: str, static: Path, glyphs: set[int]) -> str:
    """Replace each ``url(<font>.woff2)`` by a ``data:`` URL of the font cut down to ``glyphs``."""
    import logging

    from fontTools import subset
    from fontTools.ttLib import TTFont

    logging.getLogger("fontTools").setLevel(logging.WARNING)  # not its INFO lines in the build log

    def inline(match: re.Match) -> str:
        url = match.group(2)
        if not url.endswith(".woff2") or url.startswith("data:"):
            return match.group(0)
        # recalcTimestamp=False: keep the font's own 'modified' date, so two builds write the same bytes.
        font = TTFont(static / url, recalcTimestamp=False)
        subsetter = subset.Subsetter(subset.Options(flavor="woff2"))
        subsetter.populate(unicodes=glyphs)
        subsetter.subset(font)
        buffer = io.BytesIO()
        font.save(buffer)
        return f"url(data:font/woff2;base64,{base64.b64encode(buffer.getvalue()).decode()})"

    return _URL.sub(inline, css)


def bundle_css(static: Path, sources: list[str], tokens: set[str]) -> str:
    """The text of ``site.css``.

    :param static: the output ``_static`` directory.
    :param sources: stylesheet paths under ``static``, in cascade order.
    :param tokens: class and id names that pages and scripts use (:func:`_page_tokens`).
    :raises FileNotFoundError: a source stylesheet or a font it names is missing.
    """
    import tinycss2  # imported here: a rebuild that changes no page never needs it
    parts, glyphs = [], set()
    for name in sources:
        text = _rebase_urls((static / name).read_text(encoding="utf-8"), posixpath.dirname(name))
        nodes = tinycss2.parse_stylesheet(text, skip_whitespace=True)
        parts.append(f"/* {name} */\n" + "".join(_prune(nodes, tokens, glyphs)) + "\n")
    header = (f'@charset "UTF-8";\n/* {BUNDLE}: written by sphinxext/output/site_css.py from ' + ", ".join(sources)
              + "; rules no page can match are left out. */\n")
    return _inline_fonts(header + "".join(parts), static, glyphs)


def setup(app):
    """Sphinx entry point."""
    state = _State()

    def record_sources(app, pagename, templatename, context, doctree) -> None:
        # Runs first, before any extension adds a stylesheet to one page only.
        if state.sources is None:
            linked = sorted(context.get("css_files", []), key=lambda css: css.priority)  # as Sphinx sorts them
            state.sources = [str(css.filename) for css in linked if _bundleable(css)]
            state.sources = [name.removeprefix("_static/") for name in state.sources]
        context["site_css"] = BUNDLE

    def drop_bundled(app, pagename, templatename, context, doctree) -> None:
        # Runs last: the page links site.css instead of the stylesheets it contains.
        if "css_files" in context and state.sources:
            bundled = {f"_static/{name}" for name in state.sources}
            context["css_files"] = [css for css in context["css_files"] if str(css.filename) not in bundled]

    def write_bundle(app, exception) -> None:
        if exception is not None or app.builder.format != "html" or state.sources is None:
            return
        static = Path(app.outdir, "_static")
        sources = THEME_CSS + state.sources
        cache_file = Path(app.doctreedir, "site-css-tokens.pickle")
        try:
            cache = pickle.loads(cache_file.read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError):
            cache = {}
        tokens = _page_tokens(Path(app.outdir), cache)
        cache_file.write_bytes(pickle.dumps(cache))
        digest = hashlib.sha256(Path(__file__).read_bytes())  # a change here rewrites the file too
        for name in sources:
            digest.update((static / name).read_bytes())
        digest.update(" ".join(sorted(tokens)).encode())
        stamp = Path(app.doctreedir, "site-css.sha256")
        out = static / BUNDLE
        if out.is_file() and stamp.is_file() and stamp.read_text() == digest.hexdigest():
            return
        out.write_text(bundle_css(static, sources, tokens), encoding="utf-8")
        stamp.write_text(digest.hexdigest())

    app.connect("html-page-context", record_sources, priority=1)
    app.connect("html-page-context", drop_bundled, priority=999)
    # Late: pydata-sphinx-theme rewrites pygments.css (light and dark styles) on build-finished.
    app.connect("build-finished", write_bundle, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
