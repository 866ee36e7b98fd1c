"""The memory arithmetic of the recipes (docs/how-to/recipes/index.md, ``recipes-memory-method``).

One implementation, used by the recipe tests, the "Build a command" page (mirrored line
for line by ``docs/_static/build-command.js``; tests/test_build_command.py compares the two)
and anyone who wants the numbers from Python. Units: GB are 10^9 bytes, as GPU vendors
write them; bytes per token are exact integers.

Sources of the rules (the pinned SGLang):

- static budget = ``--mem-fraction-static`` x GPU memory, on every GPU
  (``recipes-memory-method``, ``oom-mem-fraction-rule``);
- KV heads per GPU = max(1, KV heads // TP):
  ``sglang/srt/configs/model_config.py::ModelConfig.get_num_kv_heads``;
- MLA bytes per layer = kv_lora_rank + qk_rope_head_dim elements, stored whole on every
  tensor-parallel rank: ``sglang/srt/mem_cache/kv_cache_configurator.py::calculate_mla_kv_cache_dim``,
  ``sglang/srt/model_executor/pool_configurator.py::DefaultPoolConfigurator._compute_cell_size``;
  the FP8 latent layout of DeepSeek-V3.2 (512 + 16 scale bytes + the RoPE part in BF16) and its
  indexer key: the same ``calculate_mla_kv_cache_dim`` and
  ``DefaultPoolConfigurator._compute_dsa_indexer_cell_size``;
- the draft's layers are added to the cell as if each cost a target layer
  (``pool_configurator.py``, ``oom-draft-cost``), EAGLE drafts and STANDALONE models alike (a
  STANDALONE draft's ``layers`` are all its decoder layers: ``builder.standalone_draft``);
- the draft's ``fc`` layer is a plain ``torch.nn.Linear`` held whole on every GPU, the rest of
  the draft is split like the target: ``sglang/srt/models/llama_eagle3.py::LlamaModel.__init__``;
- while the pool is sized the draft holds its own embedding copy, vocabulary x hidden x 2 bytes
  (``oom-draft-embed-head``); the recipe pages' token counts leave it out, so it is reported apart.

DP attention (``--attn-dp-size`` D over TP size T; the builder sets D = T):

- the attention-TP size is T // D (``sglang/srt/runtime_context.py::derive_attn_tp_size``);
- KV heads per GPU follow the attention-TP size, not TP: the pool reads
  ``get_num_kv_heads(get_parallel().attn_tp_size)`` (``sglang/srt/mem_cache/kv_cache_configurator.py``,
  ``pool_configurator.py::DefaultPoolConfigurator._compute_cell_size``); an MLA cell does not change;
- the attention projections that TP splits are split over the attention-TP group only
  (``parallel_group="attn_tp"``: ``sglang/srt/models/deepseek_v2.py::DeepseekV2AttentionMLA`` q_b/q, kv_b, o;
  ``sglang/srt/models/qwen3_moe.py::Qwen3MoeAttention`` qkv, o), so each GPU holds D times its TP share of them;
  the MoE and dense MLP weights and the vocabulary stay split over TP. The attention share is an estimate
  from the shapes (:func:`attention_split_params`), since no checkpoint states it;
- each DP rank runs its own requests (``pool_configurator.py``: ``max_running_requests // attn_dp_size``
  per rank) and keeps only their KV, so the server holds D x the tokens of one GPU's pool
  (``Memory.server_kv_tokens``); without DP attention every GPU of the TP group holds every token.

Window and linear-attention layers (GPT-OSS, Llama 4, Qwen3-Next) are counted at full cost,
as the recipe pages do, so their token counts are lower bounds where SGLang gives windowed layers a
pool of their own (``builder.hybrid_swa_archs``; for other windowed architectures, Gemma 2/3 and
Mistral, the pinned SGLang keeps every layer's KV for every token, as counted here); hybrid linear-attention
models (attention kind ``hybrid-linear``) get no token count here: the recipe page has it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

# Bytes per weight by precision: recipes-memory-method step 1 ("about 0.5 for 4-bit formats").
BYTES_PER_PARAM = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}
# Bytes per KV element by --kv-cache-dtype (auto: the model's BF16).
KV_BYTES = {"auto": 2, "bf16": 2, "bfloat16": 2, "fp8_e4m3": 1, "fp8_e5m2": 1}
MEM_FRACTION = 0.85  # recipes-mem-fraction: the value the recipe arithmetic assumes


@dataclass
class Memory:
    """One GPU's memory budget, in GB (10^9 bytes), and the KV cache it leaves.

    ``kv_tokens`` is None when the model's attention is not modelled (``hybrid-linear``) or
    nothing is left; ``fits`` is False when the weights leave no KV memory. With DP attention
    (``dp`` > 1): ``attn_tp`` = TP // dp, ``attn_extra_gb`` is what the attention weights add per GPU
    over their TP share (already in ``target_gb``; None when the model has no head count to estimate
    it from, and then not counted), ``server_kv_tokens`` = ``kv_tokens`` x ``dp`` (the tokens the
    server holds; without DP attention the same as ``kv_tokens``).
    """

    static_gb: float
    target_gb: float
    draft_gb: float
    embed_copy_gb: float
    kv_gb: float
    bytes_per_token: int | None
    kv_tokens: int | None
    kv_tokens_with_embed: int | None
    fits: bool
    dp: int = 1
    attn_tp: int = 1
    attn_extra_gb: float | None = 0.0
    server_kv_tokens: int | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def weights_gb(model: dict, precision: str | None = None) -> float:
    """The target's weights in GB: the published size at its own precision, else parameters x bytes.

    :param model: a ``models`` entry of docs/_data/recipes.yaml (or a pasted config's
        equivalent) with ``precision``, ``weights_gb`` (may be None) and ``params_b``.
    :param precision: ``bf16``, ``fp8`` or ``fp4``; None keeps the checkpoint's.
    :raises KeyError: an unknown precision.
    """
    precision = precision or model["precision"]
    if precision == model.get("precision") and model.get("weights_gb"):
        return float(model["weights_gb"])
    return model["params_b"] * BYTES_PER_PARAM[precision]


def draft_per_gpu_gb(draft: dict | None, tp: int) -> float:
    """A draft model's weights on one GPU, GB: (whole - fc) / TP + fc, or whole when ``fc_gb`` is absent."""
    if not draft or not draft.get("gb"):
        return 0.0
    fc = draft.get("fc_gb")
    if fc is None:
        return float(draft["gb"])
    return (draft["gb"] - fc) / tp + fc


def attention_split_params(model: dict) -> int | None:
    """Parameters of the target's attention projections that tensor parallelism splits, all layers: an estimate.

    :param model: ``layers``, ``hidden_size`` and ``attention`` with ``heads`` (the query head count) and
        GQA ``kv_heads``, ``head_dim`` | MLA ``kv_lora_rank``, ``qk_rope_head_dim``, ``qk_nope_head_dim``,
        ``v_head_dim``, ``q_lora_rank`` (0: no query compression).
    :returns: the count, or None without ``heads`` or ``hidden_size`` (or for ``hybrid-linear``).

    GQA: q, k, v and o, 2 h heads head_dim + 2 h kv_heads head_dim per layer. MLA: q_b (q without
    ``q_lora_rank``), kv_b and o, the layers of ``DeepseekV2AttentionMLA`` with ``parallel_group="attn_tp"``;
    its q_a / kv_a projections are ``ReplicatedLinear``, whole on every GPU with or without DP attention,
    and left out as the recipes' method leaves them out. Biases and norms are left out.
    """
    att, h = model.get("attention") or {}, model.get("hidden_size")
    heads = att.get("heads")
    if not heads or not h:
        return None
    if att["kind"] == "gqa":
        per_layer = 2 * h * heads * att["head_dim"] + 2 * h * att["kv_heads"] * att["head_dim"]
    elif att["kind"] == "mla":
        qk = att["qk_nope_head_dim"] + att["qk_rope_head_dim"]
        q = (att.get("q_lora_rank") or h) * heads * qk
        per_layer = q + att["kv_lora_rank"] * heads * (att["qk_nope_head_dim"] + att["v_head_dim"]) \
            + heads * att["v_head_dim"] * h
    else:
        return None
    return per_layer * model["layers"]


def kv_bytes_per_token(model: dict, tp: int, kv_cache_dtype: str = "auto", draft_layers: int = 0) -> int | None:
    """KV cache bytes one token costs on one GPU, the draft's layers included.

    :param model: ``layers`` and ``attention`` ({kind: gqa, kv_heads, head_dim} |
        {kind: mla, kv_lora_rank, qk_rope_head_dim, indexer_bytes?} | {kind: hybrid-linear}).
    :param tp: the attention's tensor-parallel size: TP, or TP // dp with DP attention (GQA heads
        are split over it, MLA is not).
    :returns: bytes, or None for ``hybrid-linear`` attention (not modelled).
    """
    att = model["attention"]
    kv = KV_BYTES.get(kv_cache_dtype, 2)
    if att["kind"] == "gqa":
        per_layer = 2 * max(1, att["kv_heads"] // tp) * att["head_dim"] * kv
    elif att["kind"] == "mla":
        if kv == 1 and att.get("indexer_bytes"):
            per_layer = att["kv_lora_rank"] + 16 + att["qk_rope_head_dim"] * 2
        else:
            per_layer = (att["kv_lora_rank"] + att["qk_rope_head_dim"]) * kv
        per_layer += att.get("indexer_bytes", 0)
    else:
        return None
    return per_layer * (model["layers"] + draft_layers)


def embed_copy_gb(model: dict, draft: dict | None) -> float:
    """The draft's own embedding copy while the pool is sized: vocabulary x hidden x 2 bytes (draft models only).

    A STANDALONE draft is a whole model whose own embedding is part of its weights (``draft["gb"]``): 0.
    """
    if not draft or not draft.get("path") or not model.get("vocab_size") or not model.get("hidden_size"):
        return 0.0
    if draft.get("algorithm") == "STANDALONE":
        return 0.0
    return model["vocab_size"] * model["hidden_size"] * 2 / 1e9


def memory(model: dict, gpu_memory_gb: float, tp: int, *, precision: str | None = None,
           draft: dict | None = None, kv_cache_dtype: str = "auto",
           mem_fraction: float = MEM_FRACTION, dp: int = 1) -> Memory:
    """The recipes' arithmetic for one GPU of a TP group.

    :param model: a model entry (see :func:`weights_gb`, :func:`kv_bytes_per_token`).
    :param gpu_memory_gb: memory of one GPU, GB.
    :param tp: tensor-parallel size over all nodes.
    :param draft: the draft entry (``gb``, ``fc_gb``, ``layers``, ``path``); None: no speculation.
    :param dp: the DP-attention size (``--attn-dp-size``; 1: none), a divisor of ``tp``.
    """
    precision = precision or model["precision"]
    attn_tp = max(1, tp // dp)
    static = mem_fraction * gpu_memory_gb
    target = weights_gb(model, precision) / tp
    extra = 0.0
    if dp > 1:
        params = attention_split_params(model)
        extra = None if params is None else params * BYTES_PER_PARAM[precision] / 1e9 * (1 / attn_tp - 1 / tp)
        target += extra or 0.0
    draft_gb = draft_per_gpu_gb(draft, tp)
    embed = embed_copy_gb(model, draft)
    kv_gb = static - target - draft_gb
    per_token = kv_bytes_per_token(model, attn_tp, kv_cache_dtype, (draft or {}).get("layers", 0))
    tokens = tokens_embed = None
    if per_token and kv_gb > 0:
        tokens = int(kv_gb * 1e9 // per_token)
        tokens_embed = int(max(0.0, kv_gb - embed) * 1e9 // per_token)
    return Memory(static_gb=static, target_gb=target, draft_gb=draft_gb, embed_copy_gb=embed, kv_gb=kv_gb,
                  bytes_per_token=per_token, kv_tokens=tokens, kv_tokens_with_embed=tokens_embed, fits=kv_gb > 0,
                  dp=dp, attn_tp=attn_tp, attn_extra_gb=extra,
                  server_kv_tokens=None if tokens is None else tokens * dp)
