"""Each of the checker's Sphinx adapters, on a small test site built with ``sphinx.testing``.

The adapters are thin: ``command_check`` turns :mod:`speccheck` diagnostics into build
warnings, ``sglang_options`` registers the ``sglang-options`` directive and ``sglang_drift``
the ``sglang-drift`` directive. One site (a page per adapter) is built once in a temporary
folder; each test asserts what its adapter put into the HTML or the warnings.
"""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from sphinx.testing.util import SphinxTestApp

from conftest import EXTENSION_DIRS, ROOT
from speccheck import sglang_args

EXTENSIONS = ["myst_parser", "command_check", "sglang_options", "sglang_drift"]
DRIFT = ROOT / "docs" / "_data" / "sglang-drift.json"

PAGES = {
    "index.md": "# Test site\n\n```{toctree}\ncommands\noptions\ndrift\n```\n",
    "commands.md": (
        "# Commands\n\n```bash\nsglang serve Qwen/Qwen3-8B \\\n  --speculative-algorithm EAGLE2\n```\n\n"
        "```bash\nsglang serve Qwen/Qwen3-8B --dp-size 2 --enable-dp-attention\n```\n"
    ),
    "options.md": (
        "# Options\n\n```{eval-rst}\n.. sglang-options::\n   :flags: --speculative-eagle-topk --page-size\n```\n"
    ),
    "drift.md": "# Drift\n\n```{sglang-drift} sglang-drift.json\n:part: renamed\n```\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    src = tmp_path_factory.mktemp("adapters") / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path[:0] = {EXTENSION_DIRS!r}  # the adapters\n"
        f"extensions = {EXTENSIONS!r}\n"
        "myst_enable_extensions = ['colon_fence']\n"
    )
    for name, text in PAGES.items():
        (src / name).write_text(text)
    data = json.loads(DRIFT.read_text())
    (src / "sglang-drift.json").write_text(json.dumps(data))
    # tools/sglang_drift.py shares the adapter's module name; a test that imported it must not shadow it.
    shadow = {n: sys.modules.pop(n) for n in ("sglang_drift", "sglang_options", "command_check") if n in sys.modules}
    app = SphinxTestApp("html", srcdir=src)
    try:
        app.build()
        yield app
    finally:
        app.cleanup()
        sys.modules.update(shadow)
        shutil.rmtree(src.parent, ignore_errors=True)


def html(app, page: str) -> str:
    return (app.outdir / f"{page}.html").read_text(encoding="utf-8")


def test_command_check_reports_each_diagnostic_as_a_warning_at_its_line(site):
    warnings = site.warning.getvalue()
    assert "commands.md:5: ERROR: SGLang" in warnings  # the line of the flag
    assert "Unknown speculative algorithm name: EAGLE2" in warnings and "[command.unknown-algorithm]" in warnings
    assert "commands.md:9: WARNING: --enable-dp-attention is deprecated" in warnings


def test_sglang_options_documents_the_pinned_parsers_options(site):
    page = html(site, "options")
    assert 'id="cmdoption-sglang-serve-speculative-eagle-topk"' in page
    assert 'id="cmdoption-sglang-serve-page-size"' in page
    topk = next(o for o in sglang_args.options(sglang_args.pinned_parser()) if o.name == "--speculative-eagle-topk")
    assert topk.help.split(".")[0] in page


def test_sglang_drift_renders_the_renamed_flags_of_the_data(site):
    page = html(site, "drift")
    data = json.loads(DRIFT.read_text())
    for r in data["renamed"]:
        assert r["old"]["name"] in page and r["new"]["name"] in page
    assert "sglang-drift" in page  # the table's class


def test_a_directive_for_a_flag_the_release_lacks_stops_with_an_error(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(f"import sys\nsys.path[:0] = {EXTENSION_DIRS!r}\n"
                                 "extensions = ['myst_parser', 'sglang_options']\n")
    (src / "index.md").write_text("# X\n\n```{eval-rst}\n.. sglang-options::\n   :flags: --no-such-flag\n```\n")
    shadow = {n: sys.modules.pop(n) for n in ("sglang_options",) if n in sys.modules}
    app = SphinxTestApp("html", srcdir=src)
    try:
        app.build()
        assert "parser has no option --no-such-flag" in app.warning.getvalue()
    finally:
        app.cleanup()
        sys.modules.update(shadow)


def test_own_line_takes_each_occurrence_once():
    import xref_lines

    lines = ["Intro {ref}`a` and", "again {ref}`a`.", "{doc}`b`"]
    taken: set = set()
    assert [xref_lines.own_line(lines, 1, "ref", "a", taken) for _ in range(3)] == [1, 2, None]
    assert xref_lines.own_line(lines, 1, "doc", "b", taken) == 3


def test_the_entry_points_read_once_are_the_installed_ones():
    # quick_rebuilds gives pybtex and sphinxcontrib-bibtex entry points read once per process.
    import importlib.metadata

    import quick_rebuilds

    for group in ("pybtex.style.formatting", "sphinxcontrib.bibtex.style.referencing", "sphinx.html_themes"):
        expected = sorted((ep.name, ep.value) for ep in importlib.metadata.entry_points(group=group))
        assert expected, f"no entry point in {group}: the check would prove nothing"
        assert sorted((ep.name, ep.value) for ep in quick_rebuilds.entry_points(group=group)) == expected
    found = quick_rebuilds.entry_points(group="pybtex.style.formatting", name="plain")
    assert [ep.name for ep in found] == ["plain"]
