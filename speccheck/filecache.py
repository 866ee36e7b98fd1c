"""Results computed from an installed source file, kept between runs.

The pinned wheels' sources do not change while ``.venv`` stays as it is, yet parsing the
large ones (``ast.parse`` of SGLang's ``server_args.py`` and its neighbours) is a large
part of a rebuild. A result is stored under :data:`CACHE_DIR`, keyed by what it is, the
file's path, size and modification time, and this Python's version.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# In the environment: a new .venv (new wheels) starts with an empty cache.
CACHE_DIR = Path(sys.prefix) / "speccheck-cache"


def cached(kind: str, path: str | Path, compute: Callable[[], Any]) -> Any:
    """``compute()``, or the value it gave last time for the same ``kind`` and the same file.

    :param kind: what the value is (e.g. ``"statements"``); different kinds never share an entry.
    :param path: the source file the value is computed from; its size and modification time
        (nanoseconds) are part of the key, so an edited or reinstalled file is computed again.
    :param compute: called without arguments when no entry matches. Its value must be one
        ``marshal`` can store (code objects, tuples, lists, dicts, strings, numbers).
    :returns: the value. A cache folder that cannot be read or written is ignored.
    :raises OSError: ``path`` does not exist (from ``os.stat``); whatever ``compute`` raises.
    """
    stat = os.stat(path)
    key = hashlib.sha256(f"{kind}|{path}|{stat.st_size}|{stat.st_mtime_ns}|{sys.version}".encode()).hexdigest()
    entry = CACHE_DIR / f"{key}.marshal"
    try:
        return marshal.loads(entry.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        pass
    value = compute()
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        scratch = entry.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_bytes(marshal.dumps(value))
        scratch.replace(entry)  # atomic: parallel builds never read half a file
    except (OSError, ValueError):
        pass
    return value
