"""The error-message reference: extracted from the pinned SGLang, every message explained, shown verbatim.

Covers :mod:`speccheck.errors` (the extractor), ``docs/_data/error-messages.yaml``
(the explanations), ``sphinxext/content/error_messages_ref.py`` (the directive and its build
checks), and the field reports in ``docs/_data/field-reports/errors.yaml`` that the
error and feature-combination pages link to.
"""

from __future__ import annotations

import re
from datetime import date
from fnmatch import fnmatch
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, ROOT
from speccheck import errors as em
from speccheck.pinned import PINNED
from test_commands import assert_warns

EXPLANATIONS = ROOT / "docs" / "_data" / "error-messages.yaml"
REPORTS = ROOT / "docs" / "_data" / "field-reports" / "errors.yaml"
FAKE_ROOT = FIXTURES / "pages" / "_data" / "fake-site-packages"
FAKE_FILE = FAKE_ROOT / "sglang" / "srt" / "speculative" / "fake_hook.py"
MY_PAGES = [*sorted((ROOT / "docs" / "reference").glob("error-messages*.md")),
            ROOT / "docs" / "reference" / "feature-combinations.md"]
# The reference is a hub page and the pages it lists, all named reference/error-messages*.
ERROR_DOCS = ("reference/error-messages", "reference/error-messages-startup", "reference/error-messages-features",
              "reference/error-messages-algorithms", "reference/error-messages-runtime")


@pytest.fixture(scope="module")
def messages() -> list[em.Message]:
    return em.extract()


@pytest.mark.parametrize("entry", em.SCOPE, ids=lambda e: e.pattern)
def test_the_extractor_finds_messages_in_each_listed_file(messages, entry):
    found = [m for m in messages if fnmatch(m.file, entry.pattern)]
    assert found, f"no message extracted from {entry.pattern}"


def test_the_extractor_finds_all_three_kinds(messages):
    assert {m.kind for m in messages} == {"raise", "assert", "warning"}


def test_fstring_fields_are_kept_as_their_expression(messages):
    # speculative_hook.py: raise ValueError(f"--speculative-draft-window-size must be positive, got {window_size}.")
    texts = {m.text for m in messages if m.function == "handle_speculative_decoding"}
    assert "--speculative-draft-window-size must be positive, got {window_size}." in texts


def test_the_fake_module_yields_one_message_of_each_kind_with_its_line():
    found = em.extract(FAKE_ROOT, (em.Scope("**/*.py"),))
    lines = FAKE_FILE.read_text().splitlines()
    got = {(m.function, m.kind, m.exception, m.text) for m in found}
    assert got == {
        ("check_steps", "raise", "ValueError", "--speculative-num-steps must be positive, got {steps}."),
        ("check_topk", "assert", "AssertionError", "speculative_eagle_topk must be at least 1"),
        ("check_window", "warning", "logger.warning",
         "The fixture draft window is never explained by the fixture YAML."),
    }
    for m in found:
        assert m.file == "sglang/srt/speculative/fake_hook.py"
        assert re.search(r"\b(raise|assert|logger\.warning)\b", lines[m.line - 1]), (m.line, lines[m.line - 1])


def test_startup_mode_reads_the_constructor_and_what_it_calls_not_other_methods(tmp_path):
    module = tmp_path / "sglang" / "srt" / "speculative" / "toy_worker.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "def helper():\n"
        "    raise RuntimeError('helper called from start-up')\n"
        "class Worker:\n"
        "    def __init__(self):\n"
        "        self._setup()\n"
        "    def _setup(self):\n"
        "        helper()\n"
        "        raise ValueError('setup failed')\n"
        "    def forward(self):\n"
        "        raise ValueError('only at run time')\n"
    )
    found = em.extract(tmp_path, (em.Scope("sglang/srt/speculative/*worker*.py", "startup"),))
    assert {m.text for m in found} == {"helper called from start-up", "setup failed"}


def test_a_scope_entry_that_matches_no_file_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no file matches sglang/srt/gone.py"):
        em.extract(tmp_path, (em.Scope("sglang/srt/gone.py"),))


def test_the_scope_reads_the_validation_of_every_registered_algorithm(messages):
    # speculative_hook.py: one _handle_<algorithm> per algorithm with its own start-up rules.
    functions = {m.function for m in messages if m.file.endswith("speculative_hook.py")}
    for handler in ("_handle_eagle_family", "_handle_ngram", "_handle_dflash", "_handle_dspark", "_handle_uno",
                    "_handle_frozen_kv_mtp", "_handle_iquest_q1_mtp_draft"):
        assert handler in functions, handler


def test_the_scope_reads_the_start_up_of_the_workers_in_subfolders(messages):
    files = {m.file for m in messages}
    assert "sglang/srt/speculative/dspark_components/dspark_worker_v2.py" in files
    assert "sglang/srt/speculative/uno_worker_v2.py" in files


def test_each_exclusion_gives_a_reason_and_names_something_that_exists(messages):
    keys = set(em.by_key(messages))
    root = em.site_packages()
    exclusions = em.load_exclusions(EXPLANATIONS)
    assert exclusions, "the data lists no exclusion: say so in the page instead of deleting this test"
    for e in exclusions:
        assert len(e["excluded"].split()) >= 5, e  # a reason, not a word
        assert set(e["keys"]) <= keys, e
        if e["path"]:
            pattern, _, function = e["path"].partition("::")
            files = [p for p in root.glob(pattern) if p.is_file()]
            assert files, e["path"]
            assert not function or any(re.search(rf"^\s*def {function.rsplit('.', 1)[-1]}\(", f.read_text(), re.M)
                                       for f in files), e["path"]


def test_an_excluded_path_is_really_outside_the_scope():
    root = em.site_packages()
    scoped = {rel for rel, _ in em.scoped_files(root)}
    for e in em.load_exclusions(EXPLANATIONS):
        if e["path"] and "::" not in e["path"]:
            matched = {p.relative_to(root).as_posix() for p in root.glob(e["path"])}
            assert not matched & scoped, (e["path"], sorted(matched & scoped))


def test_an_exclusion_without_a_reason_is_an_error(tmp_path):
    data = tmp_path / "e.yaml"
    data.write_text("- path: sglang/srt/x.py\n  excluded: ''\n")
    with pytest.raises(ValueError, match="lacks excluded"):
        em.load_explanations(data)


def test_update_appends_a_skeleton_per_new_message_and_reports_stale_keys(tmp_path):
    data = tmp_path / "e.yaml"
    data.write_text("- keys: [gone::f::old text]\n  group: g\n  cause: c\n  fix: f\n")
    found = em.extract(FAKE_ROOT, (em.Scope("**/*.py"),))
    added, stale = em.update(data, found)
    assert stale == ["gone::f::old text"]
    assert {m.key for m in added} == {m.key for m in found}
    entries = yaml.safe_load(data.read_text())
    assert [e["keys"] for e in entries[1:]] == [[m.key] for m in added]
    assert all(e["cause"] == "" for e in entries[1:])


def test_every_extracted_message_has_an_explanation_and_every_explanation_a_message(messages):
    unexplained, stale = em.compare(messages, em.accounted_keys(EXPLANATIONS))
    assert not unexplained, [f"{m.file}:{m.line} {m.text}" for m in unexplained]
    assert not stale, stale


def test_every_explanation_names_an_existing_label():
    labels = set()
    for page in (ROOT / "docs").rglob("*.md"):
        labels |= set(re.findall(r"^\(([\w-]+)\)=", page.read_text(encoding="utf-8"), re.M))
    missing = [e["see"] for e in em.load_explanations(EXPLANATIONS) if e.get("see") and e["see"] not in labels]
    assert not missing, missing


def _pages(html_dir: Path) -> list:
    from bs4 import BeautifulSoup

    return [BeautifulSoup((html_dir / f"{doc}.html").read_text(encoding="utf-8"), "html.parser") for doc in ERROR_DOCS]


def _shown_messages(messages: list[em.Message]) -> list[em.Message]:
    """The extracted messages the pages must show: all but those the data excludes by key."""
    excluded = {k for e in em.load_exclusions(EXPLANATIONS) for k in e["keys"]}
    return [m for m in messages if m.key not in excluded]


def test_the_built_pages_show_each_message_verbatim_in_a_literal_block(html_dir, messages):
    blocks = {pre.get_text().rstrip("\n") for page in _pages(html_dir) for pre in page.select("div.error-message pre")}
    missing = [m.text for m in _shown_messages(messages) if m.text.rstrip("\n") not in blocks]
    assert not missing, missing


def test_each_exclusion_is_listed_on_the_hub_with_its_reason(html_dir):
    text = " ".join(_pages(html_dir)[0].get_text().replace("\u2019", "'").split())
    for e in em.load_exclusions(EXPLANATIONS):
        assert e["path"] or e["keys"][0] in text
        if e["path"]:
            assert e["path"] in text, e["path"]
        assert " ".join(e["excluded"].split()[:4]) in text, e["excluded"]


def test_each_explained_message_cites_its_source_at_the_pinned_tag(html_dir):
    version = PINNED["sglang"]
    boxes = [box for page in _pages(html_dir) for box in page.select("div.error-message")]
    assert boxes
    for box in boxes:
        links = [a["href"] for a in box.select("aside.source-note a[href]")]
        assert links and all(h.startswith(f"https://github.com/sgl-project/sglang/blob/v{version}/python/sglang/")
                             for h in links), (box.get("id"), links)


def test_the_fixture_build_fails_naming_the_unexplained_message_its_file_and_line(bad_build):
    line = next(n for n, text in enumerate(FAKE_FILE.read_text().splitlines(), 1) if "logger.warning(" in text)
    assert bad_build.returncode != 0
    assert_warns(bad_build, "bad-error-messages.md", 3, f"sglang/srt/speculative/fake_hook.py:{line}",
                 "The fixture draft window is never explained by the fixture YAML.")


def test_the_fixture_build_reports_the_stale_explanation(bad_build):
    assert_warns(bad_build, "bad-error-messages.md", 3, "check_gone", "stale entry")


def test_the_fixture_build_does_not_report_the_explained_messages(bad_build):
    lines = [w for w in bad_build.output.splitlines() if "bad-error-messages.md" in w]
    assert not [w for w in lines if "check_steps" in w or "check_topk" in w], lines


# -- field reports (docs/_data/field-reports/errors.yaml) ----------------------

SYMPTOMS = {"wont-start", "slower", "accept-length-one", "accept-length-low", "after-upgrade", "other-engine",
            "crash", "wrong-output", "oom", "training", "platform", "question"}


def _reports() -> list[dict]:
    return yaml.safe_load(REPORTS.read_text(encoding="utf-8"))


def test_each_report_has_the_corpus_schema():
    fields = {"url", "title", "date", "sglang_version", "algorithm", "symptom", "error", "fix", "status",
              "status_source", "section"}
    for r in _reports():
        assert set(r) - {"release"} == fields, r["url"]  # release: optional (tests/test_field_reports.py)
        assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+", r["url"]), r["url"]
        assert isinstance(r["date"], date), r["url"]
        assert r["symptom"] in SYMPTOMS, r["url"]
        assert re.fullmatch(r"fixed-in-[\w.]+|still-applies|not-verified", r["status"]), r["url"]


def test_each_report_names_a_section_of_the_site():
    labels = set()
    for page in (ROOT / "docs").rglob("*.md"):
        labels |= set(re.findall(r"^\(([\w-]+)\)=", page.read_text(encoding="utf-8"), re.M))
    missing = [(r["url"], r["section"]) for r in _reports() if r["section"] not in labels]
    assert not missing, missing


def test_every_report_linked_from_these_pages_is_in_the_corpus():
    corpus = {r["url"] for r in _reports()}
    link = re.compile(r"\]\((https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\d+)\)")
    linked = {u for page in MY_PAGES for u in link.findall(page.read_text(encoding="utf-8"))}
    assert linked, "the pages link no report"
    assert not linked - corpus, sorted(linked - corpus)


def test_each_message_pasted_into_search_finds_the_page(html_dir, messages):
    """Every word of each message, as Sphinx's English search splits and stems it, indexes the page."""
    import json

    from sphinx.search.en import SearchEnglish

    text = (html_dir / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    pages = {index["docnames"].index(doc) for doc in ERROR_DOCS}
    lang = SearchEnglish({})

    def docs(stem):  # a word in a heading is indexed under titleterms only
        found = set()
        for table in (index["terms"], index["titleterms"]):
            hit = table.get(stem, [])
            found |= {hit} if isinstance(hit, int) else set(hit)
        return found

    unfound = {}
    for m in _shown_messages(messages):
        # Sphinx indexes no word of two letters or fewer, no stopword and no number (SearchLanguage.word_filter).
        words = [w.lower() for w in lang.split(m.text)
                 if len(w) > 2 and w.lower() not in lang.stopwords and not w.isdigit()]
        missing = [w for w in words if not pages & docs(lang.stem(w))]
        if missing:
            unfound[m.text] = missing
    assert not unfound, unfound
