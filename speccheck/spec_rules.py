"""Facts of the pinned SGLang's start-up code that the check needs besides running it.

SGLang's own start-up hook decides most speculative rules (:mod:`speccheck.startup`
runs it). What it cannot decide without the checkpoint is whether the target
carries its own draft layer, so that EAGLE / NEXTN may omit
``--speculative-draft-model-path``: without a draft path SGLang loads the target
checkpoint as the draft, which works only for the architectures it lists. That
rule is re-stated here (:func:`draft_path_problem`), with the lists read from
SGLang's source by :mod:`ast` (:func:`source_facts`), and each target's
architecture taken from ``data/model_architectures.yaml`` (model id ->
``architectures[0]`` of its published ``config.json``, with the source of each entry).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import yaml

ARCHITECTURES_FILE = Path(__file__).resolve().parent / "data" / "model_architectures.yaml"

# Algorithms whose draft may be the target checkpoint itself (its MTP / NextN layers):
# SpeculativeAlgorithm.handle_server_args (spec_info.py) sends EAGLE, EAGLE3 and
# FROZEN_KV_MTP to _handle_eagle_family; NEXTN is a reserved alias of EAGLE
# (spec_registry.py: _RESERVED_ALIASES). STANDALONE always needs a separate draft,
# which the same function does not supply either.
DRAFT_FROM_TARGET = {"EAGLE", "EAGLE3", "NEXTN", "STANDALONE"}


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


def architectures_file_entries() -> dict[str, dict]:
    """The entries of ``data/model_architectures.yaml`` as written (``{model id: {architecture, source, ...}}``)."""
    return yaml.safe_load(ARCHITECTURES_FILE.read_text(encoding="utf-8")) or {}


def architecture_of(model: str) -> str | None:
    """``architectures[0]`` of ``model`` from the table, also for a local path ending in a listed id
    (``/models/deepseek-ai/DeepSeek-V3``) or a listed repository name (``.../DeepSeek-V3``)."""
    known = known_architectures()
    if model in known:
        return known[model]
    stripped = model.rstrip("/")
    for model_id, arch in known.items():
        if stripped.endswith("/" + model_id):
            return arch
    names = {}
    for model_id, arch in known.items():
        names.setdefault(model_id.rsplit("/", 1)[-1].lower(), set()).add(arch)
    found = names.get(stripped.rsplit("/", 1)[-1].lower())
    return next(iter(found)) if found and len(found) == 1 else None


def carries_draft(architecture: str) -> bool:
    """Whether SGLang loads a draft from a target of this architecture (see :class:`SourceFacts`)."""
    return architecture in source_facts().bundled_draft_architectures


# -- Re-stated start-up rules, for the problems after the first ---------------------------
#
# SGLang's start-up hook stops at its first error, and the check runs the hook itself
# (speccheck.startup), so the first start-up problem of a command is always SGLang's own.
# To report every problem of a command at once, these common compatibility rules of
# _handle_eagle_family are re-stated and applied after a refusal; tests/test_commands.py
# checks on the whole corpus that each of them fires only where the hook refuses too.

# The page size SGLang forces per attention backend when the command's is not allowed
# (overrides.py: _mla_backend_page_constraints): backend -> (allowed sizes, forced size).
_FORCED_PAGE = {"flashmla": ((64,), 64), "trtllm_mla": ((32, 64), 64), "cutedsl_mla": ((32, 64), 64),
                "trtllm_mha": ((16, 32, 64, 128), 64), "hpc_ops": ((64,), 64)}


def _effective_page_size(ns) -> int:
    page = ns.page_size or 1
    for backend in {ns.attention_backend, ns.decode_attention_backend, ns.prefill_attention_backend}:
        if backend in _FORCED_PAGE and page not in _FORCED_PAGE[backend][0]:
            page = _FORCED_PAGE[backend][1]
    return page


def restated_problems(ns, algo: str, arch: str | None) -> list[tuple[str, str, str]]:
    """``[(rule id, flag, message)]`` of the re-stated rules a parsed EAGLE-family command breaks.

    :param ns: the parsed namespace; ``algo``: the upper-cased algorithm; ``arch``: the target's
        architecture or ``None`` (then the automatic tree is not known and topk counts only if given).
    """
    if algo not in ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE"):
        return []
    out = []
    topk = ns.speculative_eagle_topk
    if topk is None and ns.speculative_num_steps is None and arch is not None:
        topk = auto_params("EAGLE" if algo == "NEXTN" else algo, arch)[1]
    if topk is None:
        return out
    backends = {ns.prefill_attention_backend or ns.attention_backend, ns.decode_attention_backend or ns.attention_backend}
    if "trtllm_mha" in backends and topk > 1:
        out.append(("topk-backend", "--speculative-eagle-topk",
                    "trtllm_mha backend only supports topk = 1 for speculative decoding."))
    page = _effective_page_size(ns)
    allowed = sorted(source_facts().page_tree_backends)
    if topk > 1 and page > 1 and ns.attention_backend and ns.attention_backend not in allowed:
        out.append(("topk-backend", "--page-size",
                    f"speculative_eagle_topk > 1 with page_size > 1 is only supported on {tuple(allowed)}; got "
                    f"attention_backend={ns.attention_backend!r} (page size {page})."))
    if ns.speculative_use_rejection_sampling and topk != 1:
        out.append(("rejection-sampling", "--speculative-use-rejection-sampling",
                    "--speculative-use-rejection-sampling requires --speculative-eagle-topk=1."))
    return out


# -- Start-up rules of other hooks than the speculative one --------------------------------
#
# The check runs speculative_hook.handle_speculative_decoding itself (speccheck.startup); SGLang's model
# hook and the resolution pipeline run other checks that read speculative flags. These are re-stated
# here, each with its source; tests/test_check_a_command.py reads the pinned source for every value.

# sglang/srt/arg_groups/model_hook.py runs apply_deepseek_v4_defaults for this class only.
DEEPSEEK_V4 = "DeepseekV4ForCausalLM"
# apply_deepseek_v4_defaults (sglang/srt/arg_groups/deepseek_v4_hook.py): the algorithms it accepts (NEXTN,
# the alias, is refused there because the check compares the name as written) and the
# max_running_requests it sets when the command leaves it unset (before the speculative hook's 48).
DEEPSEEK_V4_ALGORITHMS = ("EAGLE", "DSPARK")
DEEPSEEK_V4_REQUEST_CAP = 256


def other_hook_problems(ns, algo: str, arch: str | None) -> list[tuple[str, str, str, str]]:
    """``[(rule id, flag, message, source)]`` of the start-up rules outside the speculative hook a command breaks.

    - DeepSeek-V4 targets (``arch`` is :data:`DEEPSEEK_V4`): only :data:`DEEPSEEK_V4_ALGORITHMS`, and EAGLE
      only with ``--speculative-eagle-topk 1`` given (unset is refused too: the hook compares with 1)
      (``deepseek_v4_hook.py::apply_deepseek_v4_defaults``);
    - any target: a draft MoE all-to-all backend of ``deepep_v2``, set with ``--speculative-moe-a2a-backend``
      or inherited from ``--moe-a2a-backend`` (every algorithm but NGRAM inherits it)
      (``moe_hook.py::validate_deepep_v2_speculative_draft``).

    :param ns: the parsed namespace; ``algo``: the algorithm as written, upper-cased (``NEXTN`` kept);
        ``arch``: the target's architecture or None.
    """
    out = []
    if arch == DEEPSEEK_V4:
        source = "sglang/srt/arg_groups/deepseek_v4_hook.py::apply_deepseek_v4_defaults"
        if algo not in DEEPSEEK_V4_ALGORITHMS:
            out.append(("deepseek-v4-algorithm", "--speculative-algorithm",
                        f"Only EAGLE and DSPARK speculative algorithms are supported for {arch}"
                        + (" (write EAGLE: the NEXTN alias is refused for this class)" if algo == "NEXTN" else ""),
                        source))
        elif algo == "EAGLE" and ns.speculative_eagle_topk != 1:
            out.append(("deepseek-v4-topk", "--speculative-eagle-topk",
                        f"Only EAGLE speculative algorithm with topk == 1 is supported for {arch}"
                        + (" (set --speculative-eagle-topk 1 and the other two tree flags: this class gets no "
                           "automatic tree)" if ns.speculative_eagle_topk is None else ""), source))
    draft_backend = getattr(ns, "speculative_moe_a2a_backend", None)
    if draft_backend is None and algo != "NGRAM":
        draft_backend = getattr(ns, "moe_a2a_backend", None)
    if draft_backend == "deepep_v2":
        out.append(("deepep-v2-draft", "--speculative-moe-a2a-backend" if ns.speculative_moe_a2a_backend
                    else "--moe-a2a-backend",
                    "DeepEP v2 MoE is not validated as a speculative draft backend. Select another "
                    "--speculative-moe-a2a-backend.", "sglang/srt/arg_groups/moe_hook.py::validate_deepep_v2_speculative_draft"))
    return out
