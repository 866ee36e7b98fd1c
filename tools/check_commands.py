"""Check the commands, Python blocks and SpecForge configs of files without building the site.

Usage::

    .venv/bin/python tools/check_commands.py docs/how-to/eagle3.md [more files or folders ...] [--strict]
    make check-commands docs/how-to/eagle3.md scripts/serve.sh

Runs the same checks as the Sphinx build (the ``speccheck`` package, installed by
``make venv``) on Markdown pages, notebooks and shell files, and prints one line
per problem, ``file:line: error|warning: message [rule]``. Exit status 1 when an
error was found (``--strict``: also a warning), 0 otherwise; see ``speccheck.cli``.
"""

from __future__ import annotations

from speccheck.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
