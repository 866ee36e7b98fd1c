"""One source of truth for the recipes' commands and memory arithmetic (docs/_data/recipes.yaml).

- every recipe page prints, character for character, the command :func:`speccheck.builder.build`
  composes from its scenario in ``docs/_data/recipes.yaml``;
- :mod:`speccheck.memory` gives the figures the recipe pages state (to the pages' rounding);
- the builder's rules (tree rows, request cap, multi-node, prefill/decode) hold.

The browser half (the page's JavaScript gives the same commands and figures, and the check
accepts them) is in tests/test_build_command_page.py.
"""

from __future__ import annotations

import re

import pytest
import yaml

from conftest import ROOT
from speccheck import builder
from speccheck import memory as mem
from test_recipes import page, section

DATA = builder.load()
SCENARIOS = {s["id"]: s for s in DATA["scenarios"]}


def recipe_commands(label: str) -> list[str]:
    slug = label[len("recipe-"):].rsplit("-", 1)[0]
    body = section(page(slug), label)
    blocks = re.findall(r"^```bash\n(.*?)^```$", body, re.M | re.S)
    return [b.strip() for b in blocks if builder.LAUNCH in b]


@pytest.mark.parametrize("sid", SCENARIOS)
def test_recipe_page_prints_the_builders_command_for_its_scenario(sid):
    s = SCENARIOS[sid]
    printed = recipe_commands(s["section"])
    assert builder.build(s, DATA)["commands"][0]["text"] == printed[s["index"]]


def test_every_launch_command_of_every_recipe_section_has_a_scenario():
    covered = {(s["section"], s["index"]) for s in DATA["scenarios"]}
    for path in sorted((ROOT / "docs" / "how-to" / "recipes").glob("*.md")):
        for label in re.findall(r"^\((recipe-[\w-]+-(?:latency|throughput))\)=$", path.read_text(encoding="utf-8"), re.M):
            for index in range(len(recipe_commands(label))):
                assert (label, index) in covered, f"{label} command {index} has no scenario in recipes.yaml"


def test_model_architectures_agree_with_the_checkers_table():
    table = yaml.safe_load((ROOT / "speccheck" / "data" / "model_architectures.yaml").read_text(encoding="utf-8"))
    for key, model in DATA["models"].items():
        if model["path"] in table:
            assert table[model["path"]]["architecture"] == model["architecture"], key


def test_parsers_in_the_data_are_choices_of_the_pinned_parser():
    from speccheck import sglang_args

    parser = sglang_args.pinned_parser().parser
    choices = {a.dest: set(a.choices or ()) for a in parser._actions}
    for key, model in DATA["models"].items():
        parsers = model.get("parsers") or {}
        if "tool" in parsers:
            assert parsers["tool"] in choices["tool_call_parser"], key
        if "reasoning" in parsers:
            assert parsers["reasoning"] in choices["reasoning_parser"], key


# (page, text on the page, model, GPU, tensor-parallel size, options, Memory field, value on the page).
# Each value is the page's own rounded figure; the computation must agree within 2 %.
PAGE_FIGURES = [
    ("llama3", "about 380,000 tokens", "llama31-8b", "H100", 1, {}, "kv_tokens", 380_000),
    ("llama3", "leaves about 51 GB of KV cache", "llama31-8b", "H100", 1, {}, "kv_gb", 51),
    ("llama3", "about 175,000 tokens", "llama31-8b", "L40S", 1, {}, "kv_tokens", 175_000),
    ("llama3", "about 18,000", "llama31-8b", 24, 1, {}, "kv_tokens_with_embed", 18_000),
    ("llama3", "80 KiB per token: about 360,000 tokens", "llama33-70b", "H100", 4, {}, "kv_tokens", 360_000),
    ("llama3", "about 985,000 tokens", "llama33-70b", "H200", 4, {}, "kv_tokens", 985_000),
    ("qwen3-dense", "about 155,000 tokens", "qwen3-8b", "L40S", 1, {}, "kv_tokens", 155_000),
    ("qwen3-dense", "about 335,000 tokens", "qwen3-8b", "H100", 1, {}, "kv_tokens", 335_000),
    ("qwen3-dense", "about 258,000", "qwen3-32b", "H100", 2, {}, "kv_tokens", 258_000),
    ("qwen3-moe", "about 580,000 tokens", "qwen3-30b-a3b", "H200", 1, {}, "kv_tokens", 580_000),
    ("qwen3-moe", "about 65,000 tokens", "qwen3-30b-a3b", "H100", 1, {}, "kv_tokens", 65_000),
    ("qwen3-moe", "about 1,250,000 tokens", "qwen3-235b-a22b", "H200", 8, {}, "kv_tokens", 1_250_000),
    ("qwen3-moe", "about 185,000 tokens", "qwen3-235b-a22b", "H100", 8, {}, "kv_tokens", 185_000),
    ("qwen3-moe", "about 1,840,000 tokens", "qwen3-coder-480b-a35b", "H200", 8, {"precision": "fp8"},
     "kv_tokens", 1_840_000),
    ("deepseek-v3", "about 475,000 tokens", "deepseek-v3", "H200", 8, {}, "kv_tokens", 475_000),
    ("deepseek-v3", "about 950,000 with an FP8 KV cache", "deepseek-v3", "H200", 8,
     {"kv_cache_dtype": "fp8_e4m3"}, "kv_tokens", 950_000),
    ("deepseek-v3", "about 350,000 tokens per GPU", "deepseek-v3", "H200", 8, {"dp": 8}, "kv_tokens", 350_000),
    ("deepseek-v3", "about 700,000 with an FP8 KV cache", "deepseek-v3", "H200", 8,
     {"dp": 8, "kv_cache_dtype": "fp8_e4m3"}, "kv_tokens", 700_000),
    ("deepseek-v3", "about 2,800,000 tokens in BF16", "deepseek-v3", "H200", 8, {"dp": 8}, "server_kv_tokens", 2_800_000),
    ("deepseek-v3", "9.2 GB more in FP8", "deepseek-v3", "H200", 8, {"dp": 8}, "attn_extra_gb", 9.2),
    ("deepseek-v32", "9.2 GB more in FP8", "deepseek-v32", "H200", 8, {"dp": 8}, "attn_extra_gb", 9.2),
    ("deepseek-v32", "about 430,000 tokens", "deepseek-v32", "H200", 8, {}, "kv_tokens", 430_000),
    ("deepseek-v32", "about 315,000 tokens per GPU", "deepseek-v32", "H200", 8, {"dp": 8}, "kv_tokens", 315_000),
    ("deepseek-v32", "about 2,500,000 tokens", "deepseek-v32", "H200", 8, {"dp": 8}, "server_kv_tokens", 2_500_000),
    ("deepseek-v32", "about 1,400,000 tokens without DP", "deepseek-v32", "B200", 8,
     {"kv_cache_dtype": "fp8_e4m3"}, "kv_tokens", 1_400_000),
    ("deepseek-v32", "about 1,190,000 tokens per GPU", "deepseek-v32", "B200", 8,
     {"dp": 8, "kv_cache_dtype": "fp8_e4m3"}, "kv_tokens", 1_190_000),
    ("glm45", "about 310,000 tokens", "glm45-air", "H100", 4, {}, "kv_tokens", 310_000),
    ("glm45", "about 495,000 tokens", "glm46", "H100", 8, {}, "kv_tokens", 495_000),
    ("gpt-oss", "about 715,000 tokens", "gpt-oss-120b", "H200", 1, {}, "kv_tokens", 715_000),
    ("gpt-oss", "about 920,000 tokens", "gpt-oss-120b", "H100", 2, {}, "kv_tokens", 920_000),
    ("kimi-k2", "about 325,000 tokens", "kimi-k2", "B200", 8, {}, "kv_tokens", 325_000),
    ("kimi-k2", "about 770,000 tokens", "kimi-k2", "H200", 16, {}, "kv_tokens", 770_000),
    ("kimi-k2", "about 4.9 GB more", "kimi-k2", "H200", 16, {"dp": 16}, "attn_extra_gb", 4.9),
    ("kimi-k2", "about 50 GB and 700,000 tokens per", "kimi-k2", "H200", 16, {"dp": 16}, "kv_tokens", 700_000),
    ("kimi-k2", "about 11,200,000 for the server", "kimi-k2", "H200", 16, {"dp": 16}, "server_kv_tokens", 11_200_000),
    ("mimo", "about 165,000 tokens", "mimo-7b", "L40S", 1, {}, "kv_tokens", 165_000),
    ("mimo", "about 345,000 tokens", "mimo-7b", "H100", 1, {}, "kv_tokens", 345_000),
    ("llama4", "about 258,000 tokens", "llama4-scout", "H100", 4, {}, "kv_tokens", 258_000),
    ("llama4", "about 1,610,000 tokens", "llama4-scout", "H100", 8, {}, "kv_tokens", 1_610_000),
    ("llama4", "about 780,000 tokens", "llama4-maverick", "H200", 8, {}, "kv_tokens", 780_000),
    ("llama4", "about 700,000 tokens", "llama4-maverick", "H100", 8, {"precision": "fp8"}, "kv_tokens", 700_000),
]


@pytest.mark.parametrize("slug, text, model, gpu, tp, options, field, value", PAGE_FIGURES,
                         ids=[f"{p[0]}:{p[1]}" for p in PAGE_FIGURES])
def test_memory_method_gives_the_recipe_pages_figures(slug, text, model, gpu, tp, options, field, value):
    assert text in " ".join(page(slug).split()), f"{slug} no longer says {text!r}"
    m = DATA["models"][model]
    gpu_gb = gpu if isinstance(gpu, (int, float)) else DATA["gpus"][gpu]["memory_gb"]
    got = getattr(mem.memory(m, gpu_gb, tp, draft=m.get("draft"), **options), field)
    assert got == pytest.approx(value, rel=0.02)


@pytest.mark.parametrize("slug, text, model, gpu, tp", [
    ("llama3", "70B on two H100s (or two A100 80GB) does not fit", "llama33-70b", "H100", 2),
    ("deepseek-v3", "8× H100 does not fit", "deepseek-v3", "H100", 8),
    ("kimi-k2", "Eight H200s do not fit", "kimi-k2", "H200", 8),
    ("qwen3-moe", "On four H100s it does not fit", "qwen3-235b-a22b", "H100", 4),
    ("qwen3-moe", "Coder-480B-A35B in BF16 does not fit on eight H200s", "qwen3-coder-480b-a35b", "H200", 8),
])
def test_memory_method_agrees_with_the_pages_does_not_fit(slug, text, model, gpu, tp):
    assert text in " ".join(page(slug).split())
    m = DATA["models"][model]
    assert not mem.memory(m, DATA["gpus"][gpu]["memory_gb"], tp, draft=m.get("draft")).fits


def test_dp_attention_keeps_the_mla_cell_and_multiplies_the_servers_tokens_by_the_ranks():
    m = DATA["models"]["deepseek-v3"]
    tp_only = mem.memory(m, 141, 8, draft=m["draft"])
    dp = mem.memory(m, 141, 8, draft=m["draft"], dp=8)
    assert dp.bytes_per_token == tp_only.bytes_per_token and dp.attn_tp == 1
    assert dp.server_kv_tokens == dp.kv_tokens * 8 and tp_only.server_kv_tokens == tp_only.kv_tokens
    assert dp.target_gb == pytest.approx(tp_only.target_gb + dp.attn_extra_gb)
    text = " ".join(page("deepseek-v3").split())
    assert "about 10.5 B parameters" in text and mem.attention_split_params(m) / 1e9 == pytest.approx(10.5, rel=0.01)
    assert "about 5.9 times the figure without DP attention" in text
    assert dp.server_kv_tokens / tp_only.kv_tokens == pytest.approx(5.9, abs=0.05)


def test_dp_attention_splits_gqa_kv_heads_over_the_attention_tp_group_only():
    m = DATA["models"]["llama33-70b"]
    tp_only, dp = mem.memory(m, 80, 4), mem.memory(m, 80, 4, dp=4)
    assert tp_only.bytes_per_token == 80 * 2 * 2 * 128 * 2  # 8 KV heads over 4 GPUs: 2 per GPU
    assert dp.bytes_per_token == 80 * 2 * 8 * 128 * 2  # attention TP 1: all 8 per GPU
    assert dp.attn_extra_gb == pytest.approx(mem.attention_split_params(m) * 2 / 1e9 * (1 - 1 / 4))


def test_dp_attention_without_a_head_count_leaves_the_extra_attention_weights_uncounted():
    m = DATA["models"]["glm46"]
    assert "heads" not in m["attention"]
    dp = mem.memory(m, 80, 8, dp=8)
    assert dp.attn_extra_gb is None and dp.target_gb == mem.memory(m, 80, 8).target_gb


def test_the_builder_passes_dp_attention_to_the_memory():
    s = next(x for x in DATA["scenarios"] if x["id"] == "deepseek-v3-throughput")
    out = builder.build(s, DATA)["memory"]
    assert out["dp"] == 8 and out["attn_tp"] == 1 and out["attn_extra_gb"] > 0


@pytest.mark.parametrize("concurrency, moe, tp, mtp, deepseek, row", [
    (1, False, 1, False, False, "1-dense"), (7, False, 2, False, False, "1-other"),
    (1, True, 1, False, False, "1-other"), (1, True, 8, True, True, "1-deepseek"),
    (1, True, 16, True, True, "1-other"), (8, False, 1, False, False, "8"), (30, True, 8, False, False, "8"),
    (31, False, 1, False, False, "32-dense"), (40, False, 2, False, False, "32-moe-tp"),
    (64, False, 1, False, False, "64"), (128, True, 8, False, False, "128"),
])
def test_tree_rows_follow_the_decision_tables_ranges(concurrency, moe, tp, mtp, deepseek, row):
    algorithm = "EAGLE" if mtp else "EAGLE3"
    assert builder.tree_row(concurrency, algorithm, moe=moe, tp=tp, mtp=mtp, deepseek=deepseek) == row


def test_above_the_request_cap_the_graph_batch_is_each_dp_ranks_share():
    out = builder.build(SCENARIOS["kimi-k2-throughput"], DATA)
    assert [c["node"] for c in out["commands"]] == [0, 1]
    assert "--max-running-requests 512" in out["commands"][1]["text"]
    assert "--cuda-graph-max-bs-decode 32" in out["commands"][1]["text"]
    assert "--node-rank 1" in out["commands"][1]["text"]


def test_a_prefill_decode_pair_has_the_same_speculative_flags():
    s = dict(SCENARIOS["llama3-latency-8b"], pd=True)
    prefill, decode = builder.build(s, DATA)["commands"]
    assert "--disaggregation-mode prefill" in prefill["text"] and "--disaggregation-mode decode" in decode["text"]
    spec = lambda t: [ln for ln in t.splitlines() if "--speculative" in ln]  # noqa: E731
    assert spec(prefill["text"]) == spec(decode["text"])
    # The router reaches both servers from another host; the pinned parser's --host default is 127.0.0.1.
    from speccheck import sglang_args
    assert sglang_args.pinned_parser().parser._option_string_actions["--host"].default == "127.0.0.1"
    assert all("--host 0.0.0.0" in c["text"] for c in (prefill, decode))


def _no_draft_llama():
    model = dict(DATA["models"]["llama31-8b"])
    model.pop("draft")
    return model


def test_no_draft_and_answers_that_repeat_generated_text_give_ngram_with_the_tree_flags_unset():
    out = builder.build({"model": _no_draft_llama(), "gpu": "H100", "gpus": 1, "concurrency": 1,
                         "workload": "repeats-output"}, DATA)
    assert out["algorithm"] == "NGRAM" and out["algorithm_row"] == "ngram" and out["tree"] is None
    assert "--speculative-num-steps" not in out["commands"][0]["text"]


@pytest.mark.parametrize("workload", [None, "chat", "repeats-prompt"])
def test_no_draft_and_chat_or_prompt_copying_give_no_speculation_and_the_train_row(workload):
    s = {"model": _no_draft_llama(), "gpu": "H100", "gpus": 1, "concurrency": 100}
    if workload:
        s["workload"] = workload
    out = builder.build(s, DATA)
    text = out["commands"][0]["text"]
    assert out["algorithm"] is None and out["algorithm_row"] == "train" and out["tree_row"] == "none"
    assert "--speculative" not in text and "--max-running-requests" not in text
    assert out["memory"]["bytes_per_token"] == 2 * 8 * 128 * 2 * 32  # the target's layers only


def test_a_draft_is_used_whatever_the_workload():
    for workload in builder.WORKLOADS:
        s = dict(SCENARIOS["llama3-latency-8b"], workload=workload)
        assert builder.build(s, DATA)["algorithm"] == "EAGLE3"


def test_an_unknown_workload_is_refused():
    with pytest.raises(ValueError, match="workload"):
        builder.build({"model": _no_draft_llama(), "gpu": "H100", "gpus": 1, "concurrency": 1, "workload": "code"}, DATA)


def test_the_builders_algorithm_rows_are_the_decision_tables():
    text = (ROOT / "docs" / "reference" / "decision-table.md").read_text(encoding="utf-8")
    table = section(text, "decision-algorithm")
    first_cells = [line.strip("|").split("|")[0].strip() for line in table.splitlines() if line.startswith("| ")]
    for row_id, start in builder.ALGORITHM_ROWS.items():
        assert sum(cell.startswith(start) for cell in first_cells) == 1, row_id
    ngram = next(c for c in first_cells if c.startswith(builder.ALGORITHM_ROWS["ngram"]))
    assert "generated before" in ngram  # the row the workload "repeats-output" stands for


# -- A pasted config.json ----------------------------------------------------------------

# Qwen3-30B-A3B's shapes (config.json of Qwen/Qwen3-30B-A3B).
QWEN3_MOE = {
    "architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 48,
    "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 6144,
    "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936,
    "tie_word_embeddings": False, "_name_or_path": "Qwen/Qwen3-30B-A3B",
}


def _without(config, *keys):
    return {k: v for k, v in config.items() if k not in keys}


def test_a_whole_config_assumes_nothing_and_names_its_path():
    model = builder.model_from_config(QWEN3_MOE)
    assert model["assumed"] == []
    assert model["attention"] == {"kind": "gqa", "kv_heads": 4, "head_dim": 128, "heads": 32}
    assert model["path"] == "Qwen/Qwen3-30B-A3B" and model["path_source"] == "config"


def test_a_missing_kv_head_count_without_a_class_default_is_full_attention_and_is_listed():
    config = dict(_without(QWEN3_MOE, "num_key_value_heads"), architectures=["SomeNewMoeForCausalLM"])
    model = builder.model_from_config(config)
    assert model["attention"]["kv_heads"] == 32
    assert [(a["field"], a["value"], a["affects"]) for a in model["assumed"]] == [("num_key_value_heads", 32, "kv")]
    whole = mem.kv_bytes_per_token(builder.model_from_config(QWEN3_MOE), 2)
    assert mem.kv_bytes_per_token(model, 2) == 8 * whole  # 32 KV heads read for 4: eight times the bytes


def test_a_missing_field_takes_the_transformers_class_default_and_is_still_listed():
    model = builder.model_from_config(_without(QWEN3_MOE, "num_key_value_heads", "head_dim", "intermediate_size"))
    assumed = {a["field"]: a for a in model["assumed"]}
    assert assumed["num_key_value_heads"]["value"] == 4 and "transformers" in assumed["num_key_value_heads"]["source"]
    # Qwen3MoeConfig has no head_dim: SGLang takes hidden_size // num_attention_heads.
    assert assumed["head_dim"]["value"] == 2048 // 32 and model["attention"]["head_dim"] == 64
    assert "intermediate_size" not in assumed  # all layers are MoE and moe_intermediate_size is given


def test_other_names_of_the_kv_head_count_are_read_as_sglang_reads_them():
    base = dict(_without(QWEN3_MOE, "num_key_value_heads"), architectures=["X"])
    assert builder.model_from_config(dict(base, multi_query_group_num=2))["attention"]["kv_heads"] == 2
    assert builder.model_from_config(dict(base, multi_query=True))["attention"]["kv_heads"] == 1


def test_a_multimodal_config_is_read_from_its_text_config():
    config = {"architectures": ["Qwen3VLMoeForConditionalGeneration"], "vision_config": {"hidden_size": 1152},
              "text_config": _without(QWEN3_MOE, "architectures", "_name_or_path")}
    model = builder.model_from_config(config, "Qwen/Qwen3-VL-30B-A3B-Instruct")
    assert model["text_config"] == "text_config" and model["layers"] == 48 and model["assumed"] == []
    assert model["attention"] == {"kind": "gqa", "kv_heads": 4, "head_dim": 128, "heads": 32}
    assert model["path_source"] == "given"


def test_language_config_comes_before_text_config_as_in_sglang():
    config = {"architectures": ["X"], "language_config": dict(QWEN3_MOE, num_hidden_layers=10),
              "text_config": dict(QWEN3_MOE, num_hidden_layers=20)}
    model = builder.model_from_config(config)
    assert model["text_config"] == "language_config" and model["layers"] == 10


def test_mla_fields_are_read_and_a_missing_rope_dimension_is_listed():
    config = {"architectures": ["SomeMlaForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 27,
              "num_attention_heads": 16, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
              "v_head_dim": 128, "q_lora_rank": None, "intermediate_size": 10944, "vocab_size": 102400}
    model = builder.model_from_config(config)
    assert model["attention"] == {"kind": "mla", "kv_lora_rank": 512, "qk_rope_head_dim": 64, "heads": 16,
                                  "qk_nope_head_dim": 128, "v_head_dim": 128, "q_lora_rank": 0} and model["assumed"] == []
    partial = builder.model_from_config(_without(config, "qk_rope_head_dim"))
    assert [(a["field"], a["affects"]) for a in partial["assumed"]] == [("qk_rope_head_dim", "kv")]


def test_a_deepseek_v3_config_without_its_latent_fields_is_read_as_transformers_fills_them():
    config = {"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168, "num_hidden_layers": 61,
              "num_attention_heads": 128, "vocab_size": 129280}
    model = builder.model_from_config(config)
    assert model["attention"] == {"kind": "mla", "kv_lora_rank": 512, "qk_rope_head_dim": 64, "heads": 128,
                                  "qk_nope_head_dim": 128, "v_head_dim": 128, "q_lora_rank": 1536} and model["moe"]
    fields = {a["field"] for a in model["assumed"]}
    assert {"kv_lora_rank", "qk_rope_head_dim", "num_experts"} <= fields
    assert all("transformers default of DeepseekV3ForCausalLM" == a["source"] for a in model["assumed"])


def test_a_config_without_a_path_gets_the_placeholder_which_the_check_accepts():
    import speccheck

    model = builder.model_from_config(_without(QWEN3_MOE, "_name_or_path"))
    assert model["path"] == builder.PLACEHOLDER_PATH and model["path_source"] == "placeholder"
    text = builder.build({"model": model, "gpu": "L40S", "gpus": 2, "concurrency": 8}, DATA)["commands"][0]["text"]
    assert f"--model-path {builder.PLACEHOLDER_PATH}" in text
    assert not [d for d in speccheck.check_command(text) if d.severity == "error"]


# Decision-table row id -> (start of the Concurrency cell, a phrase of the Target cell) in
# docs/reference/decision-table.md, "Starting draft tree by workload".
DECISION_ROWS = {
    "1-dense": ("1 (1 to 7)", "Dense with a draft model, one GPU"),
    "1-other": ("1 (1 to 7)", "Any other target"),
    "1-deepseek": ("1 (1 to 7)", "DeepSeek (V3, R1, V3.1, V3.2) with its built-in MTP layer, TP 8"),
    "8": ("8 (8 to 30)", "Any"),
    "32-dense": ("32 (31 to 60)", "Dense, one H100-class GPU"),
    "32-moe-tp": ("32 (31 to 60)", "MoE, or tensor parallelism"),
    "64": ("64 (61 to 127)", "Any"),
    "128": ("128 and more", "Any"),
    "standalone-low": ("low", "standalone draft"),
}


def test_the_builders_tree_rows_are_the_decision_tables():
    text = (ROOT / "docs" / "reference" / "decision-table.md").read_text(encoding="utf-8")
    table = section(text, "decision-starting-tree")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines() if line.startswith("| ")]
    for row_id, (conc, target) in DECISION_ROWS.items():
        matches = [r for r in rows if r[0].startswith(conc) and target in r[1]]
        assert len(matches) == 1, row_id
        tree = re.search(r"\*\*\((\d+), (\d+), (\d+)\)\*\*", matches[0][2])
        assert tuple(int(x) for x in tree.groups()) == builder.TREE_ROWS[row_id], row_id
    ngram = [r for r in rows if "n-gram" in r[1]]
    assert len(ngram) == 1 and "unset" in ngram[0][2] and builder.TREE_ROWS["ngram"] is None


def test_the_request_cap_is_sglangs():
    from check_command_page import source_extras

    assert source_extras()["request_cap"] == builder.REQUEST_CAP


# -- Issue 23, trial 3: FP8 on a BF16 checkpoint, sliding windows, STANDALONE drafts, the context env --

SITE_PACKAGES = ROOT / ".venv" / "lib" / "python3.11" / "site-packages"
# microsoft/phi-4's config.json, as job J2 of the trial gave it.
PHI4 = {"architectures": ["Phi3ForCausalLM"], "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 10,
        "num_hidden_layers": 40, "vocab_size": 100352, "max_position_embeddings": 16384, "torch_dtype": "bfloat16"}
# A Gemma-3-27B-shaped text config (the trial's J4) and a 26-layer small model of the same family as its draft.
GEMMA3 = {"architectures": ["Gemma3ForConditionalGeneration"], "text_config": {
    "hidden_size": 5376, "head_dim": 128, "intermediate_size": 21504, "num_attention_heads": 32, "num_hidden_layers": 62,
    "num_key_value_heads": 16, "sliding_window": 1024, "sliding_window_pattern": 6, "vocab_size": 262208}}
SMALL_DRAFT = {"architectures": ["Gemma3ForCausalLM"], "hidden_size": 1152, "head_dim": 256, "intermediate_size": 6912,
               "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1, "vocab_size": 262144}


def _fp8_phi4(gpu="A100-80GB", **extra):
    model = builder.model_from_config(PHI4, "microsoft/phi-4")
    return builder.build(dict({"model": model, "gpu": gpu, "gpus": 1, "concurrency": 1, "precision": "fp8"}, **extra), DATA)


def test_fp8_chosen_for_a_bf16_config_adds_online_quantization_and_counts_one_byte_per_weight():
    out = _fp8_phi4()
    text = out["commands"][0]["text"]
    assert out["quantization"] == "fp8" and "--quantization fp8" in text
    model = builder.model_from_config(PHI4)
    assert out["memory"]["target_gb"] == pytest.approx(model["params_b"])
    bf16 = builder.build({"model": model, "gpu": "A100-80GB", "gpus": 1, "concurrency": 1}, DATA)
    assert bf16["quantization"] is None and "--quantization" not in bf16["commands"][0]["text"]


def test_fp8_quantization_is_a_choice_of_the_pinned_parser_and_so_is_unquant_for_the_draft():
    text = (SITE_PACKAGES / "sglang" / "srt" / "arg_groups" / "choices.py").read_text(encoding="utf-8")
    choices = re.search(r"QUANTIZATION_CHOICES = \[(.*?)\]", text, re.S).group(1)
    for value in list(builder.ONLINE_QUANTIZATION.values()) + ["unquant"]:
        assert f'"{value}"' in choices


def test_fp8_weight_only_below_sm89_is_sglangs_rule():
    text = (SITE_PACKAGES / "sglang" / "srt" / "layers" / "quantization" / "fp8_utils.py").read_text(encoding="utf-8")
    body = text[text.index("def can_auto_enable_marlin_fp8"):][:400]
    assert f"return 80 <= sm < {builder.FP8_NATIVE_SM}" in body
    assert DATA["gpus"]["A100-80GB"]["sm"] < builder.FP8_NATIVE_SM <= DATA["gpus"]["L40S"]["sm"]


def test_a_published_fp8_checkpoint_or_a_typed_one_gets_no_quantization_flag():
    published = builder.build({"model": "qwen3-30b-a3b", "gpu": "H100", "gpus": 1, "concurrency": 1, "precision": "fp8"}, DATA)
    assert published["quantization"] is None and "Qwen3-30B-A3B-Instruct-2507-FP8" in published["commands"][0]["text"]
    typed = builder.build({"model": "llama31-8b", "gpu": "H100", "gpus": 1, "concurrency": 1, "precision": "fp8",
                           "path": "someone/Llama-FP8"}, DATA)
    assert typed["quantization"] is None and "--quantization" not in typed["commands"][0]["text"]


def test_online_fp8_with_a_draft_model_keeps_the_draft_in_bf16():
    out = builder.build({"model": "llama31-8b", "gpu": "H100", "gpus": 1, "concurrency": 1, "precision": "fp8"}, DATA)
    text = out["commands"][0]["text"]
    assert "--quantization fp8" in text and "--speculative-draft-model-quantization unquant" in text


def test_every_eagle3_draft_model_gets_the_context_env_and_nothing_else_does():
    for model in DATA["models"].values():
        draft = model.get("draft") or {}
        assert "env" not in draft  # the rule is builder.draft_env, not data
        assert builder.draft_env(draft) == ([builder.CONTEXT_ENV] if draft.get("algorithm") == "EAGLE3" else [])
    typed = builder.build({"model": "qwen3-32b", "gpu": "H100", "gpus": 2, "concurrency": 1,
                           "draft": {"algorithm": "EAGLE3", "path": "someone/draft"}}, DATA)
    assert typed["commands"][0]["text"].startswith(f"export {builder.CONTEXT_ENV}\n")
    standalone = builder.build({"model": "qwen3-32b", "gpu": "H100", "gpus": 2, "concurrency": 1,
                                "draft": builder.standalone_draft("Qwen/Qwen3-0.6B", 0.6)}, DATA)
    assert "export" not in standalone["commands"][0]["text"]


def test_the_context_env_is_the_variable_sglang_reads():
    text = (SITE_PACKAGES / "sglang" / "srt" / "configs" / "model_config.py").read_text(encoding="utf-8")
    assert builder.CONTEXT_ENV.split("=")[0] in text[text.index("def _derive_context_length"):][:2000]


def test_a_standalone_draft_counts_its_own_weights_and_all_its_layers():
    target = builder.model_from_config(GEMMA3, "google/gemma-3-27b-it")
    draft = builder.standalone_draft("google/gemma-3-1b-it", 1.0, SMALL_DRAFT)
    assert draft["layers"] == 26 and draft["gb"] == 2.0 and draft["counted"] == "all"
    out = builder.build({"model": target, "gpu": "H100", "gpus": 2, "concurrency": 1, "draft": draft}, DATA)
    m = out["memory"]
    assert m["draft_gb"] == pytest.approx(1.0)  # split over TP 2 like the target
    assert m["embed_copy_gb"] == 0  # its embedding is in its weights
    assert m["bytes_per_token"] == 2 * 8 * 128 * 2 * (62 + 26)  # every draft layer at the target's per-layer cost


def test_a_standalone_draft_of_unknown_size_is_marked_not_counted():
    draft = builder.standalone_draft("some/draft")
    assert draft["counted"] == "none" and "gb" not in draft and draft["layers"] == 0
    assert builder.standalone_draft("some/draft", 1.0)["counted"] == "weights"
    estimated = builder.standalone_draft("some/draft", None, SMALL_DRAFT)
    assert estimated["counted"] == "all" and estimated["gb"] > 0


def test_the_pool_sizes_standalone_drafts_like_eagle_drafts():
    text = (SITE_PACKAGES / "sglang" / "srt" / "model_executor" / "pool_configurator.py").read_text(encoding="utf-8")
    assert "kvc.spec_algorithm.is_eagle() or kvc.spec_algorithm.is_standalone()" in text


def test_sliding_window_configs_are_marked_and_gemma3_is_not_a_hybrid_swa_architecture():
    gemma = builder.model_from_config(GEMMA3)
    assert gemma["sliding_window"] == 1024 and gemma["hybrid_swa"] is False
    gpt_oss = builder.model_from_config({"architectures": ["GptOssForCausalLM"], "hidden_size": 2880, "num_hidden_layers": 36,
                                         "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
                                         "sliding_window": 128, "layer_types": ["sliding_attention", "full_attention"] * 18})
    assert gpt_oss["hybrid_swa"] is True
    qwen = builder.model_from_config({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584, "num_hidden_layers": 28,
                                      "num_attention_heads": 28, "sliding_window": 131072, "use_sliding_window": False})
    assert "sliding_window" not in qwen


def test_the_hybrid_swa_reader_gives_the_names_in_sglangs_function_and_the_sets_it_expands():
    # An independent reading of the same source (text, not ast) must give what the reader gives.
    text = (SITE_PACKAGES / "sglang" / "srt" / "configs" / "model_config.py").read_text(encoding="utf-8")
    func = text[text.index("def is_hybrid_swa_model"):text.index("def get_hybrid_layer_ids")]
    names = set(re.findall(r'"(\w+)"', func[:func.index("if any(")]))
    for group in ("SWA_SINK_ARCHS", "MIMO_V2_MODEL_ARCHS"):
        block = text[text.index(f"{group} = "):]
        names |= set(re.findall(r'"(\w+)"', block[:block.index(")")]))
    assert names == set(builder.hybrid_swa_archs())
    assert not {"Gemma3ForConditionalGeneration", "Gemma3ForCausalLM", "Gemma2ForCausalLM", "MistralForCausalLM"} & names


def test_the_hybrid_swa_reader_follows_the_source_it_reads(tmp_path):
    source = tmp_path / "sglang" / "srt" / "configs" / "model_config.py"
    source.parent.mkdir(parents=True)
    source.write_text('EXTRA = frozenset({"BForCausalLM"})\n\n'
                      'def is_hybrid_swa_model(model_architectures, hf_text_config=None):\n'
                      '    hybrid_swa_archs = {"AForCausalLM", *EXTRA}\n'
                      '    return any(a in hybrid_swa_archs for a in model_architectures)\n', encoding="utf-8")
    assert builder.read_hybrid_swa_archs(tmp_path) == ("AForCausalLM", "BForCausalLM")
    source.write_text("def is_hybrid_swa_model(model_architectures):\n    return False\n", encoding="utf-8")
    with pytest.raises(RuntimeError):
        builder.read_hybrid_swa_archs(tmp_path)


# Trial 4: a target class without the EAGLE-3 capture hook gets no "train an EAGLE-3 draft" advice.
# A Granite-shaped config (only its class matters here).
GRANITE_CONFIG = {"architectures": ["GraniteForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 40,
                  "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 12800, "vocab_size": 49155}


def test_the_eagle3_target_classes_are_the_classes_with_the_capture_hook_and_their_subclasses():
    from speccheck import interactions

    targets = builder.eagle3_targets()
    hooked = {p.qualname for p in interactions.load()
              if p.kind == "model-class" and "set_eagle3_layers_to_capture" in p.detail.get("target_hooks", [])}
    assert hooked <= set(targets)  # every class the interaction map lists with the hook
    # MistralForCausalLM(LlamaForCausalLM) inherits the hook; Granite and Gemma 2 define none.
    assert "MistralForCausalLM" in targets and "MistralForCausalLM" not in hooked
    assert "GraniteForCausalLM" not in targets and "Gemma2ForCausalLM" not in targets


def test_every_recipe_model_with_a_published_eagle3_draft_can_feed_it():
    for key, model in DATA["models"].items():
        if (model.get("draft") or {}).get("algorithm") == "EAGLE3":
            assert builder.can_feed_eagle3(model) is True, key


def test_the_train_row_says_whether_the_target_can_feed_an_eagle3_draft():
    granite = builder.build({"model": builder.model_from_config(GRANITE_CONFIG, "org/granite-like"),
                             "gpu": "H100", "gpus": 1, "concurrency": 1}, DATA)
    assert granite["algorithm_row"] == "train" and granite["eagle3_target"] is False
    llama = builder.build({"model": _no_draft_llama(), "gpu": "H100", "gpus": 1, "concurrency": 1}, DATA)
    assert llama["algorithm_row"] == "train" and llama["eagle3_target"] is True
    unknown = dict(builder.model_from_config({k: v for k, v in GRANITE_CONFIG.items() if k != "architectures"}))
    assert builder.can_feed_eagle3(unknown) is None


# Trial 5 (issue 23): a Granite-like config without intermediate_size on one 24 GB L4; the model is about
# 8.2 B parameters, the 4 x hidden guess gives 10.1 B, and the verdict turns within the range.
GRANITE_PARTIAL = {"architectures": ["GraniteForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
                   "num_key_value_heads": 8, "num_hidden_layers": 40, "vocab_size": 49159,
                   "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}


def test_a_guessed_intermediate_size_gives_a_parameter_range_over_the_stated_spread():
    model = builder.model_from_config(GRANITE_PARTIAL)
    low, high = model["params_b_range"]
    assert low < model["params_b"] < high
    at = {f: builder.model_from_config(dict(GRANITE_PARTIAL, intermediate_size=int(f * 4096)))["params_b"]
          for f in builder.INTERMEDIATE_RANGE}
    assert [low, high] == [at[2.5], at[5.5]]
    assert builder.model_from_config(dict(GRANITE_PARTIAL, intermediate_size=12800))["params_b_range"] is None


def test_a_verdict_that_turns_within_the_range_is_uncertain():
    model = builder.model_from_config(GRANITE_PARTIAL)
    out = builder.build({"model": model, "gpu_memory_gb": 24, "gpus": 1, "concurrency": 1}, DATA)
    assert out["verdict"] == "uncertain"
    assert [r["fits"] for r in out["memory_range"]] == [True, False]


def test_a_typed_parameter_count_or_a_clear_case_gives_a_firm_verdict():
    model = builder.model_from_config(GRANITE_PARTIAL)
    typed = builder.build({"model": dict(model, params_b=8.2, params_typed=True), "gpu_memory_gb": 24, "gpus": 1,
                           "concurrency": 1}, DATA)
    assert typed["verdict"] == "fits" and typed["memory_range"] is None
    big = builder.build({"model": model, "gpu_memory_gb": 80, "gpus": 1, "concurrency": 1}, DATA)
    assert big["verdict"] == "fits" and all(r["fits"] for r in big["memory_range"])
    small = builder.build({"model": model, "gpu_memory_gb": 12, "gpus": 1, "concurrency": 1}, DATA)
    assert small["verdict"] == "does-not-fit"


def test_a_transformers_class_default_is_not_given_a_range():
    config = {"architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584, "num_hidden_layers": 28,
              "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064}
    assert builder.model_from_config(config)["params_b_range"] is None


# Page weight (issue 23): the builder page loads the checker's data file, whose option table is its largest
# part; it carries only the fields the scripts read (the help texts were more than half of it, compressed).
def test_the_checkers_option_table_holds_only_fields_a_script_reads():
    from check_command_page import option_table
    from speccheck import sglang_args

    fields = set().union(*(o.keys() for o in option_table(sglang_args.pinned_parser().parser)))
    scripts = "".join((ROOT / "docs" / "_static" / f).read_text(encoding="utf-8")
                      for f in ("check-command.js", "build-command.js"))
    assert "help" not in fields
    assert all(re.search(rf"\.{f}\b", scripts) for f in fields), fields


# -- Issue 23, trial 7: ROCm gets a chain (the checker has no platform input) --


def test_on_rocm_the_tables_tree_becomes_a_chain_and_on_cuda_it_stays():
    s = {"model": "llama31-8b", "gpu": "MI300X", "gpus": 1, "concurrency": 1}
    cuda = builder.build(s, DATA)
    rocm = builder.build(dict(s, platform="rocm"), DATA)
    assert cuda["tree"] == [5, 4, 8] and cuda["table_tree"] is None
    assert rocm["tree"] == [5, 1, 6] and rocm["table_tree"] == [5, 4, 8]
    text = rocm["commands"][0]["text"]
    assert "--speculative-eagle-topk 1" in text and "--speculative-num-draft-tokens 6" in text
    import speccheck

    assert not [d for d in speccheck.check_command(text) if d.severity == "error"]
    # a chain already is a chain: (3, 1, 4) on ROCm is unchanged
    other = builder.build(dict(s, concurrency=8, platform="rocm"), DATA)
    assert other["tree"] == [3, 1, 4] and other["table_tree"] is None
    with pytest.raises(ValueError):
        builder.platform_tree((5, 4, 8), "metal")


def test_the_rocm_rule_rests_on_the_pinned_default_backend_and_aiters_topk_refusal():
    srt = SITE_PACKAGES / "sglang" / "srt"
    default = (srt / "arg_groups" / "model_override_base.py").read_text()
    assert re.search(r"elif get_platform\(\)\.is_hip:\n\s+return \"aiter\"", default)  # MHA models on HIP
    aiter = (srt / "layers" / "attention" / "aiter_backend.py").read_text()
    assert "def _ensure_spec_v2_topk_supported" in aiter and "supports topk <= 1 only" in aiter


def test_a_given_quantization_is_written_as_given_and_keeps_a_draft_model_in_bf16():
    s = {"model": "qwen3-32b", "gpu": "H100", "gpus": 2, "concurrency": 32, "quantization": "fp8", "precision": "fp8",
         "path": "Qwen/Qwen3-32B"}
    out = builder.build(s, DATA)
    text = out["commands"][0]["text"]
    assert "--model-path Qwen/Qwen3-32B" in text and "--quantization fp8" in text
    assert "--speculative-draft-model-quantization unquant" in text
    assert out["quantization"] == "fp8"
    assert out["memory"]["target_gb"] == pytest.approx(DATA["models"]["qwen3-32b"]["params_b"] / 2)


def test_a_standalone_draft_with_another_vocab_size_is_a_start_up_refusal():
    target = builder.model_from_config(PHI4, "microsoft/phi-4")
    other = dict(PHI4, vocab_size=100000, num_hidden_layers=4)
    s = {"model": target, "gpu": "H100", "gpus": 1, "concurrency": 1}
    out = builder.build(dict(s, draft=builder.standalone_draft("x/small", 0.5, other)), DATA)
    assert out["vocab_mismatch"] == [100352, 100000]
    assert builder.build(dict(s, draft=builder.standalone_draft("x/small", 0.5, dict(other, vocab_size=100352))),
                         DATA)["vocab_mismatch"] is None
    assert builder.build(dict(s, draft=builder.standalone_draft("x/small", 0.5)), DATA)["vocab_mismatch"] is None
    source = (SITE_PACKAGES / "sglang" / "srt" / "speculative" / "standalone_worker_v2.py").read_text()
    assert "def _validate_vocab_compatibility" in source and "same vocabulary as the target model, but got" in source


def test_every_link_the_page_script_writes_is_resolved_by_the_build():
    """A note's ``[label](name)`` renders as a link only when ``name`` is in the page data's links
    (sphinxext/content/build_command_page.py::LINKS); otherwise the reader sees the raw brackets."""
    import build_command_page  # sphinxext/, on sys.path through conftest

    script = (ROOT / "docs" / "_static" / "build-command.js").read_text(encoding="utf-8")
    script = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith(("//", "*", "/*")))
    used = set(re.findall(r"\]\(([a-z0-9-]+)\)", script))
    assert used and not used - set(build_command_page.LINKS), sorted(used - set(build_command_page.LINKS))


def test_a_config_without_vocab_size_gives_an_estimate_inside_its_own_range():
    """The headline parameter count was below the range printed beside it when vocab_size was missing
    (counted as 0); it is now the range's low end, and the guess is never used as the model's vocabulary."""
    cfg = {"architectures": ["MistralForCausalLM"], "hidden_size": 5120, "intermediate_size": 32768,
           "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 40, "torch_dtype": "bfloat16"}
    model = builder.model_from_config(cfg)
    low, high = model["params_b_range"]
    assert low <= model["params_b"] <= high and low < high
    assert model["vocab_size"] is None
