"""The interaction map (speccheck/interactions.py) is complete and every point is explained.

- On a fixture tree (tests/fixtures/interactions/site-packages, a tiny fake SGLang), the extractor finds
  exactly the points worked out by hand below.
- On the real data (speccheck/data/interactions.json, written by ``make interactions`` from the pinned
  wheel), every point is mapped by speccheck/data/interactions-map.yaml to a label of the built site, or
  marked no-user-visible-effect with a reason. The failure names each point.
"""

from __future__ import annotations

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
