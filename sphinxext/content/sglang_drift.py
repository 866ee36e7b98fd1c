"""The ``sglang-drift`` and ``flag-history`` directives of ``docs/reference/release-changes.md``.

``sglang-drift`` renders a comparison written by ``tools/sglang_drift.py``;
``flag-history`` renders ``speccheck/data/flag-history.json``
(``tools/flag_history.py``): per flag or environment variable, every release in
which it appeared, was renamed or split, changed its choices or default, or was
removed. Usage::

    ```{flag-history}
    :part: flags
    ```

``:part:`` is ``summary``, ``flags`` (the ``--speculative-*`` flags),
``companions`` (the other flags the history follows, listed when something
happened to them after they appeared; a sentence counts the rest) or ``env``. When the
history ends before the pinned SGLang (after a bump, until ``make flag-history``
runs), the summary says so.

The ``sglang-drift`` directive:

Usage in a MyST page::

    ```{sglang-drift} ../_data/sglang-drift.json
    :part: added
    ```

``:part:`` is one of ``summary``, ``added``, ``removed``, ``renamed``, ``changed``.
The JSON file is generated (``make sglang-drift``), never edited by hand; its
``to`` release must be the pinned SGLang, or the build stops, so the page cannot
describe a release the guide is not checked against. Flags that the pinned
release documents on the reference page link to their entries there.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

import check_command_page
from sglang_options import literal_list
from speccheck import sglang_args

PARTS = ("summary", "added", "removed", "renamed", "changed")


def _flag(name: str, linkable: set[str]) -> nodes.Node:
    literal = nodes.literal(text=name, classes=["option"])
    if name not in linkable:
        return literal
    ref = addnodes.pending_xref("", refdomain="std", reftype="option", reftarget=name, refexplicit=False,
                                refwarn=True)
    ref["std:program"] = sglang_args.PROG.replace(" ", "-")
    ref += literal
    return ref


def _table(header: list[str], rows: list[list[list[nodes.Node]]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["sglang-drift", "colwidths-given"])  # the HTML writer then sets <col> widths
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
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
            # SGLang's text as written: no "--" -> en dash or quote curling.
            row += nodes.entry("", nodes.paragraph("", "", *cell, support_smartquotes=False))
        body += row
    return table


def _change_text(key: str, change: dict) -> list[nodes.Node]:
    label = {"choices": "Choices", "aliases": "Other spellings", "default": "Default", "type": "Value type",
             "deprecated": "Deprecated", "name": "Main spelling"}.get(key, key)
    if "added" in change:
        out: list[nodes.Node] = [nodes.Text(f"{label}: ")]
        if change["added"]:
            out += [nodes.Text("added "), *literal_list(change["added"])]
        if change["removed"]:
            out += [nodes.Text("; " if change["added"] else ""), nodes.Text("removed "), *literal_list(change["removed"])]
        return out
    return [nodes.Text(f"{label}: "), nodes.literal(text=str(change["old"])), nodes.Text(" → "),
            nodes.literal(text=str(change["new"]))]


class SGLangDrift(SphinxDirective):
    """Render one part of a drift comparison (see the module docstring)."""

    required_arguments = 1
    option_spec = {"part": lambda arg: directives.choice(arg, PARTS)}

    def run(self) -> list[nodes.Node]:
        rel, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        self.env.note_dependency(rel)
        try:
            diff = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:  # a missing or unreadable file: say which, at the directive
            raise self.error(f"cannot read the drift comparison {self.arguments[0]}: {error}; "
                             "run `make release-changes` to write it") from error
        pinned = sglang_args.pinned_parser()
        if diff["to"] != pinned.version:
            raise self.error(f"{self.arguments[0]} compares up to SGLang {diff['to']}, but the guide pins "
                             f"{pinned.version}: run `make release-changes`")
        linkable = {name for o in sglang_args.spec_options(pinned) for name in (o.name, *o.aliases)}
        part = self.options.get("part", "summary")
        if part == "summary":
            counts = ", ".join(f"{len(diff[k])} {k}" for k in PARTS[1:])
            return [nodes.paragraph(text=f"SGLang {diff['from']} → {diff['to']}: {counts} speculative-decoding "
                                         f"flags (generated by {diff['generated_by']}).")]
        items = diff[part]
        if not items:
            return [nodes.paragraph(text="None.")]
        if part == "added":
            rows = [[[_flag(o["name"], linkable), nodes.Text(f" ({o['type']}, default "),
                      nodes.literal(text=o["default"]) if o["default"] is not None else nodes.Text("not set"),
                      nodes.Text(")")],
                     [nodes.Text(o["help"])]] for o in items]
            return [_table(["Flag", "SGLang's help text"], rows, [40, 60])]
        if part == "removed":
            rows = [[[nodes.literal(text=o["name"])], [nodes.Text(o["help"])]] for o in items]
            return [_table(["Flag", f"SGLang {diff['from']}'s help text"], rows, [35, 65])]
        if part == "renamed":
            rows = [[[nodes.literal(text=r["old"]["name"])], [_flag(r["new"]["name"], linkable)],
                     [nodes.Text(f"already deprecated in {diff['from']}" if r["old"]["deprecated"] else "")]]
                    for r in items]
            return [_table([f"{diff['from']} flag", f"{diff['to']} flag", "Note"], rows, [35, 35, 30])]
        rows = []
        for c in items:
            what: list[nodes.Node] = []
            for key, change in c["changes"].items():
                if what:
                    what.append(nodes.Text(". "))
                what += _change_text(key, change)
            rows.append([[_flag(c["name"], linkable)], what])
        return [_table(["Flag", "What changed"], rows, [35, 65])]


def _event_text(event: dict, first: str) -> list[nodes.Node]:
    """One event of the flag history as inline text: ``split into --a, --b in 0.5.21``."""
    release, change = event["release"], event["change"]
    if change == "added":
        return [nodes.Text(f"in {release} (the oldest release read)" if release == first else f"added in {release}")]
    if change == "removed":
        return [nodes.Text(f"removed in {release}")]
    if change == "renamed":
        return [nodes.Text("renamed to "), *literal_list(event["into"]), nodes.Text(f" in {release}")]
    if change == "split":
        return [nodes.Text("split into "), *literal_list(event["into"]), nodes.Text(f" in {release}")]
    if change == "deprecated":
        if not event.get("into"):
            return [nodes.Text(f"deprecated in {release} (still accepted, with a warning)")]
        return [nodes.Text(f"deprecated in {release} in favour of "), *literal_list(event["into"])]
    if change == "choices":
        old, new = event["from"] or [], event["to"] or []
        added, removed = [c for c in new if c not in old], [c for c in old if c not in new]
        out: list[nodes.Node] = [nodes.Text(f"choices in {release}: ")]
        if event["to"] is None:
            return out + [nodes.Text("any value accepted from then on")]
        if event["from"] is None:
            return out + [nodes.Text("restricted to "), *literal_list(new)]
        if added:
            out += [nodes.Text("added "), *literal_list(added)]
        if removed:
            out += [nodes.Text("; " if added else ""), nodes.Text("removed "), *literal_list(removed)]
        return out
    return [nodes.Text(f"default in {release}: "), nodes.literal(text=str(event["from"])), nodes.Text(" → "),
            nodes.literal(text=str(event["to"]))]


class FlagHistory(SphinxDirective):
    """Render one part of the flag history (see the module docstring)."""

    option_spec = {"part": lambda arg: directives.choice(arg, ("summary", "flags", "companions", "env"))}

    def run(self) -> list[nodes.Node]:
        path = check_command_page.HISTORY_FILE
        self.env.note_dependency(str(path))
        if not path.exists():
            raise self.error(f"{path} does not exist: run `make flag-history`")
        data = json.loads(path.read_text(encoding="utf-8"))
        releases = data["releases"]
        pinned = sglang_args.pinned_parser()
        part = self.options.get("part", "summary")
        if part == "summary":
            # Regenerating needs the network, so a bump of the pin does not fail the build: the page says so.
            behind = (f" It ends before SGLang {pinned.version}, the release this guide pins; `make flag-history` "
                      "adds the newer releases.") if releases[-1] != pinned.version else ""
            return [nodes.paragraph(text=f"{len(releases)} releases read, {releases[0]} to {releases[-1]}: "
                                         f"{len(data['flags'])} flags and {len(data['env'])} environment variables "
                                         f"(generated by tools/flag_history.py).{behind}")]
        linkable = {name for o in sglang_args.spec_options(pinned) for name in (o.name, *o.aliases)}
        if part == "env":
            items = data["env"]
        else:
            spec = part == "flags"
            items = {n: e for n, e in data["flags"].items() if ("speculative" in n) == spec}
        quiet = {n for n, e in items.items() if part == "companions" and len(e["events"]) == 1}
        rows = nodes.bullet_list(classes=["flag-history"])
        for name, entry in items.items():
            if name in quiet:
                continue
            what: list[nodes.Node] = []
            for event in entry["events"]:
                if what:
                    what.append(nodes.Text("; "))
                what += _event_text(event, releases[0])
            cell = _flag(name, linkable) if part != "env" else nodes.literal(text=name)
            # SGLang's names as written: no "--" -> en dash.
            # An anchor per flag, linked from the "Check a command" page (check-command.js: historyAnchor).
            rows += nodes.list_item("", nodes.paragraph("", "", cell, nodes.Text(": "), *what,
                                                        support_smartquotes=False),
                                    ids=[nodes.make_id(f"flag-history-{name}")])
        out: list[nodes.Node] = [rows] if len(rows) else [nodes.paragraph(text="None.")]
        if quiet:
            since_first = sum(items[n]["events"][0]["release"] == releases[0] for n in quiet)
            out.append(nodes.paragraph(text=f"{len(quiet)} more flags have no recorded change after they appeared "
                                            f"({since_first} of them already in {releases[0]}, the oldest release "
                                            "read): no rename, removal or deprecation, and no change of choices "
                                            "or default."))
        return out


def setup(app):
    app.add_directive("sglang-drift", SGLangDrift)
    app.add_directive("flag-history", FlagHistory)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
