"""The interaction map (speccheck/interactions.py) is complete and every point is explained.

- On a fixture tree (tests/fixtures/interactions/site-packages, a tiny fake SGLang), the extractor finds
  exactly the points worked out by hand below.
- On the real data (speccheck/data/interactions.json, written by ``make interactions`` from the pinned
  wheel), every point is mapped by speccheck/data/interactions-map.yaml to a label of the built site, or
  marked no-user-visible-effect with a reason. The failure names each point.
- Complete by construction (issue 22): every request field, sampling parameter and endpoint either has a
  no-effect reason or maps to a section whose reader-visible text (the generated point lists and source
  notes left out) names it, so a field added by the next pin fails until someone explains it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES
from speccheck import interactions as ix

FIXTURE_ROOT = FIXTURES / "interactions" / "site-packages"

# Derived by hand from the fixture files (see each file's content).
EXPECTED = {
    # reads-spec-state: functions outside srt/speculative/ naming speculative state
    "fn:sglang/srt/arg_groups/fields/spec.py::Spec": ("reads-spec-state", "server-args", 1),  # class body
    "fn:sglang/srt/arg_groups/speculative_hook.py::check": ("reads-spec-state", "server-args", 1),
    "fn:sglang/srt/entrypoints/engine.py::Engine._private": ("reads-spec-state", "runtime-apis", 8),
    "fn:sglang/srt/managers/scheduler.py::run": ("reads-spec-state", "scheduling", 6),
    "fn:sglang/srt/managers/tokenizer_manager.py::TokenizerManager.generate_request":
        ("reads-spec-state", "runtime-apis", 2),
    "fn:sglang/srt/mem_cache/pool.py::Pool.alloc": ("reads-spec-state", "kv-memory", 4),
    "fn:sglang/srt/models/llama_eagle.py::<module>": ("reads-spec-state", "models", 9),
    "fn:sglang/test/runners.py::<module>": ("reads-spec-state", "test-utilities", 1),
    "param:temperature": ("sampling-param", "request-output", 2),
    "param:top_k": ("sampling-param", "request-output", 3),
    "request:text": ("request-field", "request-output", 2),
    "request:stream": ("request-field", "request-output", 3),
    "http:POST /generate": ("endpoint", "runtime-apis", 6),
    "http:GET /health": ("endpoint", "runtime-apis", 11),
    "engine:Engine.generate": ("endpoint", "runtime-apis", 2),
    "engine:Engine.shutdown": ("endpoint", "runtime-apis", 5),
    "arg:page_size": ("server-arg", "server-args", 2),
    "arg:speculative_algorithm": ("server-arg", "server-args", 2),
    "algorithm:EAGLE": ("algorithm", "algorithms", 5),
    "algorithm:NGRAM": ("algorithm", "algorithms", 6),
    "algorithm:NEXTN": ("algorithm", "algorithms", 1),
    "model:sglang/srt/models/llama.py::LlamaForCausalLM": ("model-class", "models", 5),
    "model:sglang/srt/models/llama_eagle.py::LlamaForCausalLMEagle": ("model-class", "models", 5),
    # speculative-file: files of srt/speculative/ with a message (verify.py has none)
    "specfile:sglang/srt/speculative/eagle_utils.py": ("speculative-file", "algorithms", 1),
    "specfile:sglang/srt/speculative/eagle_worker.py": ("speculative-file", "algorithms", 1),
    "specfile:sglang/srt/speculative/ngram_parts/corpus.py": ("speculative-file", "algorithms", 1),
    "specfile:sglang/srt/speculative/orphan.py": ("speculative-file", "algorithms", 1),
    "specfile:sglang/srt/speculative/shared.py": ("speculative-file", "algorithms", 1),
}


@pytest.fixture(scope="module")
def fixture_points() -> dict[str, ix.Point]:
    return {p.id: p for p in ix.extract(FIXTURE_ROOT)}


def test_the_extractor_finds_exactly_the_hand_derived_points_of_the_fixture(fixture_points):
    found = {pid: (p.kind, p.subsystem, p.line) for pid, p in fixture_points.items()}
    assert found == EXPECTED


def test_functions_inside_srt_speculative_are_not_points(fixture_points):
    assert not [p for p in fixture_points.values() if p.file.startswith("sglang/srt/speculative/")
                and p.kind == "reads-spec-state"]


def test_request_parameters_record_where_verification_names_them(fixture_points):
    assert fixture_points["param:temperature"].detail["spec_files"] == ["sglang/srt/speculative/verify.py"]
    assert fixture_points["param:top_k"].detail["spec_files"] == []
    assert fixture_points["request:stream"].detail["spec_files"] == ["sglang/srt/speculative/verify.py"]


def test_endpoints_record_the_speculative_code_they_reach(fixture_points):
    reach = "sglang/srt/managers/tokenizer_manager.py::TokenizerManager.generate_request"
    assert fixture_points["http:POST /generate"].detail["spec_calls"] == [reach]
    assert fixture_points["engine:Engine.generate"].detail["spec_calls"] == [reach]
    assert fixture_points["http:GET /health"].detail["spec_calls"] == []


def test_server_args_name_the_validation_rules_that_read_them(fixture_points):
    rule = "sglang/srt/arg_groups/speculative_hook.py::check"
    assert fixture_points["arg:page_size"].detail["rules"] == [rule]
    assert "arg:tp_size" not in fixture_points  # read only by a hook function that is not speculative


def test_a_function_point_records_its_messages_that_name_speculation(fixture_points):
    alloc = fixture_points["fn:sglang/srt/mem_cache/pool.py::Pool.alloc"]
    assert alloc.detail["messages"] == ["EAGLE draft needs {self.size} more slots"]  # not "pool is empty"
    assert "messages" not in fixture_points["fn:sglang/srt/managers/scheduler.py::run"].detail


def test_a_speculative_file_records_its_messages_and_the_workers_that_import_it(fixture_points):
    """The fixture's create_worker imports eagle_worker.py and ngram_worker.py; each reaches its own helper
    (a function-level ``from package import submodule``; a relative import of a subfolder), both import
    shared.py, whose import of orphan.py is not followed (both workers import shared.py directly), and
    eagle_worker.py's import of spec_info.py (which imports both workers) is not followed either."""
    spec = {pid.removeprefix("specfile:sglang/srt/speculative/"): p.detail
            for pid, p in fixture_points.items() if p.kind == "speculative-file"}
    assert {name: d["workers"] for name, d in spec.items()} == {
        "eagle_utils.py": ["eagle_worker"], "eagle_worker.py": ["eagle_worker"],
        "ngram_parts/corpus.py": ["ngram_worker"], "shared.py": ["eagle_worker", "ngram_worker"],
        "orphan.py": []}
    assert spec["eagle_utils.py"]["messages"] == [["build_tree", "topk must be positive"]]
    assert spec["shared.py"]["messages"] == [["check_draft", "the draft is slower than the target"]]


def _worker_rules(**overrides) -> dict:
    """A mapping of the fixture by the workers rules of interactions-map.yaml, every other kind no-effect."""
    return {"overrides": overrides, "rules": [
        {"match": {"kind": "speculative-file", "workers": "*,*"}, "section": "shared"},
        {"match": {"kind": "speculative-file", "workers": "eagle_worker"}, "section": "eagle"},
        {"match": {"kind": "speculative-file", "workers": "ngram_worker"}, "section": "ngram"},
        *({"match": {"kind": kind}, "no-effect": "fixture"} for kind in ix.KINDS if kind != "speculative-file")]}


def test_a_rule_matches_a_speculative_file_by_its_workers(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, _worker_rules())
    section = {pid.removeprefix("specfile:sglang/srt/speculative/"): ix.resolve(p, mapping).section
               for pid, p in fixture_points.items() if p.kind == "speculative-file"}
    assert section == {"eagle_utils.py": "eagle", "eagle_worker.py": "eagle", "ngram_parts/corpus.py": "ngram",
                       "shared.py": "shared", "orphan.py": None}


def test_a_speculative_file_no_worker_imports_is_unmapped_without_an_override(fixture_points, tmp_path):
    labels = {"shared", "eagle", "ngram"}
    mapping = _write_map(tmp_path, _worker_rules())
    assert ix.coverage_problems(fixture_points.values(), mapping, labels) == [
        "unmapped point: specfile:sglang/srt/speculative/orphan.py (sglang/srt/speculative/orphan.py:1)"]
    mapping = _write_map(tmp_path, _worker_rules(**{"specfile:sglang/srt/speculative/orphan.py": "shared"}))
    assert ix.coverage_problems(fixture_points.values(), mapping, labels) == []


def test_the_speculative_file_points_hold_every_message_of_the_speculative_folder():
    """The data's ``speculative-file`` messages are the ones message_history lists for the pinned wheel's
    ``sglang/srt/speculative/`` (the messages page reads the data, not the wheel)."""
    from speccheck import message_history
    from speccheck.errors import site_packages

    data = [(text, p.file, qualname) for p in ix.load() if p.kind == "speculative-file"
            for qualname, text in p.detail["messages"]]
    assert data == message_history.tree_messages(site_packages(), speculative_dir_only=True)


def test_every_message_of_a_mapped_function_is_findable_on_the_site(html_dir):
    """A message that a function of the map raises, asserts or logs about speculation, or any message of
    ``sglang/srt/speculative/`` (the ``speculative-file`` points), is either explained by the error-message
    reference or listed on the messages page under the section that explains it."""
    from bs4 import BeautifulSoup

    from speccheck import errors as er

    explained = {k for e in er.load_explanations(Path("docs/_data/error-messages.yaml")) for k in e["keys"]}
    soup = BeautifulSoup((html_dir / "reference" / "error-messages-other.html").read_text(), "html.parser")
    listed = {" ".join(code.get_text().split()) for code in soup.select(".interaction-messages code")}
    mapping = ix.load_mapping()
    missing, twice = [], []
    for p in ix.load():
        if not p.detail.get("messages") or not ix.resolve(p, mapping).section:
            continue
        for message in p.detail["messages"]:
            qualname, text = message if p.kind == "speculative-file" else (p.qualname, message)
            shown = " ".join(text.split()) in listed
            if f"{p.file}::{qualname}::{er.normalize(text)}" in explained:
                twice += [f"{p.id}: {text[:80]}"] if shown else []
            elif not shown:
                missing.append(f"{p.id} {qualname}: {text[:80]}")
    assert not missing, "messages on no page:\n" + "\n".join(missing[:20])
    assert not twice, "messages the error reference explains, listed again:\n" + "\n".join(twice[:20])


def test_each_group_of_listed_messages_links_the_section_that_explains_it(html_dir):
    """Each "Explained in" line of the messages page is a working link: a label the page cannot link (a
    label on a paragraph rather than a heading) would otherwise show as bare text."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((html_dir / "reference" / "error-messages-other.html").read_text(), "html.parser")
    heads = soup.select("p.interaction-messages-section")
    unlinked = [" ".join(h.get_text().split()) for h in heads if not h.find("a", href=True)]
    assert heads and not unlinked, f"groups without a link: {unlinked}"


def test_model_classes_tell_drafts_from_targets(fixture_points):
    target = fixture_points["model:sglang/srt/models/llama.py::LlamaForCausalLM"].detail
    draft = fixture_points["model:sglang/srt/models/llama_eagle.py::LlamaForCausalLMEagle"].detail
    assert (target["role"], target["target_hooks"], target["registered"]) == (
        "target", ["set_eagle3_layers_to_capture"], True)
    assert (draft["role"], draft["registered"]) == ("draft", True)


def _write_map(tmp_path: Path, data: dict) -> ix.Mapping:
    path = tmp_path / "map.yaml"
    path.write_text(yaml.safe_dump(data))
    return ix.load_mapping(path)


def test_coverage_names_an_unmapped_point(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"rules": [{"match": {"kind": "endpoint"}, "section": "ix-runtime-apis"}]})
    problems = ix.coverage_problems(fixture_points.values(), mapping, {"ix-runtime-apis"})
    assert "unmapped point: param:top_k (sglang/srt/sampling/sampling_params.py:3)" in problems
    assert not [p for p in problems if "http:" in p]


def test_coverage_names_a_point_whose_label_the_site_lacks(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"overrides": {"param:top_k": "ix-nowhere"},
                                    "rules": [{"match": {}, "no-effect": "fixture"}]})
    problems = ix.coverage_problems(fixture_points.values(), mapping, {"ix-request-output"})
    assert problems == ["point param:top_k (sglang/srt/sampling/sampling_params.py:3) maps (override) "
                        "to 'ix-nowhere', which the site does not define"]


def test_coverage_names_an_override_for_a_point_that_is_gone(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"overrides": {"param:gone": "x"}, "rules": [{"match": {}, "no-effect": "f"}]})
    assert ix.coverage_problems(fixture_points.values(), mapping, set()) == [
        "override for a point that no longer exists: param:gone"]


def test_a_rule_needs_exactly_one_of_section_and_no_effect(tmp_path):
    with pytest.raises(ValueError, match="exactly one"):
        _write_map(tmp_path, {"rules": [{"match": {}, "section": "a", "no-effect": "b"}]})


def test_every_point_of_the_pinned_wheel_is_mapped_to_a_section_of_the_built_site(html_dir):
    from test_field_reports import site_labels

    problems = ix.coverage_problems(ix.load(), ix.load_mapping(), set(site_labels(html_dir)))
    assert not problems, f"{len(problems)} points not covered:\n" + "\n".join(problems[:200])


def test_every_no_effect_point_has_a_one_line_reason():
    mapping = ix.load_mapping()
    for point in ix.load():
        r = ix.resolve(point, mapping)
        if r.section is None and r.by is not None:
            assert r.reason and "\n" not in r.reason.strip(), point.id


def test_field_reports_lists_reports_filed_under_a_label_or_its_subsections(tmp_path):
    import field_reports  # sphinxext/, on sys.path through conftest

    entries = [
        {"url": "https://github.com/a/b/issues/1", "section": "ix-kv-memory", "date": "2026-01-02"},
        {"url": "https://github.com/a/b/issues/2", "section": "ix-kv-memory-radix", "date": "2025-01-02"},
        {"url": "https://github.com/a/b/issues/3", "section": "ix-kv-memoryless", "date": None},
        {"url": "https://github.com/a/b/issues/4", "section": "ix-scheduling", "date": None},
    ]
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(entries))
    urls = [e["url"][-1] for e in field_reports.reports_for(tmp_path, "ix-kv-memory")]
    assert urls == ["2", "1"]  # by date; a label that merely starts with the same letters is not a subsection
    assert [e["url"][-1] for e in field_reports.reports_for(tmp_path, "ix-kv-memory", exact=True)] == ["1"]


def test_each_listed_report_shows_its_error_finding_and_release_verdict(html_dir):
    """A reader who searched for an error finds what was found and from which release, not only a title."""
    from bs4 import BeautifulSoup

    import field_reports  # sphinxext/, on sys.path through conftest

    corpus = Path(__file__).resolve().parent.parent / "docs" / "_data" / "field-reports"
    entries = field_reports.reports_for(corpus, "ix-kv-memory")
    soup = BeautifulSoup((html_dir / "reference" / "interactions" / "ix-kv-memory.html").read_text(), "html.parser")
    items = {li.find("a")["href"]: " ".join(li.get_text(" ").split()) for li in soup.select("ul.field-reports > li")}
    assert entries and len(items) == len(entries)
    for e in entries:
        text = items[e["url"]]
        assert " ".join(str(e["fix"]).split())[:60] in text, e["url"]
        if e.get("error"):
            assert " ".join(str(e["error"]).split())[:40] in text, e["url"]
        if (e.get("release") or {}).get("change") in field_reports.VERDICT_WORDS:
            assert f"{field_reports.VERDICT_WORDS[e['release']['change']]} {e['release']['verdict']}" in text, e["url"]


def test_field_reports_parses_a_corpus_file_again_after_an_edit_of_the_same_size(tmp_path):
    """The corpus is parsed once per process (the build's directives share it); an edit that keeps the
    file's size, made within one tick of its modification time, still gives the new entries."""
    import field_reports

    path = tmp_path / "r.yaml"
    path.write_text('- {url: "https://github.com/a/b/issues/1", section: ix-kv-memory}\n')
    assert field_reports.reports_for(tmp_path, "ix-kv-memory")[0]["url"].endswith("/1")
    path.write_text('- {url: "https://github.com/a/b/issues/2", section: ix-kv-memory}\n')
    assert field_reports.reports_for(tmp_path, "ix-kv-memory")[0]["url"].endswith("/2")


def test_a_rule_can_match_a_model_class_by_its_role(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"rules": [
        {"match": {"kind": "model-class", "role": "draft"}, "section": "drafts"},
        {"match": {"kind": "model-class"}, "section": "targets"},
        {"match": {}, "no-effect": "fixture"}]})
    resolve = {pid: ix.resolve(p, mapping).section for pid, p in fixture_points.items()}
    assert resolve["model:sglang/srt/models/llama_eagle.py::LlamaForCausalLMEagle"] == "drafts"
    assert resolve["model:sglang/srt/models/llama.py::LlamaForCausalLM"] == "targets"
    assert resolve["param:top_k"] is None  # no detail.role: a role rule never matches it


# -- Issue 22: every reads-spec-state point reaches a section or a reason, never a page top ----------------

PAGE_TOP_CEILING = 0  # entries of speccheck/data/interactions-page-top.yaml on 2026-12-03; lower it, never raise it


def test_the_page_labels_are_the_labels_at_the_top_of_the_interaction_pages():
    from conftest import ROOT

    tops = set()
    for page in sorted((ROOT / "docs" / "reference" / "interactions").glob("*.md")):
        first = next(line for line in page.read_text().splitlines() if line.startswith("("))
        tops.add(first.strip()[1:-2])
    assert tops == set(ix.PAGE_LABELS)


def test_a_point_at_a_page_top_is_named_unless_allowed(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"rules": [
        {"match": {"file": "sglang/srt/managers/scheduler.py"}, "section": "ix-scheduling"},
        {"match": {"file": "sglang/srt/mem_cache/*"}, "section": "ix-kv-memory-pool-sizing"},
        {"match": {}, "no-effect": "fixture"}]})
    assert ix.page_top_problems(fixture_points.values(), mapping) == [
        "point fn:sglang/srt/managers/scheduler.py::run (sglang/srt/managers/scheduler.py:6) maps (rule 1) "
        "to the page top 'ix-scheduling'"]
    assert ix.page_top_problems(fixture_points.values(), mapping,
                                allowed={"fn:sglang/srt/managers/scheduler.py::run"}) == []


def test_an_allowance_for_a_point_no_longer_at_a_page_top_is_named(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"rules": [{"match": {}, "no-effect": "fixture"}]})
    assert ix.page_top_problems(fixture_points.values(), mapping, allowed={"fn:gone"}) == [
        "allowed at a page top but no longer there: fn:gone"]


def test_an_allowance_needs_a_one_line_reason(tmp_path):
    path = tmp_path / "top.yaml"
    path.write_text(yaml.safe_dump({"points": {"fn:a": ""}}))
    with pytest.raises(ValueError, match="one-line reason"):
        ix.load_page_top_allowance(path)


def test_no_reads_spec_state_point_of_the_pinned_wheel_stays_at_a_page_top():
    allowed = ix.load_page_top_allowance()
    problems = ix.page_top_problems(ix.load(), ix.load_mapping(), allowed)
    assert not problems, (f"{len(problems)} problems ({len(allowed)} points allowed at a page top by "
                          f"{ix.PAGE_TOP_FILE.name}):\n" + "\n".join(problems))
    assert len(allowed) <= PAGE_TOP_CEILING, (
        f"{len(allowed)} points allowed at a page top, more than the {PAGE_TOP_CEILING} of the last count")

def section_text(html: str, anchor: str) -> str | None:
    """The reader-visible text of the element ``id=anchor`` of a built page (the whole ``<article>`` for an
    empty anchor), without the generated ``interaction-points`` lists and ``.source-note`` elements (a name
    there is the extractor's or a citation, not an explanation); None when the page has no such element."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    element = soup.find(id=anchor) if anchor else (soup.select_one("article") or soup)
    if element is None:
        return None
    for sub in element.select(".interaction-points, .source-note, .headerlink"):
        sub.decompose()
    return element.get_text(" ")


def site_section_text(html_dir: Path):
    """label -> :func:`section_text` of that label's section on the built site (None for a label the
    site's ``objects.inv`` lacks)."""
    from sphinx.util.inventory import InventoryFile

    labels = InventoryFile.loads((html_dir / "objects.inv").read_bytes(), uri="").data["std:label"]
    pages: dict[str, str] = {}

    def text(label: str) -> str | None:
        if label not in labels:
            return None
        uri = labels[label].uri
        page, _, anchor = uri.partition("#")
        if page not in pages:
            pages[page] = (html_dir / page).read_text(encoding="utf-8")
        return section_text(pages[page], anchor)
    return text


FIXTURE_SECTION = (FIXTURES / "interactions" / "section.html").read_text()


def test_a_point_whose_section_does_not_name_it_fails_naming_the_point(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"rules": [
        {"match": {"kind": kind}, "section": "ix-fixture"} for kind in ix.NAMED_KINDS]})
    problems = ix.unnamed_points(fixture_points.values(), mapping,
                                 lambda label: section_text(FIXTURE_SECTION, label))
    # Named in prose: stream, temperature, /generate, /health, shutdown. Named only in the generated list,
    # a source note, or another section: top_k, text, Engine.generate.
    unnamed = sorted(p.split()[1] for p in problems)
    assert unnamed == ["engine:Engine.generate", "param:top_k", "request:text"]
    assert ("point param:top_k maps (rule 2) to 'ix-fixture', whose text does not name 'top_k': "
            "name it there or mark it no-effect with a reason") in problems


def test_a_no_effect_point_needs_no_section_text(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"rules": [{"match": {}, "no-effect": "fixture"}]})
    assert ix.unnamed_points(fixture_points.values(), mapping, lambda label: None) == []


def test_a_section_missing_from_the_site_is_reported(fixture_points, tmp_path):
    mapping = _write_map(tmp_path, {"overrides": {"request:stream": "ix-gone"},
                                    "rules": [{"match": {}, "no-effect": "fixture"}]})
    assert ix.unnamed_points(fixture_points.values(), mapping, lambda label: None) == [
        "point request:stream maps (override) to 'ix-gone', which has no text on the site"]


@pytest.mark.parametrize("pid, name, text, named", [
    ("http:POST /encode", "/encode", "send it to /encoder first", False),
    ("http:POST /encode", "/encode", "POST /encode, then", True),
    ("http:POST /encode", "/encode", "the route /v1/encode", False),
    ("http:POST /encode", "/encode", "curl http://127.0.0.1:30000/encode -d", True),
    ("http:GET /", "GET /", "GET / answers", True),
    ("request:rid", "rid", "the grid and rids", False),
    ("engine:Engine.shutdown", "shutdown", "call Engine.shutdown()", True),
])
def test_how_a_point_is_named(pid, name, text, named):
    kind = {"http": "endpoint", "engine": "endpoint", "request": "request-field"}[pid.split(":")[0]]
    point = ix.Point(pid, kind, "f.py", "q", 1, "runtime-apis")
    assert ix.point_name(point) == name
    assert ix.names_point(text, point) is named


def test_every_field_parameter_and_endpoint_is_named_by_its_section_or_has_no_effect(html_dir):
    problems = ix.unnamed_points(ix.load(), ix.load_mapping(), site_section_text(html_dir))
    assert not problems, f"{len(problems)} points not named by their section:\n" + "\n".join(problems)


NO_EFFECT_LIST = {"request-field": "ix-request-output-no-effect", "sampling-param": "ix-request-output-no-effect",
                  "endpoint": "ix-runtime-apis-no-effect"}


def test_pasting_a_field_or_endpoint_name_into_search_finds_where_it_is_explained(html_dir, chromium):
    """Every request field, sampling parameter and endpoint of the pinned wheel, pasted into the site's
    search (Pagefind), brings the page of its section (or of the no-effect list that gives its reason)
    into the top three (a single dictionary word: into the results). Names without three letters in a row (``n``, the root route ``GET /``) are left
    out: search ignores them."""
    sys_path = str(Path(__file__).resolve().parents[1] / "tools")
    import sys
    if sys_path not in sys.path:
        sys.path.insert(0, sys_path)
    import search_eval

    mapping = ix.load_mapping()
    queries = []
    for p in ix.load():
        if p.kind not in ix.NAMED_KINDS or not re.search(r"[a-z]{3}", ix.point_name(p)):
            continue
        r = ix.resolve(p, mapping)
        queries.append(search_eval.Query(ix.point_name(p), "keywords", r.section or NO_EFFECT_LIST[p.kind], p.id))
    outcomes = search_eval.run(html_dir, queries, "pagefind", browser=chromium)
    # A single dictionary word (/ready, /send, /tokenize) is stemmed and matches prose all over the site:
    # its page must be among the results; every other name in the top three.
    def found(o) -> bool:
        return o.hit or (bool(re.fullmatch(r"/?[a-z]+", o.query.text)) and bool(o.expected_pages & set(o.pages)))
    misses = [f"{o.query.text!r} ({o.query.report}): expected {sorted(o.expected_pages)}, got {o.pages[:3]}"
              for o in outcomes if not found(o)]
    assert not misses, f"{len(misses)} of {len(queries)} names do not find their page:\n" + "\n".join(misses)
