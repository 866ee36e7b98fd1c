/*
 * "Build a command" (how-to/build-a-command page): from a target, GPUs and a workload to a
 * complete SGLang launch command, its decision-table rows, its memory arithmetic and the
 * verdict of the "Check a command" page's checker. No network, no third-party code.
 *
 * Data: window.SGLANG_BUILD_DATA (docs/_data/recipes.yaml and the guide's links, written by
 * sphinxext/content/build_command_page.py) and window.SGLANG_CHECK_DATA (the pinned parser's options,
 * written by sphinxext/content/check_command_page.py), checked with window.sglangCheck
 * (docs/_static/check-command.js). The composition and the memory method are
 * speccheck/builder.py and speccheck/memory.py line for line (their docstrings give the
 * sources of every rule); tests/test_build_command_page.py compares the two.
 *
 * window.sglangBuild = {build, memory, modelFromConfig, fromVllm, fromTrtllm} for the tests.
 * All state is in the URL query (?model=...&gpu=...), so a link reproduces the command.
 */
(function () {
  "use strict";

  var D = window.SGLANG_BUILD_DATA;
  if (!D) return;
  var L = D.links;
  var LAUNCH = "python -m sglang.launch_server";
  var REQUEST_CAP = (window.SGLANG_CHECK_DATA && window.SGLANG_CHECK_DATA.facts.request_cap) || 48;
  var MEM_FRACTION = 0.85;
  var DIST_INIT_ADDR = "10.0.0.1:5000", PD_HOSTS = ["10.0.0.1", "10.0.0.2"], PORT = 30000;
  var PLACEHOLDER_PATH = "YOUR-ORG/YOUR-MODEL";  // builder.py::PLACEHOLDER_PATH
  var WORKLOADS = ["chat", "repeats-output", "repeats-prompt"];  // builder.py::WORKLOADS
  var BYTES_PER_PARAM = { bf16: 2, fp8: 1, fp4: 0.5 };
  var KV_BYTES = { auto: 2, bf16: 2, bfloat16: 2, fp8_e4m3: 1, fp8_e5m2: 1 };
  var TREE_ROWS = {
    "1-dense": [5, 4, 8], "1-other": [3, 1, 4], "1-deepseek": [5, 1, 6], "8": [3, 1, 4],
    "32-dense": [3, 1, 4], "32-moe-tp": [1, 1, 2], "64": [1, 1, 2], "128": [1, 1, 2],
    "ngram": null, "standalone-low": [3, 1, 4], "none": null,
  };
  // Decision-table wording of each row and the note that explains it (decision-table.md).
  var ROW_TEXT = {
    "1-dense": ["1 (1 to 7), dense with a draft model, one GPU", "decision-note-batch-one"],
    "1-other": ["1 (1 to 7), any other target", "decision-note-batch-one-split"],
    "1-deepseek": ["1 (1 to 7), DeepSeek with its built-in MTP layer, TP 8", "decision-note-mtp"],
    "8": ["8 (8 to 30), any", "decision-note-adaptive"],
    "32-dense": ["32 (31 to 60), dense, one H100-class GPU", "decision-note-32"],
    "32-moe-tp": ["32 (31 to 60), MoE, or tensor parallelism of 2 or more", "decision-note-32"],
    "64": ["64 (61 to 127): measure this chain against no speculation", "decision-note-64"],
    "128": ["128 and more: no speculation first; if you try it, this chain and a raised request cap", "decision-note-128"],
    "ngram": ["low, n-gram: tree flags unset", "decision-note-other"],
    "standalone-low": ["low, standalone draft", "decision-note-other"],
  };
  var ALGO_TEXT = {
    mtp: ["The target ships its own multi-token-prediction layers: built-in MTP", "mtp-howto"],
    eagle3: ["A published EAGLE-3 draft exists for your exact target", "eagle3-howto"],
    eagle: ["Only an EAGLE (EAGLE-1/EAGLE-2) draft exists", "eagle2-howto"],
    dflash: ["A published DFlash draft exists for your exact target", "dflash-howto"],
    standalone: ["No trained draft, but a small model with the same tokenizer", "standalone-howto"],
    ngram: ["No draft at all, and answers repeat text the server generated before", "ngram-howto"],
    train: ["None of these, and you can train", "train-draft-specforge"],
  };
  var DEEPSEEK_MTP = ["DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM"];
  // builder.py::CONTEXT_ENV, ONLINE_QUANTIZATION, FP8_NATIVE_SM (sources there)
  var CONTEXT_ENV = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1";
  var ONLINE_QUANTIZATION = { fp8: "fp8" }, FP8_NATIVE_SM = 89;
  // builder.py::hybrid_swa_archs: read from the pinned wheel at build time (D.hybrid_swa_archs), not copied here.
  var HYBRID_SWA_ARCHS = D.hybrid_swa_archs || [];

  // -- Memory: speccheck/memory.py ------------------------------------------------------
  function weightsGb(model, precision) {
    precision = precision || model.precision;
    if (precision === model.precision && model.weights_gb) return model.weights_gb;
    return model.params_b * BYTES_PER_PARAM[precision];
  }
  function draftPerGpuGb(draft, tp) {
    if (!draft || !draft.gb) return 0;
    if (draft.fc_gb === undefined || draft.fc_gb === null) return draft.gb;
    return (draft.gb - draft.fc_gb) / tp + draft.fc_gb;
  }
  // memory.py::attention_split_params: the attention projections TP splits, all layers (an estimate; null without heads).
  function attentionSplitParams(model) {
    var att = model.attention || {}, h = model.hidden_size, heads = att.heads, perLayer;
    if (!heads || !h) return null;
    if (att.kind === "gqa") perLayer = 2 * h * heads * att.head_dim + 2 * h * att.kv_heads * att.head_dim;
    else if (att.kind === "mla") {
      var qk = att.qk_nope_head_dim + att.qk_rope_head_dim;
      perLayer = (att.q_lora_rank || h) * heads * qk + att.kv_lora_rank * heads * (att.qk_nope_head_dim + att.v_head_dim) +
                 heads * att.v_head_dim * h;
    } else return null;
    return perLayer * model.layers;
  }
  function kvBytesPerToken(model, tp, kvDtype, draftLayers) {
    var att = model.attention, kv = KV_BYTES[kvDtype] || 2, perLayer;
    if (att.kind === "gqa") perLayer = 2 * Math.max(1, Math.floor(att.kv_heads / tp)) * att.head_dim * kv;
    else if (att.kind === "mla") {
      if (kv === 1 && att.indexer_bytes) perLayer = att.kv_lora_rank + 16 + att.qk_rope_head_dim * 2;
      else perLayer = (att.kv_lora_rank + att.qk_rope_head_dim) * kv;
      perLayer += att.indexer_bytes || 0;
    } else return null;
    return perLayer * (model.layers + (draftLayers || 0));
  }
  function embedCopyGb(model, draft) {
    if (!draft || !draft.path || !model.vocab_size || !model.hidden_size) return 0;
    if (draft.algorithm === "STANDALONE") return 0;
    return model.vocab_size * model.hidden_size * 2 / 1e9;
  }
  function memory(model, gpuGb, tp, opts) {
    opts = opts || {};
    var precision = opts.precision || model.precision, dp = opts.dp || 1, attnTp = Math.max(1, Math.floor(tp / dp));
    var stat = MEM_FRACTION * gpuGb;
    var target = weightsGb(model, precision) / tp, extra = 0;
    if (dp > 1) {
      var params = attentionSplitParams(model);
      extra = params === null ? null : params * BYTES_PER_PARAM[precision] / 1e9 * (1 / attnTp - 1 / tp);
      target += extra || 0;
    }
    var draftGb = draftPerGpuGb(opts.draft, tp);
    var embed = embedCopyGb(model, opts.draft);
    var kvGb = stat - target - draftGb;
    var perToken = kvBytesPerToken(model, attnTp, opts.kv_cache_dtype || "auto", (opts.draft || {}).layers || 0);
    var tokens = null, tokensEmbed = null;
    if (perToken && kvGb > 0) {
      tokens = Math.floor(kvGb * 1e9 / perToken);
      tokensEmbed = Math.floor(Math.max(0, kvGb - embed) * 1e9 / perToken);
    }
    return { static_gb: stat, target_gb: target, draft_gb: draftGb, embed_copy_gb: embed, kv_gb: kvGb,
             bytes_per_token: perToken, kv_tokens: tokens, kv_tokens_with_embed: tokensEmbed, fits: kvGb > 0,
             dp: dp, attn_tp: attnTp, attn_extra_gb: extra, server_kv_tokens: tokens === null ? null : tokens * dp };
  }

  // -- Composition: speccheck/builder.py ------------------------------------------------
  function treeRow(conc, algo, o) {
    if (!algo) return "none";
    if (algo === "NGRAM") return "ngram";
    if (algo === "STANDALONE" && conc <= 30) return "standalone-low";
    if (conc <= 7) {
      if (o.mtp && o.deepseek && o.tp === 8) return "1-deepseek";
      if (!o.mtp && !o.moe && o.tp === 1 && (algo === "EAGLE" || algo === "EAGLE3")) return "1-dense";
      return "1-other";
    }
    if (conc <= 30) return "8";
    if (conc <= 60) return !o.moe && o.tp === 1 ? "32-dense" : "32-moe-tp";
    if (conc <= 127) return "64";
    return "128";
  }
  // builder.py::platform_tree (sources there): on ROCm a tree with top-k above 1 becomes a chain.
  function platformTree(tree, platform) {
    platform = platform || "cuda";
    if (["cuda", "rocm"].indexOf(platform) < 0) throw new Error("platform " + platform + " is not one of cuda, rocm");
    if (platform === "rocm" && tree && tree[1] > 1) return [[tree[0], 1, tree[0] + 1], tree.slice()];
    return [tree, null];
  }
  function chooseDraft(model, override, workload) {
    workload = workload || "chat";
    if (WORKLOADS.indexOf(workload) < 0) throw new Error("workload " + workload + " is not one of " + WORKLOADS.join(", "));
    if (!(override || model.draft) && workload !== "repeats-output") return [{ algorithm: null, layers: 0 }, "train"];
    var draft = Object.assign({}, override || model.draft || { algorithm: "NGRAM" });
    var algo = draft.algorithm.toUpperCase();
    draft.algorithm = algo;
    if (draft.layers === undefined) draft.layers = algo === "NGRAM" ? 0 : 1;
    if ((algo === "EAGLE" || algo === "NEXTN") && !draft.path) return [draft, "mtp"];
    return [draft, { EAGLE3: "eagle3", EAGLE: "eagle", STANDALONE: "standalone", NGRAM: "ngram", DFLASH: "dflash" }[algo] || "other"];
  }
  function draftEnv(draft) {
    return draft.algorithm === "EAGLE3" && draft.path ? [CONTEXT_ENV] : [];
  }
  function quantization(s, model) {
    var chosen = s.precision;
    if (!chosen || chosen === model.precision || model.precision !== "bf16" || s.path) return null;
    if (chosen === "fp8" && model.fp8_path) return null;
    return ONLINE_QUANTIZATION[chosen] || null;
  }
  // builder.py::standalone_draft
  function standaloneDraft(path, paramsB, config) {
    var draft = { algorithm: "STANDALONE", path: path, fc_gb: 0, layers: 0 }, precision = "bf16";
    if (config) {
      var dm = modelFromConfig(config, path);
      draft.layers = dm.layers; draft.vocab_size = dm.vocab_size; precision = dm.precision; paramsB = paramsB || dm.params_b;
    }
    if (paramsB) draft.gb = Math.round(paramsB * BYTES_PER_PARAM[precision] * 1000) / 1000;
    draft.counted = paramsB ? (draft.layers ? "all" : "weights") : (draft.layers ? "kv" : "none");
    return draft;
  }
  // builder.py::vocab_mismatch (source there)
  function vocabMismatch(model, draft) {
    if (draft.algorithm !== "STANDALONE" || !draft.vocab_size || !model.vocab_size) return null;
    return draft.vocab_size === model.vocab_size ? null : [model.vocab_size, draft.vocab_size];
  }
  function serverFlags(s, model, draft, tree, tp, dp, node, role) {
    var path = s.path || (s.precision === "fp8" ? model.fp8_path : null) || model.path;
    var f = ["--model-path " + path];
    if (tp > 1) f.push("--tp-size " + tp);
    if (dp > 1) f.push("--attn-dp-size " + dp);
    if (node !== null) f.push("--nnodes " + s.nodes, "--node-rank " + node, "--dist-init-addr " + (s.dist_init_addr || DIST_INIT_ADDR));
    if (model.trust_remote_code) f.push("--trust-remote-code");
    var quant = s.quantization || quantization(s, model);
    if (quant) f.push("--quantization " + quant);
    if (draft.algorithm) f.push("--speculative-algorithm " + draft.algorithm);
    if (draft.path) f.push("--speculative-draft-model-path " + draft.path);
    if (draft.path && quant) f.push("--speculative-draft-model-quantization unquant");
    if (tree) f.push("--speculative-num-steps " + tree[0], "--speculative-eagle-topk " + tree[1], "--speculative-num-draft-tokens " + tree[2]);
    if (s.concurrency > REQUEST_CAP && draft.algorithm) f.push("--max-running-requests " + s.concurrency, "--cuda-graph-max-bs-decode " + Math.ceil(s.concurrency / dp));
    if (model.context_length) f.push("--context-length " + model.context_length);
    if (s.kv_cache_dtype && s.kv_cache_dtype !== "auto") f.push("--kv-cache-dtype " + s.kv_cache_dtype);
    if (s.tool_parser) f.push("--tool-call-parser " + s.tool_parser);
    if (s.reasoning_parser) f.push("--reasoning-parser " + s.reasoning_parser);
    if (role) f.push("--disaggregation-mode " + role, "--host 0.0.0.0");  // builder.py: the router reaches both from another host
    if (s.lora) f.push("--enable-lora", "--lora-paths " + s.lora);
    if (model.dtype_flag) f.push("--dtype " + model.dtype_flag);
    f.push("--mem-fraction-static " + MEM_FRACTION, "--port " + PORT);
    return f;
  }
  function render(env, flags) {
    return env.map(function (e) { return "export " + e; }).concat([[LAUNCH].concat(flags).join(" \\\n  ")]).join("\n");
  }
  function build(s) {
    var model = typeof s.model === "string" ? D.models[s.model] : s.model;
    var gpuGb = s.gpu_memory_gb || D.gpus[s.gpu].memory_gb;
    var nodes = s.pd ? 1 : (s.nodes || 1);
    var tp = s.gpus * nodes, dp = s.dp_attention ? tp : 1;
    var chosen = chooseDraft(model, s.draft, s.workload), draft = chosen[0], algoRow = chosen[1], mtp = algoRow === "mtp";
    var row = treeRow(s.concurrency, draft.algorithm, { moe: !!model.moe, tp: tp, mtp: mtp,
      deepseek: mtp && !!(model.deepseek_mtp || DEEPSEEK_MTP.indexOf(model.architecture) >= 0) });
    var pt = platformTree(TREE_ROWS[row], s.platform), tree = pt[0], env = draftEnv(draft), commands = [];
    if (s.pd) {
      ["prefill", "decode"].forEach(function (role) {
        commands.push({ role: role, node: null, text: render(env, serverFlags(s, model, draft, tree, tp, dp, null, role)) });
      });
    } else if (nodes > 1) {
      for (var n = 0; n < nodes; n++) commands.push({ role: null, node: n, text: render(env, serverFlags(s, model, draft, tree, tp, dp, n, null)) });
    } else {
      commands.push({ role: null, node: null, text: render(env, serverFlags(s, model, draft, tree, tp, dp, null, null)) });
    }
    var memOpts = { precision: s.precision, draft: draft, kv_cache_dtype: s.kv_cache_dtype || "auto", dp: dp };
    var m = memory(model, gpuGb, tp, memOpts), memoryRange = null;
    if (model.params_b_range && !model.params_typed && !model.weights_gb) {
      memoryRange = model.params_b_range.map(function (p) { return memory(Object.assign({}, model, { params_b: p }), gpuGb, tp, memOpts); });
    }
    var fitsSet = [m.fits].concat((memoryRange || []).map(function (x) { return x.fits; }));
    var uncertain = fitsSet.some(function (f) { return f !== m.fits; });
    return { verdict: uncertain ? "uncertain" : m.fits ? "fits" : "does-not-fit", memory_range: memoryRange, commands: commands, algorithm: draft.algorithm, algorithm_row: algoRow, tree_row: row,
             tree: tree ? tree.slice() : null, table_tree: pt[1], tp: tp, memory: m, quantization: s.quantization || quantization(s, model),
             eagle3_target: canFeedEagle3(model), vocab_mismatch: vocabMismatch(model, draft) };
  }
  // speccheck/builder.py::can_feed_eagle3: null for an unknown architecture, else whether the class is one of
  // the pinned SGLang's classes with the EAGLE-3 capture hook (D.eagle3_targets, written at build time).
  function canFeedEagle3(model) {
    var arch = model.architecture;
    if (!arch || arch === "?") return null;
    return (D.eagle3_targets || []).indexOf(arch) >= 0;
  }

  // -- A pasted config.json: speccheck/builder.py::model_from_config ---------------------
  function first(cfg, names, dflt) {
    for (var i = 0; i < names.length; i++) if (cfg[names[i]] !== undefined && cfg[names[i]] !== null) return cfg[names[i]];
    return dflt;
  }
  // builder.py::TEXT_CONFIG_KEYS, KV_HEAD_KEYS, ARCH_DEFAULTS (transformers 5.19.0 class defaults)
  var TEXT_CONFIG_KEYS = ["thinker_config", "llm_config", "language_config", "text_config"];
  var INTERMEDIATE_RANGE = [2.5, 5.5], VOCAB_RANGE = [32000, 262144];  // builder.py (sources there)
  var KV_HEAD_KEYS = ["n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups"];
  var ARCH_DEFAULTS = {
    Qwen3MoeForCausalLM: { num_key_value_heads: 4, intermediate_size: 6144, moe_intermediate_size: 768, num_experts: 128, vocab_size: 151936 },
    Qwen3ForCausalLM: { num_key_value_heads: 32, head_dim: 128, intermediate_size: 22016, vocab_size: 151936 },
    Qwen2ForCausalLM: { num_key_value_heads: 32, intermediate_size: 22016, vocab_size: 151936 },
    DeepseekV3ForCausalLM: { num_key_value_heads: 128, intermediate_size: 18432, moe_intermediate_size: 2048, n_routed_experts: 256,
      n_shared_experts: 1, first_k_dense_replace: 3, kv_lora_rank: 512, q_lora_rank: 1536, qk_rope_head_dim: 64,
      qk_nope_head_dim: 128, v_head_dim: 128, vocab_size: 129280 },
  };
  function has(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  function textConfig(config) {
    for (var i = 0; i < TEXT_CONFIG_KEYS.length; i++) {
      var key = TEXT_CONFIG_KEYS[i], sub = config[key];
      if (sub && typeof sub === "object" && !Array.isArray(sub)) {
        if (key === "thinker_config" && sub.text_config && typeof sub.text_config === "object") sub = sub.text_config;
        return [Object.assign({}, config, sub), key];
      }
    }
    return [Object.assign({}, config), null];
  }
  function modelFromConfig(config, path) {
    var tc = textConfig(config), cfg = tc[0], subKey = tc[1];
    var arch = (config.architectures || cfg.architectures || ["?"])[0];
    var classDefaults = ARCH_DEFAULTS[arch] || {}, assumed = [];
    function get(names, fallback, source, affects) {
      names = typeof names === "string" ? [names] : names;
      var field = names === KV_HEAD_KEYS ? "num_key_value_heads" : names[0];
      var value = first(cfg, names, null);
      if (value !== null) return value;
      if (has(classDefaults, field)) { value = classDefaults[field]; source = "transformers default of " + arch; }
      else value = fallback;
      assumed.push({ field: field, value: value, source: source, affects: affects });
      return value;
    }
    ["hidden_size", "num_hidden_layers"].forEach(function (k) {
      if (cfg[k] === undefined || cfg[k] === null) throw new Error("config.json has no " + k);
    });
    var h = cfg.hidden_size, layers = cfg.num_hidden_layers;
    if (first(cfg, ["num_attention_heads"], null) === null && !has(classDefaults, "num_attention_heads")) throw new Error("config.json has no num_attention_heads");
    var heads = get("num_attention_heads", null, "", "weights");
    // builder.py: a missing vocabulary is counted at the low end of VOCAB_RANGE, never used as the model's own.
    var vocab = get("vocab_size", VOCAB_RANGE[0], "the low end of the range of real vocabularies", "weights");
    var vocabKnown = !assumed.some(function (a) { return a.field === "vocab_size" && a.source.indexOf("the low") === 0; });
    var experts = first(cfg, ["n_routed_experts", "num_experts", "num_local_experts"], null);
    if (experts === null) {
      experts = classDefaults.n_routed_experts || classDefaults.num_experts || 0;
      if (experts) assumed.push({ field: "num_experts", value: experts, source: "transformers default of " + arch, affects: "weights" });
    }
    var mtpLayers = first(cfg, ["num_nextn_predict_layers", "mtp_num_hidden_layers"], 0);
    var firstDense = first(cfg, ["first_k_dense_replace"], classDefaults.first_k_dense_replace || 0);
    var denseLayers = experts ? Math.min(layers, firstDense) : layers;
    var usesInter = !experts || denseLayers > 0 ||
      (first(cfg, ["moe_intermediate_size"], null) === null && !has(classDefaults, "moe_intermediate_size"));
    var inter = usesInter ? get("intermediate_size", 4 * h, "4 x hidden_size", "weights")
      : first(cfg, ["intermediate_size"], has(classDefaults, "intermediate_size") ? classDefaults.intermediate_size : 4 * h);
    var attn, attention;
    if (cfg.kv_lora_rank || classDefaults.kv_lora_rank) {
      var kvRank = get("kv_lora_rank", null, "", "kv");
      var rope = get("qk_rope_head_dim", 64, "DeepSeek-V3's value", "kv");
      var nope = get("qk_nope_head_dim", 128, "DeepSeek-V3's value", "weights");
      var vDim = get("v_head_dim", 128, "DeepSeek-V3's value", "weights");
      var qRank = has(cfg, "q_lora_rank") ? first(cfg, ["q_lora_rank"], 0) : get("q_lora_rank", 0, "no query compression", "weights");
      var q = qRank ? h * qRank + qRank * heads * (nope + rope) : h * heads * (nope + rope);
      attn = q + h * (kvRank + rope) + kvRank * heads * (nope + vDim) + heads * vDim * h;
      attention = { kind: "mla", kv_lora_rank: kvRank, qk_rope_head_dim: rope, heads: heads, qk_nope_head_dim: nope,
                    v_head_dim: vDim, q_lora_rank: qRank };
      if (cfg.index_head_dim) attention.indexer_bytes = cfg.index_head_dim + 4;
    } else {
      var kvHeads = cfg.multi_query && first(cfg, KV_HEAD_KEYS, null) === null ? 1
        : get(KV_HEAD_KEYS, heads, "num_attention_heads (full multi-head attention)", "kv");
      var headDim = get("head_dim", Math.floor(h / heads), "hidden_size / num_attention_heads", "kv");
      attn = 2 * h * heads * headDim + 2 * h * kvHeads * headDim;
      attention = { kind: "gqa", kv_heads: kvHeads, head_dim: headDim, heads: heads };
    }
    if ((cfg.layer_types || []).indexOf("linear_attention") >= 0 || cfg.full_attention_interval) attention = { kind: "hybrid-linear" };
    var nAssumed = assumed.length;
    var moeInter = experts ? get("moe_intermediate_size", inter, "intermediate_size", "weights") : null;
    var moeInterGuessed = assumed.length > nAssumed;
    var shared = first(cfg, ["n_shared_experts", "num_shared_experts"], classDefaults.n_shared_experts || 0) || 0;
    var totalParams = function (inter, vocab, moeInter) {
      var denseMlp = 3 * h * inter;
      var moeMlp = experts ? (experts + shared) * 3 * h * moeInter + h * experts : denseMlp;
      var perMoeLayer = attn + moeMlp;
      return vocab * h * (cfg.tie_word_embeddings ? 1 : 2) + denseLayers * (attn + denseMlp) +
             (layers - denseLayers) * perMoeLayer + mtpLayers * perMoeLayer;
    };
    var total = totalParams(inter, vocab, moeInter);
    // builder.py: the guide's own guesses of weight fields a range can cover (INTERMEDIATE_RANGE, VOCAB_RANGE)
    var guessed = assumed.filter(function (a) { return a.affects === "weights" && a.source.indexOf("transformers") !== 0; })
                         .map(function (a) { return a.field; });
    var paramsRange = null;
    if (guessed.indexOf("intermediate_size") >= 0 || guessed.indexOf("vocab_size") >= 0) {
      var ends = [0, 1].map(function (i) {
        var interI = guessed.indexOf("intermediate_size") >= 0 ? INTERMEDIATE_RANGE[i] * h : inter;
        var vocabI = guessed.indexOf("vocab_size") >= 0 ? VOCAB_RANGE[i] : vocab;
        return Math.round(totalParams(interI, vocabI, moeInterGuessed ? interI : moeInter) / 1e7) / 100;
      });
      paramsRange = [Math.min(ends[0], ends[1]), Math.max(ends[0], ends[1])];
    }
    var quant = String((cfg.quantization_config || {}).quant_method || "").toLowerCase();
    var precision = quant.indexOf("fp8") >= 0 ? "fp8" : (quant.indexOf("fp4") >= 0 ? "fp4" : "bf16");
    var named = config._name_or_path || cfg._name_or_path || null;
    var model = { path: path || named || PLACEHOLDER_PATH, path_source: path ? "given" : named ? "config" : "placeholder",
                  architecture: arch, precision: precision,
                  weights_gb: null, params_b: Math.round(total / 1e7) / 100, layers: layers, attention: attention,
                  moe: !!experts, hidden_size: h, vocab_size: vocabKnown ? vocab : null,
                  trust_remote_code: !!(config.auto_map || cfg.auto_map), text_config: subKey, assumed: assumed,
                  params_b_range: paramsRange };
    var win = cfg.sliding_window;
    if (win && (cfg.sliding_window_pattern || cfg.use_sliding_window || (cfg.layer_types || []).indexOf("sliding_attention") >= 0)) {
      model.sliding_window = win;
      model.hybrid_swa = HYBRID_SWA_ARCHS.indexOf(arch) >= 0 || !!cfg.is_hybrid_swa;
    }
    if (mtpLayers) model.draft = { algorithm: "EAGLE", layers: 1 };
    model.intermediate_size = inter;
    return model;
  }
  // speccheck/builder.py::estimate_eagle3_draft
  function estimateEagle3Draft(model, intermediate, draftVocab) {
    var h = model.hidden_size, fc = 3 * h * h;
    var params = 4 * h * h + 3 * h * intermediate + fc + (draftVocab || 32000) * h;
    return { gb: Math.round(params * 2 / 1e6) / 1000, fc_gb: Math.round(fc * 2 / 1e6) / 1000 };
  }

  // -- Coming from vLLM / TensorRT-LLM (mapping: reference/engine-mapping) ----------------
  // vLLM speculative_config "method" -> SGLang algorithm; "mtp" names the target's own layers.
  // Names from vLLM's SpeculativeMethod (reference/engine-mapping cites the page); the per-model
  // *_mtp names of older releases are the target's own layers too. medusa, mlp_speculator and
  // suffix have no SGLang counterpart: translate() says so.
  var VLLM_METHODS = { eagle3: "EAGLE3", eagle: "EAGLE", mtp: "MTP", deepseek_mtp: "MTP", mimo_mtp: "MTP",
                       qwen3_next_mtp: "MTP", glm4_moe_mtp: "MTP", ernie_mtp: "MTP", longcat_flash_mtp: "MTP",
                       ngram: "NGRAM", draft_model: "STANDALONE", dflash: "DFLASH" };
  function words(text) {
    var out = [], re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g, m;
    text = text.replace(/\\\r?\n/g, " ");
    while ((m = re.exec(text))) out.push(m[1] !== undefined ? m[1] : m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]);
    return out;
  }
  function fromVllm(text) {
    var w = words(text), i = w.indexOf("serve"), r = { model: null, tp: 1, spec: null, notes: [], flags: {} };
    if (i < 0) throw new Error("No `vllm serve MODEL` found.");
    r.model = w[i + 1];
    for (var k = i + 2; k < w.length; k++) {
      var word = w[k], eq = word.indexOf("="), name = eq > 0 ? word.slice(0, eq) : word;
      var value = eq > 0 ? word.slice(eq + 1) : w[k + 1];
      if (!/^-/.test(name)) continue;
      if (eq < 0 && value !== undefined && !/^-/.test(value)) k++;
      name = name.replace(/_/g, "-");
      if (name === "--speculative-config") r.spec = JSON.parse(value);
      else if (name === "--tensor-parallel-size" || name === "-tp") r.tp = parseInt(value, 10);
      else if (name === "--max-num-seqs") r.flags.max_num_seqs = parseInt(value, 10);
      else if (name === "--trust-remote-code") r.flags.trust_remote_code = true;
      else if (name === "--tool-call-parser") r.flags.tool_parser = value;
      else if (name === "--reasoning-parser") r.flags.reasoning_parser = value;
      else if (name === "--kv-cache-dtype") r.flags.kv_cache_dtype = value;
      else if (name === "--quantization" || name === "-q") r.flags.quantization = value;
      else if (name === "--gpu-memory-utilization") r.notes.push("`--gpu-memory-utilization " + value + "` is not copied: the command keeps `--mem-fraction-static " + MEM_FRACTION + "`, the value its memory figures assume. SGLang's flag is the share of GPU memory for weights and the KV cache pool, not the same quantity as vLLM's; change it as [the out-of-memory steps](oom-mem-fraction-rule) say.");
      else if (name === "--max-model-len") r.notes.push("`--max-model-len " + value + "` is SGLang's `--context-length " + value + "`: add it to the command (a value above the model's own context needs [the context override](context-length-override)).");
      else r.notes.push("`" + name + "` is not translated: this page knows no SGLang counterpart; `python -m sglang.launch_server --help` lists SGLang's flags.");
    }
    if (!r.spec) throw new Error("No `--speculative-config '{...}'` found.");
    return translate(r.model, r.tp, (r.spec.method || (r.spec.model ? "draft_model" : "")).toLowerCase(),
                     r.spec.model, r.spec.num_speculative_tokens, r, "vllm");
  }
  // TensorRT-LLM's LLM API / trtllm-serve YAML: speculative_config: {decoding_type, max_draft_len, speculative_model(_dir)}.
  var TRT_TYPES = { eagle3: "eagle3", mtp: "mtp", ngram: "ngram", drafttarget: "draft_model" };
  function fromTrtllm(text, model, tp) {
    var get = function (key) { var m = new RegExp(key + "\\s*[:=]\\s*[\"']?([\\w./-]+)").exec(text); return m ? m[1] : null; };
    var type = (get("decoding_type") || "").toLowerCase();
    var n = get("max_draft_len") || get("num_nextn_predict_layers");
    return translate(model, tp || 1, TRT_TYPES[type] || type, get("speculative_model_dir") || get("speculative_model"),
                     n ? parseInt(n, 10) : undefined, { notes: [], flags: {} }, "trtllm");
  }
  function translate(model, tp, method, draftPath, k, r, engine) {
    var algo = VLLM_METHODS[method], notes = r.notes.slice();
    if (!algo) throw new Error("Method `" + method + "` has no SGLang counterpart in SGLang " +
                               ((window.SGLANG_CHECK_DATA || {}).version || "") + ": see the engine mapping.");
    var known = null;
    Object.keys(D.models).forEach(function (key) { if (D.models[key].path === model) known = key; });
    var s = { model: known || { path: model, precision: "bf16", params_b: 0, layers: 1, attention: { kind: "hybrid-linear" } },
              gpu: "H100", gpus: tp, concurrency: r.flags.max_num_seqs || 1, tool_parser: r.flags.tool_parser || "",
              reasoning_parser: r.flags.reasoning_parser || "" };
    var q = r.flags.quantization;
    if (q) {
      var qOpt = (((window.SGLANG_CHECK_DATA || {}).options) || []).filter(function (o) { return o.dest === "quantization"; })[0];
      if (qOpt && qOpt.choices.indexOf(q) >= 0) {
        // The same name in SGLang's --quantization choices (sglang/srt/arg_groups/choices.py::QUANTIZATION_CHOICES).
        s.quantization = q; s.path = model;
        if (q === "fp8") s.precision = "fp8";
        notes.push("`--quantization " + q + "` is kept: SGLang's `--quantization` has a choice of the same name. Whether its scheme (scaling, kernels) matches vLLM's is not verified for " +
                   ((window.SGLANG_CHECK_DATA || {}).version || "this release") + ". " + (q === "fp8" ? "The memory counts one byte per target weight. " : "The memory is counted as for 16-bit weights. ") +
                   (algo === "MTP" ? "The MTP layers come from the target checkpoint and inherit `--quantization " + q + "`; add `--speculative-draft-model-quantization unquant` to keep them in 16 bits ([which precision a draft gets](compat-draft-quantization))." :
                    "The draft keeps 16-bit weights (`--speculative-draft-model-quantization unquant`) when the command has a draft model ([quantized drafts](oom-quantized-draft))."));
      } else {
        notes.push("Not translated: `--quantization " + q + "`: SGLang " + ((window.SGLANG_CHECK_DATA || {}).version || "") + "'s `--quantization` has no choice of that name, so the command below loads the checkpoint as it is published. Pick the matching choice from SGLang's server arguments, or serve a checkpoint already in that format ([quantized targets](feat-quantized)).");
      }
    }
    notes.push("GPU: the converted command does not depend on it, but this page composes it for NVIDIA H100 (80 GB) GPUs, because the " + (engine === "vllm" ? "vLLM command" : "settings") + " do not name one; for memory figures on your GPUs, pick the model and GPUs in the builder above.");
    var tree = null;
    if (algo === "MTP") {
      // A recipe model's MTP command keeps the recipe's spelling, so the converter and the builder agree.
      var spelled = known && D.models[known].draft && D.models[known].draft.algorithm === "NEXTN" ? "NEXTN" : "EAGLE";
      s.draft = { algorithm: spelled, layers: 1 };
      notes.push("MTP: SGLang's algorithm is `EAGLE`" + (spelled === "NEXTN" ? ", written `NEXTN` as this model's recipe writes it" : "") +
                 " (`NEXTN` is an alias, except for the targets that read the name as typed: [which algorithm](decision-algorithm)), with no draft path: the draft layers come from the target checkpoint.");
    } else if (algo === "NGRAM") {
      s.draft = { algorithm: "NGRAM", layers: 0 };
      notes.push("n-gram: SGLang's NGRAM drafts from text the server generated before and from corpora it loads, not from the prompt alone (" + engine + " matches the prompt); its own flags size the draft, so the tree flags stay unset and `num_speculative_tokens` / `prompt_lookup_min` / `prompt_lookup_max` have no direct counterpart.");
    } else {
      s.draft = { algorithm: algo, path: draftPath, layers: 1 };
      if (algo === "STANDALONE") notes.push("A separate small draft model is SGLang's `STANDALONE`. If its config.json declares a shorter context than the target's, SGLang refuses to start unless `export " + CONTEXT_ENV + "` is set ([why](context-length-override)).");
      if (/speculator/i.test(draftPath || "")) notes.push("Does not carry over: the draft `" + draftPath + "` looks like a checkpoint in vLLM's speculators format (a config.json with `speculators_model_type`), which SGLang " +
        ((window.SGLANG_CHECK_DATA || {}).version || "") + " does not read. Open its config.json; if it has that key, convert the checkpoint first ([draft format conversion](draft-format-conversion)), then give the converted directory as the draft path.");
    }
    if (draftEnv(s.draft).length) notes.push("The `export " + CONTEXT_ENV + "` line: SGLang refuses to start when the draft's config.json declares a shorter context than the target's, and EAGLE-3 drafts often do ([why](context-length-override)); vLLM has no such check.");
    var n = r.flags.max_num_seqs;
    if (n && n > REQUEST_CAP) notes.push("`--max-num-seqs " + n + "` is `--max-running-requests " + n + "` plus `--cuda-graph-max-bs-decode " + n + "`: above SGLang's cap the two are raised together ([request cap](request-cap)).");
    else if (n) notes.push("`--max-num-seqs " + n + "`: SGLang's own cap of " + REQUEST_CAP + " running requests with speculative decoding is already at or above it, so no flag is needed; add `--max-running-requests " + n + "` if you want the lower limit ([request cap](request-cap)).");
    notes.push("Does not carry over: the request cap. With speculative decoding on and `--max-running-requests` unset, SGLang runs at most " + REQUEST_CAP + " requests at once, whatever your vLLM server allowed; for more, set `--max-running-requests` and `--cuda-graph-max-bs-decode` together ([request cap](request-cap)).");
    if (k && algo !== "NGRAM") {
      tree = [k, 1, k + 1];
      notes.push("`" + (engine === "vllm" ? "num_speculative_tokens" : "max_draft_len") + ": " + k + "` (a chain of " + k +
                 " draft tokens) is `--speculative-num-steps " + k + " --speculative-eagle-topk 1 --speculative-num-draft-tokens " + (k + 1) + "` (SGLang counts the verified root token in the draft tokens).");
    }
    if (typeof s.model === "object") recipeModelFlags(s.model, notes);
    if (r.flags.trust_remote_code && typeof s.model === "object") s.model.trust_remote_code = true;
    return { scenario: s, tree: tree, notes: notes, max_num_seqs: r.flags.max_num_seqs || null };
  }
  // Model-level fields of the recipes' data (D.models, docs/_data/recipes.yaml) that serverFlags writes as flags.
  var MODEL_FLAG_FIELDS = { trust_remote_code: "--trust-remote-code", dtype_flag: "--dtype", context_length: "--context-length" };
  // A converted target that is not a recipe's checkpoint but has a recipe model's architecture (the check's
  // model table, SGLANG_CHECK_DATA.facts.architectures): copy the recipe models' model-level fields into `model`
  // when every recipe model of that architecture agrees on them, and say where they came from.
  function recipeModelFlags(model, notes) {
    var arch = (((window.SGLANG_CHECK_DATA || {}).facts || {}).architectures || {})[model.path];
    var keys = Object.keys(D.models).filter(function (k) { return arch && D.models[k].architecture === arch; });
    if (!keys.length) return;
    model.architecture = arch;
    var taken = [];
    Object.keys(MODEL_FLAG_FIELDS).forEach(function (field) {
      var values = keys.map(function (k) { return D.models[k][field] === undefined ? null : D.models[k][field]; });
      if (values[0] === null || values.some(function (v) { return v !== values[0]; })) return;
      model[field] = values[0];
      taken.push("`" + MODEL_FLAG_FIELDS[field] + (values[0] === true ? "" : " " + values[0]) + "`");
    });
    if (taken.length) notes.push(taken.join(", ") + ": from the recipe" + (keys.length > 1 ? "s" : "") + " for " +
      keys.map(function (k) { return "`" + D.models[k].path + "`"; }).join(", ") +
      ", which use the same architecture (`" + arch + "`): the converted command keeps the recipes' model-level flags.");
  }
  function translatedCommand(t) {
    var out = build(t.scenario), text = out.commands[0].text;
    if (t.tree && out.tree) {
      text = text.replace("--speculative-num-steps " + out.tree[0], "--speculative-num-steps " + t.tree[0])
                 .replace("--speculative-eagle-topk " + out.tree[1], "--speculative-eagle-topk " + t.tree[1])
                 .replace("--speculative-num-draft-tokens " + out.tree[2], "--speculative-num-draft-tokens " + t.tree[2]);
    }
    return text;
  }

  // The decision table's tree for the converted scenario (its concurrency is --max-num-seqs, else 1):
  // build(t.scenario) is speccheck/builder.py::build of the same scenario, so its row and command are Python's.
  // differs: the literal translation's tree (t.tree) is not the table's.
  function tableAdvice(t) {
    var out = build(t.scenario), lit = t.tree;
    var differs = !!(lit && (!out.tree || out.tree.join(",") !== lit.join(",")));
    return { row: out.tree_row, tree: out.tree, text: out.commands[0].text, differs: differs,
             concurrency: t.scenario.concurrency, given: !!t.max_num_seqs };
  }

  window.sglangBuild = { build: build, tableAdvice: tableAdvice, memory: memory, modelFromConfig: modelFromConfig, fromVllm: fromVllm,
                         fromTrtllm: fromTrtllm, translatedCommand: translatedCommand, estimateEagle3Draft: estimateEagle3Draft,
                         standaloneDraft: standaloneDraft, draftEnv: draftEnv, hybridSwaArchs: HYBRID_SWA_ARCHS };

  // -- The page ---------------------------------------------------------------------------
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) fill(e, text);
    return e;
  }
  // Text with `code` spans and [label](link-name) links (names of D.links).
  function fill(e, text) {
    String(text).split(/(`[^`]*`|\[[^\]]+\]\([\w-]+\))/).forEach(function (part) {
      var link = /^\[([^\]]+)\]\(([\w-]+)\)$/.exec(part);
      if (/^`.*`$/.test(part)) e.appendChild(el("code", {}, part.slice(1, -1)));
      else if (link && L[link[2]]) { var a = el("a", { href: L[link[2]] }); a.textContent = link[1]; e.appendChild(a); }
      else if (part) e.appendChild(document.createTextNode(part));
    });
    return e;
  }
  function gb(x) { return x.toFixed(x < 10 ? 2 : 1) + " GB"; }
  function num(x) { return x.toLocaleString("en-US"); }

  function readForm(form) {
    var v = function (n) { var f = form.elements[n]; return f ? (f.type === "checkbox" ? f.checked : f.value.trim()) : ""; };
    var s = { gpus: parseInt(v("gpus"), 10) || 1, nodes: parseInt(v("nodes"), 10) || 1,
              concurrency: Math.max(1, parseInt(v("conc"), 10) || 1), dp_attention: v("dp"), kv_cache_dtype: v("kv"),
              tool_parser: v("tool"), reasoning_parser: v("reasoning"), lora: v("lora") ? v("lora_path") : "",
              pd: v("pd"), precision: v("precision") || null, gpu: v("gpu"), goal: v("goal"),
              workload: v("workload") || "chat", platform: v("platform") || "cuda" };
    if (v("gpu") === "other") { s.gpu_memory_gb = parseFloat(v("mem")) || 0; }
    var problems = [];
    if (v("model") === "config") {
      try {
        var m = modelFromConfig(JSON.parse(v("config") || "{}"), v("path") || undefined);
        if (parseFloat(v("params")) > 0) { m.params_b = parseFloat(v("params")); m.params_typed = true; }
        s.model = m;
      } catch (e) { problems.push("The pasted config.json cannot be read: " + e.message); }
    } else {
      s.model = v("model");
      if (v("path")) s.path = v("path");
    }
    if (s.model && v("draft_path")) {
      var base = typeof s.model === "string" ? D.models[s.model] : s.model;
      var d = { algorithm: v("draft_algo") || "EAGLE3", path: v("draft_path"), layers: 1 };
      if (base.draft && base.draft.path === d.path && base.draft.algorithm === d.algorithm) d = Object.assign({}, base.draft);  // the recipe's own draft: its measured size
      else if (d.algorithm === "EAGLE3" && base.hidden_size) {
        Object.assign(d, estimateEagle3Draft(base, base.intermediate_size || 4 * base.hidden_size));
        d.estimated = { intermediate: base.intermediate_size || 4 * base.hidden_size, guessed: !base.intermediate_size };
      }
      if (d.algorithm === "STANDALONE") {
        var dcfg = null;
        if (v("draft_config")) {
          try { dcfg = JSON.parse(v("draft_config")); } catch (e) { problems.push("The draft's config.json cannot be read: " + e.message); }
        }
        try { d = standaloneDraft(v("draft_path"), parseFloat(v("draft_params")) > 0 ? parseFloat(v("draft_params")) : null, dcfg); }
        catch (e) { problems.push("The draft's config.json cannot be read: " + e.message); }
      }
      s.draft = d;
    }
    return { s: s, problems: problems };
  }

  function advice(s, out, model, gpuGb) {
    var a = [], m = out.memory;
    if (!m.fits) {
      var perGpu = weightsGb(model, s.precision) + (m.draft_gb * out.tp);
      var need = Math.pow(2, Math.ceil(Math.log2(Math.max(1, perGpu / (MEM_FRACTION * gpuGb) * 1.15))));
      a.push("Does not fit: " + gb(m.target_gb + m.draft_gb) + " of weights per GPU against a static budget of " + gb(m.static_gb) +
             " (`--mem-fraction-static " + MEM_FRACTION + "` × " + gpuGb + " GB). What to change: about " + need +
             " GPUs of this type (more nodes when that is over 8)" +
             ((s.precision || model.precision) === "bf16" ? ", or Weight precision FP8 (half the weights: a published FP8 checkpoint, or `--quantization fp8` at load)" : "") +
             ", or a GPU with more memory ([memory method](recipes-memory-method)).");
    } else if (m.kv_tokens !== null && m.kv_tokens_with_embed !== null && m.kv_tokens_with_embed < 4096 * Math.min(s.concurrency, 8)) {
      a.push("Fits, with little room: " + num(m.kv_tokens_with_embed) + " KV tokens. Lower `--max-running-requests` and `--cuda-graph-max-bs-decode` to the few requests you run, or add GPUs ([out-of-memory recipe](oom-recipe)).");
    }
    return a;
  }

  // Why the verdict is uncertain: the assumed fields and what the range gives at each end (builder.py::INTERMEDIATE_RANGE, VOCAB_RANGE).
  function rangeText(model, r) {
    var fields = (model.assumed || []).filter(function (a) { return a.affects === "weights" && a.source.indexOf("transformers") !== 0 &&
                                                                     (a.field === "intermediate_size" || a.field === "vocab_size"); })
                                      .map(function (a) { return "`" + a.field + "`"; });
    var lo = r.memory_range[0], hi = r.memory_range[1];
    return "Your config.json leaves out " + fields.join(" and ") + ", so the parameter estimate spans " + model.params_b_range[0] + " to " +
      model.params_b_range[1] + " B (" + (fields.join(" ").indexOf("intermediate") >= 0 ? "`intermediate_size` 2.5 to 5.5 × `hidden_size`" : "") +
      (fields.length > 1 ? ", " : "") + (fields.join(" ").indexOf("vocab") >= 0 ? "`vocab_size` 32,000 to 262,144" : "") +
      ", the spread of real models): at " + model.params_b_range[0] + " B " + (lo.fits ? "it fits, with " + gb(lo.kv_gb) + " of KV cache per GPU" : "it does not fit") +
      "; at " + model.params_b_range[1] + " B " + (hi.fits ? "it fits, with " + gb(hi.kv_gb) + " of KV cache" : "it does not fit (" + gb(hi.target_gb + hi.draft_gb) + " of weights per GPU against " + gb(hi.static_gb) + ")") + ".";
  }

  function notes(s, out, model, platform) {
    var n = [];
    if (out.algorithm_row === "mtp") n.push("No `--speculative-draft-model-path`: the draft layer comes from the target checkpoint ([draft path rule](draft-path-rule)).");
    if (out.algorithm === "NGRAM" && out.algorithm_row === "ngram") n.push("NGRAM because you said answers repeat text the server generated before; its drafts come from that text and from corpora you load, not from text found only in the prompt ([where the drafts come from](ngram-sources)).");
    if (out.algorithm_row === "train") {
      n.push("No speculative decoding in this command: the target has no draft model and no MTP layer, and NGRAM's row needs answers that repeat text the server generated before, which " +
             (s.workload === "repeats-prompt" ? "output copied from the prompt is not" : "open-ended chat does not") +
             ". Before training, look for a published draft for your exact target in [model pairs](model-pairs) and give it above (the table's EAGLE-3 and DFlash rows come first). " +
             (out.eagle3_target === false
               ? "Without one, do not train an EAGLE-3 draft for this target: its class `" + model.architecture + "` has no EAGLE-3 hidden-state capture hook (`set_eagle3_layers_to_capture`) in SGLang " + ((window.SGLANG_CHECK_DATA || {}).version || "") + ", so an EAGLE-3 draft cannot be attached to it ([target classes](ix-model-architectures-targets)). If a small model with the same tokenizer and vocabulary exists, give it above as a STANDALONE draft ([standalone](standalone-howto)); otherwise run without speculative decoding."
               : "Without one, the row is \"None of these, and you can train\": [train an EAGLE-3 draft](train-draft-specforge); or, if a small model with the same tokenizer exists, give it above as a STANDALONE draft ([standalone](standalone-howto)).") +
             " Until then this command is your baseline ([baseline](bench-baseline)).");
      if (s.workload === "repeats-prompt") n.push("The decision table has no row for output that copies text found only in the prompt (code editing, retrieval): SGLang's NGRAM does not draft from prompts ([where the drafts come from](ngram-sources)) unless you load that text as a corpus ([corpus](ngram-corpus)), which this guide has not tested. Choose \"answers repeat text the server generated before\" only if that is also true.");
    }
    if (out.algorithm === "STANDALONE") n.push("SGLang builds the STANDALONE draft with the target's context length and refuses to start if the draft's config.json declares a shorter one (`max_position_embeddings`): compare the two configs, and if the draft's is shorter, add `export " + CONTEXT_ENV + "` before the command or pass a `--context-length` no larger than the draft's ([why](context-length-override)).");
    if (out.commands[0].text.indexOf("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN") >= 0) n.push("The `export` lets a draft that declares a shorter context than the target start ([why](context-length-override)).");
    if (!out.algorithm) { /* no speculation: the request cap does not apply */ }
    else if (s.concurrency > REQUEST_CAP) n.push("Above " + REQUEST_CAP + " requests the command raises the request cap and the CUDA-graph batch together ([request cap](request-cap)).");
    else n.push("CUDA-graph batch: left to SGLang; at most " + REQUEST_CAP + " requests run at once with speculative decoding on ([request cap](request-cap)).");
    if (s.tool_parser || s.reasoning_parser || s.structured) n.push("Constrained output and tool calls: send the test request of [structured output](feat-structured-output) before routing such traffic; reasoning parsers: [reasoning](feat-reasoning).");
    if (s.lora) n.push(!out.algorithm || ["EAGLE", "EAGLE3", "NGRAM", "DFLASH", "DSPARK"].indexOf(out.algorithm) >= 0
      ? "LoRA adapters apply to the target only ([LoRA](feat-lora))."
      : "SGLang refuses LoRA with `" + out.algorithm + "` ([LoRA](feat-lora)): remove `--enable-lora` or pick another algorithm.");
    if (s.pd) n.push("Prefill and decode servers carry the same speculative flags; the accept length is in the decode server's log ([prefill/decode](feat-pd-disaggregation)). The router line is not checked: see the note under it.");
    if (out.commands.length > 1 && !s.pd) n.push("Run the same command on every node, each with its own `--node-rank`; `--dist-init-addr` is node 0's address ([multi-node memory](oom-multi-node)).");
    if (model.attention && model.attention.kind === "hybrid-linear") n.push("Hybrid linear-attention target: the KV token count is not computed here ([hybrid models](feat-hybrid-models)).");
    if (out.quantization) {
      var sm = s.gpu !== "other" && D.gpus[s.gpu] ? D.gpus[s.gpu].sm : null;
      n.push("`--quantization " + out.quantization + "`: the checkpoint is " + model.precision.toUpperCase() + ", so SGLang quantizes the weights to FP8 as they load, and the memory counts one byte per weight. " +
             (out.commands[0].text.indexOf("--speculative-draft-model-quantization unquant") >= 0 ? "The draft would inherit the flag; `--speculative-draft-model-quantization unquant` keeps it in BF16, as counted ([quantized drafts](oom-quantized-draft)). " : "") +
             "A published FP8 checkpoint of the model, where one exists, is the usual route: give its id as Checkpoint and the flag is left out. Whether loading in BF16 and quantizing fits a GPU that holds only the FP8 weights is not verified for " + ((window.SGLANG_CHECK_DATA || {}).version || "this release") + ".");
      if (platform === "rocm") n.push("FP8 on ROCm: which FP8 kernels the GPU gets is not verified here ([platform notes](trouble-platform)).");
      else if (sm && sm < FP8_NATIVE_SM) n.push(D.gpus[s.gpu].label + " has no FP8 arithmetic (compute capability " + (sm / 10).toFixed(1) + "; FP8 needs 8.9 or newer): SGLang runs the FP8 weights of linear layers through its Marlin kernel, weight-only, so they take half the memory but the matrix products stay in BF16" + (model.moe ? "; how the MoE experts run there is not verified for " + ((window.SGLANG_CHECK_DATA || {}).version || "this release") : "") + ".");
      else if (!sm) n.push("FP8 arithmetic needs compute capability 8.9 or newer (L40S, RTX 40xx, H100 and later); on 8.0 to 8.8 (A100, RTX 30xx) SGLang runs the FP8 weights of linear layers weight-only through its Marlin kernel, and older GPUs are refused.");
    } else if ((s.precision || model.precision) !== model.precision) {
      n.push(s.path
        ? "Weights counted at " + (s.precision || "").toUpperCase() + ", as you chose. The page cannot tell the format of the checkpoint you typed (`" + s.path + "`): if it is " +
          (s.precision || "").toUpperCase() + ", the command is complete; if it is " + model.precision.toUpperCase() + " like `" + model.path + "`, " +
          (s.precision === "fp8" ? "add `--quantization fp8`" : "serve a checkpoint in the chosen format") + ". " +
          "Whether a draft trained on the " + model.precision.toUpperCase() + " target keeps its accept length is not verified ([FP8 target](eagle3-fp8-target))."
        : "Weights counted at " + (s.precision || "").toUpperCase() + " but the checkpoint is " + model.precision.toUpperCase() + ": " +
          (s.precision === "fp4" ? "the builder has no load-time FP4 route; serve a published FP4 checkpoint (give its id as Checkpoint). " : "serve a checkpoint in that format (give its id as Checkpoint). ") +
          "Whether a draft trained on the BF16 target keeps its accept length is not verified ([FP8 target](eagle3-fp8-target)).");
    }
    if (s.goal === "throughput") n.push("Throughput: keep speculative decoding only if it beats a server without it at your concurrency ([baseline](bench-baseline)).");
    if (platform === "rocm" && out.table_tree) n.push("ROCm: a chain (" + out.tree.join(", ") + ") instead of the table's tree (" + out.table_tree.join(", ") + "). SGLang's automatic attention backend on ROCm is usually `aiter`, which drafts with top-k 1 only: a tree stops the server at the first draft extend (`AiterAttnBackend SPEC_V2 path currently supports topk <= 1 only`), and only a chain gets sampled verification there ([ROCm](ix-hardware-rocm)). A tree needs `--attention-backend triton` ([top-k and backends](compat-topk-backends)); this page does not write that, and sampled requests then verify greedily.");
    if (platform === "rocm") n.push("ROCm: sampling and verification differ on ROCm ([ROCm](ix-hardware-rocm); [platform notes](trouble-platform)).");
    // speculative_hook.py::_handle_ngram accepts the devices cuda, cpu and xpu; whether a ROCm build passes as cuda is not verified here.
    if (platform === "rocm" && out.algorithm === "NGRAM") n.push("NGRAM on ROCm: SGLang's start-up check accepts the devices CUDA, CPU and XPU; whether a ROCm build passes it is not verified for " + ((window.SGLANG_CHECK_DATA || {}).version || "this release") + ". Prefer a draft model ([decision table](decision-algorithm)).");
    return n;
  }

  // What the page assumed about a pasted config.json (model.assumed, builder.py::model_from_config)
  // and where the model path came from: shown as warnings, never silently.
  var EFFECT = {
    kv: "sets the KV bytes per token: if the model's real value differs, the KV token count is off by the same ratio",
    weights: "enters the parameter estimate, so the weights and the KV memory left",
  };
  function configWarnings(s, model) {
    var w = [];
    if (typeof s.model === "string") {
      // A typed Checkpoint that is not the recipe's: the figures still use the recipe model's shapes.
      if (s.path && s.path !== model.path && s.path !== model.fp8_path && !s.precision) {
        w.push(el("p", { "class": "build-command__warning", role: "note", "data-out": "typed-precision" },
          "The page does not know the precision of `" + s.path + "`" + (/fp8/i.test(s.path) ? " (its name says FP8)" : /fp4/i.test(s.path) ? " (its name says FP4)" : "") +
          ": with Weight precision \"as the checkpoint is published\" the memory counts it as " + model.precision.toUpperCase() + ", the precision of `" + model.path +
          "`. Choose the checkpoint's precision in Weight precision so that the weights are counted right."));
      }
      if (s.path && s.path !== model.path && s.path !== model.fp8_path) {
        var typedArch = (((window.SGLANG_CHECK_DATA || {}).facts || {}).architectures || {})[s.path];
        var other = typedArch && model.architecture && typedArch !== model.architecture;
        w.push(el("p", { "class": "build-command__warning", role: "note", "data-out": "recipe-shapes" },
          "The memory figures use the shapes of `" + model.path + "` (the recipe model you picked), not of `" + s.path + "`" +
          (other ? ", which is a `" + typedArch + "`, another architecture than `" + model.architecture + "`" : "") +
          ": right only if `" + s.path + "` is a checkpoint of that model. For another model, pick \"Another model\" and paste its config.json."));
      }
      return w;
    }
    var assumed = model.assumed || [];
    if (assumed.length) {
      var box = el("div", { "class": "build-command__warning", role: "note", "data-out": "assumed" });
      box.appendChild(el("p", {}, "Your config.json leaves out " + assumed.length + " field(s) the memory figures depend on; the page filled them in:"));
      var ul = el("ul");
      assumed.forEach(function (a) {
        var effect = a.affects === "weights" && model.params_typed ? "would enter the parameter estimate; you typed the parameter count, so it does not"
          : EFFECT[a.affects];
        ul.appendChild(el("li", {}, "`" + a.field + "` = " + a.value + " (" + a.source + "): " + effect + "."));
      });
      box.appendChild(ul);
      var kv = assumed.filter(function (a) { return a.field === "num_key_value_heads" && a.source.indexOf("transformers") < 0; })[0];
      box.appendChild(el("p", {}, (kv ? "If the model uses grouped-query attention with k KV heads, its real KV token count is " + kv.value +
        " ÷ k times the figure below. " : "") +
        "Each value is what Hugging Face and SGLang would use for a config.json without that field: right if the model's own config.json lacks it too, wrong if it was left out of what you pasted. Paste the whole config.json from the model's page to be sure."));
      w.push(box);
    }
    if (model.sliding_window) w.push(el("p", { "class": model.hybrid_swa ? "build-command__warning" : "build-command__note", role: "note", "data-out": "sliding-window" },
      model.hybrid_swa
        ? "Sliding-window layers (window " + num(model.sliding_window) + "): the KV figures count every layer at full cost, so the KV token count below is a lower bound. SGLang " + ((window.SGLANG_CHECK_DATA || {}).version || "") +
          " gives this architecture's windowed layers a pool of their own, sized from the full layers' pool by `--swa-full-tokens-ratio` (0.8 when unset), and reports both in its start-up log (`full_layer_tokens=`, `swa_layer_tokens=`); this page does not model that pool ([sliding-window targets](ix-kv-memory-swa))."
        : "Sliding-window layers (window " + num(model.sliding_window) + "): SGLang " + ((window.SGLANG_CHECK_DATA || {}).version || "") + " does not give `" + model.architecture +
          "` a separate pool for its windowed layers (the architecture is not in its hybrid sliding-window list), so every layer keeps the KV of every token, as counted below; the windows shorten attention, not the KV cache ([sliding-window targets](ix-kv-memory-swa))."));
    if (model.text_config) w.push(el("p", { "class": "build-command__note", "data-out": "text-config" },
      "Read the language model's fields from `" + model.text_config + "` of your config.json, as SGLang does for multimodal models."));
    if (model.path_source === "placeholder" && !s.path) w.push(el("p", { "class": "build-command__warning", role: "note", "data-out": "placeholder" },
      "`" + PLACEHOLDER_PATH + "` in the command is a placeholder: type the model's Hugging Face id or local path in Checkpoint. " +
      "The check still passes because SGLang's parser accepts any text for `--model-path`; it cannot tell whether the model exists."));
    else if (model.path_source === "config" && !s.path) w.push(el("p", { "class": "build-command__note", "data-out": "placeholder" },
      "Model path `" + model.path + "` read from `_name_or_path` in your config.json: make sure it is the Hugging Face id or local path you serve from, or type another in Checkpoint."));
    return w;
  }

  // The checker has no platform input (it checks as for an NVIDIA GPU): on ROCm the verdict says so,
  // and the ROCm rules it cannot apply are the page's (builder.py::platform_tree).
  var ROCM_CHECK_NOTE = " The checker has no platform input: it checks as for an NVIDIA GPU, not ROCm's attention backend or kernels; this page applied the ROCm top-k rule itself ([ROCm](ix-hardware-rocm)).";
  function verdict(text, platform) {
    if (typeof window.sglangCheck !== "function") return { ok: null, text: "The checker did not load." };
    var r = window.sglangCheck(text), errors = r.diagnostics.filter(function (d) { return d.severity === "error"; });
    return { ok: r.command && !errors.length, diagnostics: r.diagnostics,
             text: (!r.command ? "Not an SGLang command." : errors.length
               ? errors.length + " problem(s): " + errors.map(function (d) { return d.message; }).join(" ")
               : "Check passed: SGLang " + window.SGLANG_CHECK_DATA.version + " accepts these flags and start-up rules.") +
               (r.command && platform === "rocm" ? ROCM_CHECK_NOTE : "") };
  }

  // The STANDALONE vocabulary check the parser check does not see (it runs when the draft loads).
  function VOCAB_TEXT(v) {
    return "SGLang will refuse to start: the draft's config.json declares `vocab_size` " + num(v[1]) + " and the target's " + num(v[0]) +
      ", and a STANDALONE draft must have the target's `vocab_size` exactly, even when the tokenizers match ([which drafts](standalone-which-draft)). " +
      "The flags pass the check, which does not read the draft's config.json; pick a draft with the target's vocabulary.";
  }
  function showCommand(box, title, text, platform) {
    var fig = el("figure", { "class": "build-command__cmd" });
    fig.appendChild(el("figcaption", {}, title));
    var pre = el("pre", { tabindex: "0" }); pre.appendChild(el("code", {}, "")); pre.firstChild.textContent = text;
    fig.appendChild(pre);
    var v = verdict(text, platform);
    fig.appendChild(el("p", { "class": "build-command__verdict build-command__verdict--" + (v.ok ? "ok" : "error"), "data-out": "verdict" }, v.text));
    box.appendChild(fig);
    return v;
  }

  function update(root) {
    var form = root.querySelector("form"), out = root.querySelector("[data-out=result]");
    var configField = root.querySelector("[data-when=config]");
    configField.hidden = form.elements.model.value !== "config";
    root.querySelector("[data-when=other-gpu]").hidden = form.elements.gpu.value !== "other";
    root.querySelector("[data-when=lora]").hidden = !form.elements.lora.checked;
    root.querySelector("[data-when=standalone]").hidden = form.elements.draft_algo.value !== "STANDALONE";
    saveState(form);
    out.textContent = "";
    var read = readForm(form), s = read.s;
    if (read.problems.length) { out.appendChild(el("p", { "class": "build-command__error", role: "alert" }, read.problems.join(" "))); return; }
    var model = typeof s.model === "string" ? D.models[s.model] : s.model;
    var gpuGb = s.gpu === "other" ? s.gpu_memory_gb : D.gpus[s.gpu].memory_gb;
    if (!(gpuGb > 0)) { out.appendChild(el("p", { "class": "build-command__error", role: "alert" }, "Give the memory of one GPU in GB.")); return; }
    var platform = form.elements.platform.value;
    var gpuPlatform = s.gpu !== "other" && D.gpus[s.gpu].platform;
    if (gpuPlatform && gpuPlatform !== platform) out.appendChild(el("p", { "class": "build-command__error" }, D.gpus[s.gpu].label + " runs " + gpuPlatform.toUpperCase() + ", not " + platform.toUpperCase() + ": pick the matching platform."));
    s.structured = form.elements.structured.checked;
    var r = build(s), m = r.memory;
    var warnings = configWarnings(s, model);

    var cmds = el("section", { "aria-labelledby": "bc-cmd-h" });
    cmds.appendChild(el("h2", { id: "bc-cmd-h" }, s.pd ? "Commands: prefill server, decode server, router" : r.commands.length > 1 ? "Commands: one per node" : "Command"));
    var failed = 0;
    r.commands.forEach(function (c) {
      var title = c.role ? (c.role === "prefill" ? "Prefill server, node " + PD_HOSTS[0] : "Decode server, node " + PD_HOSTS[1]) : c.node !== null ? "Node " + c.node : "Launch command";
      if (!showCommand(cmds, title, c.text, platform).ok) failed++;
    });
    // The answer first: does it fit, and does it pass the check.
    var placeholder = model.path_source === "placeholder" && !s.path;
    var passText = s.pd ? "Fits in memory; both server commands pass the check; the router line is not checked (see the note under it)"
      : "Fits in memory and passes the check" + (r.commands.length > 1 ? " (every command)" : "");
    passText += platform === "rocm" ? " (the check assumes an NVIDIA GPU; the ROCm top-k rule is this page's, see Draft choice and tree)." : ".";
    if (!r.algorithm) passText += " It runs without speculative decoding: no row of the decision table gives this target a draft for this workload (see Draft choice below).";
    var caveats = [];
    if (warnings.length && (model.assumed || []).length) caveats.push("the memory figures rest on assumed config fields (see the warning)");
    if (placeholder) caveats.push("replace the placeholder model path");
    if (warnings.some(function (x) { return x.getAttribute("data-out") === "typed-precision"; })) caveats.push("choose the precision of the checkpoint you typed (see the warning)");
    if (warnings.some(function (x) { return x.getAttribute("data-out") === "recipe-shapes"; })) caveats.push("the memory figures use " + model.path + "'s shapes (see the warning)");
    var uncounted = r.algorithm === "STANDALONE" && s.draft && s.draft.counted !== "all";
    if (uncounted) caveats.push("the draft model's memory is " + (s.draft.counted === "none" ? "not counted" : "only partly counted") + " (see the warning)");
    if (m.dp > 1 && m.attn_extra_gb === null) caveats.push("the attention weights DP attention copies to every GPU are not counted for this model (see Memory per GPU)");
    if (model.sliding_window && model.hybrid_swa) caveats.push("the KV token count is a lower bound for this sliding-window model (see the warning)");
    var uncertain = r.verdict === "uncertain";
    out.appendChild(el("p", { "class": "build-command__summary build-command__fit--" + (uncertain ? "uncertain" : m.fits && !failed && !r.vocab_mismatch ? "ok" : "error"), "data-out": "summary" },
      uncertain ? "Cannot tell from this config whether it fits: type the parameter count from the model card (Parameters). " + rangeText(model, r) +
        (failed ? " " + failed + " command(s) also fail the check: see the verdicts below." : "")
        : !m.fits ? "Does not fit in memory: see Memory per GPU below for what to change."
        : failed ? failed + " command(s) fail the check: see the verdicts below."
        : r.vocab_mismatch ? VOCAB_TEXT(r.vocab_mismatch)
        : passText + (caveats.length ? " Before you use it: " + caveats.join("; ") + "." : "")));
    warnings.forEach(function (w) { out.appendChild(w); });
    if (uncounted) out.appendChild(el("p", { "class": "build-command__warning", role: "note", "data-out": "draft-uncounted" },
      s.draft.counted === "none"
        ? "The STANDALONE draft is not counted in the memory below: its size is unknown. A STANDALONE draft is a whole model: give its parameter count (Draft parameters) and paste its config.json for its layers."
        : s.draft.counted === "weights"
          ? "The STANDALONE draft's weights are counted, its KV cache is not: paste its config.json so that its layers are counted."
          : "The STANDALONE draft's KV layers are counted, its weights are not: give its parameter count (Draft parameters)."));
    if (s.pd) {
      // The flags of SGLang's own prefill/decode test (disaggregation_fixture.py::launch_lb), without its --mini-lb.
      var router = "python -m sglang_router.launch_router --pd-disaggregation \\\n  --prefill http://" + PD_HOSTS[0] + ":" + PORT + " \\\n  --decode http://" + PD_HOSTS[1] + ":" + PORT + " \\\n  --host 0.0.0.0 --port 8000";
      var fig = el("figure", { "class": "build-command__cmd" });
      fig.appendChild(el("figcaption", {}, "Router, in front of both servers"));
      var pre = el("pre", { tabindex: "0" }); pre.appendChild(el("code")); pre.firstChild.textContent = router; fig.appendChild(pre);
      fig.appendChild(el("p", { "class": "build-command__verdict build-command__verdict--unchecked", "data-out": "router-note" },
        "Not checked: the router is the separate `sglang-router` package. SGLang " + ((window.SGLANG_CHECK_DATA || {}).version || "") +
        "'s wheel does not ship it or its arguments, and this guide pins only `sglang` and `specforge`, so there is no parser to check this line against. " +
        "The flags are the ones SGLang's own prefill/decode test passes to `sglang_router.launch_router` (without its `--mini-lb`); read `--help` of the router you install."));
      cmds.appendChild(fig);
    }
    out.appendChild(cmds);

    var why = el("section", { "aria-labelledby": "bc-why-h" });
    why.appendChild(el("h2", { id: "bc-why-h" }, "Draft choice and tree"));
    var ul = el("ul");
    var at = ALGO_TEXT[r.algorithm_row] || ["Your choice of draft", "decision-algorithm"];
    ul.appendChild(el("li", { "data-out": "algorithm" }, (r.algorithm ? "Algorithm `" + r.algorithm + "`" : "No speculative decoding") +
      ": [decision table](decision-algorithm), row \"" + at[0] + "\" " +
      (r.algorithm_row === "train" && r.eagle3_target === false
        ? "(but this target cannot feed an EAGLE-3 draft: [standalone](standalone-howto) is the route with a draft)."
        : "([how-to](" + at[1] + ")).")));
    var rt = ROW_TEXT[r.tree_row];
    ul.appendChild(el("li", {}, !r.algorithm ? "No draft tree: the [starting tree](decision-starting-tree) applies only with speculative decoding."
      : (r.tree ? "Tree (" + r.tree.join(", ") + ")" + (r.table_tree ? ", the ROCm chain for the table's (" + r.table_tree.join(", ") + ")" : "") : "Tree flags unset") + ": [starting tree](decision-starting-tree), row \"" + rt[0] + "\" ([note](" + rt[1] + "))."));
    notes(s, r, model, platform).forEach(function (t) { ul.appendChild(el("li", {}, t)); });
    why.appendChild(ul);
    out.appendChild(why);

    var memSec = el("section", { "aria-labelledby": "bc-mem-h" });
    memSec.appendChild(el("h2", { id: "bc-mem-h" }, "Memory per GPU"));
    var table = el("table", { "class": "build-command__mem" });
    table.appendChild(el("caption", {}, "The [memory method](recipes-memory-method) of the recipes, for one of " + r.tp + " GPUs of " + gpuGb + " GB"));
    var rows = [
      ["Static budget (`--mem-fraction-static " + MEM_FRACTION + "`)", gb(m.static_gb)],
      m.dp > 1
        ? ["Target weights ÷ " + r.tp + ", with the attention projections ÷ " + m.attn_tp + " (DP attention: the attention-TP group is " + m.attn_tp + " GPU" + (m.attn_tp > 1 ? "s" : "") + ", [why](ix-parallelism-dp-attention))",
           "− " + gb(m.target_gb) + (m.attn_extra_gb === null ? "; the attention's extra copies are not counted: this model's data has no head count to estimate them from"
             : ", of which " + gb(m.attn_extra_gb) + " is the attention's extra copies (estimated from the config shapes: the attention projections are " + num(Math.round(attentionSplitParams(model) / 1e8) / 10) + " B parameters)")]
        : ["Target weights ÷ " + r.tp, "− " + gb(m.target_gb)],
      r.memory_range ? ["Target weights over the range of the assumed fields (see the warning)",
        gb(r.memory_range[0].target_gb) + " to " + gb(r.memory_range[1].target_gb) + " (" + model.params_b_range[0] + " to " + model.params_b_range[1] +
        " B parameters): " + (uncertain ? "fits at the low end, not at the high end" : r.memory_range[0].fits ? "fits at both ends" : "does not fit at either end")] : null,
      ["Draft weights" + (r.algorithm === "STANDALONE" && m.draft_gb ? " ÷ " + r.tp : "") +
        ((s.draft || model.draft || {}).fc_gb && m.draft_gb && r.tp > 1 ? " per GPU: (whole − `fc`) ÷ " + r.tp + " + `fc`, the `fc` layer being whole on every GPU" : "") +
        (s.draft && s.draft.estimated ? " (estimated for the draft you typed: " + gb(s.draft.gb) + " whole, a one-layer EAGLE-3 draft with intermediate size " + num(s.draft.estimated.intermediate) +
          (s.draft.estimated.guessed ? " (4 × hidden size: the page does not know the target's)" : " (the target's)") + " and a 32,000-token head" +
          (model.draft && model.draft.path && model.draft.gb ? "; the recipe's draft `" + model.draft.path + "` measures " + gb(model.draft.gb) : "") + ")" : ""),
       m.draft_gb ? "− " + gb(m.draft_gb)
        : (r.algorithm_row === "mtp" ? "in the target checkpoint (not counted)" : r.algorithm === "STANDALONE" ? "not counted: size unknown"
          : r.algorithm === "NGRAM" ? "none: NGRAM has no draft model" : r.algorithm ? "none" : "none: no speculative decoding")],
      ["KV cache left", m.fits ? gb(m.kv_gb) : "none: does not fit"],
      ["KV bytes per token per GPU, draft layers included" + (r.algorithm === "STANDALONE" && s.draft && s.draft.layers
        ? " (the draft's " + s.draft.layers + " layers at the target's cost per layer, as SGLang sizes the pool: [draft cost](oom-draft-cost))" : "") +
        (m.dp > 1 && model.attention && model.attention.kind === "gqa" ? " (KV heads split over the attention-TP group of " + m.attn_tp + ", not over " + r.tp + ")" : ""),
       m.bytes_per_token ? num(m.bytes_per_token) + " B" : "not computed"],
      ["KV tokens" + (m.dp > 1 ? " per GPU" : ""), m.kv_tokens !== null ? "about " + num(m.kv_tokens) : "–"],
      ["KV tokens the server holds", m.kv_tokens === null ? "–" : m.dp > 1
        ? "about " + num(m.server_kv_tokens) + ": each of the " + m.dp + " DP ranks keeps the KV of its own requests only (" + num(m.kv_tokens) + " × " + m.dp + ")"
        : r.tp === 1 ? "about " + num(m.kv_tokens) + ": one GPU" : "about " + num(m.kv_tokens) + ": every GPU of the TP group holds every token (its share of the KV heads" + (model.attention && model.attention.kind === "mla" ? "; latent attention has one shared head, so every GPU holds all of it" : "") + ")"],
      ["Draft's embedding copy while the pool is sized ([why](oom-draft-embed-head))", m.embed_copy_gb ? gb(m.embed_copy_gb) + "; KV tokens then about " + (m.kv_tokens_with_embed !== null ? num(m.kv_tokens_with_embed) : "–")
        : r.algorithm === "STANDALONE" ? "none: a STANDALONE draft's embedding is part of its weights" : "none"],
      ["CUDA-graph batch", s.concurrency > REQUEST_CAP && r.algorithm ? String(Math.ceil(s.concurrency / (s.dp_attention ? r.tp : 1))) + " (`--cuda-graph-max-bs-decode`)" : "SGLang's default ([request cap](request-cap))"],
    ];
    var tbody = el("tbody");
    rows.filter(Boolean).forEach(function (row) {
      var tr = el("tr"); tr.appendChild(el("th", { scope: "row" }, row[0])); tr.appendChild(el("td", { "data-out": "mem" }, row[1])); tbody.appendChild(tr);
    });
    table.appendChild(tbody);
    memSec.appendChild(table);
    var fit = el("p", { "class": "build-command__fit build-command__fit--" + (uncertain ? "uncertain" : m.fits ? "ok" : "error"), "data-out": "fit" },
                 uncertain ? "Cannot tell from this config: type the parameter count from the model card. " + rangeText(model, r)
                   : m.fits ? "Fits: " + gb(m.kv_gb) + " of KV cache per GPU." + (r.memory_range ? " It fits at every size in the estimate's range." : "")
                   : "Does not fit." + (r.memory_range ? " It does not fit at any size in the estimate's range." : ""));
    memSec.appendChild(fit);
    if (!uncertain) advice(s, r, model, gpuGb).forEach(function (t) { memSec.appendChild(el("p", { "class": "build-command__advice" }, t)); });
    out.appendChild(memSec);

    var after = el("section", { "aria-labelledby": "bc-after-h" });
    after.appendChild(el("h2", { id: "bc-after-h" }, "After start-up"));
    var ol = el("ol");
    if (r.algorithm) {
      ol.appendChild(el("li", {}, "Read the decode log's `accept len` ([decode log](bench-decode-log)); above 1.00 means draft tokens are accepted."));
      ol.appendChild(el("li", {}, "Send one request and read its speculative counts ([per-request metadata](bench-per-request))."));
      ol.appendChild(el("li", {}, "Benchmark against a server without speculative decoding ([baseline](bench-baseline))."));
    } else {
      ol.appendChild(el("li", {}, "Benchmark this server as it is: it is the baseline a draft must beat ([baseline](bench-baseline))."));
      ol.appendChild(el("li", {}, "Then add a draft (a STANDALONE model above, or one you [train](train-draft-specforge)) and compare."));
    }
    if (model.page && L.recipes[model.page]) {
      var li = el("li", {}, "The recipe page of this family has the accept length to expect and known issues: ");
      var a = el("a", { href: L.recipes[model.page] }); a.textContent = "recipe"; li.appendChild(a);
      ol.appendChild(li);
    }
    after.appendChild(ol);
    out.appendChild(after);
  }

  // -- Coming from vLLM ---------------------------------------------------------------
  function updateVllm(root) {
    var box = root.querySelector("[data-out=vllm]"), text = root.querySelector("#bc-vllm").value;
    var mainForm = document.querySelector("#build-command form");
    if (mainForm) saveState(mainForm);
    box.textContent = "";
    if (!text.trim()) return;
    try {
      var t = /vllm\s+serve/.test(text) ? fromVllm(text) : fromTrtllm(text, root.querySelector("#bc-trt-model").value.trim() || PLACEHOLDER_PATH, 1);
      var cmd = translatedCommand(t);
      showCommand(box, "SGLang equivalent", cmd);
      var adv = tableAdvice(t), rt = ROW_TEXT[adv.row];
      if (t.tree && rt) {
        var conc = adv.given ? adv.concurrency + " concurrent requests (`--max-num-seqs`)" : "1 concurrent request (no `--max-num-seqs` given: pick your concurrency in the builder above)";
        var tableTree = adv.tree ? "(" + adv.tree.join(", ") + ")" : "tree flags unset";
        box.appendChild(el("p", { "class": adv.differs ? "build-command__warning" : "build-command__note", role: "note", "data-out": "vllm-table" },
          "Decision table for " + conc + ": [starting tree](decision-starting-tree), row \"" + rt[0] + "\" ([note](" + rt[1] + ")), tree " + tableTree + ". " +
          (adv.differs
            ? "The equivalent above keeps vLLM's chain (" + t.tree.join(", ") + "); " +
              (adv.row === "128" ? "at this concurrency even two verified tokens per request stop being nearly free, so the table says no speculation first, and this one-step chain if you try it." :
               adv.row === "64" ? "at this concurrency SGLang's own adaptive table drafts nothing, so the table starts from a one-step chain measured against no speculation." :
               adv.row === "32-moe-tp" ? "for an MoE target or tensor parallelism at this concurrency, extra verified tokens cost more, so the table starts from a one-step chain." :
               "the table's tree is the starting point for this case.") + " The command with the table's tree:"
            : "The equivalent's tree is the table's.")));
        if (adv.differs) showCommand(box, "With the decision table's tree", adv.text);
      }
      var ul = el("ul");
      t.notes.forEach(function (n) { ul.appendChild(el("li", {}, n)); });
      ul.appendChild(el("li", {}, "Flag and metric names side by side: [engine mapping](engine-mapping)."));
      box.appendChild(ul);
    } catch (e) {
      box.appendChild(el("p", { "class": "build-command__error", role: "alert" }, e.message));
    }
  }

  // -- State in the URL -----------------------------------------------------------------
  var FIELDS = ["model", "path", "config", "params", "precision", "gpu", "mem", "gpus", "nodes", "conc", "goal", "workload", "platform",
                "draft_path", "draft_algo", "draft_params", "draft_config", "dp", "kv", "tool", "reasoning", "structured", "pd", "lora", "lora_path"];
  var VLLM_FIELDS = { vllm: "bc-vllm", trt_model: "bc-trt-model" };
  function saveState(form) {
    var q = new URLSearchParams();
    FIELDS.forEach(function (n) {
      var f = form.elements[n]; if (!f) return;
      var val = f.type === "checkbox" ? (f.checked ? "1" : "") : f.value;
      if (val !== (f.type === "checkbox" ? (f.defaultChecked ? "1" : "") : f.getAttribute("data-default") || "")) q.set(n, val);
    });
    // The converter's text (the "Coming from vLLM" form) is state too.
    Object.keys(VLLM_FIELDS).forEach(function (n) {
      var e = document.getElementById(VLLM_FIELDS[n]);
      if (e && e.value.trim()) q.set(n, e.value);
    });
    var qs = q.toString();
    history.replaceState(null, "", location.pathname + (qs ? "?" + qs : "") + location.hash);
  }
  function loadState(form) {
    var q = new URLSearchParams(location.search);
    FIELDS.forEach(function (n) {
      var f = form.elements[n]; if (!f || !q.has(n)) return;
      if (f.type === "checkbox") f.checked = q.get(n) === "1"; else f.value = q.get(n);
    });
  }

  function setup(root) {
    var form = root.querySelector("form");
    var models = form.elements.model;
    Object.keys(D.models).forEach(function (k) { models.insertBefore(el("option", { value: k }, D.models[k].path), models.lastElementChild); });
    Object.keys(D.gpus).forEach(function (k) { form.elements.gpu.insertBefore(el("option", { value: k }, D.gpus[k].label + " (" + D.gpus[k].memory_gb + " GB)"), form.elements.gpu.lastElementChild); });
    var opts = (window.SGLANG_CHECK_DATA || { options: [] }).options;
    [["tool", "tool_call_parser"], ["reasoning", "reasoning_parser"]].forEach(function (p) {
      var o = opts.filter(function (x) { return x.dest === p[1]; })[0];
      (o ? o.choices : []).forEach(function (c) { form.elements[p[0]].appendChild(el("option", { value: c }, c)); });
    });
    Array.prototype.forEach.call(form.elements, function (f) { if (f.name) f.setAttribute("data-default", f.type === "checkbox" ? "" : f.value); });
    form.elements.model.setAttribute("data-default", form.elements.model.options[0].value);
    form.elements.gpu.setAttribute("data-default", "H100");
    form.elements.gpu.value = "H100";
    loadState(form);
    var vq = new URLSearchParams(location.search);  // the converter's fields, before update() rewrites the URL
    Object.keys(VLLM_FIELDS).forEach(function (n) {
      var e = document.getElementById(VLLM_FIELDS[n]);
      if (e && vq.has(n)) e.value = vq.get(n);
    });
    var run = function () { update(root); };
    form.addEventListener("input", run);
    form.addEventListener("change", run);
    form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
    run();
    var vroot = document.getElementById("build-command-vllm");
    if (vroot) {
      var vform = vroot.querySelector("form");
      vform.addEventListener("submit", function (e) { e.preventDefault(); updateVllm(vroot); });
      vform.addEventListener("input", function () { updateVllm(vroot); });
      updateVllm(vroot);
    }
    root.setAttribute("data-ready", "1");
  }

  function start() {
    var root = document.getElementById("build-command");
    if (root) setup(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
