"""The generated reference pages say what SGLang's own parsers say, and nothing else.

``reference/server-arguments.md`` is rendered from the pinned SGLang's parser
(``sphinxext/content/sglang_options.py``); ``reference/release-changes.md`` from the JSON
that ``tools/sglang_drift.py`` writes (``sphinxext/content/sglang_drift.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import sglang_drift  # noqa: E402
from speccheck import sglang_args  # noqa: E402
from speccheck.pinned import PINNED  # noqa: E402

PINNED_SGLANG = PINNED["sglang"]

DRIFT = ROOT / "docs" / "_data" / "sglang-drift.json"


def entries(html_dir) -> dict[str, dict[str, str]]:
    """``{primary flag: {field name: text}}`` for every option entry on the server-arguments page."""
    soup = BeautifulSoup((html_dir / "reference" / "server-arguments.html").read_text(), "html.parser")
    out = {}
    for desc in soup.select("dl.std.option"):
        flag = desc.select_one("dt .sig-name").get_text()
        fields = {}
        for name in desc.select("dd dl.field-list > dt"):
            fields[name.get_text().strip().rstrip(":")] = name.find_next_sibling("dd").get_text(" ", strip=True)
        out[flag] = fields
    return out


def test_the_reference_lists_exactly_the_spec_namespace(html_dir):
    documented = {flag for flag, fields in entries(html_dir).items() if fields.get("Namespace") == "spec"}
    declared = {o.name for o in sglang_args.spec_options(sglang_args.pinned_parser())}
    assert documented == declared


def test_every_documented_flag_is_in_the_parser(html_dir):
    known = {o.name for o in sglang_args.options(sglang_args.pinned_parser())}
    assert set(entries(html_dir)) <= known


def test_defaults_and_choices_on_the_page_are_the_parsers(html_dir):
    page = entries(html_dir)
    for option in sglang_args.options(sglang_args.pinned_parser()):
        if option.name not in page:
            continue
        shown = page[option.name]
        assert shown["Default"] == (option.default if option.default is not None else "not set"), option.name
        if option.choices:
            assert shown["Choices"].split(" , ") == list(option.choices), option.name


def test_a_flag_has_a_stable_anchor_other_pages_can_link_to(html_dir):
    html = (html_dir / "reference" / "server-arguments.html").read_text()
    assert 'id="cmdoption-sglang-serve-speculative-eagle-topk"' in html


def test_the_release_changes_page_shows_every_change_in_the_data(html_dir):
    diff = json.loads(DRIFT.read_text())
    text = BeautifulSoup((html_dir / "reference" / "release-changes.html").read_text(), "html.parser").get_text()
    names = [o["name"] for o in diff["added"] + diff["removed"]] + [r["old"]["name"] for r in diff["renamed"]]
    names += [c["name"] for c in diff["changed"]]
    assert names and all(name in text for name in names)


def test_the_committed_drift_data_is_what_the_tool_writes(tmp_path):
    """Re-runs ``tools/sglang_drift.py`` (installs SGLang 0.5.14 into _build/ from the package index once)."""
    diff = json.loads(DRIFT.read_text())
    try:
        old_site = sglang_drift.install(diff["from"], sglang_drift.DEFAULT_CACHE)
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"SGLang {diff['from']} could not be installed from the package index: {exc}")
    fresh = sglang_drift.compare(sglang_drift.dump(old_site), sglang_drift.dump(sglang_drift.install(diff["to"],
                                                                                                   tmp_path)))
    assert fresh == diff, f"run `make release-changes` (FROM=0.5.14 TO={PINNED_SGLANG}) and commit the JSON"
