"""Speculative-decoding rules of the pinned SGLang that go beyond what argparse checks.

``argparse`` only knows each flag on its own. SGLang checks how the speculative
flags fit together later, at startup, in ``sglang/srt/arg_groups/speculative_hook.py``
(``_handle_eagle_family`` for EAGLE / EAGLE3 / NEXTN / STANDALONE, ``_handle_ngram``
for NGRAM, ``_handle_dflash`` for DFLASH; dispatched by ``SpeculativeAlgorithm.handle_server_args`` in
``sglang/srt/speculative/spec_info.py``). :func:`check` re-states those checks for
a parsed command, so a command on the site that SGLang would reject at startup
fails the build. Each rule names the SGLang function it comes from; the lists of
attention backends and of architectures that ship their own draft layer are read
from SGLang's source (:func:`source_facts`), not copied.

Limits (a rule stays silent rather than guess):

- the attention backend SGLang picks when ``--attention-backend`` is not given
  depends on the GPU, so the rules that need it fire only when the command sets it;
- the target model's architecture, which decides whether it carries its own draft
  layer and which steps / topk / draft tokens SGLang picks when none is set
  (``_auto_choose_speculative_params``), comes from ``model_architectures.yaml``
  next to this file (model id -> ``architectures[0]`` of its ``config.json``),
  because the checker cannot download ``config.json``; a model that is not listed
  there and needs the answer gets a message asking for an entry;
- a command whose flags are partly hidden in a shell expansion is not checked
  against these rules at all (``command_check.check_server``).
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import yaml

ARCHITECTURES_FILE = Path(__file__).with_name("model_architectures.yaml")

# SpeculativeAlgorithm.handle_server_args (spec_info.py) sends these to
# _handle_eagle_family (is_eagle() or is_standalone()); NEXTN is a reserved
# alias of EAGLE (spec_registry.py: _RESERVED_ALIASES).
EAGLE_FAMILY = {"EAGLE", "EAGLE3", "STANDALONE"}
ALIASES = {"NEXTN": "EAGLE"}


@dataclass(frozen=True)
class Violation:
    """A rule the command breaks: what is wrong, and the SGLang function that says so."""

    message: str
    source: str

    def __str__(self) -> str:
        return f"{self.message} [SGLang: {self.source}]"


def _sglang_dir() -> Path:
    spec = importlib.util.find_spec("sglang")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("SGLang is not installed: run `make venv`")
    return Path(list(spec.submodule_search_locations)[0])


def _function(tree: ast.AST, name: str) -> ast.FunctionDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise RuntimeError(f"function {name} not found")


def _strings(node: ast.AST, constants: dict[str, list[str]]) -> list[str]:
    """String constants of a literal list/tuple/set/str, or of a module-level name bound to one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(node, ast.Name):
        return constants.get(node.id, [])
    return []


def _module_constants(tree: ast.Module) -> dict[str, list[str]]:
    out = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            values = _strings(stmt.value, {})
            if values:
                out[stmt.targets[0].id] = values
    return out


@dataclass(frozen=True)
class SourceFacts:
    """Facts the rules need, read from the installed SGLang source by :func:`source_facts`.

    :ivar page_tree_backends: attention backends that run topk > 1 with page size > 1
        (``_PAGE_TREE_SPEC_BACKENDS`` in ``speculative_hook.py: _handle_eagle_family``).
    :ivar bundled_draft_architectures: target architectures whose checkpoint carries
        its own draft layer: those ``_handle_eagle_family`` points the draft path at
        the target for, plus those ``ModelConfig`` (``sglang/srt/configs/model_config.py``)
        rewrites to an MTP/NextN draft architecture when it loads the target as the
        draft (``if is_draft_model and self.hf_config.architectures[0] ...``).
    :ivar auto_params: the branches of ``speculative_hook.py: _auto_choose_speculative_params``
        in SGLang's order, as ``(kind, values, (steps, topk, draft tokens))``; ``kind``
        is ``"algorithm"`` (``cfg.speculative_algorithm == ...``), ``"arch"``
        (``model_arch in [...]``) or ``"else"``.
    """

    page_tree_backends: frozenset[str]
    bundled_draft_architectures: frozenset[str]
    auto_params: tuple[tuple[str, tuple[str, ...], tuple[int, int, int]], ...]


@functools.cache
def source_facts() -> SourceFacts:
    """Read :class:`SourceFacts` from the installed SGLang source with :mod:`ast` (nothing is imported).

    :raises RuntimeError: SGLang is not installed, or its source no longer has the
        shape read here (then this function needs updating).
    """
    root = _sglang_dir() / "srt"
    hook = ast.parse((root / "arg_groups" / "speculative_hook.py").read_text(encoding="utf-8"))
    eagle = _function(hook, "_handle_eagle_family")
    backends: list[str] = []
    bundled: set[str] = set()
    for node in ast.walk(eagle):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "_PAGE_TREE_SPEC_BACKENDS" for t in node.targets):
            backends = _strings(node.value, {})
        if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "model_arch"
                and isinstance(node.ops[0], ast.In) and not bundled):
            bundled.update(_strings(node.comparators[0], {}))  # the first list: the MTP targets
    model_config = ast.parse((root / "configs" / "model_config.py").read_text(encoding="utf-8"))
    constants = _module_constants(model_config)
    for node in ast.walk(model_config):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.BoolOp)):
            continue
        values = node.test.values
        if not any(isinstance(v, ast.Name) and v.id == "is_draft_model" for v in values):
            continue
        for v in values:
            if (isinstance(v, ast.Compare) and ast.unparse(v.left) == "self.hf_config.architectures[0]"
                    and isinstance(v.ops[0], (ast.Eq, ast.In))):
                bundled.update(_strings(v.comparators[0], constants))
    if not backends or not bundled:
        raise RuntimeError("speculative_hook.py / model_config.py changed shape: update spec_rules.source_facts")
    auto = _auto_params(_function(hook, "_auto_choose_speculative_params"))
    return SourceFacts(frozenset(backends), frozenset(bundled), auto)


def _returned_tuple(stmts: list[ast.stmt]) -> tuple | None:
    for stmt in stmts:
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Tuple):
            return tuple(e.value for e in stmt.value.elts if isinstance(e, ast.Constant))
    return None


def _auto_params(func: ast.FunctionDef) -> tuple:
    """The branches of ``_auto_choose_speculative_params`` (see :attr:`SourceFacts.auto_params`)."""
    kinds = {"cfg.speculative_algorithm": "algorithm", "model_arch": "arch"}
    out = []

    def walk(stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare):
                kind = kinds.get(ast.unparse(stmt.test.left))
                if kind:
                    out.append((kind, tuple(_strings(stmt.test.comparators[0], {})), _returned_tuple(stmt.body)))
                walk(stmt.orelse)  # the elif chain, and the final else
            elif isinstance(stmt, ast.Return):
                out.append(("else", (), _returned_tuple([stmt])))

    walk(func.body)
    if not out or any(params is None or len(params) != 3 for _, _, params in out):
        raise RuntimeError("_auto_choose_speculative_params changed shape: update spec_rules._auto_params")
    return tuple(out)


def auto_params(algo: str, arch: str) -> tuple[int, int, int]:
    """(steps, topk, draft tokens) SGLang picks when none of the three is set
    (``speculative_hook.py: _auto_choose_speculative_params``)."""
    for kind, values, params in source_facts().auto_params:
        if kind == "else" or (kind == "algorithm" and algo in values) or (kind == "arch" and arch in values):
            return params
    raise RuntimeError("no branch of _auto_choose_speculative_params matched")


@functools.cache
def known_architectures() -> dict[str, str]:
    """``{model id: architecture}`` from ``model_architectures.yaml`` (each entry cites its config.json)."""
    data = yaml.safe_load(ARCHITECTURES_FILE.read_text(encoding="utf-8")) or {}
    return {model: entry["architecture"] for model, entry in data.items()}


def check(ns: argparse.Namespace, given: set[str]) -> list[Violation]:
    """Apply the rules to a parsed ``sglang serve`` command.

    :param ns: the namespace SGLang's parser returned.
    :param given: the ``ServerArgs`` fields the command sets with a literal value
        (a field set from a shell variable is left out: its value is unknown).
    :returns: every rule the command breaks, in SGLang's checking order.
    """
    algo = (ns.speculative_algorithm or "").upper() if "speculative_algorithm" in given else ""
    algo = ALIASES.get(algo, algo)
    out: list[Violation] = []
    if algo in EAGLE_FAMILY:
        out += _eagle_family(ns, given, algo)
    elif algo == "NGRAM":
        out += _ngram(ns, given)
    elif algo == "DFLASH":
        out += _dflash(ns, given)
    return out


def _dflash(ns, given) -> list[Violation]:
    src = "speculative_hook.py: _handle_dflash"
    out = []
    if ns.speculative_draft_model_path is None:
        out.append(Violation("DFLASH needs --speculative-draft-model-path", src))
    if _dp_attention(ns, given) and not ns.enable_dp_lm_head:
        out.append(Violation("DFLASH with DP attention needs --enable-dp-lm-head", src))
    if (ns.pp_size or 1) != 1:
        out.append(Violation("DFLASH supports only --pp-size 1", src))
    return out


def _dp_attention(ns, given) -> bool:
    """``attn_dp_enabled_of`` (runtime_context.py): ``attn_dp_size > 1``; the deprecated
    ``--enable-dp-attention`` turns ``--dp-size N`` into ``attn_dp_size = N``
    (``parallel_hook.py: _handle_deprecated_dp_attention``)."""
    if "attn_dp_size" in given and (ns.attn_dp_size or 1) > 1:
        return True
    return bool(getattr(ns, "enable_dp_attention", False)) and "dp_size" in given and (ns.dp_size or 1) > 1


def _eagle_family(ns, given, algo) -> list[Violation]:
    src = "speculative_hook.py: _handle_eagle_family"
    facts = source_facts()
    out = []
    if algo == "STANDALONE" and _dp_attention(ns, given):
        out.append(Violation("STANDALONE speculative decoding does not support DP attention "
                             "(--attn-dp-size > 1, or --enable-dp-attention with --dp-size > 1)", src))
    if "speculative_draft_model_path" not in given and "model_path" in given:
        arch = known_architectures().get(ns.model_path)
        if arch is None:
            out.append(Violation(
                f"{algo} without --speculative-draft-model-path: cannot tell whether {ns.model_path} ships its own "
                f"draft (MTP) layer. Pass a draft path, or add the model's architecture to "
                f"sphinxext/{ARCHITECTURES_FILE.name}", src))
        elif arch not in facts.bundled_draft_architectures:
            out.append(Violation(
                f"{algo} needs --speculative-draft-model-path: {ns.model_path} ({arch}) has no draft layer of its "
                "own, and without a draft path SGLang loads the target checkpoint as the draft",
                f"{src}; configs/model_config.py: ModelConfig.from_server_args"))
    knobs = ["speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"]
    flags = ["--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens"]
    set_knobs = [f for f, d in zip(flags, knobs, strict=True) if getattr(ns, d) is not None]
    adaptive = bool(getattr(ns, "speculative_adaptive", False))
    partial = 0 < len(set_knobs) < 3 and not adaptive
    if partial:
        missing = [f for f, d in zip(flags, knobs, strict=True) if getattr(ns, d) is None]
        out.append(Violation(
            f"set {', '.join(flags)} together or not at all: this command sets {', '.join(set_knobs)} "
            f"but not {', '.join(missing)}", src))
    topk = ns.speculative_eagle_topk if "speculative_eagle_topk" in given else None
    topk_note = ""
    arch = known_architectures().get(ns.model_path) if "model_path" in given else None
    if not set_knobs and not adaptive and arch is not None:
        steps, topk, draft = auto_params(algo, arch)
        topk_note = (f" (SGLang picks steps {steps}, topk {topk}, draft tokens {draft} for {arch} when the three "
                     "are not set: _auto_choose_speculative_params)")
    backends = {b for b in (ns.prefill_attention_backend or ns.attention_backend,
                            ns.decode_attention_backend or ns.attention_backend) if b}
    if topk is not None and topk > 1 and "trtllm_mha" in backends:
        out.append(Violation(f"the trtllm_mha attention backend supports only --speculative-eagle-topk 1 "
                             f"(got {topk}){topk_note}", src))
    rejection = bool(ns.speculative_use_rejection_sampling) or (
        bool(getattr(ns, "speculative_use_block_verification", False)) and algo in ("EAGLE", "EAGLE3"))
    if rejection:
        if algo not in ("EAGLE", "EAGLE3"):
            out.append(Violation(f"--speculative-use-rejection-sampling works only with EAGLE / EAGLE3 / NEXTN, "
                                 f"not {algo}", src))
        if topk is not None and topk != 1:
            out.append(Violation(f"--speculative-use-rejection-sampling needs --speculative-eagle-topk 1 "
                                 f"(got {topk}){topk_note}", src))
        if ns.speculative_accept_threshold_single != 1.0 or ns.speculative_accept_threshold_acc != 1.0:
            out.append(Violation("--speculative-use-rejection-sampling cannot be combined with "
                                 "--speculative-accept-threshold-single / --speculative-accept-threshold-acc", src))
    if (not partial and topk == 1 and {"speculative_num_steps", "speculative_num_draft_tokens"} <= given
            and ns.speculative_num_draft_tokens != ns.speculative_num_steps + 1):
        out.append(Violation(
            f"with --speculative-eagle-topk 1, SGLang replaces --speculative-num-draft-tokens "
            f"{ns.speculative_num_draft_tokens} by --speculative-num-steps + 1 = {ns.speculative_num_steps + 1} "
            "(and logs a warning): write that value", src))
    if (topk is not None and topk > 1 and "page_size" in given and (ns.page_size or 1) > 1
            and "attention_backend" in given and ns.attention_backend not in facts.page_tree_backends):
        allowed = ", ".join(sorted(facts.page_tree_backends))
        out.append(Violation(
            f"--speculative-eagle-topk {topk} with --page-size {ns.page_size} works only with the attention "
            f"backends {allowed}; got --attention-backend {ns.attention_backend}{topk_note}", src))
    return out


def _ngram(ns, given) -> list[Violation]:
    src = "speculative_hook.py: _handle_ngram"
    out = []
    if _dp_attention(ns, given):
        out.append(Violation("NGRAM speculative decoding does not support DP attention "
                             "(--attn-dp-size > 1, or --enable-dp-attention with --dp-size > 1)", src))
    if ns.speculative_use_rejection_sampling:
        out.append(Violation("--speculative-use-rejection-sampling works only with EAGLE / EAGLE3 / NEXTN, not NGRAM",
                             "speculative_hook.py: _handle_eagle_family (comment on unsupported algorithms)"))
    # NGRAM's tree width is --speculative-ngram-max-bfs-breadth (it overwrites topk).
    width = ns.speculative_ngram_max_bfs_breadth
    if (width > 1 and "page_size" in given and (ns.page_size or 1) > 1 and "attention_backend" in given
            and ns.attention_backend != "flashinfer"):
        out.append(Violation(
            f"NGRAM with --speculative-ngram-max-bfs-breadth {width} (> 1) and --page-size {ns.page_size} works "
            f"only with --attention-backend flashinfer; got {ns.attention_backend}", src))
    return out
