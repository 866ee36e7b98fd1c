"""The ``error-messages`` directive: SGLang's start-up messages, verbatim, with their explanations.

Usage (reference/error-messages.md, one directive per group, under the group's heading)::

    :::{error-messages}
    :group: loading-draft
    :::

The messages come from :mod:`speccheck.errors` (:func:`speccheck.errors.extract`,
parsed from the installed pinned SGLang); the explanations from
``docs/_data/error-messages.yaml`` (a list of ``{keys | key, group, cause, fix, see}``;
``cause``/``fix`` are MyST Markdown, ``see`` a label; entries with ``excluded`` are
left out with their reason and not rendered). Each explanation renders as a
literal block per distinct message text (so the site's search finds the exact words),
its cause, its fix, a link to ``see``, and a source note citing every place that
raises it (the ``{source}`` role of :mod:`source_notes`).

Checks, as build warnings at the line of the page's first ``error-messages``
directive (``-W`` makes them fatal):

- a message of the pinned source that no explanation covers (the warning names its
  text, file, line and key, so the pin cannot move past an unexplained message);
- an explanation whose key no message has any more (stale);
- an explanation whose group no directive renders.

The ``error-message-exclusions`` directive (no options) renders the data file's
exclusions (:func:`speccheck.errors.load_exclusions`) as a list: what is left out, and why.

Options of ``error-messages``: ``:group:`` (required); ``:explanations:`` (path relative to the docs folder,
default ``_data/error-messages.yaml``); ``:source-root:`` (a folder laid out like
``site-packages``, relative to the docs folder; every ``*.py`` under it is read whole,
for test fixtures; citations to it are shown as plain text).
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from speccheck import errors as error_messages

logger = logging.getLogger(__name__)
DEFAULT_EXPLANATIONS = "_data/error-messages.yaml"


def _messages(srcdir: Path, source_root: str | None) -> list[error_messages.Message]:
    if source_root:
        root = (srcdir / source_root).resolve()
        return error_messages.extract(root, (error_messages.Scope("**/*.py"),))
    return _pinned_messages()


_PINNED: list[error_messages.Message] | None = None
_CACHE: dict[str, Path | None] = {"file": None}  # set when the builder starts (doctree folder)


def _pinned_key() -> str:
    """A digest of what the pinned messages are read from: speccheck/errors.py and the size and
    modification time of every file in its scope (a reinstalled SGLang changes them)."""
    root = error_messages.site_packages()
    digest = hashlib.sha256(Path(error_messages.__file__).read_bytes())
    for rel, _ in error_messages.scoped_files(root):
        stat = (root / rel).stat()
        digest.update(f"{rel}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _pinned_messages() -> list[error_messages.Message]:
    """The pinned SGLang's messages, read once per process and kept between builds in the doctree
    folder (reading them costs about 0.3 s of every build that reads a page)."""
    global _PINNED
    if _PINNED is None:
        cache, key = _CACHE["file"], None
        if cache is not None:
            key = _pinned_key()
            try:
                stored_key, messages = pickle.loads(cache.read_bytes())
                if stored_key == key:
                    _PINNED = messages
                    return _PINNED
            except (OSError, pickle.UnpicklingError, EOFError, ValueError, AttributeError, ImportError):
                pass
        _PINNED = error_messages.extract()
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_bytes(pickle.dumps((key, _PINNED)))
    return _PINNED


def _set_cache(app) -> None:
    _CACHE["file"] = Path(app.doctreedir) / "error-messages.pickle"


def _entries(path: Path) -> list[dict]:
    return error_messages.load_explanations(path)


def anchor(keys: list[str]) -> str:
    """A stable HTML id for an explanation: ``err-`` and 10 hex digits of its first key's hash."""
    return "err-" + hashlib.sha1(keys[0].encode()).hexdigest()[:10]


class ErrorMessages(SphinxDirective):
    """Render one group of explained messages (see the module docstring)."""

    option_spec = {
        "group": directives.unchanged_required,
        "explanations": directives.unchanged,
        "source-root": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        srcdir = Path(self.env.srcdir)
        rel = self.options.get("explanations", DEFAULT_EXPLANATIONS)
        path = srcdir / rel
        group = self.options["group"]
        source_root = self.options.get("source-root")
        self.env.note_dependency(str(path))
        try:
            entries = _entries(path)
            messages = _messages(srcdir, source_root)
        except (OSError, ValueError, KeyError) as error:
            raise self.error(f"error-messages: {error}") from error
        uses = self.env.__dict__.setdefault("error_messages_uses", {})
        uses.setdefault((rel, source_root), {}).setdefault(self.env.docname, []).append((self.lineno, group))

        by_key = error_messages.by_key(messages)
        chosen = [e for e in entries if e["group"] == group]
        if not chosen:
            raise self.error(f"error-messages: {rel} has no explanation in group {group!r}")
        out: list[nodes.Node] = []
        for entry in chosen:
            found = [m for k in entry["keys"] for m in by_key.get(k, [])]
            if found:
                out += self._entry(entry, found, citable=source_root is None)
        return out

    def _entry(self, entry: dict, found: list[error_messages.Message], citable: bool) -> list[nodes.Node]:
        box = nodes.container(classes=["error-message"], ids=[anchor(entry["keys"])])
        texts = list(dict.fromkeys(m.text for m in found))
        kinds = sorted({"warning (the server goes on)" if m.kind == "warning" else
                        f"{m.exception} (the server stops)" for m in found})
        for text in texts:
            block = nodes.literal_block(text, text, classes=["error-message-text"])
            block["language"] = "text"
            box += block
        md = [f"**Logged as:** {', '.join(kinds)}.", "", f"**Cause:** {entry['cause'].strip()}", "",
              f"**Fix:** {entry['fix'].strip()}"]
        if entry.get("see"):
            md += ["", f"**More:** {{ref}}`{entry['see']}`."]
        box += self.parse_text_to_nodes("\n".join(md))
        places = list(dict.fromkeys((m.citation, m.file, m.line, m.kind) for m in found))
        if citable:
            cites = "; ".join(f"{{source}}`{c}` (line {line}, {kind})" for c, _, line, kind in places)
            box += self.parse_text_to_nodes(f":::{{source-note}}\n{cites}\n:::")
        else:
            box += nodes.paragraph(text="Source: " + "; ".join(f"{f}:{line}" for _, f, line, _ in places))
        return [box]


class ErrorMessageExclusions(SphinxDirective):
    """A bullet list of the exclusions of the default explanations file: the source or keys, then the reason."""

    def run(self) -> list[nodes.Node]:
        path = Path(self.env.srcdir) / DEFAULT_EXPLANATIONS
        self.env.note_dependency(str(path))
        try:
            exclusions = error_messages.load_exclusions(path)
        except (OSError, ValueError) as error:
            raise self.error(f"error-message-exclusions: {error}") from error
        if not exclusions:
            return self.parse_text_to_nodes("Nothing: every message the scope finds is explained.")
        items = []
        for e in exclusions:
            # The source is an implementation reference: marked like a source note, so it is set apart.
            what = f"`{e['path']}`{{.source-note}}" if e["path"] else ", ".join(
                f"`{k}`{{.source-note}}" for k in e["keys"])
            items.append(f"- {what}: {' '.join(e['excluded'].split())}")
        return self.parse_text_to_nodes("\n".join(items))


_RUN = {"read": set(), "purged": False}  # pages read in this run; a page with the directive purged


def _note_read(app, env, docnames) -> None:
    _RUN["read"] = set(docnames)


def check(app, env) -> None:
    """After reading: every message explained, no stale explanation, every group rendered.

    Skipped when no page with the directive was read or purged in this run: the pinned
    source does not change between runs, the explanations file is a dependency of the
    pages that use it (editing it re-reads them), so the result would be the last run's.
    """
    uses = getattr(env, "error_messages_uses", {})
    users = {doc for docs in uses.values() for doc in docs}
    if not (_RUN["purged"] or users & _RUN["read"]):
        return
    _RUN["purged"] = False
    srcdir = Path(env.srcdir)
    for (rel, source_root), docs in sorted(uses.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        docname = sorted(docs)[0]
        line = min(n for n, _ in docs[docname])
        location = (docname, line)
        entries = _entries(srcdir / rel)
        messages = _messages(srcdir, source_root)
        explained = error_messages.accounted_keys(srcdir / rel)
        unexplained, stale = error_messages.compare(messages, explained)
        for m in unexplained:
            logger.warning(f"error-messages: {m.file}:{m.line} ({m.function}) has a {m.kind} that {rel} does not "
                           f"explain: {m.text!r} (add an entry with key {m.key!r})",
                           location=location, type="error_messages", subtype="unexplained")
        for key in stale:
            logger.warning(f"error-messages: {rel} explains {key!r}, which the source no longer has (stale entry)",
                           location=location, type="error_messages", subtype="stale")
        rendered = {g for lines in docs.values() for _, g in lines}
        for group in sorted({e["group"] for e in entries} - rendered):
            logger.warning(f"error-messages: no error-messages directive renders group {group!r} of {rel}",
                           location=location, type="error_messages", subtype="group")


def purge(app, env, docname) -> None:
    for docs in getattr(env, "error_messages_uses", {}).values():
        if docs.pop(docname, None) is not None:
            _RUN["purged"] = True


def merge(app, env, docnames, other) -> None:
    mine = env.__dict__.setdefault("error_messages_uses", {})
    for key, docs in getattr(other, "error_messages_uses", {}).items():
        for doc, lines in docs.items():
            if doc in docnames:
                mine.setdefault(key, {})[doc] = lines


def setup(app):
    app.add_directive("error-messages", ErrorMessages)
    app.add_directive("error-message-exclusions", ErrorMessageExclusions)
    app.connect("builder-inited", _set_cache)
    app.connect("env-before-read-docs", _note_read)
    app.connect("env-check-consistency", check)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
