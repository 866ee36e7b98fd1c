"""Recipes by model family (``docs/how-to/recipes/``): what every page must carry.

Each family page has a latency-oriented and a throughput-oriented launch command,
a memory section, known issues, a training section whose SpecForge run config is
validated by SpecForge's own schema, and sources. The run config shown on a page
is the file in ``docs/_examples/specforge/`` (compared here, so the two cannot
drift), and its draft config has the shape SGLang loads. Field reports linked from
the pages live in ``docs/_data/field-reports/recipes.yaml``. The build checks every
command on the pages against SGLang's parser (``sphinxext/content/command_check.py``).
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from conftest import ROOT

RECIPES = ROOT / "docs" / "how-to" / "recipes"
EXAMPLES = ROOT / "docs" / "_examples" / "specforge"
FIELD_REPORTS = ROOT / "docs" / "_data" / "field-reports"

# page -> (run config in docs/_examples/specforge/, number of target layers the
# draft's capture layers refer to, capture layers when a SpecForge preset chose
# other layers than the default [1, n/2 - 1, n - 4]).
# Layer counts are those the pages state from each model's config.json.
FAMILIES: dict[str, tuple[str | None, int | None, list[int] | None]] = {
    "llama3": ("llama33-70b-eagle3.yaml", 80, None),
    "llama4": ("llama4-scout-eagle3.yaml", 48, None),
    "qwen3-dense": ("qwen3-8b-eagle3.yaml", 36, None),
    "qwen3-moe": ("qwen3-30b-a3b-eagle3.yaml", 48, None),
    "qwen3-next": ("qwen3-next-80b-a3b-eagle3.yaml", 48, None),
    "deepseek-v3": ("deepseek-v3-eagle3.yaml", 61, None),
    "deepseek-v32": ("deepseek-v32-eagle3.yaml", 61, None),
    # SpecForge's gpt-oss-120B preset captures [1, 17, 33], not the default [1, 17, 32].
    "gpt-oss": ("gpt-oss-120b-eagle3.yaml", 36, [1, 17, 33]),
    "glm45": ("glm45-air-eagle3.yaml", 46, None),
    "kimi-k2": ("kimi-k2-eagle3.yaml", 61, None),
    # MiMo-7B: SGLang has no EAGLE-3 capture for MiMoForCausalLM; the page says why.
    "mimo": (None, None, None),
}

SYMPTOMS = {"wont-start", "slower", "accept-length-one", "accept-length-low", "after-upgrade",
            "other-engine", "crash", "wrong-output", "oom", "training", "platform", "question"}
REPORT_KEYS = {"url", "title", "date", "sglang_version", "algorithm", "symptom", "error", "fix",
               "status", "status_source", "section"}

FENCE = re.compile(r"^```\{code-block\} (\w+)\n((?::[\w-]+:[^\n]*\n)*)\n?(.*?)^```$", re.M | re.S)
LAUNCH = "python -m sglang.launch_server"


def page(slug: str) -> str:
    return (RECIPES / f"{slug}.md").read_text(encoding="utf-8")


def section(text: str, label: str) -> str:
    """The text from ``(label)=`` to the next heading of the same or a higher level.

    Lines inside fenced code blocks are not headings (YAML comments start with ``#``).
    """
    m = re.search(rf"^\({re.escape(label)}\)=\n(#+) ", text, re.M)
    assert m, f"no section labelled {label}"
    level = len(m.group(1))
    lines = text[m.end():].splitlines(keepends=True)
    fence = None
    for i, line in enumerate(lines):
        opening = re.match(r"^(`{3,}|~{3,})", line)
        if fence is None and opening:
            fence = opening.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None and re.match(rf"^#{{1,{level}}} ", line):
            return "".join(lines[:i])
    return "".join(lines)


def config_blocks(text: str) -> list[str]:
    return [body for lang, opts, body in FENCE.findall(text)
            if lang == "yaml" and "specforge-config" in opts]


def labels_of_recipe_pages() -> set[str]:
    found = set()
    for path in RECIPES.glob("*.md"):
        found.update(re.findall(r"^\(([\w-]+)\)=$", path.read_text(encoding="utf-8"), re.M))
    return found


def test_every_family_page_is_in_the_recipes_toctree():
    index = (RECIPES / "index.md").read_text(encoding="utf-8")
    toctree = re.search(r"```\{toctree\}\n(.*?)```", index, re.S).group(1)
    entries = [line.strip() for line in toctree.splitlines() if line.strip() and not line.startswith(":")]
    assert entries == list(FAMILIES)
    for slug in FAMILIES:
        assert (RECIPES / f"{slug}.md").is_file(), slug


@pytest.mark.parametrize("slug", FAMILIES)
def test_page_has_a_latency_and_a_throughput_command(slug):
    text = page(slug)
    for kind in ("latency", "throughput"):
        body = section(text, f"recipe-{slug}-{kind}")
        assert LAUNCH in body, f"{slug}: no launch command in the {kind} section"
        assert "--speculative-algorithm" in body, f"{slug}: the {kind} command does not speculate"


@pytest.mark.parametrize("slug", FAMILIES)
def test_page_has_memory_arithmetic_accept_length_issues_and_sources(slug):
    text = page(slug)
    memory = section(text, f"recipe-{slug}-memory")
    assert "GB" in memory and "per token" in memory, f"{slug}: memory section has no arithmetic"
    assert re.search(r"do(es)? not fit", memory), f"{slug}: memory section names no GPU that does not fit"
    section(text, f"recipe-{slug}-accept-length")
    section(text, f"recipe-{slug}-issues")
    sources = section(text, f"recipe-{slug}-sources")
    assert "{source}`" in sources, f"{slug}: sources name no pinned file"
    assert "{ref}`decision-table`" in text, f"{slug}: does not link the decision table"


@pytest.mark.parametrize("slug", [s for s, (cfg, _, _) in FAMILIES.items() if cfg])
def test_page_run_config_is_the_example_file_and_validates(slug):
    from specforge.config import load_config

    run_file, _, _ = FAMILIES[slug]
    train = section(page(slug), f"recipe-{slug}-train")
    blocks = config_blocks(train)
    assert len(blocks) == 1, f"{slug}: expected one specforge-config block in the training section"
    path = EXAMPLES / run_file
    assert blocks[0] == path.read_text(encoding="utf-8"), f"{slug}: page block differs from {run_file}"
    cfg = load_config(str(path))
    assert cfg.training.strategy == "eagle3"
    assert (path.parent / cfg.model.draft_model_config).is_file()


@pytest.mark.parametrize("slug", [s for s, (cfg, _, _) in FAMILIES.items() if cfg])
def test_draft_config_has_the_shape_sglang_loads_and_the_stated_capture_layers(slug):
    from specforge.algorithms.model_providers import resolve_eagle_capture_layers
    from specforge.config import load_config

    run_file, layers, preset = FAMILIES[slug]
    cfg = load_config(str(EXAMPLES / run_file))
    draft = json.loads((EXAMPLES / cfg.model.draft_model_config).read_text(encoding="utf-8"))
    assert draft["architectures"] == ["LlamaForCausalLMEagle3"]
    assert draft["num_hidden_layers"] == 1
    assert draft["tie_word_embeddings"] is False
    assert draft["draft_vocab_size"] < draft["vocab_size"]
    no_override = SimpleNamespace(model=SimpleNamespace(aux_hidden_state_layer_ids=None))
    default = resolve_eagle_capture_layers(no_override, {}, SimpleNamespace(num_hidden_layers=layers))
    assert draft["eagle_config"]["eagle_aux_hidden_state_layer_ids"] == (preset or default)
    train = section(page(slug), f"recipe-{slug}-train")
    assert Path(cfg.model.draft_model_config).name in train, f"{slug}: the draft config is not shown"


def _reports() -> list[tuple[Path, dict]]:
    out = []
    for path in sorted(FIELD_REPORTS.glob("*.yaml")):
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            out.append((path, entry))
    return out


def test_field_report_urls_are_unique_across_all_report_files():
    urls = [entry["url"] for _, entry in _reports()]
    duplicates = sorted({u for u in urls if urls.count(u) > 1})
    assert not duplicates


def test_recipe_field_reports_follow_the_schema_and_point_at_a_recipe_section():
    labels = labels_of_recipe_pages()
    entries = yaml.safe_load((FIELD_REPORTS / "recipes.yaml").read_text(encoding="utf-8"))
    assert entries
    for entry in entries:
        assert set(entry) - {"release"} == REPORT_KEYS, entry["url"]  # release: tests/test_field_reports.py
        assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+", entry["url"]), entry["url"]
        assert isinstance(entry["date"], date), entry["url"]
        assert entry["symptom"] in SYMPTOMS, entry["url"]
        assert re.fullmatch(r"fixed-in-[\d.]+(post\d+)?|still-applies|not-verified", entry["status"]), entry["url"]
        assert entry["section"] in labels, f"{entry['url']}: no recipe section {entry['section']}"


def test_every_recipe_field_report_is_linked_from_its_section():
    entries = yaml.safe_load((FIELD_REPORTS / "recipes.yaml").read_text(encoding="utf-8"))
    texts = {path.stem: path.read_text(encoding="utf-8") for path in RECIPES.glob("*.md")}
    for entry in entries:
        owner = next(slug for slug, text in texts.items() if f"({entry['section']})=" in text)
        assert entry["url"] in section(texts[owner], entry["section"]), entry["url"]


def test_every_report_linked_from_a_recipe_page_is_a_field_report():
    """Each GitHub issue or pull request a recipe page links is recorded in a file of
    ``docs/_data/field-reports/`` (so its date, version and status are kept in one place)."""
    recorded = {entry["url"] for _, entry in _reports()}
    link = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\d+")
    for path in sorted(RECIPES.glob("*.md")):
        for url in sorted(set(link.findall(path.read_text(encoding="utf-8")))):
            assert url in recorded, f"{path.name}: {url} is in no file of docs/_data/field-reports/"
