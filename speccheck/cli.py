"""``speccheck FILE...`` / ``make check-commands FILE...``: check files without building the site.

Checks Markdown pages, notebooks and shell scripts (folders are searched for
``.md``, ``.myst`` text notebooks, ``.ipynb`` and ``.sh``) and prints one line per problem, compiler style::

    docs/how-to/eagle3.md:42: error: SGLang's parser rejects it: ... [unknown-flag]

in file and line order, then one summary line on standard error (``2 error(s), 1 warning(s),
1 undecided``). A command the check cannot decide here (a local file SGLang reads at start-up,
an expansion it cannot see) is reported with the severity ``undecided``; it fails nothing.
``-`` reads one pasted command from standard input. Exit status: 2 when a file cannot be
read (the other files are still checked), else 1 when an error was found (with ``--strict``:
an error or a warning), else 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from speccheck import check
from speccheck.diagnostics import ERROR, SEVERITIES, UNDECIDED, WARNING
from speccheck.pinned import substitute
from speccheck.shell import find_commands

SUFFIXES = (".md", ".myst", ".ipynb", ".sh")  # searched for in folders; a file named is read whatever its suffix


def files(paths: list[str]) -> list[Path]:
    """The files named, and those under the folders named (hidden and ``_`` folders skipped)."""
    out = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES
                          and not any(part.startswith((".", "_")) for part in p.relative_to(path).parts))
        else:
            out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the check on the command line's files; returns the exit status (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="check_commands", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="files (.md, .myst, .ipynb, .sh, any shell text), folders, or - for stdin")
    parser.add_argument("--strict", action="store_true", help="exit non-zero on warnings too")
    parser.add_argument("--list", action="store_true", help="also print every command found, as read")
    args = parser.parse_args(argv)
    counts = {ERROR: 0, WARNING: 0, UNDECIDED: 0}
    unreadable = False
    for path in files(args.paths):
        try:
            if str(path) == "-":
                text, suffix, name = sys.stdin.read(), ".sh", "<stdin>"
            else:
                text, suffix, name = substitute(path.read_text(encoding="utf-8")), path.suffix, str(path)
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{path}: error: cannot read it: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
            unreadable = True
            continue
        if args.list:
            try:
                blocks = check.source_blocks(text, suffix)
            except ValueError:  # not readable as its kind of file: the check below says so
                blocks = []
            for block in blocks:
                for cmd in find_commands(block):
                    cell = f": cell {block.cell}" if block.cell is not None else ""
                    print(f"{name}{cell}:{cmd.line}: note: read `{cmd.read}`")
        for d in check.check_source(text, suffix, name):
            print(f"{d} [{d.rule}]")
            counts[d.severity] = counts.get(d.severity, 0) + 1
    print(summary(counts), file=sys.stderr)
    if unreadable:
        return 2
    return 1 if counts[ERROR] or (args.strict and counts[WARNING]) else 0


def summary(counts: dict[str, int]) -> str:
    """One line: ``"2 error(s), 1 warning(s), 1 undecided"`` (only the non-zero ones), or ``"no problems"``.

    :param counts: ``{severity: number of diagnostics}``.
    """
    parts = [f"{counts[s]} {s}{'' if s == UNDECIDED else '(s)'}" for s in SEVERITIES if counts.get(s)]
    return ", ".join(parts) if parts else "no problems"

if __name__ == "__main__":
    raise SystemExit(main())
