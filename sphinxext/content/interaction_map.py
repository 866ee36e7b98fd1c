"""Directives of the interaction map (docs/reference/interactions/): counts per subsystem, the model table and
the code history (docs/reference/code-history.md).

They read ``speccheck/data/interactions.json`` (written by ``make interactions`` from the pinned wheel) and
``speccheck/data/interactions-map.yaml`` (where each point is explained); a page that uses them is read again
when either file changes.

- ``interaction-summary`` (no options): a table with one row per subsystem: points, how many are mapped to a
  section, how many are marked no-user-visible-effect, and the sections they map to (as links);
- ``interaction-models`` (option ``:role:`` ``draft`` or ``target``): a table of the model classes with a
  draft or MTP path (kind ``model-class``): class, file, whether the module's ``EntryClass`` registers it
  (so ``architectures[0]`` of a checkpoint can name it) and the target-side hooks it defines;
- ``code-history`` (option ``:files:`` ``speculative`` or ``other``): per file, the releases in which each
  function's code changed (``speccheck/data/code-history.json``, written by ``make code-history``), with the
  section of the map that explains it.
"""

from __future__ import annotations

import functools
from collections import Counter
from html import escape
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.addnodes import pending_xref
from sphinx.util.docutils import SphinxDirective

import doc_tables
from speccheck import code_history
from speccheck import errors as er
from speccheck import interactions as ix

# The error-message reference's explanations (relative to the source folder): a message explained there
# is not listed again under the section of the function that raises it.
EXPLANATIONS = "_data/error-messages.yaml"

HOOK_MEANING = {
    "set_eagle3_layers_to_capture": "EAGLE-3 hidden-state capture",
    "get_embed_and_head": "shares embedding and LM head",
    "set_embed_and_head": "takes the target's embedding and LM head",
    "get_embed": "shares embedding",
    "set_embed": "takes the target's embedding",
}


def _table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int]) -> nodes.table:
    return doc_tables.table(header, rows, widths, classes=["interaction-table"])


def _ref(label: str) -> nodes.Node:
    """A link to a section label; a label the site lacks renders as plain text (tests/test_interactions.py
    fails on it instead, naming the points), so a page of another branch need not exist to build this one."""
    xref = pending_xref("", refdomain="std", reftype="ref", reftarget=label, refexplicit=False, refwarn=True,
                        ix_optional=True)
    xref += nodes.inline(text=label)
    return xref


def _searchable_name(name: str) -> nodes.Node:
    """A point's name as inline code that the site's search (Pagefind) weighs like a heading: in HTML a
    ``<code data-pagefind-weight="10">``, so pasting ``/ready`` or ``/tokenize`` finds the one line that
    explains it even on a long page; other builders get a plain literal."""
    html = (f'<code class="docutils literal notranslate" data-pagefind-weight="10"><span class="pre">'
            f'{escape(name)}</span></code>')
    out = addnodes.only(expr="html")
    out += nodes.raw("", html, format="html")
    other = addnodes.only(expr="not html")
    other += nodes.literal(text=name)
    return nodes.inline("", "", out, other)


def _keep_missing_as_text(app, env, node, contnode):
    if node.get("ix_optional"):
        return contnode
    return None


@functools.cache
def _map(data_stamp: tuple, mapping_stamp: tuple) -> tuple:
    """The points, the mapping and each point's :class:`~speccheck.interactions.Resolution` (section, or
    None and a no-effect reason), read and resolved once per process while both files keep their
    modification times and sizes (the stamps)."""
    points, mapping = ix.load(), ix.load_mapping()
    return points, mapping, [ix.resolve(p, mapping) for p in points]


@functools.cache
def _explained_keys(path: str, stamp: tuple) -> frozenset[str]:
    """The message keys (``file::function::normalized text``) the error-message reference explains, read
    once per process while the file keeps its stamp (:func:`_stamp`)."""
    return frozenset(k for e in er.load_explanations(Path(path)) for k in e["keys"])


def _stamp(path) -> tuple:
    stat = path.stat()
    return str(path), stat.st_mtime_ns, stat.st_size


class _MapDirective(SphinxDirective):
    def _data(self):
        """``(points, mapping, resolutions)`` (:func:`_map`); shared between directives: read, do not change."""
        self.env.note_dependency(str(ix.DATA_FILE))
        self.env.note_dependency(str(ix.MAPPING_FILE))
        return _map(_stamp(ix.DATA_FILE), _stamp(ix.MAPPING_FILE))


class InteractionSummary(_MapDirective):
    """Points per subsystem, mapped and marked (see the module docstring)."""

    def run(self) -> list[nodes.Node]:
        points, mapping, resolved = self._data()
        counts = ix.summary(points, mapping)
        sections: dict[str, Counter] = {}
        for p, r in zip(points, resolved, strict=True):
            if r.section:
                sections.setdefault(p.subsystem, Counter())[r.section] += 1
        rows = []
        for name in sorted(counts, key=lambda n: -counts[n]["points"]):
            c = counts[name]
            para = nodes.paragraph()
            for i, (label, _) in enumerate(sections.get(name, Counter()).most_common()):
                if i:
                    para += nodes.Text(", ")
                para += _ref(label)
            rows.append([nodes.paragraph("", "", nodes.literal(text=name)), str(c["points"]), str(c["mapped"]),
                         str(c["no-effect"]), para])
        total = Counter()
        for c in counts.values():
            total.update(c)
        rows.append(["all", str(total["points"]), str(total["mapped"]), str(total["no-effect"]), ""])
        return [_table(["subsystem", "points", "mapped", "no effect", "explained in"], rows, [18, 8, 8, 8, 50])]


class InteractionModels(_MapDirective):
    """The model classes with a draft or MTP path (see the module docstring)."""

    option_spec = {"role": lambda v: directives.choice(v, ("draft", "target"))}

    def run(self) -> list[nodes.Node]:
        points, _, _ = self._data()
        role = self.options.get("role", "draft")
        rows = []
        for p in points:
            if p.kind != "model-class" or p.detail.get("role") != role:
                continue
            hooks = ", ".join(HOOK_MEANING.get(h, h) for h in p.detail.get("target_hooks", [])) or "none"
            rows.append([nodes.paragraph("", "", nodes.literal(text=p.qualname)),
                         nodes.paragraph("", "", nodes.inline(text=p.file.removeprefix("sglang/srt/models/"),
                                                              classes=["source-note"])),
                         "yes" if p.detail.get("registered") else "no", hooks])
        return [_table(["class", "file (sglang/srt/models/)", "registered", "target-side hooks"], rows,
                       [30, 30, 10, 30])]


class InteractionPoints(_MapDirective):
    """The points mapped to one section (``:section: LABEL``): each named point (parameter, field, endpoint,
    argument, algorithm, model) as a literal with the speculative files or functions it reaches, and the
    functions as a count; or (``:no-effect: KIND[,KIND...]``) the points of those kinds marked no-effect,
    each with its reason."""

    option_spec = {"section": directives.unchanged, "no-effect": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        points, _, resolutions = self._data()
        if "no-effect" in self.options:
            return self._no_effect(points, resolutions, self.options["no-effect"])
        label = (self.options.get("section") or "").strip()
        if not label:
            raise self.error("interaction-points needs :section: LABEL or :no-effect: KIND[,KIND...]")
        mine = [p for p, r in zip(points, resolutions, strict=True) if r.section == label]
        named = [p for p in mine if p.kind != "reads-spec-state"]
        functions = len(mine) - len(named)
        # Names of the source, set apart like a source note (they are what the extractor read).
        items = nodes.bullet_list(classes=["interaction-points", "source-note"])
        for p in named:
            para = nodes.paragraph()
            para += nodes.literal(text=p.id.split(":", 1)[1])
            reach = p.detail.get("spec_files") or p.detail.get("spec_calls") or p.detail.get("rules") or []
            if p.kind in ("sampling-param", "request-field", "endpoint"):
                para += nodes.Text(f" ({p.kind}): " + (f"{len(reach)} speculative code paths name it"
                                                        if reach else "no speculative code names it"))
            else:
                para += nodes.Text(f" ({p.kind})")
            items += nodes.list_item("", para)
        out: list[nodes.Node] = [items] if named else []
        if functions:
            out.append(nodes.paragraph(text=f"Also explained here: {functions} functions of SGLang that read "
                                            "speculative state (listed in the interaction map's data)."))

        if not out:
            out.append(nodes.paragraph(text="No point of the interaction map is mapped to this section."))
        return out

    def _no_effect(self, points, resolutions, kinds: str) -> list[nodes.Node]:
        """``:no-effect: request-field, sampling-param``: every point of those kinds marked no-effect, each
        with its name and the mapping's one-line reason (so a pasted field name finds its answer)."""
        wanted = {k.strip() for k in kinds.split(",") if k.strip()}
        unknown = wanted - set(ix.KINDS)
        if unknown:
            raise self.error(f"unknown kinds {sorted(unknown)}; known: {', '.join(ix.KINDS)}")
        items = nodes.bullet_list(classes=["interaction-points", "interaction-no-effect", "source-note"])
        for p, r in zip(points, resolutions, strict=True):
            if p.kind in wanted and r.section is None and r.reason:
                name = ix.point_name(p) if p.kind in ix.NAMED_KINDS else p.id
                para = nodes.paragraph()
                para += _searchable_name(name)
                para += nodes.Text(f": {r.reason.strip()}")
                items += nodes.list_item("", para)
        return [items] if len(items) else [nodes.paragraph(text="No point of these kinds is marked no-effect.")]


class InteractionMessages(_MapDirective):
    """Every message that a function of the map raises, asserts or logs naming speculative decoding
    (``detail.messages`` of ``reads-spec-state`` points), and every message of ``sglang/srt/speculative/``
    (``detail.messages`` of ``speculative-file`` points, ``[function, text]`` pairs), that the error-message
    reference does not explain, grouped by the section the point maps to: a line linking the section, then
    each message as a literal with its file and function. A message of a point marked no-effect is not
    listed (it is an internal check)."""

    def run(self) -> list[nodes.Node]:
        points, _, resolutions = self._data()
        path = Path(self.env.srcdir) / EXPLANATIONS
        self.env.note_dependency(str(path))
        explained = _explained_keys(str(path), _stamp(path))
        by_section: dict[str, list[tuple[str, str]]] = {}

        def add(label: str, file: str, qualname: str, text: str) -> None:
            if f"{file}::{qualname}::{er.normalize(text)}" not in explained:
                by_section.setdefault(label, []).append((text, f"{file.removeprefix('sglang/')}, {qualname}"))

        for p, r in zip(points, resolutions, strict=True):
            for message in p.detail.get("messages", ()) if r.section else ():
                qualname, text = message if p.kind == "speculative-file" else (p.qualname, message)
                add(r.section, p.file, qualname, text)
        out: list[nodes.Node] = []
        for label in sorted(by_section):
            head = nodes.paragraph(classes=["interaction-messages-section"])
            head += nodes.Text("Explained in ")
            head += _ref(label)
            items = nodes.bullet_list(classes=["interaction-messages", "source-note"])
            for text, where in by_section[label]:
                para = nodes.paragraph()
                para += nodes.literal(text=text)
                para += nodes.Text(f" ({where})")
                items += nodes.list_item("", para)
            out += [head, items]
        return out or [nodes.paragraph(text="No function of the map raises or logs an unexplained message.")]


def _changes(first: str, changed: list[str], oldest: str) -> str:
    """``new in 0.5.16, changed in 0.5.18, 0.5.20`` (the part of a unit's line after its name)."""
    parts = [] if first == oldest else [f"new at this path in {first}"]
    if changed:
        parts.append("changed in " + ", ".join(changed))
    return "; ".join(parts)


class CodeHistory(_MapDirective):
    """The releases in which each unit of speculative code changed (``speccheck/data/code-history.json``,
    ``make code-history``), one list item per file: the file path (searchable), the section that explains
    it, then each unit that changed or arrived after the oldest release read as ``name: new at this path in
    R; changed in R1, R2``, then the rest as names. ``:files: speculative`` lists the files under
    ``sglang/srt/speculative/``, ``:files: other`` the rest. A unit's own section is named when it differs
    from its file's."""

    option_spec = {"files": lambda v: directives.choice(v, ("speculative", "other"))}

    def run(self) -> list[nodes.Node]:
        points, _, resolutions = self._data()
        self.env.note_dependency(str(code_history.OUT))
        data = code_history.load()
        oldest = data["releases"][0]
        section = {}  # (file, qualname) of a function point, or (file, "") of a speculative-file point
        for p, r in zip(points, resolutions, strict=True):
            if r.section and p.kind in ("reads-spec-state", "speculative-file"):
                section[(p.file, p.qualname if p.kind == "reads-spec-state" else "")] = r.section
        want_spec = self.options.get("files", "other") == "speculative"
        by_file: dict[str, list] = {}
        for file, qualname, first, changed in data["units"]:
            if file.startswith(code_history.SPECULATIVE_DIR) == want_spec:
                by_file.setdefault(file, []).append((qualname, first, changed))
        items = nodes.bullet_list(classes=["code-history", "source-note"])
        for file, units in by_file.items():
            own = [section.get((file, q)) for q, _, _ in units]
            home = section.get((file, ""))
            if not home and any(own):
                home = Counter(s for s in own if s).most_common(1)[0][0]
            head = nodes.paragraph()
            head += _searchable_name(file.removeprefix("sglang/"))
            if home:
                head += nodes.Text(": explained in ")
                head += _ref(home)
            body = nodes.paragraph()
            quiet = []
            for (qualname, first, changed), mine in zip(units, own, strict=True):
                when = _changes(first, changed, oldest)
                if not when:
                    quiet.append(qualname)
                    continue
                body += nodes.literal(text=qualname)
                body += nodes.Text(f": {when}")
                if mine and mine != home:
                    body += nodes.Text(" (")
                    body += _ref(mine)
                    body += nodes.Text(")")
                body += nodes.Text(". ")
            if quiet:
                body += nodes.Text(f"Unchanged since {oldest}: ")
                for i, qualname in enumerate(quiet):
                    body += nodes.literal(text=qualname)
                    body += nodes.Text(", " if i < len(quiet) - 1 else ".")
            items += nodes.list_item("", head, body)
        return [items]


def setup(app):
    app.add_directive("code-history", CodeHistory)
    app.connect("missing-reference", _keep_missing_as_text)
    app.add_directive("interaction-points", InteractionPoints)
    app.add_directive("interaction-summary", InteractionSummary)
    app.add_directive("interaction-messages", InteractionMessages)
    app.add_directive("interaction-models", InteractionModels)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
