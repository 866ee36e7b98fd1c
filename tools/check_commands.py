"""Check the commands, Python blocks and SpecForge configs of pages without building the site.

Usage::

    .venv/bin/python tools/check_commands.py docs/how-to/eagle3.md [more pages or folders ...]

Runs the same checks as the Sphinx build (``sphinxext/command_check.py``) on
``.md``, ``.myst`` (text notebooks) and ``.ipynb`` files (folders are searched recursively) and prints one
line per problem, ``file:line: message``. With ``--list`` it also prints every
command it found, so you can see what was checked. Exit status 1 when a problem
was found, 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sphinxext"))

import command_check  # noqa: E402  (sphinxext/command_check.py)


def pages(paths: list[str]) -> list[Path]:
    """The ``.md`` / ``.myst`` / ``.ipynb`` files named or found under the folders named (hidden and ``_`` folders skipped)."""
    out = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.suffix in (".md", ".myst", ".ipynb")
                          and not any(part.startswith((".", "_")) for part in p.relative_to(path).parts))
        else:
            out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="pages (.md, .myst, .ipynb) or folders")
    parser.add_argument("--list", action="store_true", help="also print every command found")
    args = parser.parse_args(argv)
    failed = 0
    for path in pages(args.paths):
        if args.list:
            for block in command_check.source_blocks(path.read_text(encoding="utf-8"), path.suffix):
                for cmd in command_check.find_commands(block):
                    print(f"{command_check.where(str(path), cmd.line, block.cell)}: found {cmd.entry} "
                          f"{' '.join(cmd.args)}")
        for problem in command_check.check_file(path):
            print(f"{problem.where(str(path))}: {problem.message}")
            failed += 1
    print(f"{failed} problem(s)" if failed else "no problems", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
