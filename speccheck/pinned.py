"""The releases the guide documents, read from ``requirements-pinned.txt``.

That file is the single place where the SGLang and SpecForge versions are
stated: the Makefile installs them from it (``pip install --no-deps``), and
``conf.py`` and the tooling read them through :data:`PINNED`.

:func:`check_installed` stops the build when the installed packages are not the
pinned releases, because the command checks and generated reference pages read
the installed sources.
"""

from __future__ import annotations

import functools
import hashlib
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


@functools.cache
def checker_digest() -> str:
    """A digest of everything the checker's verdicts depend on besides what it checks.

    The pinned versions (and so the installed SGLang and SpecForge the parsers come from) and
    every file of the ``speccheck`` package, its data included (the rules, the flag history, the
    model table). Caches of results (``speccheck.check.ResultCache``, the "Check a command"
    page's data) are valid while it stays the same.
    """
    digest = hashlib.sha256(repr(sorted(PINNED.items())).encode())
    package = Path(__file__).resolve().parent
    for file in sorted(package.rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            digest.update(file.relative_to(package).as_posix().encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


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


#: The page substitutions: name -> value (``{{ sglang_version }}`` in a page's source).
SUBSTITUTIONS: dict[str, str] = {"sglang_version": PINNED["sglang"], "specforge_version": PINNED["specforge"]}
_REFERENCE = r"\{\{\s*(" + "|".join(map(re.escape, SUBSTITUTIONS)) + r")\s*\}\}"
# An inline code span that only shows the syntax (kept as written), or a reference to replace.
_TOKEN = re.compile(rf"(`{_REFERENCE}`)|{_REFERENCE}")


def substitute(text: str, values: dict[str, str] = SUBSTITUTIONS) -> str:
    """``text`` with each ``{{ name }}`` of ``values`` replaced by its value.

    Used by the Sphinx build (``sphinxext/content/pin_substitutions.py``) and by
    :func:`speccheck.check_file`, so both check the same text.

    :param text: a page's source (Markdown, or a notebook's JSON: the values hold no
        character that JSON escapes).
    :returns: the text; a code span that is exactly `` `{{ name }}` `` is kept.
    """

    def replace(match: re.Match) -> str:
        if match.group(1):
            return match.group(1)
        return values[match.group(3)]

    return _TOKEN.sub(replace, text)
