"""Directives of the interaction map (docs/reference/interactions/): counts per subsystem and the model table.

Both read ``speccheck/data/interactions.json`` (written by ``make interactions`` from the pinned wheel) and
``speccheck/data/interactions-map.yaml`` (where each point is explained); a page that uses them is read again
when either file changes.

- ``interaction-summary`` (no options): a table with one row per subsystem: points, how many are mapped to a
  section, how many are marked no-user-visible-effect, and the sections they map to (as links);
- ``interaction-models`` (option ``:role:`` ``draft`` or ``target``): a table of the model classes with a
  draft or MTP path (kind ``model-class``): class, file, whether the module's ``EntryClass`` registers it
  (so ``architectures[0]`` of a checkpoint can name it) and the target-side hooks it defines.
"""

from __future__ import annotations

from collections import Counter

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.addnodes import pending_xref
from sphinx.util.docutils import SphinxDirective

from speccheck import interactions as ix

HOOK_MEANING = {
    "set_eagle3_layers_to_capture": "EAGLE-3 hidden-state capture",
    "get_embed_and_head": "shares embedding and LM head",
    "set_embed_and_head": "takes the target's embedding and LM head",
    "get_embed": "shares embedding",
    "set_embed": "takes the target's embedding",
}


def _table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["interaction-table"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for title in header:
        row += nodes.entry("", nodes.paragraph(text=title))
    head += row
    body = nodes.tbody()
    group += body
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += cell if isinstance(cell, nodes.Node) else nodes.paragraph(text=str(cell))
            row += entry
        body += row
    return table


def _ref(label: str) -> nodes.Node:
    xref = pending_xref("", refdomain="std", reftype="ref", reftarget=label, refexplicit=False, refwarn=True)
    xref += nodes.inline(text=label)
    return xref


class _MapDirective(SphinxDirective):
    def _data(self):
        self.env.note_dependency(str(ix.DATA_FILE))
        self.env.note_dependency(str(ix.MAPPING_FILE))
        return ix.load(), ix.load_mapping()


class InteractionSummary(_MapDirective):
    """Points per subsystem, mapped and marked (see the module docstring)."""

    def run(self) -> list[nodes.Node]:
        points, mapping = self._data()
        counts = ix.summary(points, mapping)
        sections: dict[str, Counter] = {}
        for p in points:
            r = ix.resolve(p, mapping)
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
        points, _ = self._data()
        role = self.options.get("role", "draft")
        rows = []
        for p in points:
            if p.kind != "model-class" or p.detail.get("role") != role:
                continue
            hooks = ", ".join(HOOK_MEANING.get(h, h) for h in p.detail.get("target_hooks", [])) or "none"
            rows.append([nodes.paragraph("", "", nodes.literal(text=p.qualname)),
                         nodes.paragraph("", "", nodes.literal(text=p.file.removeprefix("sglang/srt/models/"))),
                         "yes" if p.detail.get("registered") else "no", hooks])
        return [_table(["class", "file (sglang/srt/models/)", "registered", "target-side hooks"], rows,
                       [30, 30, 10, 30])]


def setup(app):
    app.add_directive("interaction-summary", InteractionSummary)
    app.add_directive("interaction-models", InteractionModels)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
