"""Serve a built site on 127.0.0.1 and the settings that start Debian's Chromium here.

Used by the browser tests and by ``tools/bench.py``, so both load pages the same way.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
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


# Text files a static host (GitHub Pages, Read the Docs) sends gzip-compressed.
_COMPRESSED = (".html", ".css", ".js", ".json", ".svg", ".txt", ".xml")


class _HostLikeHandler(_QuietHandler):
    """Answer like a static web host: keep-alive, gzip for text, a short cache lifetime.

    Python's plain server sends every file uncompressed on a new connection, which makes
    a page look several times heavier to Lighthouse than it is once deployed.
    """

    protocol_version = "HTTP/1.1"

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")  # what GitHub Pages sends
        super().end_headers()

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?", 1)[0].endswith("/"):
            path = path / "index.html"
        if (path.suffix not in _COMPRESSED or not path.is_file()
                or "gzip" not in self.headers.get("Accept-Encoding", "")):
            return super().do_GET()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(http.server.ThreadingHTTPServer):
    """A threading server that lets a browser hang up: a closed connection is not an error.

    A browser cancels requests it no longer needs (a page left before its last image
    arrived); the default ``handle_error`` prints a ``BrokenPipeError`` traceback for each.
    """

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset, ConnectionAborted
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(directory: Path, host_like: bool = False, handler: type | None = None, prefix: str = "") -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1 (a free port) while the block runs.

    :param directory: the root of a built site, e.g. ``_build/html``.
    :param host_like: answer like a static web host (keep-alive, gzip-compressed text,
        ``Cache-Control``), for measuring load times; off, every file is sent as it is.
    :param handler: a :class:`http.server.SimpleHTTPRequestHandler` subclass to use instead
        (the browser tests pass one that serves under a path prefix with a 404 page).
    :param prefix: URL path appended to the base URL, e.g. ``/guide/``.
    :returns: the base URL, such as ``http://127.0.0.1:40123`` (plus ``prefix``).
    """
    handler = handler or (_HostLikeHandler if host_like else _QuietHandler)
    server = _Server(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
