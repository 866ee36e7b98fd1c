"""Compose SGLang launch commands from a scenario: the recipes' commands and the "Build a command" page.

``docs/_data/recipes.yaml`` holds the recipe scenarios as data; :func:`build` turns a scenario
into the launch command(s), the decision-table rows it used and the memory arithmetic
(:mod:`speccheck.memory`). ``docs/_static/build-command.js`` is the same function in the
browser; tests/test_build_command.py holds that (1) every recipe page prints exactly
``build(scenario)`` for its scenario and (2) the JavaScript agrees with this module.

Rules and where they come from (docs/reference/decision-table.md unless said otherwise):

- algorithm: a target with a built-in MTP layer uses it (row "ships its own multi-token-prediction
  layers"); else a published draft (row "A published EAGLE-3 draft"); else NGRAM (row "No draft at all").
- tree (steps, top-k, draft tokens) by concurrency: ``decision-starting-tree``;
  ranges 1-7, 8-30, 31-60, 61-127, 128+ follow SGLang's adaptive table
  (``sglang/srt/speculative/adaptive_spec_params.py::DEFAULT_ADAPTIVE_CONFIG``).
- the request cap: SGLang sets ``max_running_requests`` to 48 under speculative decoding
  (``sglang/srt/arg_groups/speculative_hook.py::_handle_eagle_family``); above 48 the command sets
  ``--max-running-requests`` and ``--cuda-graph-max-bs-decode`` to each DP rank's share
  (``request-cap``; ``kv_cache_configurator.py::KVCacheConfigurator.resolve_max_num_reqs``).
- multi-node: ``--nnodes``, ``--node-rank``, ``--dist-init-addr`` (pinned server arguments), one
  command per node; prefill/decode: ``--disaggregation-mode prefill|decode`` with the same
  speculative flags on both (``feat-pd-disaggregation``).
- LoRA: allowed with NGRAM, EAGLE (NEXTN), EAGLE3, DFLASH, DSPARK only
  (``sglang/srt/arg_groups/lora_hook.py::check_lora_speculative_compatibility``).
"""

from __future__ import annotations

import math
from pathlib import Path

import yaml

from speccheck import memory as mem

DATA = Path(__file__).resolve().parent.parent / "docs" / "_data" / "recipes.yaml"
LAUNCH = "python -m sglang.launch_server"
REQUEST_CAP = 48  # speculative_hook.py::_handle_eagle_family (check_command_page reads it from the source)
DIST_INIT_ADDR = "10.0.0.1:5000"  # an example address, as the Kimi K2 recipe writes it
PD_HOSTS = ("10.0.0.1", "10.0.0.2")  # example addresses of the prefill and the decode node
PORT = 30000

# Decision-table tree rows: id -> (steps, topk, draft tokens) or None (tree flags unset).
TREE_ROWS = {
    "1-dense": (5, 4, 8), "1-other": (3, 1, 4), "1-deepseek": (5, 1, 6), "8": (3, 1, 4),
    "32-dense": (3, 1, 4), "32-moe-tp": (1, 1, 2), "64": (1, 1, 2), "128": (1, 1, 2),
    "ngram": None, "standalone-low": (3, 1, 4),
}
DEEPSEEK_MTP = {"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM"}  # decision table: the DeepSeek line


def load() -> dict:
    """docs/_data/recipes.yaml as a dict with ``models``, ``gpus`` and ``scenarios``."""
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


def tree_row(concurrency: int, algorithm: str, *, moe: bool, tp: int, mtp: bool, deepseek: bool) -> str:
    """The id of the decision-table row (:data:`TREE_ROWS`) for this workload.

    :param concurrency: requests decoding at once (>= 1).
    :param algorithm: the SGLang algorithm name the command writes.
    :param tp: tensor-parallel size over all nodes; ``mtp``: built-in MTP; ``deepseek``: a DeepSeek V3/V3.2 target.
    """
    if algorithm == "NGRAM":
        return "ngram"
    if algorithm == "STANDALONE" and concurrency <= 30:
        return "standalone-low"
    if concurrency <= 7:
        if mtp and deepseek and tp == 8:
            return "1-deepseek"
        if not mtp and not moe and tp == 1 and algorithm in ("EAGLE", "EAGLE3"):
            return "1-dense"
        return "1-other"
    if concurrency <= 30:
        return "8"
    if concurrency <= 60:
        return "32-dense" if not moe and tp == 1 else "32-moe-tp"
    if concurrency <= 127:
        return "64"
    return "128"


def choose_draft(model: dict, override: dict | None = None) -> tuple[dict, str]:
    """The draft entry and the decision-table algorithm row id (``mtp``, ``eagle3``, ``eagle``,
    ``standalone``, ``ngram``) for a model; ``override`` ({algorithm, path, gb, fc_gb}) replaces the model's."""
    draft = dict(override or model.get("draft") or {"algorithm": "NGRAM"})
    algo = draft["algorithm"].upper()
    draft["algorithm"] = algo
    draft.setdefault("layers", 0 if algo == "NGRAM" else 1)
    if algo in ("EAGLE", "NEXTN") and not draft.get("path"):
        return draft, "mtp"
    return draft, {"EAGLE3": "eagle3", "EAGLE": "eagle", "STANDALONE": "standalone", "NGRAM": "ngram",
                   "DFLASH": "dflash"}.get(algo, "other")


def server_flags(s: dict, model: dict, draft: dict, tree, *, tp: int, dp: int, node: int | None,
                 role: str | None) -> list[str]:
    """The flags of one server command, in the recipes' order (each item one line)."""
    path = s.get("path") or (model.get("fp8_path") if s.get("precision") == "fp8" else None) or model["path"]
    f = [f"--model-path {path}"]
    if tp > 1:
        f.append(f"--tp-size {tp}")
    if dp > 1:
        f.append(f"--attn-dp-size {dp}")
    if node is not None:
        f += [f"--nnodes {s['nodes']}", f"--node-rank {node}", f"--dist-init-addr {s.get('dist_init_addr') or DIST_INIT_ADDR}"]
    if model.get("trust_remote_code"):
        f.append("--trust-remote-code")
    f.append(f"--speculative-algorithm {draft['algorithm']}")
    if draft.get("path"):
        f.append(f"--speculative-draft-model-path {draft['path']}")
    if tree:
        f += [f"--speculative-num-steps {tree[0]}", f"--speculative-eagle-topk {tree[1]}",
              f"--speculative-num-draft-tokens {tree[2]}"]
    conc = s["concurrency"]
    if conc > REQUEST_CAP:
        f += [f"--max-running-requests {conc}", f"--cuda-graph-max-bs-decode {math.ceil(conc / dp)}"]
    if model.get("context_length"):
        f.append(f"--context-length {model['context_length']}")
    if s.get("kv_cache_dtype") and s["kv_cache_dtype"] != "auto":
        f.append(f"--kv-cache-dtype {s['kv_cache_dtype']}")
    if s.get("tool_parser"):
        f.append(f"--tool-call-parser {s['tool_parser']}")
    if s.get("reasoning_parser"):
        f.append(f"--reasoning-parser {s['reasoning_parser']}")
    if role:
        f.append(f"--disaggregation-mode {role}")
    if s.get("lora"):
        f += ["--enable-lora", f"--lora-paths {s['lora']}"]
    if model.get("dtype_flag"):
        f.append(f"--dtype {model['dtype_flag']}")
    f += [f"--mem-fraction-static {mem.MEM_FRACTION}", f"--port {PORT}"]
    return f


def render(env: list[str], flags: list[str]) -> str:
    """A command as the recipe pages print it: ``export`` lines, then one flag per continued line."""
    lines = [f"export {e}" for e in env]
    return "\n".join(lines + [" \\\n  ".join([LAUNCH] + flags)])


def build(s: dict, data: dict | None = None) -> dict:
    """Everything the builder shows for scenario ``s``.

    :param s: ``model`` (a key of ``data['models']``, or a model dict), ``gpu`` (a key of
        ``data['gpus']``) or ``gpu_memory_gb``, ``gpus`` (per node), ``nodes`` (default 1),
        ``concurrency``, and optional ``precision``, ``path`` (another checkpoint of the model),
        ``dp_attention``, ``kv_cache_dtype``, ``tool_parser``, ``reasoning_parser``, ``lora``
        (``name=path``), ``pd`` (True: a prefill server and a decode server, each on ``gpus``
        GPUs of its own node), ``draft`` (an override: {algorithm, path, gb, fc_gb}).
    :returns: ``commands`` (list of {role, node, text}), ``algorithm``, ``algorithm_row``,
        ``tree_row``, ``tree`` ((steps, topk, draft tokens) or None), ``tp``, ``memory``
        (:meth:`speccheck.memory.Memory.as_dict`).
    :raises KeyError: an unknown model or GPU key.
    """
    data = data or load()
    model = s["model"] if isinstance(s["model"], dict) else data["models"][s["model"]]
    gpu_gb = s.get("gpu_memory_gb") or data["gpus"][s["gpu"]]["memory_gb"]
    nodes = 1 if s.get("pd") else s.get("nodes", 1)
    tp = s["gpus"] * nodes
    dp = tp if s.get("dp_attention") else 1
    draft, algo_row = choose_draft(model, s.get("draft"))
    mtp = algo_row == "mtp"
    row = tree_row(s["concurrency"], draft["algorithm"], moe=bool(model.get("moe")), tp=tp, mtp=mtp,
                   deepseek=mtp and (model.get("deepseek_mtp") or model.get("architecture") in DEEPSEEK_MTP))
    tree = TREE_ROWS[row]
    env = [draft["env"]] if draft.get("env") else []
    commands = []
    if s.get("pd"):
        for role in ("prefill", "decode"):
            commands.append({"role": role, "node": None,
                             "text": render(env, server_flags(s, model, draft, tree, tp=tp, dp=dp, node=None, role=role))})
    elif nodes > 1:
        for node in range(nodes):
            commands.append({"role": None, "node": node,
                             "text": render(env, server_flags(s, model, draft, tree, tp=tp, dp=dp, node=node, role=None))})
    else:
        commands.append({"role": None, "node": None,
                         "text": render(env, server_flags(s, model, draft, tree, tp=tp, dp=dp, node=None, role=None))})
    m = mem.memory(model, gpu_gb, tp, precision=s.get("precision"), draft=draft,
                   kv_cache_dtype=s.get("kv_cache_dtype") or "auto")
    return {"commands": commands, "algorithm": draft["algorithm"], "algorithm_row": algo_row, "tree_row": row,
            "tree": list(tree) if tree else None, "tp": tp, "memory": m.as_dict()}


def _first(cfg: dict, *names, default=None):
    for name in names:
        if cfg.get(name) is not None:
            return cfg[name]
    return default


def model_from_config(config: dict, path: str = "your-org/your-model") -> dict:
    """A model entry (the shape of docs/_data/recipes.yaml ``models``) from a Hugging Face ``config.json``.

    Reads ``architectures``, ``num_hidden_layers``, ``hidden_size``, ``vocab_size``,
    ``num_attention_heads``, ``num_key_value_heads``, ``head_dim``, the MLA fields
    (``kv_lora_rank``, ``qk_rope_head_dim``, ``qk_nope_head_dim``, ``v_head_dim``, ``q_lora_rank``),
    the MoE fields (``n_routed_experts`` / ``num_experts`` / ``num_local_experts``,
    ``moe_intermediate_size``, ``n_shared_experts``, ``first_k_dense_replace``), the MTP fields
    (``num_nextn_predict_layers``, ``mtp_num_hidden_layers``), ``layer_types`` /
    ``full_attention_interval`` (linear attention: memory not modelled), ``tie_word_embeddings``,
    ``quantization_config.quant_method`` and ``auto_map`` (code shipped with the checkpoint:
    ``--trust-remote-code``); a ``text_config`` is read first.

    ``params_b`` is an estimate from these shapes (embedding, attention, MLP or experts, the
    MTP layers), not a count of the checkpoint; the page lets the reader replace it.
    With an MTP field above 0 the draft is the built-in one (``EAGLE``, no draft path: the
    path defaults to the target's, ``draft-path-rule``).

    :raises KeyError: ``num_hidden_layers`` or ``hidden_size`` is missing.
    """
    cfg = dict(config)
    if isinstance(config.get("text_config"), dict):
        cfg.update(config["text_config"])
    h = cfg["hidden_size"]
    layers = cfg["num_hidden_layers"]
    vocab = cfg.get("vocab_size") or 0
    heads = _first(cfg, "num_attention_heads", default=1)
    kv_heads = _first(cfg, "num_key_value_heads", default=heads)
    head_dim = _first(cfg, "head_dim", default=h // heads)
    experts = _first(cfg, "n_routed_experts", "num_experts", "num_local_experts", default=0)
    mtp_layers = _first(cfg, "num_nextn_predict_layers", "mtp_num_hidden_layers", default=0)
    inter = _first(cfg, "intermediate_size", default=4 * h)
    if cfg.get("kv_lora_rank"):
        rope, nope = cfg.get("qk_rope_head_dim", 64), cfg.get("qk_nope_head_dim", 128)
        v_dim, q_rank, kv_rank = cfg.get("v_head_dim", 128), cfg.get("q_lora_rank") or 0, cfg["kv_lora_rank"]
        q = h * q_rank + q_rank * heads * (nope + rope) if q_rank else h * heads * (nope + rope)
        attn = q + h * (kv_rank + rope) + kv_rank * heads * (nope + v_dim) + heads * v_dim * h
        attention = {"kind": "mla", "kv_lora_rank": kv_rank, "qk_rope_head_dim": rope}
        if cfg.get("index_head_dim"):
            attention["indexer_bytes"] = cfg["index_head_dim"] + 4
    else:
        attn = 2 * h * heads * head_dim + 2 * h * kv_heads * head_dim
        attention = {"kind": "gqa", "kv_heads": kv_heads, "head_dim": head_dim}
    if "linear_attention" in (cfg.get("layer_types") or []) or cfg.get("full_attention_interval"):
        attention = {"kind": "hybrid-linear"}
    dense_mlp = 3 * h * inter
    if experts:
        moe_inter = _first(cfg, "moe_intermediate_size", default=inter)
        shared = _first(cfg, "n_shared_experts", "num_shared_experts", default=0) or 0
        moe_mlp = (experts + shared) * 3 * h * moe_inter + h * experts
        dense_layers = min(layers, _first(cfg, "first_k_dense_replace", default=0))
    else:
        moe_mlp, dense_layers = dense_mlp, layers
    per_moe_layer = attn + moe_mlp
    total = (vocab * h * (1 if cfg.get("tie_word_embeddings") else 2) + dense_layers * (attn + dense_mlp)
             + (layers - dense_layers) * per_moe_layer + mtp_layers * per_moe_layer)
    quant = str((cfg.get("quantization_config") or {}).get("quant_method", "")).lower()
    precision = "fp8" if "fp8" in quant else "fp4" if ("fp4" in quant or "mxfp4" in quant) else "bf16"
    model = {
        "path": path, "architecture": (config.get("architectures") or ["?"])[0], "precision": precision,
        "weights_gb": None, "params_b": round(total / 1e9, 2), "layers": layers, "attention": attention,
        "moe": bool(experts), "hidden_size": h, "vocab_size": vocab or None,
        "trust_remote_code": bool(config.get("auto_map")),
    }
    if mtp_layers:
        model["draft"] = {"algorithm": "EAGLE", "layers": 1}
    return model


def estimate_eagle3_draft(model: dict, intermediate_size: int, draft_vocab: int = 32000) -> dict:
    """Size of a one-layer EAGLE-3 draft for ``model``, BF16: attention (4 h^2, an upper bound for
    grouped-query attention), MLP (3 h x intermediate), ``fc`` (3 h x h, whole on every GPU) and a
    ``draft_vocab`` head, as SpecForge's presets build it (32,000 tokens: their ``draft_vocab_size``).

    :returns: {gb, fc_gb} in GB (10^9 bytes). For Llama-3.1-8B (h 4096, intermediate 14336)
        it gives 0.85 GB, the figure of the Llama 3 recipe.
    """
    h = model["hidden_size"]
    fc = 3 * h * h
    params = 4 * h * h + 3 * h * intermediate_size + fc + draft_vocab * h
    return {"gb": round(params * 2 / 1e9, 3), "fc_gb": round(fc * 2 / 1e9, 3)}
