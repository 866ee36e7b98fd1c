"""The ``field-reports`` directive: the public reports of the corpus that a section answers.

Usage (on a subsystem page, at the end of a section)::

    ```{field-reports}
    :section: ix-kv-memory
    ```

lists every entry of ``docs/_data/field-reports/*.yaml`` whose ``section`` equals the label, or starts with
it followed by ``-`` (so ``ix-kv-memory`` also lists reports filed under ``ix-kv-memory-radix``); with
``:exact:`` only equal labels count. Each report renders as a list item: its title linked to the thread, its
date, algorithm and status; under it the error it quotes, what was found (the entry's ``fix``) and its release
verdict, so that the list answers a reader who searched for the error. With no report it renders one sentence saying so (no warning: a section can be
complete before anyone has reported on it). Schema of the entries: tests/test_field_reports.py.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

CORPUS = "_data/field-reports"
# An entry's release verdict (speccheck/releases.py), as the list states it.
VERDICT_WORDS = {"fixed": "fixed in SGLang", "broken": "broken from SGLang", "added": "the answer applies from SGLang"}
ERROR_CHARS = 160  # longer error strings are cut (the thread has the whole message)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 1] + "…"


# libyaml's parser where PyYAML was built with it (the wheels are): the same objects as yaml.safe_load,
# about six times faster on the corpus, which every build reads.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.cache
def _parsed(text: str) -> tuple[dict, ...]:
    return tuple(yaml.load(text, Loader=LOADER) or [])


def corpus_file(path: Path) -> tuple[dict, ...]:
    """The entries of one corpus file (``yaml.safe_load``'s dicts), parsed once per process for each text
    the file has had. The dicts are shared between callers: read them, do not change them.

    :raises OSError: the file cannot be read. :raises yaml.YAMLError: it is not YAML.
    """
    return _parsed(path.read_text(encoding="utf-8"))


def reports_for(corpus_dir: Path, label: str, exact: bool = False) -> list[dict]:
    """The corpus entries (dicts, schema of tests/test_field_reports.py) whose ``section`` is ``label`` or,
    unless ``exact``, starts with ``label + "-"``; sorted by date (undated last), then URL."""
    out = []
    for path in sorted(corpus_dir.glob("*.yaml")):
        for entry in corpus_file(path):
            section = str(entry.get("section") or "")
            if section == label or (not exact and section.startswith(label + "-")):
                out.append(entry)
    return sorted(out, key=lambda e: (e.get("date") is None, str(e.get("date") or ""), e["url"]))


class FieldReports(SphinxDirective):
    """List the field reports behind a section (see the module docstring)."""

    option_spec = {"section": directives.unchanged_required, "exact": directives.flag}

    def run(self) -> list[nodes.Node]:
        corpus = Path(self.env.srcdir) / CORPUS
        for path in corpus.glob("*.yaml"):
            self.env.note_dependency(str(path))
        label = self.options["section"].strip()
        entries = reports_for(corpus, label, "exact" in self.options)
        if not entries:
            return [nodes.paragraph(text="No report of the guide's field-report corpus is filed under this "
                                         "section yet.")]
        items = nodes.bullet_list(classes=["field-reports"])
        for e in entries:
            para = nodes.paragraph(support_smartquotes=False)  # flags keep their two hyphens
            para += nodes.reference("", e["title"], refuri=e["url"])
            facts = [str(e["date"]) if e.get("date") else "undated", e.get("algorithm") or "any algorithm",
                     str(e["status"])]
            para += nodes.Text(f" ({', '.join(facts)})")
            item = nodes.list_item("", para)
            detail = nodes.paragraph(classes=["field-report-detail"], support_smartquotes=False)
            if e.get("error"):
                detail += [nodes.Text("Error: "), nodes.literal(text=_short(str(e["error"]))), nodes.Text(". ")]
            detail += nodes.Text(f"What was found: {str(e['fix']).strip()}")
            verdict = (e.get("release") or {}).get("verdict")
            if verdict and (e.get("release") or {}).get("change") in VERDICT_WORDS:
                detail += nodes.Text(f" ({VERDICT_WORDS[e['release']['change']]} {verdict}, read in the wheels.)")
            item += detail
            items += item
        return [items]


def setup(app):
    app.add_directive("field-reports", FieldReports)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
