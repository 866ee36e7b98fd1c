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
  ``url``, ``title``, ``change`` (fixed, broken or added), ``verdict``, ``status``,
  ``algorithm`` (the ``--speculative-algorithm`` value the report is about, MTP
  written as NEXTN, or null when it is about no one algorithm) and ``section`` (the
  site address of the section that answers it, relative to the site's root);
- ``algorithms``: the algorithms of ``reports``, in :data:`ALGORITHM_ORDER` (the
  choices of the algorithm filter);
- ``flags``: the events of the flag history (flags and environment variables),
  each ``[name, release, change, detail]``.

The script sorts the reports into five lists for the chosen release: fixed in a
later release, broken in it or earlier, answers that need a later release
(``added``, or ``added`` in no release), flags changed after it, and fixes in no
release. A breakage in no release (only on SGLang's main branch) affects no
release and is not listed. The algorithm filter keeps the reports about the
chosen algorithm and those about none; flag events are not filtered.

Nothing is fetched: the data arrives as a script beside the page, and the
choices are kept in the address as ``?sglang=<release>&algorithm=<name>`` so a
link keeps them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

import field_reports
from speccheck import history as speccheck_history

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = ROOT / "docs" / "_data" / "field-reports"
HISTORY_FILE = ROOT / "speccheck" / "data" / "flag-history.json"
OUTPUT = "my-release-data.js"
STYLESHEETS = (ROOT / "docs" / "_static" / "widget.css", ROOT / "docs" / "_static" / "my-release.css")
RELEASED_VERDICTS_EXTRA = ("not-released",)  # shown as "in no release yet"
# The corpus' algorithm names (tests/test_field_reports.py: ALGORITHMS) as a reader passes them to
# --speculative-algorithm: reports say MTP for what the pinned SGLang calls NEXTN (FACTS.md, spec_registry.py).
ALGORITHM_ALIASES = {"MTP": "NEXTN"}
ALGORITHM_ORDER = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO")

FORM = """<link rel="stylesheet" href="{root}_static/widget.css">
<link rel="stylesheet" href="{root}_static/my-release.css">
<div class="widget my-release" id="my-release" data-root="{root}" data-level="{level}">
  <p class="widget__help" id="my-release-help">Pick the release you run, and the algorithm if you want
  only its reports: the lists below then show the fixes that arrived after your release, the breakages it
  already has, the answers that need a newer release, the flags that changed since and the fixes in no
  release yet. The choices are kept in this page's address.</p>
  <div class="my-release__choices">
    <div class="my-release__choice">
      <label for="my-release-select">Your SGLang release</label>
      <select id="my-release-select" name="sglang" aria-describedby="my-release-help"></select>
    </div>
    <div class="my-release__choice">
      <label for="my-release-algorithm">Speculative algorithm</label>
      <select id="my-release-algorithm" name="algorithm" aria-describedby="my-release-help"></select>
    </div>
  </div>
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
    """Every entry of every corpus file, in file order (:func:`field_reports.corpus_file`: parsed once per process)."""
    entries = []
    for path in sorted(CORPUS_DIR.glob("*.yaml")):
        entries.extend(field_reports.corpus_file(path))
    return entries


def _choices_detail(before, after) -> str:
    """What a ``choices`` event changed: ``"adds a, b; drops c"`` for two lists, else ``from -> to`` in JSON."""
    if not (isinstance(before, list) and isinstance(after, list)):
        return f"{json.dumps(before)} -> {json.dumps(after)}"
    added = [c for c in after if c not in before]
    dropped = [c for c in before if c not in after]
    parts = ([f"adds {', '.join(map(str, added))}"] if added else []) + (
        [f"drops {', '.join(map(str, dropped))}"] if dropped else [])
    return "; ".join(parts) or "reorders the choices"


def flag_events(hist: dict) -> list[list]:
    """``[name, release, change, detail]`` for every event of the flag history, oldest release first.

    ``detail`` is the replacement (renamed, split, deprecated), what a ``choices`` event adds and
    drops (``"adds a, b; drops c"``), ``from -> to`` in JSON (default), else "". Only events that
    can change a speculative user's command are listed (:func:`speccheck.history.matters`: for the
    flags other than ``--speculative-*``, a flag arriving or gaining choices is left out).
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
                elif event["change"] == "choices":
                    detail = _choices_detail(event.get("from"), event.get("to"))
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
        algorithm = ALGORITHM_ALIASES.get(entry["algorithm"], entry["algorithm"])
        reports.append({"url": entry["url"], "title": entry["title"], "change": block["change"],
                        "verdict": verdict, "status": entry["status"], "algorithm": algorithm,
                        "section": section_uris[entry["section"]]})
    named = {r["algorithm"] for r in reports} - {None}
    algorithms = [a for a in ALGORITHM_ORDER if a in named] + sorted(named - set(ALGORITHM_ORDER))
    flags = [f for f in flag_events(hist) if f[1] in releases]
    return {"pin": releases[-1], "releases": releases, "reports": reports, "algorithms": algorithms, "flags": flags}


class MyRelease(nodes.General, nodes.Element):
    """Placeholder for the form; replaced by raw HTML (with the page's path to the root) when written."""


class MyReleaseDirective(SphinxDirective):
    has_content = False

    def run(self):
        self.env.note_dependency(str(HISTORY_FILE))
        for stylesheet in STYLESHEETS:  # written into the page (page_scripts.py)
            self.env.note_dependency(str(stylesheet))
        return [MyRelease()]


def _render(app, doctree, docname) -> None:
    root = "../" * docname.count("/")
    for node in doctree.findall(MyRelease):
        # The lists' headings sit one level below the section holding the view (h3 under an h2).
        depth = sum(1 for parent in _ancestors(node) if isinstance(parent, nodes.section))
        level = min(depth + 1, 6)
        node.replace_self(nodes.raw("", FORM.format(root=root, level=level), format="html"))


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def _section_uris(app) -> dict[str, str]:
    labels = app.env.domaindata["std"]["labels"]
    out = {}
    for label, (docname, anchor, _) in labels.items():
        uri = app.builder.get_target_uri(docname)
        out[label] = f"{uri}#{anchor}" if anchor else uri
    return out


def inputs_key(section_uris: dict[str, str]) -> str:
    """A digest of everything :func:`page_data` reads, so an unchanged build keeps the file it wrote: the
    checker's inputs (:func:`speccheck.pinned.checker_digest`: the pin, the flag history and the code that
    filters it), every corpus file, the section addresses and this module."""
    from speccheck.pinned import checker_digest

    digest = hashlib.sha256(f"{checker_digest()}|{json.dumps(section_uris, sort_keys=True)}".encode())
    for path in sorted(CORPUS_DIR.glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def _write(app, exception) -> None:
    """Write the data file after an HTML build; skipped when its inputs (:func:`inputs_key`) and the
    written file are unchanged, and the file is left alone when the data came out the same (its
    modification time, which browsers and caches see, does not move)."""
    if exception is not None or app.builder.format != "html" or not HISTORY_FILE.exists():
        return
    from sphinx.errors import ExtensionError

    out = Path(app.outdir) / "_static" / OUTPUT
    stamp = Path(app.doctreedir) / (OUTPUT + ".key")
    try:
        section_uris = _section_uris(app)
        key = inputs_key(section_uris)
        if out.exists() and stamp.exists() and stamp.read_text() == key:
            return
        if not history()["releases"]:
            return
        data = page_data(section_uris)
    except Exception as exc:
        raise ExtensionError(f"my_release: cannot write {OUTPUT}: {exc!r}", modname=__name__) from exc
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False).replace("</", "<\\/")
    content = f"window.SGLANG_MY_RELEASE = {text};\n".encode()
    if not (out.exists() and out.read_bytes() == content):  # the same data: the file (and its date) stays
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(content)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(key)


def setup(app):
    """Sphinx entry point: the ``my-release`` directive and the data file written after the HTML build."""
    app.add_node(MyRelease)
    app.add_directive("my-release", MyReleaseDirective)
    app.connect("doctree-resolved", _render)
    app.connect("build-finished", _write)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
