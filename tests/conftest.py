"""Shared fixtures: the built site, and one build of a tree of bad pages; the test tiers.

``make test`` builds the real site first; tests read it from ``$BUILDDIR/html``.
Bad-input tests share a single Sphinx build of ``tests/fixtures/pages/`` made in
a temporary copy of the project (the real tree is never touched): each fixture
page holds one mistake, and each test asserts the message that names its file
and line.

Every test gets its tier here (:func:`pytest_collection_modifyitems`), from what it
uses, so a new test file needs no marker: ``browser`` when it or a fixture it uses
needs Chromium, ``build`` when it or one of its fixtures runs Sphinx again.
``make test-fast`` leaves both out; ``make test`` runs everything.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The extensions' folders, one per concern, as conf.py puts them on sys.path.
EXTENSION_DIRS = [str(d) for d in sorted((ROOT / "sphinxext").glob("*/")) if not d.name.startswith("_")]
sys.path[:0] = EXTENSION_DIRS
FIXTURES = ROOT / "tests" / "fixtures"
BUILDDIR = ROOT / os.environ.get("BUILDDIR", "_build")
# Sphinx colours its output when CI=true (sphinx/_cli/util/colour.py); tests read that output as
# text, so every Sphinx they start writes it plain, on a terminal and in CI alike.
os.environ["NO_COLOR"] = "1"

# What a copy of the project needs besides its pages.
PROJECT_FILES = ["conf.py", "requirements-pinned.txt", "sphinxext", "tools"]
DOCS_SUPPORT = ["_static", "_templates", "_inventories"]


@pytest.fixture(scope="session")
def html_dir() -> Path:
    """The real site's HTML output, built by ``make html`` before the tests run."""
    out = BUILDDIR / "html"
    if not (out / "index.html").exists():
        pytest.fail(f"{out} has no index.html: run `make test`, which builds the site first")
    return out


@pytest.fixture(scope="session")
def site(html_dir) -> str:
    """Base URL of the built site, served on 127.0.0.1 under its published path (tests/browser.py)."""
    import browser

    with browser.serve(html_dir) as base:
        yield base


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium, headless, driven by Playwright for the whole session."""
    from playwright.sync_api import sync_playwright

    import browser

    with sync_playwright() as playwright:
        instance = browser.launch(playwright)
        yield instance
        instance.close()


@pytest.fixture
def page(chromium):
    """A fresh desktop-sized tab (own cookies and storage); actions time out after 15 s."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


@dataclass
class BuildResult:
    """A finished Sphinx build: exit code, combined output, and the source tree used."""

    returncode: int
    output: str
    srcdir: Path
    outdir: Path


def copy_project(dest: Path) -> Path:
    """Copy the project's configuration and extensions (no pages) to ``dest``; return its docs dir."""
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    docs = dest / "docs"
    docs.mkdir()
    for name in DOCS_SUPPORT:
        if (ROOT / "docs" / name).exists():
            shutil.copytree(ROOT / "docs" / name, docs / name)
    for extra in (ROOT / "docs").glob("*.bib"):
        shutil.copy2(extra, docs / extra.name)
    return docs


def sphinx_build(project: Path, *extra: str) -> BuildResult:
    """Run the same sphinx-build as ``make html`` on a copied project; never raises on failure."""
    outdir = project / "_build" / "html"
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(project), "-W", "--keep-going", "-n",
           *extra, str(project / "docs"), str(outdir)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=project, timeout=600)
    return BuildResult(proc.returncode, proc.stdout + proc.stderr, project / "docs", outdir)


def run_sphinx(args: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    """``python -m sphinx args`` with this environment's Python, output captured; never raises on failure.

    Tests that build call this (or :func:`sphinx_build`), which puts them in the ``build`` tier.
    """
    return subprocess.run([sys.executable, "-m", "sphinx", *args], cwd=cwd, capture_output=True, text=True,
                          **{"timeout": 1500, **kwargs})


@pytest.fixture(scope="session")
def bad_build(tmp_path_factory) -> BuildResult:
    """One build of every page in ``tests/fixtures/pages/`` in a temporary copy of the project."""
    project = tmp_path_factory.mktemp("bad-tree")
    docs = copy_project(project)
    shutil.copytree(FIXTURES / "pages", docs, dirs_exist_ok=True)
    return sphinx_build(project)


# -- Test tiers ----------------------------------------------------------------------

BROWSER_FIXTURES = {"chromium", "page", "site"}
# Names whose use means a browser without those fixtures: Playwright itself, and
# tools/search_eval.py, which drives Chromium through the search page.
BROWSER_NAMES = {"sync_playwright", "search_eval"}
# Test files whose builds run through `make`, which the code inspection below cannot see.
BUILD_FILES = {"test_bump_releases.py"}


_SPHINX_COMMAND = re.compile(r"^sphinx$|(^|\s)-m sphinx(\s|$)")


def _code_objects(func) -> list:
    """The code of ``func``, of every function nested in it, and of the module's functions it calls."""
    func = inspect.unwrap(func)
    module = sys.modules.get(getattr(func, "__module__", ""), None)
    start = getattr(func, "__code__", None)
    found, seen, todo = [], set(), [start] if start else []
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        found.append(current)
        todo += [c for c in current.co_consts if inspect.iscode(c)]
        for name in current.co_names if module is not None else ():
            called = getattr(module, name, None)
            if inspect.isfunction(called) and called.__module__ == module.__name__:
                todo.append(called.__code__)
    return found


def starts_a_build(func) -> bool:
    """Whether ``func`` runs Sphinx: it (or a function of its module that it calls) calls
    :func:`sphinx_build` or :func:`run_sphinx`, or builds a ``python -m sphinx`` command line."""
    for code in _code_objects(func):
        if {"sphinx_build", "run_sphinx"} & set(code.co_names):
            return True
        if any(isinstance(c, str) and _SPHINX_COMMAND.search(c) for c in code.co_consts):
            return True
    return False


def pytest_collection_modifyitems(config, items) -> None:
    """Mark each test ``browser`` and/or ``build`` from its own code and its fixtures' (see the module docstring)."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        funcs = [getattr(item, "function", None)]
        funcs += [d.func for name in names for d in definitions.get(name, ())]
        codes = [c for f in funcs if f is not None for c in _code_objects(f)]
        if names & BROWSER_FIXTURES or any(BROWSER_NAMES & set(c.co_names) for c in codes):
            item.add_marker(pytest.mark.browser)
        if item.path.name in BUILD_FILES or any(f is not None and starts_a_build(f) for f in funcs):
            item.add_marker(pytest.mark.build)
