"""Drive the built site in Debian's Chromium: a local server, recorded page loads, and checks.

Shared by the browser tests (fixtures in ``conftest.py``). Nothing here reaches the
network: the server listens on 127.0.0.1, and every request for another host is
aborted before it leaves the browser and recorded, so a test can name it.

The site is served under the path of its published address (``site_url`` in
``conf.py``, e.g. ``/guide/``), and a missing file answers with ``404.html`` and
status 404, as the published site does, so the 404 page is tested where it is used.
"""

from __future__ import annotations

import ast
import http.server
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import site_server  # noqa: E402  (one server and Chromium set-up for tests and bench)
from site_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402,F401

# Folders of a build that hold assets, not pages.
ASSET_DIRS = {"_static", "_sources", "_images", "_downloads", ".doctrees"}


def site_prefix(conf: Path = ROOT / "conf.py") -> str:
    """The URL path the site is published under, from ``site_url = "..."`` in ``conf.py``.

    :returns: a path starting and ending with ``/`` (``/`` when the site is at a domain's root).
    :raises ValueError: ``conf.py`` assigns no string literal to ``site_url``.
    """
    for node in ast.parse(conf.read_text()).body:
        if (isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "site_url" for t in node.targets)
                and isinstance(node.value, ast.Constant)):
            path = urlsplit(node.value.value).path or "/"
            return path if path.endswith("/") else path + "/"
    raise ValueError(f"{conf} does not set site_url to a string")


def site_pages(html_dir: Path) -> list[str]:
    """Every HTML page of a build, as paths relative to ``html_dir`` (``how-to/eagle3.html``), sorted.

    Discovered from the files, so a new page is tested without being listed anywhere. The
    redirects left at the old address of a moved page are not pages (:func:`redirect_pages`).
    """
    from pagefind_search import is_redirect_page

    pages = []
    for path in html_dir.rglob("*.html"):
        rel = path.relative_to(html_dir)
        if not ASSET_DIRS.intersection(rel.parts) and not is_redirect_page(path.read_text(encoding="utf-8")):
            pages.append(rel.as_posix())
    return sorted(pages)


def redirect_pages(html_dir: Path) -> list[str]:
    """The redirects a build left at the old addresses of moved pages (``conf.py``: ``page_redirects``)."""
    from pagefind_search import is_redirect_page

    return sorted(p.relative_to(html_dir).as_posix() for p in html_dir.rglob("*.html")
                  if not ASSET_DIRS.intersection(p.relative_to(html_dir).parts)
                  and is_redirect_page(p.read_text(encoding="utf-8")))


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves ``directory`` under ``prefix``; a missing file gets ``404.html`` with status 404."""

    prefix = "/"

    def translate_path(self, path: str) -> str:
        url_path = urlsplit(path).path
        if not url_path.startswith(self.prefix):
            return str(Path(self.directory) / "_outside_the_site_")  # no such file: 404
        return super().translate_path("/" + url_path[len(self.prefix):])

    def send_error(self, code, message=None, explain=None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.exists():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, *args) -> None:  # keep test output readable
        pass


def serve(html_dir: Path, prefix: str | None = None):
    """Serve a built site on 127.0.0.1 (a free port) while the ``with`` block runs.

    :param html_dir: the build's HTML output, e.g. ``_build/html``.
    :param prefix: URL path to serve it under; defaults to :func:`site_prefix`.
    :returns: a context manager giving the site's base URL, ending in ``/``
        (``http://127.0.0.1:40123/guide/``); the server is ``tools/site_server.py``'s.
    """
    prefix = prefix or site_prefix()
    handler = type("Handler", (_SiteHandler,), {"prefix": prefix})
    return site_server.serve(html_dir, handler=handler, prefix=prefix)


def launch(playwright):
    """Start Debian's Chromium headless with the flags that work here (see ``tools/site_server.py``)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


@dataclass
class Visit:
    """What one page load did: every request, and everything that went wrong.

    ``external`` lists requests for any host other than the test server; they are
    aborted before leaving the browser, so they also appear in ``failed``.
    """

    url: str
    status: int | None = None
    requests: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)


def visit(page, url: str, *, expect_status: int = 200, timeout_ms: int = 30_000) -> Visit:
    """Load ``url`` in ``page`` until the network is idle and record what happened.

    :param page: a Playwright ``Page``; its earlier routes and listeners are left alone.
    :param url: an address on the test server.
    :param expect_status: the status the page itself should answer with (404 for the 404 page);
        any other status of the page, and any status >= 400 of its resources, is a failure.
    :param timeout_ms: limit for the load, in milliseconds.
    :returns: the :class:`Visit`.
    """
    record = Visit(url)
    own_host = urlsplit(url).netloc

    def is_local(request_url: str) -> bool:
        parts = urlsplit(request_url)
        return parts.scheme in {"data", "blob", "about"} or parts.netloc == own_host

    def block(route) -> None:
        record.external.append(route.request.url)
        route.abort("blockedbyclient")

    def on_response(response) -> None:
        if response.url == url or response.url.split("#")[0] == url.split("#")[0]:
            return  # the page itself: checked against expect_status below
        if response.status >= 400:
            record.failed.append(f"{response.status} {response.url}")

    page.route(lambda u: not is_local(u), block)
    page.on("request", lambda r: record.requests.append(r.url))
    page.on("requestfailed", lambda r: record.failed.append(f"{r.failure} {r.url}"))
    page.on("response", on_response)
    def on_console(message) -> None:
        if message.type not in {"error", "warning"}:
            return
        if expect_status != 200 and message.location.get("url") == url and "Failed to load" in message.text:
            return  # Chromium's note about the expected status of the page itself
        record.console.append(f"{message.type}: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda e: record.console.append(f"uncaught: {e}"))
    response = page.goto(url, wait_until="networkidle", timeout=timeout_ms)
    record.status = response.status if response else None
    if record.status != expect_status:
        record.failed.append(f"{record.status} {url} (expected {expect_status})")
    return record
