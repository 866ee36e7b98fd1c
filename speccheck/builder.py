"""Compose SGLang launch commands from a scenario: the recipes' commands and the "Build a command" page.

``docs/_data/recipes.yaml`` holds the recipe scenarios as data; :func:`build` turns a scenario
into the launch command(s), the decision-table rows it used and the memory arithmetic
(:mod:`speccheck.memory`). ``docs/_static/build-command.js`` is the same function in the
browser; tests/test_build_command.py holds that (1) every recipe page prints exactly
``build(scenario)`` for its scenario and (2) the JavaScript agrees with this module.

Rules and where they come from (docs/reference/decision-table.md unless said otherwise):

- algorithm: a target with a built-in MTP layer uses it (row "ships its own multi-token-prediction
  layers"); else a published draft (row "A published EAGLE-3 draft"); else, by the workload's kind
  (:data:`WORKLOADS`): NGRAM only when answers repeat text the server generated before (row "No draft
  at all, and answers repeat text"); for open-ended chat, and for output that copies text found only
  in the prompt (which SGLang's NGRAM does not draft from, ``ngram-sources``), the row is "None of
  these, and you can train": the command runs without speculative decoding until a draft exists.
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
- EAGLE-3 capability: only a target class with ``set_eagle3_layers_to_capture`` (its own or inherited)
  can feed an EAGLE-3 draft (:func:`can_feed_eagle3`); for the row "None of these, and you can train" the
  page then points to STANDALONE or no speculation instead of training an EAGLE-3 draft.
- LoRA: allowed with NGRAM, EAGLE (NEXTN), EAGLE3, DFLASH, DSPARK only
  (``sglang/srt/arg_groups/lora_hook.py::check_lora_speculative_compatibility``).
- ROCm (:func:`platform_tree`): the table's tree with top-k above 1 becomes a chain (top-k 1, draft tokens =
  steps + 1). SGLang's automatic attention backend on HIP is ``aiter`` for MHA models, and for MLA models
  when each GPU holds 16 or 128 KV heads (else ``triton``)
  (``sglang/srt/arg_groups/model_override_base.py::get_default_attn_backend``); ``aiter`` drafts with
  top-k 1 only (``sglang/srt/layers/attention/aiter_backend.py::AiterAttnBackend._ensure_spec_v2_topk_supported``),
  and only a chain gets sampled verification there (``ix-hardware-rocm``). The checker has no platform
  input, so this rule lives here and on the page, not in the checker.
"""

from __future__ import annotations

import ast
import functools
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
# The model path of a pasted config that names none (no path typed, no ``_name_or_path``): shouted,
# so that it reads as a placeholder; SGLang's parser accepts any string for --model-path.
PLACEHOLDER_PATH = "YOUR-ORG/YOUR-MODEL"

# The workload's kind -> what its answers repeat. It only decides between the algorithm table's
# last rows (decision-algorithm), for a target with no draft model and no MTP layer.
WORKLOADS = ("chat", "repeats-output", "repeats-prompt")
# Algorithm row id -> the start of its first cell in docs/reference/decision-table.md,
# "Which algorithm" (tests/test_build_command.py holds that each row exists).
ALGORITHM_ROWS = {
    "mtp": "The target ships its own multi-token-prediction layers",
    "eagle3": "A published EAGLE-3 draft exists for your exact target",
    "dflash": "A published DFlash draft exists for your exact target",
    "eagle": "Only an EAGLE (EAGLE-1/EAGLE-2) draft exists",
    "standalone": "No trained draft, but a small model with the same tokenizer",
    "ngram": "No draft at all, and answers repeat text the server generated before",
    "train": "None of these, and you can train",
}

# Decision-table tree rows: id -> (steps, topk, draft tokens) or None (tree flags unset).
TREE_ROWS = {
    "1-dense": (5, 4, 8), "1-other": (3, 1, 4), "1-deepseek": (5, 1, 6), "8": (3, 1, 4),
    "32-dense": (3, 1, 4), "32-moe-tp": (1, 1, 2), "64": (1, 1, 2), "128": (1, 1, 2),
    "ngram": None, "standalone-low": (3, 1, 4), "none": None,
}
DEEPSEEK_MTP = {"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM"}  # decision table: the DeepSeek line

# The environment a separate EAGLE-3 draft model needs: SGLang builds the draft with the target's
# context length and refuses to start when the draft's config.json declares a shorter one unless this
# is set (sglang/srt/configs/model_config.py::ModelConfig._derive_context_length; the guide's
# context-length-override). EAGLE-3 drafts often declare a short context, so every command with one sets it.
CONTEXT_ENV = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"
# Online FP8: ``--quantization fp8`` quantizes BF16 weights as they load (a choice of the pinned
# --quantization: sglang/srt/arg_groups/choices.py::QUANTIZATION_CHOICES, "MOE + linear online
# quantization"). The draft inherits it unless --speculative-draft-model-quantization is set
# (sglang/srt/arg_groups/serving_hook.py). FP8 arithmetic needs compute capability 8.9 or newer; on
# 8.0-8.8 (A100, RTX 30xx) SGLang runs the FP8 weights of linear layers through the Marlin kernel, weight-only
# (sglang/srt/layers/quantization/fp8_utils.py::can_auto_enable_marlin_fp8;
# Fp8Config.get_min_capability is 80, so older GPUs are refused).
ONLINE_QUANTIZATION = {"fp8": "fp8"}
FP8_NATIVE_SM = 89


def read_hybrid_swa_archs(root: Path | None = None) -> tuple[str, ...]:
    """Architectures whose windowed layers the pinned SGLang gives their own, smaller KV pool ("hybrid SWA"), sorted.

    Read with ``ast`` from ``sglang/srt/configs/model_config.py::is_hybrid_swa_model``: the set literal it
    assigns to ``hybrid_swa_archs``, with each ``*NAME`` in it expanded from that module's top-level assignment
    of NAME (``SWA_SINK_ARCHS``, ``MIMO_V2_MODEL_ARCHS``: every string constant of the assigned value). A text
    config with ``is_hybrid_swa`` also qualifies (:func:`model_from_config` reads it). Every other architecture
    with sliding-window layers (Gemma 2 and 3, Mistral) keeps every layer's KV for every token in one pool.
    The page's data file carries the same list as ``hybrid_swa_archs`` (sphinxext/content/build_command_page.py).

    :param root: a folder laid out like ``site-packages`` (default: the pinned wheel in this environment).
    :raises RuntimeError: the function or its set literal is not where this reader looks (a pin move changed it).
    """
    from speccheck.errors import site_packages

    path = (root or site_packages()) / "sglang" / "srt" / "configs" / "model_config.py"
    module = ast.parse(path.read_text(encoding="utf-8"))
    top = {t.id: node.value for node in module.body if isinstance(node, ast.Assign)
           for t in node.targets if isinstance(t, ast.Name)}
    func = next((n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "is_hybrid_swa_model"), None)
    literal = next((n.value for n in ast.walk(func) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Set)
                    and any(isinstance(t, ast.Name) and t.id == "hybrid_swa_archs" for t in n.targets)), None) if func else None
    if literal is None:
        raise RuntimeError(f"{path}: no `hybrid_swa_archs = {{...}}` in is_hybrid_swa_model")
    names = set()
    for elt in literal.elts:
        if isinstance(elt, ast.Starred) and isinstance(elt.value, ast.Name) and elt.value.id in top:
            elt = top[elt.value.id]
        names |= {n.value for n in ast.walk(elt) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return tuple(sorted(names))


@functools.lru_cache(maxsize=1)
def hybrid_swa_archs() -> tuple[str, ...]:
    """:func:`read_hybrid_swa_archs` of the pinned wheel, read once."""
    return read_hybrid_swa_archs()


@functools.lru_cache(maxsize=1)
def eagle3_targets() -> tuple[str, ...]:
    """The model classes that can feed an EAGLE-3 draft in the pinned SGLang
    (:func:`speccheck.interactions.eagle3_target_classes`, read from the installed wheel; the page's data
    file carries the same list as ``eagle3_targets``)."""
    from speccheck.interactions import eagle3_target_classes

    return tuple(eagle3_target_classes())


def can_feed_eagle3(model: dict, targets=None) -> bool | None:
    """Whether the target ``model`` (its ``architecture``) can feed an EAGLE-3 draft.

    :param targets: class names (default :func:`eagle3_targets`).
    :returns: None when the architecture is unknown (no ``architecture``, or ``"?"``), else whether it is
        one of ``targets``. Without the hook, an EAGLE-3 draft cannot be attached
        (docs/reference/interactions/model-architectures.md).
    """
    arch = model.get("architecture")
    if not arch or arch == "?":
        return None
    return arch in (eagle3_targets() if targets is None else targets)


def load() -> dict:
    """docs/_data/recipes.yaml as a dict with ``models``, ``gpus`` and ``scenarios``."""
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


def tree_row(concurrency: int, algorithm: str, *, moe: bool, tp: int, mtp: bool, deepseek: bool) -> str:
    """The id of the decision-table row (:data:`TREE_ROWS`) for this workload.

    :param concurrency: requests decoding at once (>= 1).
    :param algorithm: the SGLang algorithm name the command writes.
    :param tp: tensor-parallel size over all nodes; ``mtp``: built-in MTP; ``deepseek``: a DeepSeek V3/V3.2 target.
    """
    if not algorithm:
        return "none"
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


PLATFORMS = ("cuda", "rocm")


def platform_tree(tree, platform: str | None):
    """The tree the command writes on ``platform``, and the table's tree when it was changed.

    :param tree: (steps, topk, draft tokens) from :data:`TREE_ROWS`, or None.
    :param platform: one of :data:`PLATFORMS` (None: ``cuda``).
    :returns: (tree, replaced): on ``rocm`` a tree with top-k above 1 becomes the chain
        (steps, 1, steps + 1) and ``replaced`` is the table's tree; else (tree, None). Source: the module
        docstring's ROCm rule (``compat-topk-backends``, ``ix-hardware-rocm``).
    :raises ValueError: an unknown platform.
    """
    platform = platform or "cuda"
    if platform not in PLATFORMS:
        raise ValueError(f"platform {platform!r} is not one of {PLATFORMS}")
    if platform == "rocm" and tree and tree[1] > 1:
        return (tree[0], 1, tree[0] + 1), tuple(tree)
    return tree, None


def choose_draft(model: dict, override: dict | None = None, workload: str = "chat") -> tuple[dict, str]:
    """The draft entry and the decision-table algorithm row id (a key of :data:`ALGORITHM_ROWS`).

    :param override: {algorithm, path, gb, fc_gb}: replaces the model's draft.
    :param workload: one of :data:`WORKLOADS`; used only when there is neither an override nor a
        model draft: ``repeats-output`` gives NGRAM, the others the row ``train`` and a draft
        entry whose ``algorithm`` is None (no speculative flags).
    :raises ValueError: an unknown workload.
    """
    if workload not in WORKLOADS:
        raise ValueError(f"workload {workload!r} is not one of {WORKLOADS}")
    if not (override or model.get("draft")) and workload != "repeats-output":
        return {"algorithm": None, "layers": 0}, "train"
    draft = dict(override or model.get("draft") or {"algorithm": "NGRAM"})
    algo = draft["algorithm"].upper()
    draft["algorithm"] = algo
    draft.setdefault("layers", 0 if algo == "NGRAM" else 1)
    if algo in ("EAGLE", "NEXTN") and not draft.get("path"):
        return draft, "mtp"
    return draft, {"EAGLE3": "eagle3", "EAGLE": "eagle", "STANDALONE": "standalone", "NGRAM": "ngram",
                   "DFLASH": "dflash"}.get(algo, "other")


def draft_env(draft: dict) -> list[str]:
    """The ``export`` lines a command needs for ``draft``: :data:`CONTEXT_ENV` for a separate EAGLE-3
    draft model (algorithm ``EAGLE3`` with a path), else none. The recipes, the builder and the vLLM
    converter all take it from here."""
    return [CONTEXT_ENV] if draft.get("algorithm") == "EAGLE3" and draft.get("path") else []


def quantization(s: dict, model: dict) -> str | None:
    """The ``--quantization`` value the command needs so that the weights load at the chosen precision.

    :param s: the scenario (``precision``: bf16, fp8, fp4 or None; ``path``: a checkpoint the reader typed).
    :returns: ``"fp8"`` (:data:`ONLINE_QUANTIZATION`) when FP8 is chosen for a BF16 checkpoint that the
        command loads as is (no published FP8 checkpoint, ``fp8_path``, is used and the reader typed no
        other checkpoint, whose format the builder cannot know); else None. FP4 has no online route here.
    """
    chosen = s.get("precision")
    if not chosen or chosen == model.get("precision") or model.get("precision") != "bf16" or s.get("path"):
        return None
    if chosen == "fp8" and model.get("fp8_path"):
        return None
    return ONLINE_QUANTIZATION.get(chosen)


def standalone_draft(path: str, params_b: float | None = None, config: dict | None = None) -> dict:
    """A STANDALONE draft entry for :func:`build`: a whole small model with the target's tokenizer.

    :param path: the draft's Hugging Face id or local path.
    :param params_b: its parameter count, billions (None: estimated from ``config``, else unknown).
    :param config: its ``config.json`` (optional): the layer count, read as :func:`model_from_config` reads it.
    :returns: {algorithm, path, gb (BF16 weights, or at the config's precision; absent when the size is
        unknown), fc_gb 0 (the whole draft is split over TP like the target), layers (its decoder layers;
        0 when unknown), vocab_size (from ``config``, when given: :func:`vocab_mismatch`), counted: "all" |
        "weights" | "kv" | "none"}. :func:`speccheck.memory.memory`
        counts each draft layer's KV at the target's per-layer cost, as SGLang sizes the pool for
        STANDALONE (``sglang/srt/model_executor/pool_configurator.py``, ``oom-draft-cost``).
    :raises KeyError: a config without the fields :func:`model_from_config` requires.
    """
    draft = {"algorithm": "STANDALONE", "path": path, "fc_gb": 0.0, "layers": 0}
    precision = "bf16"
    if config:
        dm = model_from_config(config, path)
        draft["layers"] = dm["layers"]
        draft["vocab_size"] = dm["vocab_size"]
        precision = dm["precision"]
        params_b = params_b or dm["params_b"]
    if params_b:
        draft["gb"] = round(params_b * mem.BYTES_PER_PARAM[precision], 3)
    draft["counted"] = ("all" if draft["layers"] else "weights") if params_b else ("kv" if draft["layers"] else "none")
    return draft


def vocab_mismatch(model: dict, draft: dict) -> list[int] | None:
    """[target vocab_size, draft vocab_size] when SGLang will refuse a STANDALONE pair at start-up, else None.

    SGLang compares the ``vocab_size`` of the two configs (the text config's for a multimodal model) and
    stops when they differ, even when the tokenizers match
    (``sglang/srt/speculative/standalone_worker_v2.py::StandaloneWorkerV2._validate_vocab_compatibility``;
    the guide's ``standalone-which-draft``). None when
    either number is unknown (no config pasted for the draft) or the draft is not STANDALONE.
    """
    if draft.get("algorithm") != "STANDALONE" or not draft.get("vocab_size") or not model.get("vocab_size"):
        return None
    return None if draft["vocab_size"] == model["vocab_size"] else [model["vocab_size"], draft["vocab_size"]]


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
    quant = s.get("quantization") or quantization(s, model)
    if quant:
        f.append(f"--quantization {quant}")
    if draft["algorithm"]:
        f.append(f"--speculative-algorithm {draft['algorithm']}")
    if draft.get("path"):
        f.append(f"--speculative-draft-model-path {draft['path']}")
        if quant:  # keep the draft in BF16, as counted (oom-quantized-draft)
            f.append("--speculative-draft-model-quantization unquant")
    if tree:
        f += [f"--speculative-num-steps {tree[0]}", f"--speculative-eagle-topk {tree[1]}",
              f"--speculative-num-draft-tokens {tree[2]}"]
    conc = s["concurrency"]
    if conc > REQUEST_CAP and draft["algorithm"]:
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
        # Each server of the pair listens on all interfaces: the router runs on another host, and SGLang's
        # --host defaults to 127.0.0.1 (the pinned parser's default).
        f += [f"--disaggregation-mode {role}", "--host 0.0.0.0"]
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
        GPUs of its own node), ``draft`` (an override: {algorithm, path, gb, fc_gb}),
        ``workload`` (one of :data:`WORKLOADS`, default ``chat``), ``platform`` (:data:`PLATFORMS`,
        default ``cuda``: :func:`platform_tree`), ``quantization`` (a ``--quantization`` value written as given,
        for a command converted from another engine; the memory follows ``precision``).
    :returns: ``commands`` (list of {role, node, text}), ``algorithm`` (None: no speculative
        decoding), ``algorithm_row``,
        ``tree_row``, ``tree`` ((steps, topk, draft tokens) or None), ``table_tree`` (the table's tree when
        the platform changed it, else None), ``tp``, ``memory``
        (:meth:`speccheck.memory.Memory.as_dict`), ``quantization`` (:func:`quantization`),
        ``eagle3_target`` (:func:`can_feed_eagle3`, with ``data['eagle3_targets']`` when present),
        ``memory_range`` (the memory at the low and high ends of the model's ``params_b_range``, when the
        reader typed no parameter count (``params_typed``); else None) and ``verdict``: ``fits``,
        ``does-not-fit``, or ``uncertain`` when the ends of the range disagree.
    :raises KeyError: an unknown model or GPU key.
    """
    data = data or load()
    model = s["model"] if isinstance(s["model"], dict) else data["models"][s["model"]]
    gpu_gb = s.get("gpu_memory_gb") or data["gpus"][s["gpu"]]["memory_gb"]
    nodes = 1 if s.get("pd") else s.get("nodes", 1)
    tp = s["gpus"] * nodes
    dp = tp if s.get("dp_attention") else 1
    draft, algo_row = choose_draft(model, s.get("draft"), s.get("workload") or "chat")
    mtp = algo_row == "mtp"
    row = tree_row(s["concurrency"], draft["algorithm"], moe=bool(model.get("moe")), tp=tp, mtp=mtp,
                   deepseek=mtp and (model.get("deepseek_mtp") or model.get("architecture") in DEEPSEEK_MTP))
    tree, replaced = platform_tree(TREE_ROWS[row], s.get("platform"))
    env = draft_env(draft)
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
                   kv_cache_dtype=s.get("kv_cache_dtype") or "auto", dp=dp)
    memory_range = None
    if model.get("params_b_range") and not model.get("params_typed") and not model.get("weights_gb"):
        memory_range = [mem.memory(dict(model, params_b=p), gpu_gb, tp, precision=s.get("precision"), draft=draft,
                                   kv_cache_dtype=s.get("kv_cache_dtype") or "auto", dp=dp).as_dict()
                        for p in model["params_b_range"]]
    fits = {m.fits} | {r["fits"] for r in memory_range or []}
    return {"verdict": "uncertain" if len(fits) > 1 else "fits" if m.fits else "does-not-fit",
            "memory_range": memory_range,"commands": commands, "algorithm": draft["algorithm"], "algorithm_row": algo_row, "tree_row": row,
            "tree": list(tree) if tree else None, "table_tree": list(replaced) if replaced else None, "tp": tp, "memory": m.as_dict(), "quantization": s.get("quantization") or quantization(s, model),
            "eagle3_target": can_feed_eagle3(model, data.get("eagle3_targets")),
            "vocab_mismatch": vocab_mismatch(model, draft)}


def _first(cfg: dict, *names, default=None):
    for name in names:
        if cfg.get(name) is not None:
            return cfg[name]
    return default


# The range over which a guessed weight field can lie, used when config.json leaves it out and the
# reader typed no parameter count (:func:`model_from_config` ``params_b_range``, :func:`build` ``verdict``):
# intermediate_size from 2.5 to 5.5 x hidden_size, the spread of the configs this guide reads
# (DeepSeek-V3's dense layers 18432 / 7168 = 2.57, Llama 3.1 8B 14336 / 4096 = 3.5, Qwen2.5-7B
# 18944 / 3584 = 5.29, the transformers Qwen3 default 22016 / 4096 = 5.375); vocab_size from 32,000
# (Llama 2, Mistral 7B) to 262,144 (Gemma 3). A model outside these spreads exists: the page says the
# figures are an estimate and asks for the parameter count whenever the verdict turns within the range.
INTERMEDIATE_RANGE = (2.5, 5.5)
VOCAB_RANGE = (32_000, 262_144)

# Sub-configs that hold a multimodal model's language model, in the order SGLang picks them
# (sglang/srt/utils/hf_transformers/common.py::get_hf_text_config; a thinker_config's own
# text_config first).
TEXT_CONFIG_KEYS = ("thinker_config", "llm_config", "language_config", "text_config")
# Names of the KV head count, in the order SGLang reads them
# (sglang/srt/configs/model_config.py::ModelConfig.get_total_num_kv_heads).
KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups")
# Class defaults of transformers 5.19.0 (the release the pinned SGLang requires) for the fields this
# module reads: what Hugging Face fills in when config.json leaves a field out
# (transformers/models/<type>/configuration_<type>.py). Architectures not listed: no class default.
ARCH_DEFAULTS = {
    "Qwen3MoeForCausalLM": {"num_key_value_heads": 4, "intermediate_size": 6144, "moe_intermediate_size": 768,
                            "num_experts": 128, "vocab_size": 151936},  # Qwen3MoeConfig: no head_dim field
    "Qwen3ForCausalLM": {"num_key_value_heads": 32, "head_dim": 128, "intermediate_size": 22016, "vocab_size": 151936},
    "Qwen2ForCausalLM": {"num_key_value_heads": 32, "intermediate_size": 22016, "vocab_size": 151936},
    "DeepseekV3ForCausalLM": {"num_key_value_heads": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048,
                              "n_routed_experts": 256, "n_shared_experts": 1, "first_k_dense_replace": 3,
                              "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
                              "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 129280},
}


def text_config(config: dict) -> tuple[dict, str | None]:
    """The language model's fields of a (possibly multimodal) config.json, and the key they came from.

    The sub-config SGLang reads (:data:`TEXT_CONFIG_KEYS`) is laid over the top level, so a field the
    sub-config leaves out is read from the top level (``architectures``, ``quantization_config``).
    :returns: (fields, key of the sub-config or None).
    """
    for key in TEXT_CONFIG_KEYS:
        sub = config.get(key)
        if isinstance(sub, dict):
            if key == "thinker_config" and isinstance(sub.get("text_config"), dict):
                sub = sub["text_config"]
            return {**config, **sub}, key
    return dict(config), None


def model_from_config(config: dict, path: str | None = None) -> dict:
    """A model entry (the shape of docs/_data/recipes.yaml ``models``) from a Hugging Face ``config.json``.

    Reads the language model's fields (:func:`text_config`): ``architectures``,
    ``num_hidden_layers``, ``hidden_size``, ``vocab_size``, ``num_attention_heads``, the KV head
    count (:data:`KV_HEAD_KEYS`, ``multi_query``), ``head_dim``, ``intermediate_size``, the MLA
    fields (``kv_lora_rank``, ``qk_rope_head_dim``, ``qk_nope_head_dim``, ``v_head_dim``,
    ``q_lora_rank``), the MoE fields (``n_routed_experts`` / ``num_experts`` /
    ``num_local_experts``, ``moe_intermediate_size``, ``n_shared_experts``,
    ``first_k_dense_replace``), the MTP fields (``num_nextn_predict_layers``,
    ``mtp_num_hidden_layers``), ``layer_types`` / ``full_attention_interval`` (linear attention:
    memory not modelled), ``tie_word_embeddings``, ``quantization_config.quant_method``,
    ``auto_map`` (code shipped with the checkpoint: ``--trust-remote-code``), ``_name_or_path`` and the
    window fields (``sliding_window`` with ``sliding_window_pattern``, ``use_sliding_window`` or
    ``sliding_attention`` in ``layer_types``: ``sliding_window`` and ``hybrid_swa``, whether SGLang gives
    the windowed layers their own pool, :func:`hybrid_swa_archs`; the KV count stays every layer at
    full cost).

    A field the config leaves out is filled as Hugging Face and SGLang fill it: the class default
    of transformers (:data:`ARCH_DEFAULTS`) when the architecture has one; else the KV head count
    is ``num_attention_heads`` (SGLang: full multi-head attention) and ``head_dim`` is
    ``hidden_size // num_attention_heads`` (``ModelConfig._derive_model_shapes``); the guide's own
    guesses fill the rest (``intermediate_size`` 4 x hidden, ``qk_rope_head_dim`` 64, ...). Every
    filled field is listed in ``assumed`` ({field, value, source, affects: kv | weights}), which
    the page shows as a warning.

    ``params_b`` is an estimate from these shapes (embedding, attention, MLP or experts, the
    MTP layers), not a count of the checkpoint; the page lets the reader replace it.
    ``params_b_range`` is [low, high] when the guide guessed ``intermediate_size`` or ``vocab_size``
    (not a transformers class default): the estimate at the ends of :data:`INTERMEDIATE_RANGE` and
    :data:`VOCAB_RANGE`; else None. :func:`build` then gives a verdict only if both ends agree.
    With an MTP field above 0 the draft is the built-in one (``EAGLE``, no draft path: the
    path defaults to the target's, ``draft-path-rule``).

    :param path: the model path the command writes; None: ``_name_or_path`` of the config, else
        :data:`PLACEHOLDER_PATH`. ``path_source`` says which (given, config, placeholder).
    :raises KeyError: ``num_hidden_layers``, ``hidden_size`` or (no class default)
        ``num_attention_heads`` is missing.
    """
    cfg, sub_key = text_config(config)
    arch = (config.get("architectures") or cfg.get("architectures") or ["?"])[0]
    class_defaults = ARCH_DEFAULTS.get(arch, {})
    assumed = []

    def get(names, fallback, source, affects):
        """The first of ``names`` present; else the class default or ``fallback``, recorded in ``assumed``."""
        names = (names,) if isinstance(names, str) else names
        field = "num_key_value_heads" if names == KV_HEAD_KEYS else names[0]
        value = _first(cfg, *names)
        if value is not None:
            return value
        if field in class_defaults:
            value, source = class_defaults[field], f"transformers default of {arch}"
        else:
            value = fallback
        assumed.append({"field": field, "value": value, "source": source, "affects": affects})
        return value

    for required in ("hidden_size", "num_hidden_layers"):
        if cfg.get(required) is None:
            raise KeyError(f"config.json has no {required}")
    h = cfg["hidden_size"]
    layers = cfg["num_hidden_layers"]
    if _first(cfg, "num_attention_heads") is None and "num_attention_heads" not in class_defaults:
        raise KeyError("config.json has no num_attention_heads")
    heads = get("num_attention_heads", None, "", "weights")
    # A missing vocabulary is counted at the low end of VOCAB_RANGE, so the estimate lies inside the range
    # shown beside it; it is never used as the model's vocabulary (the STANDALONE vocabulary check).
    vocab = get("vocab_size", VOCAB_RANGE[0], "the low end of the range of real vocabularies", "weights")
    vocab_known = not any(a["field"] == "vocab_size" and a["source"].startswith("the low") for a in assumed)
    experts = _first(cfg, "n_routed_experts", "num_experts", "num_local_experts")
    if experts is None:
        experts = class_defaults.get("n_routed_experts") or class_defaults.get("num_experts") or 0
        if experts:
            assumed.append({"field": "num_experts", "value": experts, "source": f"transformers default of {arch}",
                            "affects": "weights"})
    mtp_layers = _first(cfg, "num_nextn_predict_layers", "mtp_num_hidden_layers", default=0)
    first_dense = _first(cfg, "first_k_dense_replace", default=class_defaults.get("first_k_dense_replace", 0))
    dense_layers = min(layers, first_dense) if experts else layers
    # intermediate_size sizes the dense layers, and the experts when moe_intermediate_size is missing.
    uses_inter = not experts or dense_layers > 0 or (
        _first(cfg, "moe_intermediate_size") is None and "moe_intermediate_size" not in class_defaults)
    if uses_inter:
        inter = get("intermediate_size", 4 * h, "4 x hidden_size", "weights")
    else:
        inter = _first(cfg, "intermediate_size", default=class_defaults.get("intermediate_size", 4 * h))
    # Latent attention (MLA) when the config, or its class (DeepSeek-V3), has a kv_lora_rank.
    if cfg.get("kv_lora_rank") or class_defaults.get("kv_lora_rank"):
        kv_rank = get("kv_lora_rank", None, "", "kv")
        rope = get("qk_rope_head_dim", 64, "DeepSeek-V3's value", "kv")
        nope = get("qk_nope_head_dim", 128, "DeepSeek-V3's value", "weights")
        v_dim = get("v_head_dim", 128, "DeepSeek-V3's value", "weights")
        q_rank = _first(cfg, "q_lora_rank", default=0) if "q_lora_rank" in cfg else \
            get("q_lora_rank", 0, "no query compression", "weights")
        q = h * q_rank + q_rank * heads * (nope + rope) if q_rank else h * heads * (nope + rope)
        attn = q + h * (kv_rank + rope) + kv_rank * heads * (nope + v_dim) + heads * v_dim * h
        attention = {"kind": "mla", "kv_lora_rank": kv_rank, "qk_rope_head_dim": rope, "heads": heads,
                     "qk_nope_head_dim": nope, "v_head_dim": v_dim, "q_lora_rank": q_rank}
        if cfg.get("index_head_dim"):
            attention["indexer_bytes"] = cfg["index_head_dim"] + 4
    else:
        if cfg.get("multi_query") and _first(cfg, *KV_HEAD_KEYS) is None:
            kv_heads = 1
        else:
            kv_heads = get(KV_HEAD_KEYS, heads, "num_attention_heads (full multi-head attention)", "kv")
        head_dim = get("head_dim", h // heads, "hidden_size / num_attention_heads", "kv")
        attn = 2 * h * heads * head_dim + 2 * h * kv_heads * head_dim
        attention = {"kind": "gqa", "kv_heads": kv_heads, "head_dim": head_dim, "heads": heads}
    if "linear_attention" in (cfg.get("layer_types") or []) or cfg.get("full_attention_interval"):
        attention = {"kind": "hybrid-linear"}
    n_assumed = len(assumed)
    moe_inter = get("moe_intermediate_size", inter, "intermediate_size", "weights") if experts else None
    moe_inter_guessed = len(assumed) > n_assumed  # falls back to intermediate_size
    shared = _first(cfg, "n_shared_experts", "num_shared_experts", default=class_defaults.get("n_shared_experts", 0)) or 0

    def total_params(inter, vocab, moe_inter):
        """The parameter estimate for these values of the fields a range can cover."""
        dense_mlp = 3 * h * inter
        moe_mlp = (experts + shared) * 3 * h * moe_inter + h * experts if experts else dense_mlp
        per_moe_layer = attn + moe_mlp
        return (vocab * h * (1 if cfg.get("tie_word_embeddings") else 2) + dense_layers * (attn + dense_mlp)
                + (layers - dense_layers) * per_moe_layer + mtp_layers * per_moe_layer)

    total = total_params(inter, vocab, moe_inter)
    # The guide's own guesses (not transformers class defaults) of weight fields a range can cover.
    guessed = {a["field"] for a in assumed if a["affects"] == "weights" and not a["source"].startswith("transformers")}
    params_range = None
    if guessed & {"intermediate_size", "vocab_size"}:
        ends = []
        for i in (0, 1):
            inter_i = INTERMEDIATE_RANGE[i] * h if "intermediate_size" in guessed else inter
            vocab_i = VOCAB_RANGE[i] if "vocab_size" in guessed else vocab
            moe_i = inter_i if moe_inter_guessed else moe_inter
            ends.append(round(total_params(inter_i, vocab_i, moe_i) / 1e9, 2))
        params_range = [min(ends), max(ends)]
    quant = str((cfg.get("quantization_config") or {}).get("quant_method", "")).lower()
    precision = "fp8" if "fp8" in quant else "fp4" if ("fp4" in quant or "mxfp4" in quant) else "bf16"
    named = config.get("_name_or_path") or cfg.get("_name_or_path")
    model = {
        "path": path or named or PLACEHOLDER_PATH,
        "path_source": "given" if path else "config" if named else "placeholder",
        "architecture": arch, "precision": precision,
        "weights_gb": None, "params_b": round(total / 1e9, 2), "layers": layers, "attention": attention,
        "moe": bool(experts), "hidden_size": h, "vocab_size": vocab if vocab_known else None,
        "trust_remote_code": bool(config.get("auto_map") or cfg.get("auto_map")),
        "text_config": sub_key, "assumed": assumed, "params_b_range": params_range,
    }
    window = cfg.get("sliding_window")
    if window and (cfg.get("sliding_window_pattern") or cfg.get("use_sliding_window")
                   or "sliding_attention" in (cfg.get("layer_types") or [])):
        model["sliding_window"] = window
        model["hybrid_swa"] = arch in hybrid_swa_archs() or bool(cfg.get("is_hybrid_swa"))
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
