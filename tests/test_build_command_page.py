"""The "Build a command" page (how-to/build-a-command) in Chromium.

- Differential: the page's JavaScript (``window.sglangBuild``) composes the same commands and
  the same memory figures as :mod:`speccheck.builder` / :mod:`speccheck.memory` for every
  recipe scenario and for the scenarios below; a pasted ``config.json`` is read the same way.
- Scenarios of issue 23, driven through the form: a pasted config of a model with no recipe,
  an FP8 target, a two-node prefill/decode pair, ROCm, a scenario that does not fit,
  multi-node, parsers added to a recipe; each produced command passes the check of the
  "Check a command" page (its verdict is shown) and the Python check of the build.
- vLLM EAGLE-3, MTP and n-gram commands come out as SGLang commands that pass the check.
- State lives in the URL; axe-core finds nothing at desktop width and at 390 px.
"""

from __future__ import annotations

import json

import pytest

from speccheck import builder
from speccheck import memory as mem

PAGE = "how-to/build-a-command.html"
DATA = builder.load()

# A dense grouped-query model the recipes do not cover (shapes as in a Qwen2.5-7B-style config.json;
# the tests only need a realistic config, not a particular model).
NO_RECIPE_CONFIG = {
    "architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584, "intermediate_size": 18944,
    "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "vocab_size": 152064, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
# A DeepSeek-V3-shaped config with one MTP layer (num_nextn_predict_layers), stored in FP8.
MTP_CONFIG = {
    "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168, "num_hidden_layers": 61,
    "vocab_size": 129280, "num_attention_heads": 128, "num_key_value_heads": 128, "kv_lora_rank": 512,
    "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
    "n_routed_experts": 256, "n_shared_experts": 1, "moe_intermediate_size": 2048, "intermediate_size": 18432,
    "first_k_dense_replace": 3, "num_nextn_predict_layers": 1, "quantization_config": {"quant_method": "fp8"},
}
# Qwen3-30B-A3B's shapes, as a reader pastes them in part: no num_key_value_heads, head_dim,
# intermediate_size or _name_or_path (a new architecture name, so no transformers class default applies).
PARTIAL_MOE_CONFIG = {
    "architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 48,
    "num_attention_heads": 32, "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
    "vocab_size": 151936, "tie_word_embeddings": False,
}
PARTIAL_NEW_ARCH = dict(PARTIAL_MOE_CONFIG, architectures=["SomeNewMoeForCausalLM"])
MULTIMODAL_CONFIG = {"architectures": ["Qwen3VLMoeForConditionalGeneration"], "vision_config": {"depth": 27},
                     "text_config": dict(PARTIAL_MOE_CONFIG, num_key_value_heads=4, head_dim=128),
                     "_name_or_path": "Qwen/Qwen3-VL-30B-A3B-Instruct"}
MLA_PARTIAL = {k: v for k, v in MTP_CONFIG.items() if k not in ("qk_rope_head_dim", "v_head_dim")}
EXTRA = [
    {"model": "llama31-8b", "gpu": "H100", "gpus": 1, "concurrency": 1, "pd": True},
    {"model": "qwen3-30b-a3b", "gpu": "H100", "gpus": 1, "concurrency": 8, "precision": "fp8"},
    {"model": "deepseek-v3", "gpu": "MI300X", "gpus": 8, "concurrency": 1},
    {"model": "kimi-k2", "gpu": "H200", "gpus": 8, "concurrency": 1},
    {"model": "qwen3-8b", "gpu": "L40S", "gpus": 1, "concurrency": 40, "tool_parser": "qwen25", "reasoning_parser": "qwen3"},
    {"model": "llama33-70b", "gpu": "H100", "gpus": 2, "nodes": 2, "concurrency": 200, "dp_attention": True},
    {"model": "gpt-oss-120b", "gpu": "H100", "gpus": 1, "concurrency": 64, "lora": "a=/models/a"},
    {"model": "deepseek-v32", "gpu": "B200", "gpus": 8, "concurrency": 1, "kv_cache_dtype": "fp8_e4m3"},
    {"model": "llama31-8b", "gpu": "MI300X", "gpus": 1, "concurrency": 1, "platform": "rocm"},
    {"model": "qwen3-32b", "gpu": "H100", "gpus": 2, "concurrency": 32, "quantization": "fp8", "precision": "fp8",
     "path": "Qwen/Qwen3-32B"},
]


@pytest.fixture
def builder_page(page, site):
    page.goto(site + PAGE)
    page.wait_for_function("document.getElementById('build-command').dataset.ready === '1'")
    return page


def js_build(page, scenario: dict) -> dict:
    return page.evaluate("s => window.sglangBuild.build(s)", scenario)


def same(js: dict, py: dict) -> None:
    assert [c["text"] for c in js["commands"]] == [c["text"] for c in py["commands"]]
    for key in ("algorithm", "algorithm_row", "tree_row", "tree", "table_tree", "tp", "eagle3_target", "verdict",
                "vocab_mismatch"):
        assert js[key] == py[key], key
    assert (js["memory_range"] is None) == (py["memory_range"] is None)
    for js_mem, py_mem in [(js["memory"], py["memory"])] + list(zip(js["memory_range"] or [], py["memory_range"] or [], strict=True)):
        for key, value in py_mem.items():
            if isinstance(value, float):
                assert js_mem[key] == pytest.approx(value, rel=1e-9, abs=1e-9), key
            else:
                assert js_mem[key] == value, key


def python_errors(text: str) -> list[str]:
    """Error messages of the build's own check (speccheck) for one command."""
    import speccheck

    return [d.message for d in speccheck.check_command(text) if d.severity == "error"]


# -- Differential: JavaScript against Python --------------------------------------------


def test_the_page_composes_every_recipe_scenario_as_the_python_builder_does(builder_page):
    for s in DATA["scenarios"]:
        same(js_build(builder_page, s), builder.build(s, DATA))


@pytest.mark.parametrize("scenario", EXTRA, ids=lambda s: f"{s['model']}-{s['gpu']}")
def test_the_page_and_python_agree_on_other_scenarios(builder_page, scenario):
    same(js_build(builder_page, scenario), builder.build(scenario, DATA))


CONFIGS = {"dense": NO_RECIPE_CONFIG, "mtp": MTP_CONFIG, "partial-moe": PARTIAL_MOE_CONFIG,
           "partial-new-arch": PARTIAL_NEW_ARCH, "multimodal": MULTIMODAL_CONFIG, "mla-partial": MLA_PARTIAL,
           "deepseek-bare": {"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168, "num_hidden_layers": 61,
                             "num_attention_heads": 128},
           "gemma3-windows": None, "gpt-oss-windows": None}


# Trial 3 (issue 23): configs with sliding-window layers, one on SGLang's hybrid-SWA list and one not.
GEMMA3 = {"architectures": ["Gemma3ForConditionalGeneration"], "_name_or_path": "google/gemma-3-27b-it", "text_config": {
    "hidden_size": 5376, "head_dim": 128, "intermediate_size": 21504, "num_attention_heads": 32, "num_hidden_layers": 62,
    "num_key_value_heads": 16, "sliding_window": 1024, "sliding_window_pattern": 6, "vocab_size": 262208}}
GPT_OSS_LIKE = {"architectures": ["GptOssForCausalLM"], "hidden_size": 2880, "num_hidden_layers": 36, "num_attention_heads": 64,
                "num_key_value_heads": 8, "head_dim": 64, "sliding_window": 128, "vocab_size": 201088,
                "layer_types": ["sliding_attention", "full_attention"] * 18, "_name_or_path": "org/windowed"}
SMALL_DRAFT = {"architectures": ["Gemma3ForCausalLM"], "hidden_size": 1152, "head_dim": 256, "intermediate_size": 6912,
               "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1, "vocab_size": 262144}
PHI4 = {"architectures": ["Phi3ForCausalLM"], "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 10,
        "num_hidden_layers": 40, "vocab_size": 100352, "max_position_embeddings": 16384, "torch_dtype": "bfloat16"}
CONFIGS["gemma3-windows"], CONFIGS["gpt-oss-windows"] = GEMMA3, GPT_OSS_LIKE


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("path", [None, "org/model"])
def test_a_pasted_config_is_read_as_python_reads_it(builder_page, name, path):
    config = CONFIGS[name]
    js = builder_page.evaluate("a => window.sglangBuild.modelFromConfig(a[0], a[1] || undefined)", [config, path])
    py = builder.model_from_config(config, path)
    js.pop("intermediate_size")
    assert js == py
    for workload in ("chat", "repeats-output"):
        scenario = {"model": py, "gpu": "H200", "gpus": 8, "concurrency": 1, "workload": workload}
        same(js_build(builder_page, scenario), builder.build(scenario, DATA))


@pytest.mark.parametrize("gpu_gb, tp, kv, dp", [(80, 1, "auto", 1), (24, 1, "auto", 1), (141, 4, "fp8_e4m3", 1),
                                               (48, 2, "auto", 1), (141, 8, "auto", 8), (80, 8, "fp8_e4m3", 4)])
def test_the_memory_method_is_the_same_in_both_languages(builder_page, gpu_gb, tp, kv, dp):
    for key, model in DATA["models"].items():
        draft = model.get("draft")
        py = mem.memory(model, gpu_gb, tp, draft=draft, kv_cache_dtype=kv, dp=dp).as_dict()
        js = builder_page.evaluate("a => window.sglangBuild.memory(a[0], a[1], a[2], {draft: a[3], kv_cache_dtype: a[4], dp: a[5]})",
                                   [model, gpu_gb, tp, draft, kv, dp])
        for name, value in py.items():
            assert js[name] == (pytest.approx(value, rel=1e-9, abs=1e-9) if isinstance(value, float) else value), (key, name)


# -- The form -------------------------------------------------------------------------


def choose(page, **fields) -> None:
    for name, value in fields.items():
        field = page.locator(f"#build-command [name={name}]")
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(str(value))


def shown_commands(page) -> list[str]:
    return page.locator("#build-command .build-command__cmd pre").all_inner_texts()


def verdicts(page) -> list[str]:
    return page.locator("#build-command [data-out=verdict]").all_inner_texts()


def assert_all_pass(page) -> None:
    found = verdicts(page)
    assert found and all(v.startswith("Check passed") for v in found), found
    for text in shown_commands(page):
        if "sglang.launch_server" in text:
            assert not python_errors(text), text


def test_a_pasted_config_of_a_model_with_no_recipe_gives_a_checked_command_and_its_memory(builder_page):
    choose(builder_page, model="config", config=json.dumps(NO_RECIPE_CONFIG), path="Qwen/Qwen2.5-7B-Instruct",
           gpu="L40S", conc="1", workload="repeats-output")
    text = shown_commands(builder_page)[0]
    assert "--model-path Qwen/Qwen2.5-7B-Instruct" in text and "--speculative-algorithm NGRAM" in text
    assert_all_pass(builder_page)
    model = builder.model_from_config(NO_RECIPE_CONFIG, "Qwen/Qwen2.5-7B-Instruct")
    expected = mem.memory(model, 48, 1, draft={"algorithm": "NGRAM", "layers": 0})
    assert f"about {expected.kv_tokens:,}" in builder_page.locator("#build-command .build-command__mem").inner_text()
    assert "NGRAM" in builder_page.locator("#bc-why-h + ul").inner_text()


def test_chat_without_a_draft_gives_no_ngram_but_the_train_row_and_a_checked_baseline(builder_page):
    choose(builder_page, model="config", config=json.dumps(NO_RECIPE_CONFIG), path="Qwen/Qwen2.5-7B-Instruct",
           gpu="L40S", conc="1", workload="chat")
    text = shown_commands(builder_page)[0]
    assert "--speculative" not in text
    assert_all_pass(builder_page)
    why = builder_page.locator("#bc-why-h + ul").inner_text()
    assert "None of these, and you can train" in why and "NGRAM" not in why.split("\n")[0]


def test_a_target_class_without_the_eagle3_hook_is_told_not_to_train_an_eagle3_draft(builder_page):
    from test_build_command import GRANITE_CONFIG

    choose(builder_page, model="config", config=json.dumps(GRANITE_CONFIG), path="org/granite-like",
           gpu="L40S", conc="1", workload="chat")
    assert "--speculative" not in shown_commands(builder_page)[0]
    why = builder_page.locator("#bc-why-h + ul").inner_text()
    assert "do not train an EAGLE-3 draft" in why and "GraniteForCausalLM" in why and "STANDALONE" in why
    assert builder_page.locator("#bc-why-h + ul a", has_text="target classes").count() == 1
    assert "cannot feed an EAGLE-3 draft" in builder_page.locator("#build-command [data-out=algorithm]").inner_text()
    # A class with the hook (Qwen2ForCausalLM) keeps the row's advice.
    choose(builder_page, config=json.dumps(NO_RECIPE_CONFIG), path="Qwen/Qwen2.5-7B-Instruct")
    assert "do not train an EAGLE-3 draft" not in builder_page.locator("#bc-why-h + ul").inner_text()


def test_output_that_copies_the_prompt_is_said_to_have_no_row(builder_page):
    choose(builder_page, model="config", config=json.dumps(NO_RECIPE_CONFIG), path="Qwen/Qwen2.5-7B-Instruct",
           gpu="L40S", conc="1", workload="repeats-prompt")
    assert "--speculative" not in shown_commands(builder_page)[0]
    assert "no row for output that copies text found only in the prompt" in builder_page.locator("#bc-why-h + ul").inner_text()


def test_a_partial_config_is_a_visible_warning_naming_each_assumed_field(builder_page):
    choose(builder_page, model="config", config=json.dumps(PARTIAL_NEW_ARCH), gpu="L40S", gpus="2", conc="1")
    warning = builder_page.locator("#build-command [data-out=assumed]")
    assert warning.is_visible()
    text = warning.inner_text()
    assert "`" not in text and "num_key_value_heads = 32" in text and "head_dim = 64" in text
    assert "KV token count" in text
    assert "assumed config fields" in builder_page.locator("#build-command [data-out=summary]").inner_text()


def test_a_config_with_every_field_read_gives_no_warning_and_its_name_or_path_is_the_model_path(builder_page):
    config = dict(NO_RECIPE_CONFIG, head_dim=128, _name_or_path="Qwen/Qwen2.5-7B-Instruct")
    choose(builder_page, model="config", config=json.dumps(config), gpu="L40S", conc="1")
    assert builder_page.locator("#build-command [data-out=assumed]").count() == 0
    assert "--model-path Qwen/Qwen2.5-7B-Instruct" in shown_commands(builder_page)[0]
    assert "_name_or_path" in builder_page.locator("#build-command [data-out=placeholder]").inner_text()


def test_a_placeholder_model_path_is_named_and_the_check_still_passes(builder_page):
    choose(builder_page, model="config", config=json.dumps(NO_RECIPE_CONFIG), gpu="L40S", conc="1")
    assert f"--model-path {builder.PLACEHOLDER_PATH}" in shown_commands(builder_page)[0]
    assert_all_pass(builder_page)
    note = builder_page.locator("#build-command [data-out=placeholder]").inner_text()
    assert builder.PLACEHOLDER_PATH in note and "placeholder" in note and "accepts any text" in note
    assert "placeholder" in builder_page.locator("#build-command [data-out=summary]").inner_text()


def test_the_readers_job_partial_qwen3_moe_on_two_l40s_for_chat(builder_page):
    """Qwen3-30B-A3B's config pasted in part, two L40S, chat: checked command, Python's memory figures."""
    choose(builder_page, model="config", config=json.dumps(PARTIAL_MOE_CONFIG), gpu="L40S", gpus="2", conc="8",
           workload="chat", path="Qwen/Qwen3-30B-A3B")
    texts = shown_commands(builder_page)
    assert len(texts) == 1 and "--model-path Qwen/Qwen3-30B-A3B" in texts[0] and "--tp-size 2" in texts[0]
    assert_all_pass(builder_page)
    model = builder.model_from_config(PARTIAL_MOE_CONFIG, "Qwen/Qwen3-30B-A3B")
    py = builder.build({"model": model, "gpu": "L40S", "gpus": 2, "concurrency": 8, "workload": "chat"}, DATA)
    assert texts[0] == py["commands"][0]["text"]
    table = builder_page.locator("#build-command .build-command__mem").inner_text()
    assert f"{py['memory']['bytes_per_token']:,} B" in table and f"about {py['memory']['kv_tokens']:,}" in table
    assert "head_dim = 64" in builder_page.locator("#build-command [data-out=assumed]").inner_text()


def test_a_pasted_config_with_a_draft_path_gets_an_eagle3_command(builder_page):
    choose(builder_page, model="config", config=json.dumps(NO_RECIPE_CONFIG), path="Qwen/Qwen2.5-7B-Instruct",
           draft_path="my-org/qwen25-7b-eagle3", gpu="H100", conc="1")
    text = shown_commands(builder_page)[0]
    assert "--speculative-algorithm EAGLE3" in text
    assert "--speculative-num-steps 5" in text and "--speculative-eagle-topk 4" in text  # row 1, dense, one GPU
    assert_all_pass(builder_page)


def test_a_pasted_config_with_mtp_layers_uses_built_in_mtp(builder_page):
    choose(builder_page, model="config", config=json.dumps(MTP_CONFIG), path="deepseek-ai/DeepSeek-R1-0528",
           gpu="H200", gpus="8", conc="1")
    text = shown_commands(builder_page)[0]
    assert "--speculative-algorithm EAGLE" in text and "--speculative-draft-model-path" not in text
    assert "--speculative-num-steps 5" in text and "--speculative-num-draft-tokens 6" in text  # DeepSeek row, TP 8
    assert_all_pass(builder_page)


def test_an_fp8_target_uses_the_fp8_checkpoint_and_counts_one_byte_per_weight(builder_page):
    choose(builder_page, model="qwen3-30b-a3b", precision="fp8", gpu="H100", conc="1")
    text = shown_commands(builder_page)[0]
    assert "--model-path Qwen/Qwen3-30B-A3B-Instruct-2507-FP8" in text
    assert_all_pass(builder_page)
    assert "− 30.5 GB" in builder_page.locator("#build-command .build-command__mem").inner_text()


def test_a_two_node_prefill_decode_pair_has_two_checked_servers_and_the_router(builder_page):
    choose(builder_page, model="llama33-70b", gpu="H100", gpus="4", conc="16", pd=True)
    texts = shown_commands(builder_page)
    assert len(texts) == 3
    assert "--disaggregation-mode prefill" in texts[0] and "--disaggregation-mode decode" in texts[1]
    assert "sglang_router.launch_router --pd-disaggregation" in texts[2]
    assert len(verdicts(builder_page)) == 2
    assert_all_pass(builder_page)
    note = builder_page.locator("#build-command [data-out=router-note]").inner_text()
    assert note.startswith("Not checked") and "sglang-router" in note
    assert "router line is not checked" in builder_page.locator("#build-command [data-out=summary]").inner_text()


def test_rocm_on_mi300x_gives_a_checked_command_and_the_platform_note(builder_page):
    choose(builder_page, model="deepseek-v3", platform="rocm", gpu="MI300X", gpus="8", conc="1")
    assert_all_pass(builder_page)
    assert "ROCm" in builder_page.locator("#bc-why-h + ul").inner_text()
    assert builder_page.locator("#build-command [data-out=fit]").inner_text().startswith("Fits")


def test_rocm_turns_the_tables_tree_into_a_chain_and_says_the_checker_has_no_platform(builder_page):
    choose(builder_page, model="llama31-8b", platform="rocm", gpu="MI300X", gpus="1", conc="1")
    text = shown_commands(builder_page)[0]
    assert "--speculative-eagle-topk 1" in text and "--speculative-num-draft-tokens 6" in text
    assert_all_pass(builder_page)
    assert all("no platform input" in v for v in verdicts(builder_page))
    why = builder_page.locator("#bc-why-h + ul").inner_text()
    assert "instead of the table's tree (5, 4, 8)" in why and "aiter" in why and "--attention-backend triton" in why
    choose(builder_page, platform="cuda", gpu="H100")
    assert "--speculative-eagle-topk 4" in shown_commands(builder_page)[0]
    assert not any("no platform input" in v for v in verdicts(builder_page))


def test_a_platform_that_does_not_match_the_gpu_is_named(builder_page):
    choose(builder_page, model="deepseek-v3", platform="cuda", gpu="MI300X", gpus="8")
    assert "runs ROCM" in builder_page.locator("#build-command .build-command__error").first.inner_text()


def test_a_scenario_that_does_not_fit_says_so_and_what_to_change(builder_page):
    choose(builder_page, model="kimi-k2", gpu="H200", gpus="8", conc="1")
    assert builder_page.locator("#build-command [data-out=fit]").inner_text() == "Does not fit."
    advice = builder_page.locator("#build-command .build-command__advice").inner_text()
    assert "Does not fit" in advice and "GPUs of this type" in advice


def test_dp_attention_changes_the_memory_and_the_page_says_how(builder_page):
    choose(builder_page, model="deepseek-v3", gpu="H200", gpus="8", conc="512", dp=False)
    without = builder_page.locator("#build-command .build-command__mem").inner_text()
    choose(builder_page, dp=True)
    table = builder_page.locator("#build-command .build-command__mem").inner_text()
    m = DATA["models"]["deepseek-v3"]
    expected = mem.memory(m, 141, 8, draft=m["draft"], dp=8)
    assert table != without
    assert f"about {expected.kv_tokens:,}" in table and f"about {expected.server_kv_tokens:,}" in table
    assert "each of the 8 DP ranks keeps the KV of its own requests only" in table
    assert "the attention's extra copies (estimated from the config shapes" in table
    assert "every GPU of the TP group holds every token" in without
    choose(builder_page, model="glm46", gpu="H100", gpus="8", conc="512", dp=True)  # no head count in its data
    assert "copies to every GPU are not counted" in builder_page.locator("#build-command [data-out=summary]").inner_text()
    assert "not counted: this model's data has no head count" in builder_page.locator("#build-command .build-command__mem").inner_text()


# Trial 5: Granite-like config without intermediate_size on one 24 GB L4 (about 8.2 B in truth).
GRANITE_PARTIAL = {"architectures": ["GraniteForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
                   "num_key_value_heads": 8, "num_hidden_layers": 40, "vocab_size": 49159,
                   "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}


def test_a_verdict_that_turns_within_the_estimates_range_asks_for_the_parameter_count(builder_page):
    choose(builder_page, model="config", config=json.dumps(GRANITE_PARTIAL), path="org/granite", gpu="other", mem="24",
           gpus="1", conc="1", params="")
    summary = builder_page.locator("#build-command [data-out=summary]").inner_text()
    fit = builder_page.locator("#build-command [data-out=fit]").inner_text()
    for text in (summary, fit):
        assert "Cannot tell from this config" in text and "type the parameter count from the model card" in text
        assert "intermediate_size" in text and "7.11 to 13.15 B" in text
    assert "Does not fit" not in summary and not builder_page.locator("#build-command .build-command__advice").count()
    py = builder.build({"model": builder.model_from_config(GRANITE_PARTIAL, "org/granite"), "gpu_memory_gb": 24, "gpus": 1,
                        "concurrency": 1}, DATA)
    same(js_build(builder_page, {"model": builder.model_from_config(GRANITE_PARTIAL, "org/granite"), "gpu_memory_gb": 24,
                                 "gpus": 1, "concurrency": 1}), py)
    choose(builder_page, params="8.2")
    assert builder_page.locator("#build-command [data-out=fit]").inner_text().startswith("Fits:")
    assert "Cannot tell" not in builder_page.locator("#build-command [data-out=summary]").inner_text()


def test_two_nodes_give_one_command_per_node(builder_page):
    choose(builder_page, model="kimi-k2", gpu="H200", gpus="8", nodes="2", conc="512", dp=True, tool="kimi_k2")
    texts = shown_commands(builder_page)
    assert texts == [c["text"] for c in builder.build({**next(s for s in DATA["scenarios"] if s["id"] == "kimi-k2-throughput")}, DATA)["commands"]]
    assert_all_pass(builder_page)


def test_parsers_added_to_a_recipe_command_pass_the_check(builder_page):
    choose(builder_page, model="qwen3-8b", gpu="L40S", conc="1", tool="qwen25", reasoning="qwen3", structured=True, lora=True)
    text = shown_commands(builder_page)[0]
    assert "--tool-call-parser qwen25" in text and "--reasoning-parser qwen3" in text and "--enable-lora" in text
    assert_all_pass(builder_page)


def test_the_url_holds_the_state_and_reproduces_the_command(builder_page, site):
    choose(builder_page, model="glm45-air", gpu="H100", gpus="4", conc="100", tool="glm45")
    first = shown_commands(builder_page)
    url = builder_page.url
    assert "model=glm45-air" in url and "conc=100" in url
    builder_page.goto(url)
    builder_page.wait_for_function("document.getElementById('build-command').dataset.ready === '1'")
    assert shown_commands(builder_page) == first


# -- Coming from vLLM -------------------------------------------------------------------

VLLM = {
    "eagle3": ("vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config "
               "'{\"method\": \"eagle3\", \"model\": \"lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B\", \"num_speculative_tokens\": 3}'",
               ["--speculative-algorithm EAGLE3", "--speculative-draft-model-path lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B",
                "--speculative-num-steps 3", "--speculative-eagle-topk 1", "--speculative-num-draft-tokens 4"]),
    "mtp": ("vllm serve XiaomiMiMo/MiMo-7B-RL --tensor-parallel-size 1 --trust-remote-code "
            "--speculative_config '{\"method\":\"mtp\",\"num_speculative_tokens\":1}'",
            # NEXTN, as MiMo-7B-RL's recipe (docs/_data/recipes.yaml) writes it: converter and builder agree.
            ["--speculative-algorithm NEXTN", "--speculative-num-steps 1", "--speculative-num-draft-tokens 2"]),
    "ngram": ("vllm serve Qwen/Qwen3-8B --speculative-config "
              "'{\"method\": \"ngram\", \"num_speculative_tokens\": 5, \"prompt_lookup_max\": 4}'",
              ["--speculative-algorithm NGRAM"]),
}


def convert(page, text: str):
    """Paste ``text`` into the converter; return its output box and the SGLang equivalent (the first command),
    after checking that the equivalent passes the page's check and the build's own (speccheck)."""
    page.locator("#bc-vllm").fill(text)
    out = page.locator("#build-command-vllm [data-out=vllm]")
    command = out.locator("pre").first.inner_text()
    assert out.locator("[data-out=verdict]").first.inner_text().startswith("Check passed")
    assert not python_errors(command)
    return out, command


@pytest.mark.parametrize("kind", VLLM)
def test_a_vllm_command_becomes_an_sglang_command_that_passes_the_check(builder_page, kind):
    text, expected = VLLM[kind]
    out, command = convert(builder_page, text)
    for flag in expected:
        assert flag in command, (flag, command)
    assert "--speculative-draft-model-path" not in command or kind == "eagle3"
    assert "engine mapping" in out.inner_text()


# Trial 6 (issue 23): vLLM's two-step MTP chain at 256 sequences, where the table's row "128 and more" says one step.
DEEPSEEK_256 = ("vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --speculative-config "
                "'{\"method\": \"deepseek_mtp\", \"num_speculative_tokens\": 2}' --max-num-seqs 256")


def test_the_converter_shows_the_decision_tables_row_and_tree_under_the_literal_translation(builder_page):
    out, command = convert(builder_page, DEEPSEEK_256)
    assert "--speculative-num-steps 2" in command and "--speculative-num-draft-tokens 3" in command  # literal
    note = out.locator("[data-out=vllm-table]").inner_text()
    assert "256 concurrent requests" in note and 'row "128 and more' in note and "tree (1, 1, 2)" in note
    assert "keeps vLLM's chain (2, 1, 3)" in note and "no speculation first" in note
    scenario = builder_page.evaluate("t => window.sglangBuild.fromVllm(t).scenario", DEEPSEEK_256)
    py = builder.build(scenario, DATA)
    assert py["tree_row"] == "128" and py["tree"] == list(builder.TREE_ROWS["128"])
    table_command = out.locator("pre").nth(1).inner_text()
    assert table_command == py["commands"][0]["text"] and "--speculative-num-steps 1" in table_command
    assert out.locator("[data-out=verdict]").nth(1).inner_text().startswith("Check passed")
    assert not python_errors(table_command)


def test_the_converter_says_when_the_literal_tree_is_the_tables(builder_page):
    out, command = convert(builder_page, DEEPSEEK_256.replace('"num_speculative_tokens\": 2', '"num_speculative_tokens\": 1'))
    assert "--speculative-num-steps 1" in command
    assert "The equivalent's tree is the table's." in out.locator("[data-out=vllm-table]").inner_text()
    assert out.locator("pre").count() == 1


def test_a_converted_checkpoint_of_a_recipe_models_architecture_takes_the_recipes_model_flags(builder_page):
    # deepseek-ai/DeepSeek-V3 is not a recipe's path, but its architecture (the check's model table) is the
    # DeepSeek-V3 and Kimi K2 recipes', whose model entries both set trust_remote_code.
    out, command = convert(builder_page,
                           "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --speculative-config "
                           "'{\"method\": \"deepseek_mtp\", \"num_speculative_tokens\": 2}'")
    assert "--model-path deepseek-ai/DeepSeek-V3 " in command + " "
    assert DATA["models"]["deepseek-v3"]["trust_remote_code"] and "--trust-remote-code" in command
    assert "from the recipes for" in out.inner_text()


def test_a_vllm_method_without_counterpart_is_named(builder_page):
    builder_page.locator("#bc-vllm").fill("vllm serve m/x --speculative-config '{\"method\": \"medusa\", \"num_speculative_tokens\": 2}'")
    assert "no SGLang counterpart" in builder_page.locator("#build-command-vllm [role=alert]").inner_text()


def test_tensorrt_llm_eagle3_settings_become_an_sglang_command(builder_page):
    builder_page.locator("#bc-trt-model").fill("meta-llama/Llama-3.1-8B-Instruct")
    out, command = convert(builder_page, "speculative_config:\n  decoding_type: Eagle3\n  max_draft_len: 3\n"
                                         "  speculative_model: lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B\n")
    assert "--speculative-num-draft-tokens 4" in command


# -- Trial 3: FP8 on BF16, sliding windows, STANDALONE drafts, the converter's notes ----------


def test_the_page_and_python_agree_on_fp8_standalone_and_typed_eagle3_drafts(builder_page):
    gemma = builder.model_from_config(GEMMA3)
    phi = builder.model_from_config(PHI4, "microsoft/phi-4")
    js_draft = builder_page.evaluate("a => window.sglangBuild.standaloneDraft(a[0], a[1], a[2])", ["google/gemma-3-1b-it", None, SMALL_DRAFT])
    py_draft = builder.standalone_draft("google/gemma-3-1b-it", None, SMALL_DRAFT)
    assert js_draft == py_draft
    for s in ({"model": phi, "gpu": "A100-80GB", "gpus": 1, "concurrency": 1, "precision": "fp8"},
              {"model": "llama31-8b", "gpu": "H100", "gpus": 1, "concurrency": 1, "precision": "fp8"},
              {"model": gemma, "gpu": "H100", "gpus": 1, "concurrency": 64, "draft": py_draft},
              {"model": "qwen3-32b", "gpu": "H100", "gpus": 2, "concurrency": 1, "draft": {"algorithm": "EAGLE3", "path": "x/y"}}):
        js, py = js_build(builder_page, s), builder.build(s, DATA)
        same(js, py)
        assert js["quantization"] == py["quantization"]
    assert builder_page.evaluate("() => window.sglangBuild.hybridSwaArchs") == list(builder.hybrid_swa_archs())


def test_fp8_on_a_bf16_config_adds_the_flag_and_names_weight_only_fp8_on_an_a100(builder_page):
    choose(builder_page, model="config", config=json.dumps(PHI4), path="microsoft/phi-4", precision="fp8",
           gpu="A100-80GB", conc="1")
    text = shown_commands(builder_page)[0]
    assert "--quantization fp8" in text
    assert_all_pass(builder_page)
    why = builder_page.locator("#bc-why-h + ul").inner_text()
    assert "has no FP8 arithmetic" in why and "Marlin" in why and "published FP8 checkpoint" in why
    choose(builder_page, gpu="H100")
    assert "has no FP8 arithmetic" not in builder_page.locator("#bc-why-h + ul").inner_text()


def test_fp8_on_a_24_gb_other_gpu_fits_and_names_the_capability_it_needs(builder_page):
    choose(builder_page, model="config", config=json.dumps(PHI4), path="microsoft/phi-4", precision="fp8",
           gpu="other", mem="24", conc="1")
    assert "--quantization fp8" in shown_commands(builder_page)[0]
    # PHI4 has no intermediate_size: at the high end of the guessed range 24 GB is too small, so the page asks.
    assert builder_page.locator("#build-command [data-out=fit]").inner_text().startswith("Cannot tell")
    choose(builder_page, params="14")  # Phi-4's model card: 14 B parameters
    assert builder_page.locator("#build-command [data-out=fit]").inner_text().startswith("Fits")
    assert "compute capability 8.9 or newer" in builder_page.locator("#bc-why-h + ul").inner_text()


def test_a_gemma3_config_says_sglang_keeps_every_layers_kv(builder_page):
    choose(builder_page, model="config", config=json.dumps(GEMMA3), gpu="H100", conc="64", goal="throughput")
    note = builder_page.locator("#build-command [data-out=sliding-window]")
    assert note.is_visible() and "every layer keeps the KV of every token" in note.inner_text()
    assert "lower bound" not in builder_page.locator("#build-command [data-out=summary]").inner_text()
    # No speculative decoding at 64 requests: the command sets no graph batch, and the table says so.
    assert "--cuda-graph-max-bs-decode" not in shown_commands(builder_page)[0]
    assert "SGLang's default" in builder_page.locator("#build-command .build-command__mem").inner_text()


def test_a_hybrid_swa_config_warns_that_the_token_count_is_a_lower_bound(builder_page):
    choose(builder_page, model="config", config=json.dumps(GPT_OSS_LIKE), gpu="H100", conc="1")
    warning = builder_page.locator("#build-command [data-out=sliding-window]")
    assert warning.is_visible() and "lower bound" in warning.inner_text() and "--swa-full-tokens-ratio" in warning.inner_text()
    assert "lower bound" in builder_page.locator("#build-command [data-out=summary]").inner_text()


def test_a_standalone_draft_is_counted_from_its_own_size(builder_page):
    choose(builder_page, model="config", config=json.dumps(GEMMA3), gpu="H100", conc="1",
           draft_path="google/gemma-3-1b-it", draft_algo="STANDALONE")
    assert builder_page.locator("#build-command [data-out=draft-uncounted]").is_visible()
    assert "not counted" in builder_page.locator("#build-command .build-command__mem").inner_text()
    choose(builder_page, draft_params="1", draft_config=json.dumps(SMALL_DRAFT))
    assert builder_page.locator("#build-command [data-out=draft-uncounted]").count() == 0
    table = builder_page.locator("#build-command .build-command__mem").inner_text()
    expected = builder.build({"model": builder.model_from_config(GEMMA3), "gpu": "H100", "gpus": 1, "concurrency": 1,
                              "draft": builder.standalone_draft("google/gemma-3-1b-it", 1.0, SMALL_DRAFT)}, DATA)["memory"]
    assert "− 2.00 GB" in table and f"{expected['bytes_per_token']:,} B" in table
    assert "embedding is part of its weights" in table
    assert "declares a shorter one" in builder_page.locator("#bc-why-h + ul").inner_text()
    assert_all_pass(builder_page)
    assert "draft_params=1" in builder_page.url


def test_a_speculators_draft_the_context_env_and_max_num_seqs_carry_over_from_vllm(builder_page):
    out, command = convert(builder_page,
                           "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2 --max-num-seqs 64 --speculative-config "
                           "'{\"method\": \"eagle3\", \"model\": \"RedHatAI/Qwen3-32B-speculator.eagle3\", \"num_speculative_tokens\": 3}'")
    assert command.startswith("export SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1\n")
    assert "--max-running-requests 64" in command and "--cuda-graph-max-bs-decode 64" in command
    assert "--speculative-num-steps 3" in command and "--speculative-num-draft-tokens 4" in command
    notes = out.locator("ul").inner_text()
    assert "speculators format" in notes and "Does not carry over: the request cap" in notes
    assert out.locator("a", has_text="draft format conversion").count() == 1


def test_a_vllm_draft_without_speculator_in_its_name_gets_no_format_note(builder_page):
    builder_page.locator("#bc-vllm").fill(VLLM["eagle3"][0])
    out = builder_page.locator("#build-command-vllm [data-out=vllm]")
    assert "speculators format" not in out.inner_text()
    assert out.locator("pre").first.inner_text().startswith("export SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")


# -- Layout and accessibility -------------------------------------------------------------


@pytest.mark.parametrize("width", [1280, 390])
def test_the_page_has_no_axe_findings(builder_page, width):
    from test_pages_in_browser import axe_violations

    builder_page.set_viewport_size({"width": width, "height": 900})
    choose(builder_page, model="llama33-70b", gpu="H100", gpus="4", conc="16", pd=True, lora=True)
    builder_page.locator("#bc-vllm").fill(VLLM["eagle3"][0])
    violations = axe_violations(builder_page)
    assert not violations, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in violations]
    # The warnings of a partial config and a placeholder path, and the no-speculation answer for chat.
    choose(builder_page, model="config", config=json.dumps(PARTIAL_NEW_ARCH), pd=False, lora=False, workload="chat")
    violations = axe_violations(builder_page)
    assert not violations, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in violations]
    if width == 390:
        assert builder_page.evaluate("document.documentElement.scrollWidth") <= 390


# -- Issue 23, trial 7 --


def test_a_typed_checkpoint_of_another_model_says_the_figures_use_the_recipe_models_shapes(builder_page):
    choose(builder_page, model="deepseek-v3", path="deepseek-ai/DeepSeek-V4-Pro", gpu="H200", gpus="8", conc="1")
    warning = builder_page.locator("#build-command [data-out=recipe-shapes]").inner_text()
    assert "deepseek-ai/DeepSeek-V3" in warning and "DeepseekV4ForCausalLM" in warning and "paste its config.json" in warning
    assert "shapes" in builder_page.locator("#build-command [data-out=summary]").inner_text()
    choose(builder_page, path="")
    assert builder_page.locator("#build-command [data-out=recipe-shapes]").count() == 0


FP8_VLLM = ("vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2 --quantization {q} --max-num-seqs 32 --speculative-config "
            "'{{\"method\": \"eagle3\", \"model\": \"AngelSlim/Qwen3-32B_eagle3\", \"num_speculative_tokens\": 3}}'")


def test_a_vllm_fp8_command_stays_fp8_and_an_unknown_quantization_is_named(builder_page):
    out, command = convert(builder_page, FP8_VLLM.format(q="fp8"))
    assert "--quantization fp8" in command and "--speculative-draft-model-quantization unquant" in command
    notes = out.locator("ul").last.inner_text()
    assert "--quantization fp8 is kept" in notes.replace("`", "") or "`--quantization fp8` is kept" in notes
    assert "H100" in notes  # the GPU the page assumes is said
    out, command = convert(builder_page, FP8_VLLM.format(q="fbgemm_fp8"))
    assert "--quantization" not in command
    assert "fbgemm_fp8" in out.locator("ul").last.inner_text()


def test_the_converters_text_is_in_the_url_and_a_link_reproduces_the_conversion(builder_page):
    _, command = convert(builder_page, FP8_VLLM.format(q="fp8"))
    url = builder_page.url
    assert "vllm=" in url
    builder_page.goto(url)
    builder_page.wait_for_function("document.getElementById('build-command').dataset.ready === '1'")
    assert builder_page.locator("#build-command-vllm [data-out=vllm] pre").first.inner_text() == command


def test_a_standalone_draft_with_another_vocab_size_is_said_to_be_refused_at_start_up(builder_page):
    draft = dict(NO_RECIPE_CONFIG, vocab_size=151936, hidden_size=896, num_hidden_layers=24, num_attention_heads=14,
                 num_key_value_heads=2, intermediate_size=4864)
    choose(builder_page, model="config", config=json.dumps(NO_RECIPE_CONFIG), path="Qwen/Qwen2.5-7B-Instruct", gpu="L40S",
           conc="1", draft_path="Qwen/Qwen2.5-0.5B-Instruct", draft_algo="STANDALONE", draft_config=json.dumps(draft))
    summary = builder_page.locator("#build-command [data-out=summary]").inner_text()
    assert summary.startswith("SGLang will refuse to start") and "151,936" in summary and "152,064" in summary
    choose(builder_page, draft_config=json.dumps(dict(draft, vocab_size=152064)))
    assert builder_page.locator("#build-command [data-out=summary]").inner_text().startswith("Fits in memory and passes")


def test_a_typed_checkpoint_of_unknown_precision_asks_for_the_precision_and_no_note_contradicts_itself(builder_page):
    choose(builder_page, model="qwen35-397b-a17b", path="Qwen/Qwen3.5-397B-A17B-FP8", precision="", gpu="H200", gpus="8", conc="8")
    warning = builder_page.locator("#build-command [data-out=typed-precision]").inner_text()
    assert "does not know the precision" in warning and "its name says FP8" in warning and "counts it as BF16" in warning
    assert "choose the precision" in builder_page.locator("#build-command [data-out=summary]").inner_text()
    choose(builder_page, precision="fp8")
    assert builder_page.locator("#build-command [data-out=typed-precision]").count() == 0
    why = builder_page.locator("#bc-why-h + ul").inner_text()
    assert "cannot tell the format" in why and "but the checkpoint is BF16" not in why
    assert "--quantization" not in shown_commands(builder_page)[0]


def test_the_recipes_own_draft_typed_keeps_its_measured_size_and_another_draft_is_labelled_an_estimate(builder_page):
    # Qwen3-32B, EAGLE-3, 2 GPUs: the recipe page's (1.6 - 0.16) / 2 + 0.16 = 0.88 GB per GPU (qwen3-dense.md, Memory)
    choose(builder_page, model="qwen3-32b", gpu="H100", gpus="2", conc="1")
    table = builder_page.locator("#build-command .build-command__mem").inner_text()
    assert "− 0.88 GB" in table and "`fc` layer being whole on every GPU".replace("`", "") in table
    choose(builder_page, draft_path="AngelSlim/Qwen3-32B_eagle3", draft_algo="EAGLE3")
    assert "− 0.88 GB" in builder_page.locator("#build-command .build-command__mem").inner_text()
    choose(builder_page, draft_path="thoughtworks/Qwen3-32B-Eagle3")
    table = builder_page.locator("#build-command .build-command__mem").inner_text()
    est = builder.estimate_eagle3_draft(DATA["models"]["qwen3-32b"], 25600)
    per_gpu = mem.draft_per_gpu_gb(est, 2)
    assert f"− {per_gpu:.2f} GB" in table and "estimated for the draft you typed" in table and "intermediate size 25,600" in table
    assert "measures 1.60 GB" in table
