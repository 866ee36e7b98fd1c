"""SpecForge pages: links to SpecForge's site, and the example configs the how-to shows.

The how-to ``docs/how-to/train-draft-specforge.md`` includes the run config and draft
config from ``docs/_examples/specforge/``; these tests load them with SpecForge's own
validator and planner, without torch (pydantic and PyYAML are enough). The page's
``specforge`` and ``sglang`` commands are checked site-wide by
the command check (``speccheck``, through ``sphinxext/content/command_check.py``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from types import SimpleNamespace

from bs4 import BeautifulSoup

from conftest import ROOT
from speccheck.pinned import PINNED, substitute

SPECFORGE_URL = "https://docs.sglang.ai/SpecForge/"
PAGE = ROOT / "docs" / "how-to" / "train-draft-specforge.md"
EXAMPLES = ROOT / "docs" / "_examples" / "specforge"
RUN_CONFIG = EXAMPLES / "llama31-8b-eagle3.yaml"
DRAFT_CONFIG = EXAMPLES / "llama31-8b-eagle3-draft.json"

sys.path.insert(0, str(ROOT / "tools"))
from make_specforge_inventory import read_pages  # noqa: E402


def test_specforge_inventory_is_current():
    proc = subprocess.run(
        [sys.executable, "tools/make_specforge_inventory.py", "--check"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_specforge_cross_link_resolves_to_the_specforge_site(html_dir):
    soup = BeautifulSoup((html_dir / "how-to" / "train-draft-specforge.html").read_text(), "html.parser")
    hrefs = {a["href"] for a in soup.find_all("a", href=True) if a["href"].startswith(SPECFORGE_URL)}
    assert f"{SPECFORGE_URL}basic_usage/training.html" in hrefs
    known = {f"{SPECFORGE_URL}{doc}.html" for doc, _ in read_pages()}
    assert hrefs <= known, f"links to pages SpecForge does not have: {sorted(hrefs - known)}"


def test_unknown_specforge_page_fails_the_build_naming_file_and_line(bad_build):
    assert bad_build.returncode != 0
    assert re.search(
        r"bad-specforge-doc\.md:3: WARNING: unknown document: 'specforge:basic_usage/no-such-page'",
        bad_build.output,
    )


def test_example_run_config_validates_with_specforge_schema():
    from specforge.config import load_config

    cfg = load_config(str(RUN_CONFIG))
    assert cfg.mode == "offline"
    assert cfg.training.strategy == "eagle3"
    assert (RUN_CONFIG.parent / cfg.model.draft_model_config).resolve() == DRAFT_CONFIG.resolve()


def test_example_run_config_resolves_to_an_eight_rank_plan():
    proc = subprocess.run(
        [sys.executable, "-m", "specforge.cli", "train", "-c", RUN_CONFIG.name, "--plan"],
        cwd=EXAMPLES, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    argv = json.loads(proc.stdout)["commands"][0]["argv"]
    assert argv[argv.index("--nproc_per_node") + 1] == "8"


def test_multi_layer_eagle3_draft_is_rejected_by_specforge():
    proc = subprocess.run(
        [sys.executable, "-m", "specforge.cli", "train", "-c", RUN_CONFIG.name, "--plan",
         "model.draft_num_hidden_layers=2"],
        cwd=EXAMPLES, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode != 0
    message = "algorithm 'eagle3' requires model.draft_num_hidden_layers=1 or no override"
    assert message in proc.stderr
    assert message in PAGE.read_text().replace("\n  ", " ").replace("\n", " ")


def test_example_draft_config_has_the_shape_sglang_loads():
    draft = json.loads(DRAFT_CONFIG.read_text())
    assert draft["architectures"] == ["LlamaForCausalLMEagle3"]
    assert draft["num_hidden_layers"] == 1
    assert draft["tie_word_embeddings"] is False
    assert draft["draft_vocab_size"] < draft["vocab_size"]


def test_example_capture_layers_equal_specforge_default_for_a_32_layer_target():
    from specforge.algorithms.model_providers import resolve_eagle_capture_layers

    no_override = SimpleNamespace(model=SimpleNamespace(aux_hidden_state_layer_ids=None))
    default = resolve_eagle_capture_layers(no_override, {}, SimpleNamespace(num_hidden_layers=32))
    draft = json.loads(DRAFT_CONFIG.read_text())
    assert draft["eagle_config"]["eagle_aux_hidden_state_layer_ids"] == default


def test_install_commands_pin_the_documented_releases():
    text = substitute(PAGE.read_text())  # the page writes {{ specforge_version }}; the build substitutes it
    assert re.findall(r'"specforge==([^"]+)"', text) == [PINNED["specforge"]]
    assert re.findall(r'"sglang==([^"]+)"', text) == [PINNED["sglang"]]


def test_expected_accept_length_table_follows_the_formula():
    text = PAGE.read_text()
    alphas = re.search(r"\| α \(per-token acceptance\) \|(.*)\|\n", text).group(1).split("|")
    lengths = re.search(r"\| expected accept length \|(.*)\|\n", text).group(1).split("|")
    gamma = 5
    for alpha, shown in zip(alphas, lengths, strict=True):
        a = float(alpha)
        assert float(shown) == round((1 - a ** (gamma + 1)) / (1 - a), 2)
