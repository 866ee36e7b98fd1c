"""Write the offline intersphinx inventory for SpecForge's documentation.

The build runs without a network, so the guide keeps SpecForge's inventory in
the repository. This script makes it from ``tools/specforge_pages.txt`` (the
page list of SpecForge's site for the pinned release) with the live site as the
base URL, so links in the built guide point at https://docs.sglang.ai/SpecForge/.

Usage: ``python tools/make_specforge_inventory.py [--check]``; ``--check`` exits 1
if the committed inventory differs from what the page list gives.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from speccheck.pinned import PINNED  # noqa: E402  (the checker package, installed by make venv)

PAGES = ROOT / "tools" / "specforge_pages.txt"
INVENTORY = ROOT / "docs" / "_inventories" / f"specforge-{PINNED['specforge']}.inv"


def read_pages(path: Path = PAGES) -> list[tuple[str, str]]:
    """Return ``[(docname, title), ...]`` from a ``docname | title`` list.

    :raises ValueError: a line without exactly one ``|`` or with an empty part,
        or a docname listed twice (the message names the file and line).
    """
    pages: list[tuple[str, str]] = []
    seen: set[str] = set()
    for lineno, raw in enumerate(path.read_text().splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in raw.split("|")]
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"{path}:{lineno}: expected 'docname | title', got {raw!r}")
        if parts[0] in seen:
            raise ValueError(f"{path}:{lineno}: page {parts[0]!r} is listed twice")
        seen.add(parts[0])
        pages.append((parts[0], parts[1]))
    return pages


def render_inventory(pages: list[tuple[str, str]], version: str) -> bytes:
    """Return a Sphinx objects.inv (format version 2) holding one ``std:doc`` entry a page.

    :param pages: ``(docname, title)`` pairs; URIs are ``docname.html``, relative to the base URL.
    :param version: the SpecForge release written into the header.
    """
    header = (
        "# Sphinx inventory version 2\n"
        "# Project: SpecForge\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    ).encode()
    body = "".join(f"{doc} std:doc -1 {doc}.html {title}\n" for doc, title in pages)
    return header + zlib.compress(body.encode(), 9)


def main(argv: list[str] | None = None) -> int:
    """Write the inventory, or with ``--check`` compare it; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed inventory is stale")
    args = parser.parse_args(argv)
    data = render_inventory(read_pages(), PINNED["specforge"])
    if args.check:
        if not INVENTORY.exists() or INVENTORY.read_bytes() != data:
            print(f"{INVENTORY.relative_to(ROOT)} is missing or stale: run python tools/make_specforge_inventory.py")
            return 1
        return 0
    INVENTORY.parent.mkdir(parents=True, exist_ok=True)
    INVENTORY.write_bytes(data)
    print(f"wrote {INVENTORY.relative_to(ROOT)} ({len(read_pages())} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
