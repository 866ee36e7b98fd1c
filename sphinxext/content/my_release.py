"""The "my release" view: a reader picks the SGLang release they run and sees what differs from the pin.

A page opts in with the directive (MyST)::

    :::{my-release}
    :::

which writes a small form (a ``<select>`` of every release from 0.4.0 to the pin)
and an empty result region; ``_static/my-release.js`` fills it in the browser
from ``_static/my-release-data.js``, written by this extension after each HTML
build. That file sets ``window.SGLANG_MY_RELEASE`` to a JSON object:

- ``pin``: the pinned release (``requirements-pinned.txt``); ``releases``: every
  release of ``speccheck/data/flag-history.json`` up to the pin, oldest first, and the
  pin (the script fills the ``<select>`` from it, so no page spells a version out);
- ``reports``: each field-report corpus entry whose ``release`` block has a
  verdict in an SGLang release or ``not-released`` (``speccheck/releases.py``;
  SpecForge and other-project verdicts are not SGLang releases and are left out): its
  ``url``, ``title``, ``change`` (fixed, broken or added), ``verdict``, ``status`` and
  ``section`` (the site address of the section that answers it, relative to
  the site's root);
- ``flags``: the events of the flag history (flags and environment variables),
  each ``[name, release, change, detail]``.

Nothing is fetched: the data arrives as a script beside the page, and the
choice is kept in the address as ``?sglang=<release>`` so a link keeps it.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from speccheck import history as speccheck_history

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = ROOT / "docs" / "_data" / "field-reports"
HISTORY_FILE = ROOT / "speccheck" / "data" / "flag-history.json"
OUTPUT = "my-release-data.js"
RELEASED_VERDICTS_EXTRA = ("not-released",)  # shown as "in no release yet"

FORM = """<link rel="stylesheet" href="{root}_static/my-release.css">
<div class="my-release" id="my-release" data-root="{root}">
  <label for="my-release-select">Your SGLang release</label>
  <p class="my-release__help" id="my-release-help">Pick the release you run: the list below then shows the
  reports fixed after it, the breakages it already has and the flags that changed since. The choice is kept in
  this page's address.</p>
  <select id="my-release-select" name="sglang" aria-describedby="my-release-help"></select>
  <div class="my-release__out" data-out="results" aria-live="polite">
    <p>The list needs JavaScript: without it, compare your release with the tables of the release changes page.</p>
  </div>
</div>
<script src="{root}_static/my-release-data.js" defer></script>
<script src="{root}_static/my-release.js" defer></script>
"""


def history() -> dict:
    """The flag history (``speccheck/data/flag-history.json``): ``releases``, ``flags``, ``env``.

    Empty (no releases) where the file is missing, as in the test suite's copies of the project.
    """
    if not HISTORY_FILE.exists():
        return {"releases": [], "flags": {}, "env": {}}
    return json.loads(HISTORY_FILE.read_text(encoding="utf-8"))


def releases_to_pin(hist: dict, pin: str) -> list[str]:
    """The history's releases up to ``pin``, oldest first, ending with ``pin`` (added if the history stops before it)."""
    from packaging.version import Version

    found = [v for v in hist["releases"] if Version(v) <= Version(pin)]
    return found if found and found[-1] == pin else [*found, pin]


def corpus_entries() -> list[dict]:
    """Every entry of every corpus file, in file order."""
    entries = []
    for path in sorted(CORPUS_DIR.glob("*.yaml")):
        entries.extend(yaml.safe_load(path.read_text(encoding="utf-8")) or [])
    return entries


def flag_events(hist: dict) -> list[list]:
    """``[name, release, change, detail]`` for every event of the flag history, oldest release first.

    ``detail`` is the replacement (renamed, split, deprecated) or ``from -> to`` (default, choices),
    else "". Only events that can change a speculative user's command are listed
    (:func:`speccheck.history.matters`: for the flags other than ``--speculative-*``, a flag
    arriving or gaining choices is left out).
    """
    from packaging.version import Version

    events = []
    for kind in ("flags", "env"):
        for name, item in hist.get(kind, {}).items():
            for event in item.get("events", []):
                if event["change"] == "added" and event["release"] == hist["releases"][0]:
                    continue  # "present in the oldest release examined", not a change
                if not speccheck_history.matters(name, event):
                    continue
                if "into" in event:
                    detail = ", ".join(event["into"]) if isinstance(event["into"], list) else str(event["into"])
                elif "from" in event or "to" in event:
                    detail = f"{json.dumps(event.get('from'))} -> {json.dumps(event.get('to'))}"
                else:
                    detail = ""
                events.append([name, event["release"], event["change"], detail])
    return sorted(events, key=lambda e: (Version(e[1]), e[0]))


def page_data(section_uris: dict[str, str]) -> dict:
    """The object ``my-release.js`` reads (see the module docstring).

    :param section_uris: corpus ``section`` label -> address relative to the site root.
    :raises KeyError: an entry with a verdict names a section that is not a label.
    """
    from speccheck.pinned import PINNED

    hist = history()
    releases = releases_to_pin(hist, PINNED["sglang"])
    reports = []
    for entry in corpus_entries():
        block = entry.get("release") or {}
        verdict = block.get("verdict")
        if verdict not in releases and verdict not in RELEASED_VERDICTS_EXTRA:
            continue
        if not block.get("signature", {}).get("file", "").startswith("sglang/"):
            continue  # a SpecForge verdict: not an SGLang release
        reports.append({"url": entry["url"], "title": entry["title"], "change": block["change"],
                        "verdict": verdict, "status": entry["status"], "section": section_uris[entry["section"]]})
    flags = [f for f in flag_events(hist) if f[1] in releases]
    return {"pin": releases[-1], "releases": releases, "reports": reports, "flags": flags}


class MyRelease(nodes.General, nodes.Element):
    """Placeholder for the form; replaced by raw HTML (with the page's path to the root) when written."""


class MyReleaseDirective(SphinxDirective):
    has_content = False

    def run(self):
        self.env.note_dependency(str(HISTORY_FILE))
        return [MyRelease()]


def _render(app, doctree, docname) -> None:
    root = "../" * docname.count("/")
    for node in doctree.findall(MyRelease):
        node.replace_self(nodes.raw("", FORM.format(root=root), format="html"))


def _section_uris(app) -> dict[str, str]:
    labels = app.env.domaindata["std"]["labels"]
    out = {}
    for label, (docname, anchor, _) in labels.items():
        uri = app.builder.get_target_uri(docname)
        out[label] = f"{uri}#{anchor}" if anchor else uri
    return out


def _write(app, exception) -> None:
    if exception is not None or app.builder.format != "html" or not history()["releases"]:
        return
    from sphinx.errors import ExtensionError

    try:
        data = page_data(_section_uris(app))
    except Exception as exc:
        raise ExtensionError(f"my_release: cannot write {OUTPUT}: {exc!r}", modname=__name__) from exc
    out = Path(app.outdir) / "_static" / OUTPUT
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False).replace("</", "<\\/")
    out.write_text(f"window.SGLANG_MY_RELEASE = {text};\n", encoding="utf-8")


def setup(app):
    """Sphinx entry point: the ``my-release`` directive and the data file written after the HTML build."""
    app.add_node(MyRelease)
    app.add_directive("my-release", MyReleaseDirective)
    app.connect("doctree-resolved", _render)
    app.connect("build-finished", _write)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
