"""Serve a built site on 127.0.0.1 and the settings that start Debian's Chromium here.

Used by the browser tests and by ``tools/bench.py``, so both load pages the same way.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

# Debian's Chromium (package `chromium`); Playwright's own browser download is not used.
CHROMIUM = "/usr/bin/chromium"
# Flags that start it headless as root without reaching for Google's hosts.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test and benchmark output readable
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1 (a free port) while the block runs.

    :param directory: the root of a built site, e.g. ``_build/html``.
    :returns: the base URL, such as ``http://127.0.0.1:40123`` (no trailing slash).
    """
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
