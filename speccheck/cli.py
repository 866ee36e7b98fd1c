"""``speccheck FILE...`` / ``make check-commands FILE...``: check files without building the site.

Checks Markdown pages, notebooks and shell scripts (folders are searched for
``.md``, ``.myst`` text notebooks, ``.ipynb`` and ``.sh``) and prints one line per problem, compiler style::

    docs/how-to/eagle3.md:42: error: SGLang's parser rejects it: ... [unknown-flag]

in file and line order. ``-`` reads one pasted command from standard input. Exit
status: 1 when an error was found (with ``--strict``: an error or a warning), 2 for a
file that cannot be read, else 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from speccheck import check
from speccheck.diagnostics import ERROR
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
    errors = warnings = 0
    for path in files(args.paths):
        try:
            if str(path) == "-":
                text, suffix, name = sys.stdin.read(), ".sh", "<stdin>"
            else:
                text, suffix, name = path.read_text(encoding="utf-8"), path.suffix, str(path)
        except OSError as exc:
            print(f"{path}: error: cannot read it: {exc.strerror}", file=sys.stderr)
            return 2
        if args.list:
            for block in check.source_blocks(text, suffix):
                for cmd in find_commands(block):
                    cell = f": cell {block.cell}" if block.cell is not None else ""
                    print(f"{name}{cell}:{cmd.line}: note: read `{cmd.read}`")
        for d in check.check_source(text, suffix, name):
            print(f"{d} [{d.rule}]")
            errors += d.severity == ERROR
            warnings += d.severity != ERROR
    print(f"{errors} error(s), {warnings} warning(s)" if errors or warnings else "no problems", file=sys.stderr)
    return 1 if errors or (args.strict and warnings) else 0


if __name__ == "__main__":
    raise SystemExit(main())
