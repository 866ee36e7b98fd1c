"""Messages about speculative decoding that earlier SGLang releases printed and the pinned one does not.

Usage::

    python -m speccheck.message_history [--cache DIR] [--out speccheck/data/message-history.json]
    make message-history

A reader on an older release or a nightly pastes an error that the pinned release no longer has: this
finds it. For every release unpacked in the wheel cache of ``make flag-history`` (read with
:func:`speccheck.behaviour.release_trees`, nothing imported, nothing downloaded), it collects the
messages (:func:`speccheck.errors.messages_in`: raise, assert with a text, logged warning) of

- every function under ``sglang/srt/speculative/``, and
- every function elsewhere under ``sglang/srt/`` whose text names speculative decoding
  (:data:`speccheck.errors.SPECULATIVE_TEXT`),

and keeps those whose normalized text (:func:`speccheck.errors.normalize`) the newest release read does
not print anywhere in that scope. Output: ``{"releases": [...], "messages": [{"text", "file", "function",
"first", "last"}]}``, one entry per normalized text, with the first and last release that printed it and
the file and function of its last appearance, sorted by text. The build only reads the written file.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

from speccheck import behaviour
from speccheck.errors import SPECULATIVE_TEXT, functions_of, messages_in, normalize

OUT = Path(__file__).resolve().parent / "data" / "message-history.json"


def tree_messages(tree: Path, speculative_dir_only: bool = False) -> list[tuple[str, str, str]]:
    """``[(text, file, function)]`` of every message in the scope of the module docstring, in file order, for
    one unpacked release (``tree`` holds ``sglang/``; the installed package's ``site-packages`` works too).

    :param speculative_dir_only: read ``sglang/srt/speculative/`` only (the messages the interaction map's
        ``speculative-file`` points hold; tests/test_interactions.py compares the two).
    A file that does not parse (Python newer than this interpreter) is skipped.
    """
    out: list[tuple[str, str, str]] = []
    root = tree / "sglang" / "srt" / ("speculative" if speculative_dir_only else "")
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(tree).as_posix()
        in_spec_dir = rel.startswith("sglang/srt/speculative/")
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
            if not in_spec_dir and not re.search(SPECULATIVE_TEXT, text):
                continue
            functions = functions_of(ast.parse(text))
        except SyntaxError:
            continue
        for qualname, func in functions.items():
            out += [(m.text, rel, qualname) for m in messages_in(func, rel, qualname)
                    if in_spec_dir or re.search(SPECULATIVE_TEXT, m.text)]
    return out


def release_messages(tree: Path) -> dict[str, tuple[str, str, str]]:
    """``{normalized text: (text, file, function)}`` of :func:`tree_messages`, first occurrence kept."""
    out: dict[str, tuple[str, str, str]] = {}
    for text, file, function in tree_messages(tree):
        out.setdefault(normalize(text), (text, file, function))
    return out


def history(trees: dict[str, Path]) -> dict:
    """The output described in the module docstring, from ``{release: tree}`` oldest first.

    :raises ValueError: ``trees`` is empty.
    """
    if not trees:
        raise ValueError("no release to read")
    releases = list(trees)
    seen: dict[str, dict] = {}
    newest: dict[str, tuple[str, str, str]] = {}
    for release, tree in trees.items():
        newest = release_messages(tree)
        for key, (text, file, function) in newest.items():
            entry = seen.setdefault(key, {"text": text, "first": release})
            entry.update(file=file, function=function, last=release)
    gone = [e for key, e in seen.items() if key not in newest]
    return {"releases": releases, "messages": sorted(gone, key=lambda e: e["text"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=behaviour.DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    trees = behaviour.history_trees(args.cache)
    if trees is None:
        return 1
    data = history(trees)
    args.out.write_text("\n".join(["{", f' "releases": {json.dumps(data["releases"])},', ' "messages": [', ''])
                        + ",\n".join("  " + json.dumps(m, sort_keys=True) for m in data["messages"])
                        + "\n ]\n}\n")
    print(f"wrote {args.out}: {len(data['messages'])} messages gone by {data['releases'][-1]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
