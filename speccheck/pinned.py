"""The releases the guide documents, read from ``requirements-pinned.txt``.

That file is the single place where the SGLang and SpecForge versions are
stated: the Makefile installs them from it (``pip install --no-deps``), and
``conf.py`` and the tooling read them through :data:`PINNED`.

:func:`check_installed` stops the build when the installed packages are not the
pinned releases, because the command checks and generated reference pages read
the installed sources.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

PINNED_FILE = Path(__file__).resolve().parent.parent / "requirements-pinned.txt"


def read_pins(path: Path = PINNED_FILE) -> dict[str, str]:
    """Return ``{distribution name: version}`` from a requirements file.

    :param path: a file of ``name==version`` lines; ``#`` starts a comment.
    :raises ValueError: a line that is not an exact ``name==version`` pin
        (the message names the file and line).
    """
    pins: dict[str, str] = {}
    for lineno, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+-]+)", line)
        if not match:
            raise ValueError(f"{path}:{lineno}: expected an exact pin 'name==version', got {raw!r}")
        pins[match.group(1).lower()] = match.group(2)
    return pins


PINNED = read_pins()


def check_installed(pins: dict[str, str] = PINNED) -> None:
    """Fail unless each pinned distribution is installed at its pinned version.

    :raises RuntimeError: naming the distribution, the wanted and the found version,
        and the command that fixes it.
    """
    for name, wanted in pins.items():
        try:
            found = metadata.version(name)
        except metadata.PackageNotFoundError:
            found = None
        if found != wanted:
            raise RuntimeError(
                f"{PINNED_FILE.name} pins {name}=={wanted} but the environment has "
                f"{found or 'no ' + name}. Run `make venv` (it installs the pins with --no-deps)."
            )
