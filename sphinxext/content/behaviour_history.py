"""The ``behaviour-history`` and ``upgrade-notes`` directives.

``behaviour-history`` renders ``speccheck/data/behaviour-history.json`` (written by
``make behaviour-history`` from the signatures in ``speccheck/data/behaviour-changes.yaml``):
per kind of change, the release each change arrived in and the code signature that shows it::

    ```{behaviour-history}
    :kind: worker
    ```

``release-dates`` renders ``speccheck/data/release-dates.json`` (written by ``make release-dates``
from PyPI) as a table: each SGLang release the guide reads, the day it was published on PyPI, and
the day the next one was.

``message-history`` renders ``speccheck/data/message-history.json`` (``make message-history``): the
speculative messages of earlier releases that the pin no longer prints, with the releases that did.

``upgrade-notes`` renders, for the milestone releases of that YAML, one block per step
between consecutive milestones and one per milestone to the pin (``:part: steps`` or
``:part: to-pin``): the flags and variables a command must lose or rename, the behaviour
changes with what to do about them, changed defaults, and the field reports that name a
release in the step (:func:`speccheck.behaviour.upgrade_notes`). Nothing is read from the
network; the build only reads the JSON and YAML files.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

import doc_tables
from sglang_drift import _event_text
from speccheck import behaviour, sglang_args


def _evidence(change: dict) -> list[nodes.Node]:
    sig = change["signature"]
    files = sig["file"] if isinstance(sig["file"], list) else [sig["file"]]
    texts = sig["text"] if isinstance(sig["text"], list) else [sig["text"]]
    out: list[nodes.Node] = [nodes.Text(" Evidence: ")]
    for i, text in enumerate(texts):
        out += [nodes.Text(" or " if i else ""), nodes.literal(text=text)]
    out.append(nodes.Text(" is " + ("gone from " if sig.get("absent") else "in ")))
    for i, file in enumerate(files):
        out += [nodes.Text(", " if i else ""), nodes.literal(text=file)]
    return out


def _when(change: dict, oldest: str) -> str:
    release = change["release"]
    text = f"{release} (the oldest release read, or before)" if release == oldest else release
    if change.get("until"):
        text += f", until {change['until']}"
    return text


def _see(label: str) -> list[nodes.Node]:
    """`` (see <section>)``: a declared change's optional ``see`` label, the section that explains it."""
    ref = addnodes.pending_xref("", nodes.inline(text="where this is explained"), refdomain="std", reftype="ref",
                                reftarget=label, refexplicit=True, refwarn=True)
    return [nodes.Text(" ("), ref, nodes.Text(".)")]


def _item(*children: nodes.Node) -> nodes.list_item:
    return nodes.list_item("", nodes.paragraph("", "", *children, support_smartquotes=False))


def _load(directive: SphinxDirective) -> tuple[dict, dict, dict]:
    for path in (behaviour.HISTORY, behaviour.DECLARED, behaviour.FLAG_HISTORY):
        directive.env.note_dependency(str(path))
    if not behaviour.HISTORY.exists():
        raise directive.error(f"{behaviour.HISTORY} does not exist: run `make behaviour-history`")
    return (json.loads(behaviour.HISTORY.read_text(encoding="utf-8")), behaviour.load_declared(),
            json.loads(behaviour.FLAG_HISTORY.read_text(encoding="utf-8")))


class BehaviourHistory(SphinxDirective):
    """One kind of the behaviour history as a list, oldest change first."""

    option_spec = {"kind": lambda arg: directives.choice(arg, behaviour.KINDS)}

    def run(self) -> list[nodes.Node]:
        data, declared, _ = _load(self)
        see = {c["id"]: c["see"] for c in declared["changes"] if c.get("see")}
        releases = data["releases"]
        kind = self.options.get("kind", "worker")
        changes = sorted((c for c in data["changes"] if c["kind"] == kind),
                         key=lambda c: releases.index(c["release"]))
        rows = nodes.bullet_list(classes=["behaviour-history"])
        for change in changes:
            more = _see(see[change["id"]]) if change["id"] in see else []
            rows += _item(nodes.strong(text=_when(change, releases[0])), nodes.Text(": " + change["title"] + "."),
                          *more, *_evidence(change))
        return [rows] if len(rows) else [nodes.paragraph(text="None.")]


def _gone(name: str, event: dict) -> list[nodes.Node]:
    """A flag or variable a command must lose: ``--a renamed in 0.5.20: use --b``."""
    kind, release = event["change"], event["release"]
    out: list[nodes.Node] = [nodes.literal(text=name)]
    if kind == "removed" and not name.startswith("-"):  # a variable: its name left the code then
        return out + [nodes.Text(f" named by no code from {release} on (it may have been ignored earlier): "
                                 "delete it")]
    if kind == "removed":
        return out + [nodes.Text(f" removed in {release}: delete it")]
    if kind == "deprecated" and not event.get("into"):
        return out + [nodes.Text(f" deprecated in {release}: still accepted, with a warning")]
    if kind == "deprecated":
        out.append(nodes.Text(f" deprecated in {release} (still accepted, with a warning): use "))
        for i, new in enumerate(event["into"]):
            out += [nodes.Text(" or " if i else ""), nodes.literal(text=new)]
        return out
    out.append(nodes.Text(f" {kind} in {release}: use "))
    for i, new in enumerate(event.get("into", [])):
        out += [nodes.Text(" or " if i else ""), nodes.literal(text=new)]
    return out


def _by_release(changes: list[dict], releases: list[str]) -> list[dict]:
    return sorted(changes, key=lambda c: releases.index(c["release"]))


def _notes(low: str, high: str, notes: dict, releases: list[str], full: bool) -> list[nodes.Node]:
    """The blocks of one release pair: what to change, what starts or stops, defaults, reports."""
    out: list[nodes.Node] = []
    flags = notes["flags"]
    must = nodes.bullet_list()
    for name, event in flags["gone"] + flags["env_gone"]:
        must += _item(*_gone(name, event))
    out.append(nodes.paragraph(text="Flags and environment variables to change in your commands:" if len(must)
                               else "No flag or followed environment variable to change in your commands."))
    if len(must):
        out.append(must)
    behaviour_list = nodes.bullet_list()
    for change in _by_release(notes["behaviour"], releases):
        title = f"new algorithm {change['title']}" if change["kind"] == "algorithm" else change["title"]
        words = f": {title}." + (f" {change['upgrade']}" if change.get("upgrade") else "")
        if change.get("until"):
            words += f" (Undone in {change['until']}.)"
        behaviour_list += _item(nodes.strong(text=change["release"]), nodes.Text(words))
    for change in notes.get("undone", []):
        if change in notes["behaviour"]:
            continue
        behaviour_list += _item(nodes.strong(text=change["until"]),
                                nodes.Text(f": no longer so (since {change['release']}): {change['title']}."))
    if len(behaviour_list):
        out += [nodes.paragraph(text="What starts or stops working:"), behaviour_list]
    grouped: dict[str, list[dict]] = {}
    for name, event in flags["changed"]:
        grouped.setdefault(name, []).append(event)
    if full and grouped:
        changed = nodes.bullet_list()
        for name, events in grouped.items():
            what: list[nodes.Node] = [nodes.literal(text=name), nodes.Text(": ")]
            for i, event in enumerate(events):
                what += ([nodes.Text("; ")] if i else []) + _event_text(event, releases[0])
            changed += _item(*what)
        out += [nodes.paragraph(text="Defaults and choices that changed:"), changed]
    if full:
        reports = notes["reports"]
        if reports:
            listed = nodes.bullet_list()
            for report in reports:
                ref = nodes.reference("", report["url"].removeprefix("https://github.com/"), refuri=report["url"])
                listed += _item(ref, nodes.Text(f" (SGLang {report.get('sglang_version')}): {report['title']}"))
            out += [nodes.paragraph(text=f"Reports that name a release after {low} and up to {high}:"), listed]
        else:
            out.append(nodes.paragraph(text=f"No report in the corpus names a release after {low} and up to {high}."))
    return out


class UpgradeNotes(SphinxDirective):
    """Upgrade notes for the milestone releases (see the module docstring)."""

    option_spec = {"part": lambda arg: directives.choice(arg, ("steps", "to-pin"))}

    def run(self) -> list[nodes.Node]:
        data, declared, flags = _load(self)
        for folder_file in behaviour.REPORTS.glob("*.yaml"):
            self.env.note_dependency(str(folder_file))
        reports = behaviour.load_reports()
        milestones = behaviour.milestones(declared, data)
        pin = milestones[-1]
        part = self.options.get("part", "steps")
        pairs = (list(zip(milestones, milestones[1:], strict=False)) if part == "steps"
                 else [(m, pin) for m in milestones[:-1]])
        out: list[nodes.Node] = []
        pinned = sglang_args.pinned_parser().version
        if part == "steps" and pin != pinned:  # after a bump, until `make flag-history` and `make behaviour-history`
            out.append(nodes.paragraph(text=f"These notes end at SGLang {pin}, before {pinned}, the release this "
                                            "guide pins: `make bump` adds the newer releases."))
        for low, high in pairs:
            anchor = nodes.make_id(f"upgrade-{low}-to-{high}")
            out.append(nodes.rubric(text=f"From {low} to {high}", ids=[anchor]))
            out += _notes(low, high, behaviour.upgrade_notes(low, high, flags, data, reports), data["releases"],
                           part == "steps")
        return out


RELEASE_DATES = Path(__file__).resolve().parents[2] / "speccheck" / "data" / "release-dates.json"
MESSAGE_HISTORY = RELEASE_DATES.with_name("message-history.json")


class MessageHistory(SphinxDirective):
    """The messages about speculative decoding that earlier releases printed and the pin does not
    (``speccheck/data/message-history.json``, ``make message-history``): each as a literal with the
    releases that printed it and where, newest last release first."""

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(MESSAGE_HISTORY))
        data = json.loads(MESSAGE_HISTORY.read_text(encoding="utf-8"))
        order = {r: i for i, r in enumerate(data["releases"])}
        items = nodes.bullet_list(classes=["message-history", "source-note"])
        for m in sorted(data["messages"], key=lambda m: (-order[m["last"]], m["text"])):
            when = m["first"] if m["first"] == m["last"] else f"{m['first']} to {m['last']}"
            para = nodes.paragraph()
            para += nodes.literal(text=m["text"])
            para += nodes.Text(f" printed by {when}, last in {m['file'].removeprefix('sglang/')} "
                               f"({m['function']})")
            items += nodes.list_item("", para)
        return [items]


class ReleaseDates(SphinxDirective):
    """The SGLang releases with their PyPI publication dates, newest first, and the next release's date
    (the window in which a nightly or source build holds that release's changes and no later one's)."""

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(RELEASE_DATES))
        dates = json.loads(RELEASE_DATES.read_text())["sglang"]
        releases = list(dates)
        rows = []
        for i in range(len(releases) - 1, -1, -1):
            nxt = releases[i + 1] if i + 1 < len(releases) else None
            rows.append([nodes.paragraph("", "", nodes.literal(text=releases[i])), dates[releases[i]],
                         f"{dates[nxt]} ({nxt})" if nxt else "not released yet (newest release read)"])
        return [doc_tables.table(["Release", "On PyPI since", "Next release on PyPI"], rows, [10, 12, 20],
                                 classes=["release-dates", "colwidths-given"])]


def setup(app):
    app.add_directive("release-dates", ReleaseDates)
    app.add_directive("message-history", MessageHistory)
    app.add_directive("behaviour-history", BehaviourHistory)
    app.add_directive("upgrade-notes", UpgradeNotes)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
