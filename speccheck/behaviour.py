"""When SGLang's speculative-decoding behaviour changed, established from the released wheels.

The flag history (``speccheck/data/flag-history.json``) dates what the parser
accepts; this module dates what a release *does*: which worker runs, which
defaults it picks, which environment variables it reads, which algorithms it
registers and which combinations it refuses at start-up.

Each change is declared by hand in ``speccheck/data/behaviour-changes.yaml``
with a *code signature*: literal text whose presence (or, with ``absent:
true``, whose disappearance) in a release's source marks the change::

    - id: max-running-requests-48
      kind: default          # one of KINDS
      title: "..."           # what changed, in the reader's words
      upgrade: "..."         # what a speculative user does about it (upgrade notes)
      signature:
        file: sglang/srt/arg_groups/speculative_hook.py   # a glob, or a list of globs
        text: "Max running requests is reset to 48"       # a string, or a list (any one counts)
        absent: false        # optional; true when the change REMOVES the text

:func:`history` reads every release unpacked in the wheel cache of
``make flag-history`` (``<cache>/sglang-<version>/sglang/...``) and writes, per
change, the first release from which the signature is in its changed state in
every later release up to the pin (:func:`verdict`). ``make behaviour-history``
runs it (``python -m speccheck.behaviour``); nothing here downloads, and the
build reads only the JSON it writes (``speccheck/data/behaviour-history.json``).

The same file names the releases of the upgrade notes (``milestones:``), which
:func:`upgrade_notes` fills from the two histories and the field-report corpus.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml
from packaging.version import InvalidVersion, Version

from speccheck.history import matters as flag_event_matters

# libyaml's parser where PyYAML has it: the objects of yaml.safe_load, several times faster on the corpus.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

DATA = Path(__file__).resolve().parent / "data"
DECLARED = DATA / "behaviour-changes.yaml"
HISTORY = DATA / "behaviour-history.json"
FLAG_HISTORY = DATA / "flag-history.json"
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = ROOT / "_build" / "sglang-wheels"
REPORTS = ROOT / "docs" / "_data" / "field-reports"

KINDS = ("worker", "default", "env", "algorithm", "validation")
KIND_TITLES = {
    "worker": "Speculative workers and overlap scheduling",
    "default": "Defaults chosen at start-up",
    "env": "Environment variables",
    "algorithm": "Algorithms",
    "validation": "Combinations refused at start-up",
}


@dataclass(frozen=True)
class Signature:
    """Literal text that marks a change in a release's source.

    :ivar files: globs relative to the unpacked release (``sglang/srt/server_args.py``,
        ``sglang/srt/speculative/*.py``).
    :ivar texts: the signature is present when any one of them occurs in any matching file.
    :ivar absent: the change removes the text: its changed state is "absent".
    """

    files: tuple[str, ...]
    texts: tuple[str, ...]
    absent: bool = False

    @classmethod
    def from_yaml(cls, raw: dict) -> Signature:
        """Build from the ``signature:`` mapping of the YAML.

        :raises ValueError: ``file`` or ``text`` is missing or empty.
        """
        files = raw.get("file")
        texts = raw.get("text")
        files = (files,) if isinstance(files, str) else tuple(files or ())
        texts = (texts,) if isinstance(texts, str) else tuple(texts or ())
        if not files or not texts or not all(files) or not all(texts):
            raise ValueError(f"a signature needs a file and a text: {raw!r}")
        return cls(files, texts, bool(raw.get("absent", False)))

    def as_dict(self) -> dict:
        """The JSON form: single values stay single."""
        out: dict = {"file": self.files[0] if len(self.files) == 1 else list(self.files),
                     "text": self.texts[0] if len(self.texts) == 1 else list(self.texts)}
        if self.absent:
            out["absent"] = True
        return out


def present(signature: Signature, tree: Path) -> bool:
    """Whether any of the signature's texts occurs in any of its files under ``tree``.

    :param tree: an unpacked release, holding ``sglang/``.
    """
    for pattern in signature.files:
        for path in sorted(tree.glob(pattern)):
            if path.is_file():
                text = path.read_text(encoding="utf-8", errors="replace")
                if any(t in text for t in signature.texts):
                    return True
    return False


def verdict(states: list[bool], releases: list[str], absent: bool) -> dict:
    """The release a change arrived in, from the signature's presence in each release.

    :param states: presence of the text in each release, oldest first (same length as ``releases``).
    :param absent: the change removes the text.
    :returns: ``{"release": R}`` where R is the first release of the last unbroken run of
        releases that show the change; ``R == releases[0]`` means "in the oldest release read
        or before". ``until`` is added when that run ends before the last release (the
        release that undid the change), ``first_seen`` when an earlier run showed it too.
        ``{"release": "not-released"}`` when no release shows the change; for a removal,
        ``{"release": None, "reason": ...}`` when the text occurs in no release at all.
    :raises ValueError: the lengths differ or there is no release.
    """
    if len(states) != len(releases) or not releases:
        raise ValueError("one state per release, and at least one release")
    if absent and not any(states):
        return {"release": None, "reason": "the text occurs in no release read: nothing was removed"}
    changed = [(not s) if absent else s for s in states]
    if absent:  # a removal counts only after the text was there
        changed = [c and any(states[:i]) for i, c in enumerate(changed)]
    if not any(changed):
        return {"release": "not-released"}
    end = len(changed) - 1 - changed[::-1].index(True)
    start = end
    while start > 0 and changed[start - 1]:
        start -= 1
    out: dict = {"release": releases[start]}
    if end < len(changed) - 1:
        out["until"] = releases[end + 1]
    first = changed.index(True)
    if first < start:
        out["first_seen"] = releases[first]
    return out


def history_trees(cache: Path) -> dict[str, Path] | None:
    """``{version: tree}`` of exactly the releases of the behaviour history (``HISTORY``), oldest first, so
    every generated history speaks of the same releases; ``None`` after printing to stderr which releases
    ``cache`` lacks (``make flag-history`` fills it)."""
    releases = json.loads(HISTORY.read_text(encoding="utf-8"))["releases"]
    trees = release_trees(cache)
    missing = [r for r in releases if r not in trees]
    if missing:
        print(f"the wheel cache {cache} lacks releases {missing}: run `make flag-history` first", file=sys.stderr)
        return None
    return {r: trees[r] for r in releases}


def release_trees(cache: Path, first: str | None = None, last: str | None = None) -> dict[str, Path]:
    """``{version: tree}`` of every release unpacked in ``cache``, oldest first.

    :param first, last: optional bounds (inclusive), as PyPI versions.
    """
    out = []
    for tree in cache.glob("sglang-*"):
        if not (tree.is_dir() and (tree / "sglang").is_dir()):
            continue
        try:
            version = Version(tree.name.removeprefix("sglang-"))
        except InvalidVersion:
            continue
        if (first and version < Version(first)) or (last and version > Version(last)):
            continue
        out.append((version, tree))
    return {str(v): t for v, t in sorted(out)}


def load_declared(path: Path = DECLARED) -> dict:
    """The hand-written YAML: ``{"changes": [...], "milestones": [release, ...]}``.

    :raises ValueError: an entry lacks ``id``, ``title`` or ``signature``, repeats an id,
        or has a ``kind`` outside :data:`KINDS`.
    """
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    seen = set()
    for entry in data["changes"]:
        for key in ("id", "kind", "title", "signature"):
            if not entry.get(key):
                raise ValueError(f"{path}: an entry lacks {key}: {entry!r}")
        if entry["kind"] not in KINDS:
            raise ValueError(f"{path}: {entry['id']}: kind {entry['kind']!r} is not one of {KINDS}")
        if entry["id"] in seen:
            raise ValueError(f"{path}: id {entry['id']} is declared twice")
        seen.add(entry["id"])
        Signature.from_yaml(entry["signature"])
    return data


def history(declared: dict, trees: dict[str, Path]) -> dict:
    """Date every declared change in the releases ``trees`` (``{version: tree}``, oldest first).

    :returns: ``{"releases": [...], "changes": [{id, kind, title, upgrade, signature,
        release, [until], [first_seen], [reason], present_in: [releases showing the text]}]}``.
    """
    releases = list(trees)
    changes = []
    for entry in declared["changes"]:
        signature = Signature.from_yaml(entry["signature"])
        states = [present(signature, trees[r]) for r in releases]
        changes.append({
            "id": entry["id"], "kind": entry["kind"], "title": entry["title"].strip(),
            "upgrade": (entry.get("upgrade") or "").strip(), "signature": signature.as_dict(),
            **verdict(states, releases, signature.absent),
            "present_in": [r for r, s in zip(releases, states, strict=True) if s],
        })
    return {"releases": releases, "changes": changes}


RELEASE_REFERENCE = re.compile(r"\{\{\s*(since|before|last):([A-Za-z0-9_.-]+)\s*\}\}")
# A code span holding nothing but a reference shows the syntax (contributing pages) and is kept.
_RELEASE_TOKEN = re.compile(r"`\{\{\s*(?:since|before|last):[A-Za-z0-9_.-]+\s*\}\}`|" + RELEASE_REFERENCE.pattern)


def substitute_releases(text: str, history_data: dict) -> str:
    """``text`` with each ``{{ since:ID }}``, ``{{ before:ID }}`` and ``{{ last:ID }}`` replaced by a release.

    A page that states a per-release range of a declared change writes it this way, so that
    ``make behaviour-history`` re-dates the page when the pin moves (one place per fact).

    :param text: a page's source.
    :param history_data: the JSON of :data:`HISTORY` (``{"releases": [...], "changes": [...]}``).
    :returns: ``since:ID`` -> the first release of the change's last run (``release``);
        ``before:ID`` -> the release just before that one (an error when ``since`` is the oldest
        release read); ``last:ID`` -> the last release showing it (the release before ``until``, else the newest
        release read).
    A code span holding nothing but a reference is kept as written.

    :raises ValueError: ``line N: ...`` for an unknown id, or a change with no release (never
        released, or a removal of text no release held).
    """
    releases = history_data["releases"]
    changes = {c["id"]: c for c in history_data["changes"]}

    def replace(match: re.Match) -> str:
        if match.group(0).startswith("`"):
            return match.group(0)
        part, ident = match.groups()
        line = text.count("\n", 0, match.start()) + 1
        change = changes.get(ident)
        if change is None:
            raise ValueError(f"line {line}: {match.group(0)} names no change of {DECLARED.name}")
        release = change.get("release")
        if release not in releases:
            raise ValueError(f"line {line}: {match.group(0)}: the change has no release ({release!r}); "
                             "see `make behaviour-history`")
        if part == "since":
            return release
        if part == "before":
            if releases.index(release) == 0:
                raise ValueError(f"line {line}: {match.group(0)}: the change is in the oldest release read")
            return releases[releases.index(release) - 1]
        return releases[releases.index(change["until"]) - 1] if change.get("until") else releases[-1]

    return _RELEASE_TOKEN.sub(replace, text)


def milestones(declared: dict, history_data: dict) -> list[str]:
    """The releases of the upgrade notes: the declared ``milestones`` older than the history's
    last release, then that release (the pin, once ``make behaviour-history`` has run after a bump).

    :raises ValueError: a milestone is not a release of the history.
    """
    releases = history_data["releases"]
    missing = [m for m in declared.get("milestones", []) if m not in releases]
    if missing:
        raise ValueError(f"milestones {missing} are not releases of the behaviour history")
    last = releases[-1]
    return [m for m in declared["milestones"] if Version(m) < Version(last)] + [last]


def _index(releases: list[str], release: str) -> int:
    return releases.index(release)


def in_range(release: str | None, releases: list[str], low: str, high: str) -> bool:
    """Whether ``release`` is after ``low`` and no later than ``high`` (the releases an upgrade brings)."""
    if release is None or release not in releases:
        return False
    return _index(releases, low) < _index(releases, release) <= _index(releases, high)


def _version(text) -> Version | None:
    """A report's ``sglang_version`` as a version (``"v0.5.6.post2"``, ``"0.5.9"``), else ``None``."""
    match = re.search(r"\d+\.\d+\.\d+(?:\.post\d+)?", str(text or ""))
    try:
        return Version(match.group(0)) if match else None
    except InvalidVersion:
        return None


def reports_between(reports: list[dict], low: str, high: str) -> list[dict]:
    """Field reports that name an SGLang release after ``low`` and up to ``high``, or that the
    release verdicts mark as broken in that range (``release: {change: broken, verdict: ...}``).

    :param reports: entries of ``docs/_data/field-reports/*.yaml``.
    """
    lo, hi = Version(low), Version(high)
    out = []
    for report in reports:
        named = _version(report.get("sglang_version"))
        rel = report.get("release") or {}
        broken = _version(rel.get("verdict")) if rel.get("change") == "broken" else None
        if (named and lo < named <= hi) or (broken and lo < broken <= hi):
            out.append(report)
    return sorted(out, key=lambda r: (_version(r.get("sglang_version")) or Version("0"), r["url"]))


def load_reports(folder: Path = REPORTS) -> list[dict]:
    """Every entry of the field-report corpus (each ``*.yaml`` is a list)."""
    out = []
    for path in sorted(folder.glob("*.yaml")):
        out += yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER) or []
    return out


def flag_changes_between(flag_history: dict, low: str, high: str) -> dict[str, list[tuple[str, dict]]]:
    """The flag and variable events an upgrade from ``low`` to ``high`` brings, grouped.

    :param flag_history: the data of ``speccheck/data/flag-history.json``.
    :returns: ``{"gone": [(name, event)], "added": [...], "changed": [...], "env_gone": [...],
        "env_added": [...]}``; ``gone`` holds ``removed``, ``renamed``, ``split`` and
        ``deprecated`` events (the ones a command must or should be edited for), ``changed``
        the ``default``/``choices`` ones; events that change no command
        (:func:`speccheck.history.matters`) are left out.
    """
    releases = flag_history["releases"]
    out: dict[str, list] = {"gone": [], "added": [], "changed": [], "env_gone": [], "env_added": []}
    for table, prefix in (("flags", ""), ("env", "env_")):
        for name, entry in flag_history.get(table, {}).items():
            for event in entry["events"]:
                if not in_range(event["release"], releases, low, high) or not flag_event_matters(name, event):
                    continue
                kind = event["change"]
                if kind in ("removed", "renamed", "split", "deprecated"):
                    out[prefix + "gone"].append((name, event))
                elif kind == "added":
                    out[prefix + "added"].append((name, event))
                elif not prefix:
                    out["changed"].append((name, event))
    return out


def upgrade_notes(low: str, high: str, flag_history: dict, behaviour: dict, reports: list[dict]) -> dict:
    """What changes for a speculative user between two releases.

    :param low, high: releases of both histories, ``low`` before ``high``.
    :returns: ``{"from", "to", "flags": flag_changes_between(...), "behaviour": [changes of the
        behaviour history that arrived in the range], "undone": [changes whose ``until`` release
        is in the range], "reports": reports_between(...)}``.
    :raises ValueError: a release is missing from a history, or ``low`` is not before ``high``.
    """
    for name, data in (("flag history", flag_history), ("behaviour history", behaviour)):
        for release in (low, high):
            if release not in data["releases"]:
                raise ValueError(f"{release} is not in the {name}")
    if Version(low) >= Version(high):
        raise ValueError(f"{low} is not before {high}")
    arrived = [c for c in behaviour["changes"] if in_range(c.get("release"), behaviour["releases"], low, high)]
    undone = [c for c in behaviour["changes"] if in_range(c.get("until"), behaviour["releases"], low, high)]
    return {"from": low, "to": high, "flags": flag_changes_between(flag_history, low, high),
            "behaviour": arrived, "undone": undone, "reports": reports_between(reports, low, high)}


def main(argv: list[str] | None = None) -> int:
    """``python -m speccheck.behaviour [--cache DIR] [--out FILE]``: write the behaviour history."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="the wheel cache of `make flag-history` (unpacked releases)")
    parser.add_argument("--declared", type=Path, default=DECLARED, help="the hand-written signatures (YAML)")
    parser.add_argument("--out", type=Path, default=HISTORY, help="the JSON file to write")
    args = parser.parse_args(argv)
    pinned = re.search(r"^sglang==(\S+)", (ROOT / "requirements-pinned.txt").read_text(), re.M).group(1)
    flag_releases = json.loads(FLAG_HISTORY.read_text(encoding="utf-8"))["releases"]
    trees = release_trees(args.cache, last=pinned)
    missing = [r for r in flag_releases if r not in trees]
    if not trees or pinned not in trees or missing:
        print(f"the wheel cache {args.cache} lacks releases {missing or [pinned]}: run `make flag-history` first",
              file=sys.stderr)
        return 1
    trees = {r: trees[r] for r in flag_releases}  # the same releases as the flag history
    data = history(load_declared(args.declared), trees)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for change in data["changes"]:
        print(f"  {change['id']}: {change['release']}{' (' + change['reason'] + ')' if change.get('reason') else ''}",
              file=sys.stderr)
    print(f"wrote {args.out}: {len(data['changes'])} changes over {len(data['releases'])} releases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
