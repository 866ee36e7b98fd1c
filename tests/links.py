"""Check every internal link and ``#fragment`` of a built site, from its HTML files alone.

Sphinx checks the cross-references it makes, but not links written as raw HTML in a
page, nor what templates and extensions add; this reads the finished HTML of every
page instead. External links are checked by ``make linkcheck`` (it needs a network).
"""

from __future__ import annotations

import functools
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from browser import site_pages, site_prefix

# Attributes that point at another file of the site.
LINK_ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src", "source": "src",
              "iframe": "src", "video": "src", "audio": "src", "object": "data"}


@functools.cache
def _anchors(path: Path) -> frozenset[str]:
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    ids = {tag["id"] for tag in soup.find_all(id=True)}
    ids |= {tag["name"] for tag in soup.find_all("a", attrs={"name": True})}
    return frozenset(ids)


def broken_links(html_dir: Path, prefix: str | None = None) -> list[str]:
    """Check every internal link of every page in a build, including raw HTML in pages.

    A link is internal when it has no scheme and no host. It must name a file that
    exists in the build (a folder means its ``index.html``), and its ``#fragment``, if
    any, must be an ``id`` (or ``<a name>``) in the target page. ``href="#"`` is a
    script hook, not a link, and is skipped. External links are ``make linkcheck``'s job.
    An absolute path must lie under the site's ``prefix`` (default :func:`site_prefix`):
    only ``404.html`` uses them, because it is served at any missing address.

    :returns: one line per problem, ``page: <a href="link"> ...what is wrong``; empty when all resolve.
    """
    prefix = prefix or site_prefix()
    problems = []
    for rel in site_pages(html_dir):
        page = html_dir / rel
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for tag_name, attr in LINK_ATTRS.items():
            for tag in soup.find_all(tag_name, attrs={attr: True}):
                link = tag[attr].strip()
                parts = urlsplit(link)
                if parts.scheme or parts.netloc or link in {"", "#"}:
                    continue
                if parts.path.startswith("/") and not parts.path.startswith(prefix):
                    problems.append(f"{rel}: <{tag_name} {attr}=\"{link}\"> is outside the site's path {prefix}")
                    continue
                if parts.path.startswith("/"):
                    target = html_dir / unquote(parts.path[len(prefix):])
                else:
                    target = page if not parts.path else (page.parent / unquote(parts.path))
                target = Path(posixpath.normpath(target.as_posix()))
                if target.is_dir():
                    target = target / "index.html"
                if not target.is_file():
                    problems.append(f"{rel}: <{tag_name} {attr}=\"{link}\"> points to a missing file")
                    continue
                fragment = unquote(parts.fragment)
                if fragment and target.suffix == ".html" and fragment not in _anchors(target):
                    problems.append(f"{rel}: <{tag_name} {attr}=\"{link}\"> has no #{fragment} "
                                    f"in {target.relative_to(html_dir).as_posix()}")
    return problems
