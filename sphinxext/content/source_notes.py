"""Citations of the pinned SGLang and SpecForge source, set apart from the prose.

Two pieces, used together on every page:

- the role ``{source}`` cites one file of an installed pinned package, optionally
  one function, class or module-level name in it (``::name``, dotted for methods:
  ``::Class.method``) or a line range (``#L10-L20``)::

      {source}`sglang/srt/arg_groups/speculative_hook.py::_handle_eagle_family`
      {source}`the hook <sglang/srt/arg_groups/speculative_hook.py>`
      {source}`specforge/cli.py#L40-L60`

  The path starts with the package name (``sglang/`` or ``specforge/``) as it is
  installed in ``site-packages``. The role renders as a small link to the file at
  the pinned release on GitHub, inside ``<span class="source-note">``;
- the directive ``source-note`` holds the citations of a section (one short
  paragraph or list), rendered as a compact ``<aside class="source-note">`` that
  starts with "Source:". Running prose names what the reader sees and types;
  files and functions go here.

Each citation is resolved against the installed wheel at build time. A file
that does not exist, a name that the file does not define, or a line range past
the end of the file is a warning at the page and line of the citation (``-W``
turns it into a build failure), so a citation breaks the build as soon as the
pin moves past it.

Facts encoded here: the GitHub repositories and their tag names
(``v<version>``, e.g. ``v0.5.23`` and ``v0.2.0``) and where each package sits
in its repository (SGLang under ``python/``, SpecForge at the root).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from speccheck import filecache
from speccheck.pinned import PINNED

logger = logging.getLogger(__name__)

# package -> (repository URL, folder of the package's parent inside the repository)
REPOSITORIES = {
    "sglang": ("https://github.com/sgl-project/sglang", "python/"),
    "specforge": ("https://github.com/sgl-project/SpecForge", ""),
}
TARGET_RE = re.compile(r"^(?P<path>[\w./-]+?)(?:::(?P<name>[\w.]+))?(?:#L(?P<start>\d+)(?:-L(?P<end>\d+))?)?$")


class CitationError(ValueError):
    """A citation that does not resolve in the installed pinned package."""


@dataclass(frozen=True)
class Citation:
    """A resolved citation.

    :ivar package: ``"sglang"`` or ``"specforge"``.
    :ivar path: the file, relative to ``site-packages`` (``sglang/srt/server_args.py``).
    :ivar name: the cited function/class/name, or ``None``.
    :ivar lines: ``(first, last)`` line numbers (1-based) of the cited object or range, or ``None``.
    """

    package: str
    path: str
    name: str | None
    lines: tuple[int, int] | None

    @property
    def url(self) -> str:
        """The file (and lines) on GitHub at the pinned release's tag."""
        repo, prefix = REPOSITORIES[self.package]
        url = f"{repo}/blob/v{PINNED[self.package]}/{prefix}{self.path}"
        if self.lines:
            first, last = self.lines
            url += f"#L{first}" if first == last else f"#L{first}-L{last}"
        return url

    @property
    def label(self) -> str:
        """Short text: the file name, and the cited name after a middle dot."""
        short = self.path.rsplit("/", 1)[-1]
        return f"{short} · {self.name}" if self.name else short


@functools.cache
def package_dir(package: str) -> Path:
    """The installed package's folder, found without importing it.

    :raises CitationError: the package is not one of :data:`REPOSITORIES` or is not installed.
    """
    if package not in REPOSITORIES:
        raise CitationError(f"cite a file of {' or '.join(REPOSITORIES)}, not {package!r}")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise CitationError(f"{package} is not installed: run `make venv`")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def _definitions(file: Path) -> dict[str, tuple[int, int]]:
    """``{dotted name: (first line, last line)}`` of every def, class and assigned name in a file.

    Kept between builds (:func:`speccheck.filecache.cached`): parsing SGLang's large modules
    is most of the time a page with source citations takes to read.
    """

    def parse() -> dict[str, tuple[int, int]]:
        found: dict[str, tuple[int, int]] = {}

        def visit(body: list[ast.stmt], prefix: str) -> None:
            for stmt in body:
                names: list[str] = []
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names = [stmt.name]
                elif isinstance(stmt, ast.Assign):
                    names = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    names = [stmt.target.id]
                for name in names:
                    found.setdefault(prefix + name, (stmt.lineno, stmt.end_lineno or stmt.lineno))
                if isinstance(stmt, ast.ClassDef):
                    visit(stmt.body, f"{prefix}{stmt.name}.")
                elif isinstance(stmt, ast.If | ast.Try):  # guarded definitions at module level
                    visit(stmt.body + getattr(stmt, "orelse", []) + getattr(stmt, "finalbody", []), prefix)

        visit(ast.parse(file.read_text(encoding="utf-8")).body, "")
        return found

    return filecache.cached("definitions", file, parse)


def resolve(target: str) -> Citation:
    """Resolve ``path[::name][#Lfirst[-Llast]]`` against the installed pinned package.

    :param target: e.g. ``"sglang/srt/arg_groups/speculative_hook.py::_handle_eagle_family"``.
    :raises CitationError: with a message that says what does not exist in which release.
    """
    match = TARGET_RE.match(target.strip())
    if not match:
        raise CitationError(f"cannot read source citation {target!r}: expected 'package/path.py[::name][#L1-L2]'")
    path, name = match.group("path"), match.group("name")
    package = path.split("/", 1)[0]
    file = package_dir(package).parent / path
    release = f"{package} {PINNED.get(package, '?')}"
    if not file.is_file():
        raise CitationError(f"source citation: {release} has no file {path}")
    lines = None
    if name:
        if not path.endswith(".py"):
            raise CitationError(f"source citation: {path} is not a Python file; cite it without '::{name}'")
        lines = _definitions(file).get(name)
        if lines is None:
            raise CitationError(f"source citation: {path} in {release} defines no function, class or name {name!r}")
    if match.group("start"):
        first = int(match.group("start"))
        last = int(match.group("end") or first)
        length = len(file.read_text(encoding="utf-8").splitlines())
        if not 1 <= first <= last <= length:
            raise CitationError(f"source citation: lines {first}-{last} are outside {path} ({length} lines in {release})")
        lines = (first, last)
    return Citation(package, path, name, lines)


class SourceRole(SphinxRole):
    """``{source}`[text <]package/path.py[::name][#L1-L2][>]``: a small link to the pinned source."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        text, target = self.text, self.text
        explicit = re.fullmatch(r"(?s)(.*?)\s*<([^<>]+)>", self.text)
        if explicit:
            text, target = explicit.group(1), explicit.group(2)
        try:
            citation = resolve(target)
        except CitationError as error:
            logger.warning(str(error), location=self.get_location(), type="source", subtype="citation")
            return [nodes.literal(self.rawtext, target)], []
        link = nodes.reference(self.rawtext, "", refuri=citation.url, internal=False)
        link += nodes.literal(text=text if explicit else citation.label)
        return [nodes.inline("", "", link, classes=["source-note"])], []


class source_note(nodes.General, nodes.Element):
    """The block a ``source-note`` directive makes; HTML writes it as ``<aside class="source-note">``."""


class SourceNote(SphinxDirective):
    """``source-note``: the sources of a section, as a compact aside that starts with "Source:"."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        note = source_note(classes=["source-note"])
        self.set_source_info(note)
        label = nodes.strong(text="Source: ")
        content = self.parse_content_to_nodes()
        if content and isinstance(content[0], nodes.paragraph):
            content[0].insert(0, label)
        else:
            content.insert(0, nodes.paragraph("", "", label))
        note += content
        return [note]


def note_name(node: source_note, taken: set[str]) -> str:
    """A unique accessible name for a source note: ``Source: <title of its section>``.

    Asides are landmarks, and two landmarks of one role with the same name fail axe's
    ``landmark-unique`` rule; a page has one note per section or more. The name takes the
    title of the nearest enclosing section (``Source`` when there is none) and, when that
    name is already in ``taken`` (names given earlier on the same page), a counter:
    ``Source: Launch (2)``. The chosen name is added to ``taken``.

    :param node: the note, still in its document tree.
    :param taken: the names given so far on this page; updated in place.
    """
    parent = node.parent
    while parent is not None and not isinstance(parent, nodes.section):
        parent = parent.parent
    title = ""
    if parent is not None and parent.children and isinstance(parent[0], nodes.title):
        title = " ".join(parent[0].astext().split())
    base = f"Source: {title}" if title else "Source"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base} ({n})"
    taken.add(name)
    return name


def visit_source_note_html(self, node: source_note) -> None:
    taken = self.__dict__.setdefault("_source_note_names", set())  # one translator per page
    self.body.append(self.starttag(node, "aside", **{"aria-label": note_name(node, taken)}))


def depart_source_note_html(self, node: source_note) -> None:
    self.body.append("</aside>\n")


def visit_source_note_text(self, node: source_note) -> None:
    pass  # other writers (text, llms.txt) show the paragraphs as they are


def depart_source_note_text(self, node: source_note) -> None:
    pass


def setup(app):
    app.add_role("source", SourceRole())
    app.add_node(source_note, html=(visit_source_note_html, depart_source_note_html),
                 text=(visit_source_note_text, depart_source_note_text))
    app.add_directive("source-note", SourceNote)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
