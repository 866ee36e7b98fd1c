"""The "SpecForge in production" how-to (docs/how-to/specforge-production.md) against SpecForge.

The page's run configs are loaded with SpecForge's own validator, every config key it
names must exist in SpecForge's schema (so a renamed key breaks the page), the defaults
in its out-of-memory table must equal the schema's, the error messages it quotes must
occur in the installed SpecForge source, the disk arithmetic must follow its formula,
and its export-check script must pass a well-formed export and fail broken ones. None
of this needs torch or a GPU: ``specforge.config`` and ``specforge.cli`` import with
pydantic and PyYAML only.
"""

from __future__ import annotations

import ast
import json
import re
import struct
import subprocess
import sys
import typing
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import BaseModel

from conftest import ROOT

PAGE = ROOT / "docs" / "how-to" / "specforge-production.md"
DRAFT_CONFIG = ROOT / "docs" / "_examples" / "specforge" / "llama31-8b-eagle3-draft.json"
SECTIONS = ("model", "data", "training", "tracking", "profiling", "runtime", "deployment")
# `section.key[.key...]` written as an inline literal, optionally followed by `=value`.
INLINE_KEY = re.compile(rf"`((?:{'|'.join(SECTIONS)})(?:\.[a-z_]+)+)(?:=[^`]*)?`")
CONFIG_BLOCK = re.compile(r"```\{code-block\} yaml\n((?::[^\n]*\n)*)\n(.*?)```", re.S)


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def flat(text: str) -> str:
    """Collapse line breaks and runs of spaces, as the rendered page shows prose."""
    return " ".join(text.split())


def config_blocks() -> dict[str, str]:
    """``{caption: YAML}`` of every ``specforge-config`` block on the page."""
    blocks = {}
    for options, body in CONFIG_BLOCK.findall(page_text()):
        if "specforge-config" in options:
            caption = re.search(r":caption: (\S+)", options)
            assert caption, "every run config on the page has a :caption: file name"
            blocks[caption.group(1)] = body
    return blocks


def write_block(tmp_path: Path, caption: str) -> Path:
    """Write one page config next to the draft config it names; return its path."""
    path = tmp_path / caption
    path.write_text(config_blocks()[caption], encoding="utf-8")
    (tmp_path / DRAFT_CONFIG.name).write_text(DRAFT_CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def model_of(annotation):
    """The pydantic model inside ``Optional[...]``/``List[...]``, or None for a leaf field."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = model_of(arg)
        if found is not None:
            return found
    return None


def schema_has(path: str) -> bool:
    """Whether the dotted ``path`` names a field of SpecForge's run config ``Config``."""
    from specforge.config import Config

    model = Config
    for part in path.split("."):
        if model is None or part not in model.model_fields:
            return False
        model = model_of(model.model_fields[part].annotation)
    return True


def yaml_paths(node, prefix=""):
    """Every dotted key path of a parsed YAML mapping (lists of mappings included)."""
    if isinstance(node, dict):
        for key, value in node.items():
            path = f"{prefix}.{key}" if prefix else key
            yield path
            yield from yaml_paths(value, path)
    elif isinstance(node, list):
        for item in node:
            yield from yaml_paths(item, prefix)


def run_specforge(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specforge.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_the_page_shows_a_warm_start_and_a_multi_node_config():
    blocks = config_blocks()
    assert set(blocks) == {"llama31-8b-eagle3-code.yaml", "llama31-8b-eagle3-2nodes.yaml"}
    assert "draft_checkpoint_path:" in blocks["llama31-8b-eagle3-code.yaml"]
    assert "nnodes: 2" in blocks["llama31-8b-eagle3-2nodes.yaml"]


@pytest.mark.parametrize("caption", sorted(config_blocks()))
def test_each_run_config_on_the_page_validates_with_specforge(caption, tmp_path):
    from specforge.config import load_config

    cfg = load_config(str(write_block(tmp_path, caption)))
    assert cfg.mode == "offline"
    assert cfg.training.strategy == "eagle3"


def test_every_config_key_the_page_names_exists_in_specforge_schema():
    import yaml

    named = set(INLINE_KEY.findall(page_text()))
    for body in config_blocks().values():
        named.update(yaml_paths(yaml.safe_load(body)))
    assert len(named) > 30, sorted(named)
    missing = sorted(path for path in named if not schema_has(path))
    assert not missing, f"keys SpecForge's schema does not have: {missing}"


def test_the_schema_check_rejects_a_key_specforge_does_not_have():
    assert schema_has("training.resume_from")
    assert schema_has("deployment.disaggregated.managed_local.capture_servers.mem_fraction_static")
    assert not schema_has("training.resume")
    assert not schema_has("model.draft_vocab_size")


def test_out_of_memory_table_states_the_schema_defaults():
    from specforge.config import Config

    section = page_text().split("(specforge-oom)=", 1)[1].split("**What grows.**", 1)[0]
    rows = re.findall(r"^\| `((?:training|data|model)\.[a-z_]+)` \| `?([^|`]+?)`? \|", section, re.M)
    assert len(rows) >= 8, rows
    for path, shown in rows:
        section_name, field = path.split(".")
        model = model_of(Config.model_fields[section_name].annotation)
        default = model.model_fields[field].default
        assert str(default).lower() == shown.strip().lower(), f"{path}: page says {shown}, schema {default}"


def test_multi_node_plan_is_the_torchrun_command_the_page_shows(tmp_path):
    config = write_block(tmp_path, "llama31-8b-eagle3-2nodes.yaml")
    proc = run_specforge("train", "-c", config.name, "--node-rank", "1", "--plan", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (command,) = json.loads(proc.stdout)["commands"]
    argv = " ".join(command["argv"])
    shown = re.search(r"`(--nnodes 2\s+--node_rank 1 [^`]+)`", page_text()).group(1)
    assert " ".join(shown.split()) in argv
    assert "torch.distributed.run" in argv


def test_multi_node_launch_without_a_node_rank_fails_with_the_quoted_message(tmp_path):
    config = write_block(tmp_path, "llama31-8b-eagle3-2nodes.yaml")
    proc = run_specforge("train", "-c", config.name, "--plan", cwd=tmp_path)
    message = "multi-node training requires --node-rank on each trainer node"
    assert proc.returncode != 0 and message in proc.stderr
    assert message in flat(page_text())


def test_master_addr_rule_is_quoted_as_the_schema_words_it(tmp_path):
    from specforge.config import load_config

    config = write_block(tmp_path, "llama31-8b-eagle3-2nodes.yaml")
    with pytest.raises(Exception) as info:
        load_config(str(config), ["deployment.trainer.master_addr="])
    message = "deployment.trainer.master_addr is required when nnodes > 1"
    assert message in str(info.value)
    assert message in flat(page_text())


def test_resume_and_warm_start_together_are_rejected_with_the_quoted_message(tmp_path):
    from specforge.config import load_config

    config = write_block(tmp_path, "llama31-8b-eagle3-code.yaml")
    with pytest.raises(Exception) as info:
        load_config(str(config), ["training.resume_from=./outputs/llama31-8b-eagle3"])
    message = ("model.draft_checkpoint_path (weights-only warm start) and "
               "training.resume_from (full resume) are mutually exclusive")
    assert message in str(info.value)
    assert message in flat(page_text())


def specforge_source_text() -> str:
    """All of the installed SpecForge's Python source, implicit string concatenation joined."""
    import specforge

    root = Path(specforge.__file__).parent
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py")))
    return re.sub(r"\"\s*\n\s*f?\"", "", text)


@pytest.mark.parametrize("message", [
    "training.resume_from is valid only for a trainer role",
    "managed_local does not support resume",
    "was written with ",
    "resume with the original configuration",
    "checkpoint optimizer used lr_scheduler=",
    "the specialized SGLang exporter currently supports EAGLE3 checkpoints only, got strategy=",
    "use --to hf for DFlash-family and P-EAGLE draft model directories",
    "compact teacher requires draft_vocab_size < vocab_size",
    "Added missing tokens to reach draft vocab size:",
    "Total tokens after addition:",
    "token frequency ratio:",
    "Filtered dataset by trainable tokens:",
])
def test_each_quoted_specforge_message_occurs_in_the_installed_source(message):
    assert message in flat(page_text()), f"the page no longer quotes {message!r}"
    assert message in specforge_source_text(), f"SpecForge {message!r} not found in the installed source"


def specforge_function(path: str, name: str, namespace: dict):
    """Execute one top-level function of an installed SpecForge file in ``namespace``."""
    import specforge

    source = (Path(specforge.__file__).parent / path).read_text(encoding="utf-8")
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name)
    exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), namespace)
    return namespace[name]


def test_a_small_corpus_is_padded_with_unseen_ids_from_zero_as_the_page_says(capsys):
    # SpecForge's own function, run without torch: torch.tensor is replaced by list.
    fake_torch = SimpleNamespace(tensor=list, Tensor=object)
    build = specforge_function("data/preprocessing.py", "process_token_dict_to_mappings",
                               {"torch": fake_torch, "Counter": Counter, "Tuple": tuple})
    corpus = Counter({100: 5, 7: 3, 250: 1})  # 3 distinct loss-bearing tokens
    d2t, t2d = build(corpus, 6, 300)
    kept = [i + offset for i, offset in enumerate(d2t)]
    assert kept == [0, 1, 2, 7, 100, 250]  # the corpus tokens plus the lowest unseen ids
    assert [i for i, flag in enumerate(t2d) if flag] == kept
    out = capsys.readouterr().out
    assert "Total tokens after addition: 6" in out
    assert "top 6 token frequency ratio: 100.00%" in out


def test_disk_table_follows_bytes_per_token_formula():
    section = page_text().split("(specforge-offline-disk)=", 1)[1]
    rows = re.findall(r"^\| ([A-Za-z][^|]*?) \| (\d+) \| ([\d,]+) \| ([\d.]+) GB \| ([\d.]+) GB \|$", section, re.M)
    assert len(rows) == 3, rows
    for name, hidden, per_token, per_million, per_sample in rows:
        expected = (1 + 3) * int(hidden) * 2 + 8 + 8  # four bf16 states, int64 ids and mask
        assert int(per_token.replace(",", "")) == expected, name
        assert float(per_million) == round(expected * 1e6 / 1e9, 1), name
        assert float(per_sample) == round(expected * 65536 / 1e9, 2), name


def test_disk_table_hidden_sizes_match_the_recipe_draft_configs():
    examples = ROOT / "docs" / "_examples" / "specforge"
    for draft, hidden in (("llama31-8b", 4096), ("llama33-70b", 8192), ("gpt-oss-120b", 2880)):
        config = json.loads((examples / f"{draft}-eagle3-draft.json").read_text(encoding="utf-8"))
        assert config["hidden_size"] == hidden, draft


# --- the export-check script ---------------------------------------------------------

HIDDEN, VOCAB, DRAFT_VOCAB = 4, 10, 4
DTYPE_SIZE = {"BF16": 2, "I64": 8, "BOOL": 1}


def check_script() -> str:
    section = page_text().split("(specforge-export-check)=", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def write_safetensors(path: Path, tensors: dict[str, tuple[str, list[int], bytes | None]]) -> None:
    """A minimal safetensors file: 8-byte header length, JSON header, then the data."""
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        count = 1
        for dim in shape:
            count *= dim
        raw = raw if raw is not None else bytes(count * DTYPE_SIZE[dtype])
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    blob = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(blob)) + blob + data)


def fake_export(folder: Path, *, d2t_ids=(1, 3, 5, 7), extra=None, config_changes=None) -> Path:
    folder.mkdir()
    config = {"architectures": ["LlamaForCausalLMEagle3"], "num_hidden_layers": 1, "hidden_size": HIDDEN,
              "vocab_size": VOCAB, "draft_vocab_size": DRAFT_VOCAB, "tie_word_embeddings": False,
              "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 4]}}
    config.update(config_changes or {})
    (folder / "config.json").write_text(json.dumps(config))
    offsets = [target - i for i, target in enumerate(d2t_ids)]
    t2d = bytes(1 if i in d2t_ids else 0 for i in range(VOCAB))
    tensors = {
        "fc.weight": ("BF16", [HIDDEN, 3 * HIDDEN], None),
        "norm.weight": ("BF16", [HIDDEN], None),
        "lm_head.weight": ("BF16", [DRAFT_VOCAB, HIDDEN], None),
        "midlayer.self_attn.q_proj.weight": ("BF16", [HIDDEN, 2 * HIDDEN], None),
        "d2t": ("I64", [DRAFT_VOCAB], struct.pack(f"<{DRAFT_VOCAB}q", *offsets)),
        "t2d": ("BOOL", [VOCAB], t2d),
        **(extra or {}),
    }
    write_safetensors(folder / "model.safetensors", tensors)
    return folder


def run_check(tmp_path: Path, draft: Path, target_changes=None) -> subprocess.CompletedProcess:
    script = tmp_path / "check_export.py"
    script.write_text(check_script(), encoding="utf-8")
    target = tmp_path / "target-config.json"
    target.write_text(json.dumps({"hidden_size": HIDDEN, "vocab_size": VOCAB, "num_hidden_layers": 8,
                                  **(target_changes or {})}))
    return subprocess.run([sys.executable, str(script), str(draft), str(target)],
                          capture_output=True, text=True, timeout=60)


def test_export_check_script_passes_a_well_formed_export(tmp_path):
    proc = run_check(tmp_path, fake_export(tmp_path / "draft"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("export looks loadable")
    assert "FAIL" not in proc.stdout


@pytest.mark.parametrize("broken, complaint", [
    ({"d2t_ids": (0, 1, 2, 3)}, "d2t is not all zeros"),
    ({"d2t_ids": (1, 1, 5, 7)}, "distinct, increasing"),
    ({"extra": {"embed_tokens.weight": ("BF16", [VOCAB, HIDDEN], None)}}, "no embedding stored"),
    ({"config_changes": {"num_hidden_layers": 2}}, "num_hidden_layers 2"),
    ({"config_changes": {"vocab_size": 12}}, "vocab_size 12 (target 10)"),
    ({"config_changes": {"architectures": ["LlamaForCausalLMEagle"]}}, "architectures"),
])
def test_export_check_script_fails_a_broken_export_naming_the_problem(tmp_path, broken, complaint):
    proc = run_check(tmp_path, fake_export(tmp_path / "draft", **broken))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failures = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert any(complaint in line for line in failures), proc.stdout


def test_export_check_takes_boundary_ids_up_to_the_layer_count_only_for_gpt_oss(tmp_path):
    # The pinned SGLang reads GPT-OSS ids whose largest equals the layer count as block boundaries
    # (spec_aux_hidden_state.py, draft-checkpoint-format.md); other targets would capture past their last layer.
    boundary = {"config_changes": {"eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 5, 8]}}}
    llama = run_check(tmp_path, fake_export(tmp_path / "llama", **boundary))
    gpt_oss = run_check(tmp_path, fake_export(tmp_path / "gpt-oss", **boundary), {"architectures": ["GptOssForCausalLM"]})
    assert llama.returncode == 1 and "FAIL  captured layers [2, 5, 8]" in llama.stdout
    assert gpt_oss.returncode == 0, gpt_oss.stdout
