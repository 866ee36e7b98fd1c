"""Run SGLang's own speculative start-up code on a parsed command, without a GPU.

``sglang serve`` checks how the speculative flags fit together while it resolves
its arguments, in ``sglang/srt/arg_groups/speculative_hook.py:
handle_speculative_decoding`` (which dispatches to ``_handle_eagle_family``,
``_handle_ngram``, ``_handle_dflash``, ``_handle_dspark``, ``_handle_uno``, ...
through ``SpeculativeAlgorithm.handle_server_args``). :func:`run` calls that very
function on a real ``ServerArgs`` record built from the command
(``ServerArgs.from_cli_args``), with what needs a machine replaced:

- the hardware: the platform queries (``current_platform``, ``get_platform``) answer as
  a CUDA GPU that is neither ROCm, MUSA nor Blackwell (an H100-class card), and
  ``device`` is ``"cuda"`` unless the command sets it;
- the model: ``ModelConfig`` is a stand-in whose ``hf_config.architectures`` is the
  architecture the caller gives (SGLang's own test fixtures supply ``_model_config``
  the same way: ``sglang/srt/arg_groups/model_override_base.py: model_config_of``);
  the draft's ``config.json`` (``get_config``) answers with the draft architecture
  the caller gives;
- the passes that run before the hook and decide fields it reads: SGLang's own
  ``handle_deprecated_dp_attention`` (``sglang/srt/arg_groups/parallel_hook.py``, the first
  step of ``sglang/srt/arg_groups/pipeline.py``: the deprecated ``--dp-size N
  --enable-dp-attention`` becomes ``--attn-dp-size N``), ``_page_size_default`` and, when the command names an attention backend,
  ``_mla_backend_page_constraints`` (``sglang/srt/arg_groups/overrides.py``); the
  default attention backend depends on the GPU and is left unset.

The modules are loaded once with :mod:`speccheck.sglang_args`'s loader (real
source, stand-ins for what needs torch) and put back into :data:`sys.modules`
only while the hook runs. A stand-in reached while the hook runs means the
verdict needs something not stubbed here: :attr:`Outcome.undecided` says what, and
the check then reports the command as undecided instead of applying the start-up
rules (tests/test_commands.py holds that no command of the corpus is left undecided
by a stand-in).

The hook runs apart from this machine, as it would run on the reader's
(:func:`_apart`): ``os.environ`` holds only what the command sets, and any file
SGLang's own code opens, lists, tests or writes (``open``, ``os.stat`` behind
``os.path.exists``, ``pathlib``, ...) stops the run with :attr:`Outcome.reads`,
the path: the file is on the reader's machine, not ours. Any other exception SGLang's
code raises is caught and kept in :attr:`Outcome.crash` with the file and line it
came from; :func:`run` never raises.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import functools
import io
import logging
import os
import sys
import traceback
import types
from dataclasses import dataclass, field
from unittest import mock

from speccheck import sglang_args

HOOK = "sglang/srt/arg_groups/speculative_hook.py::handle_speculative_decoding"


class _Platform:
    """A CUDA platform that is not ROCm, MUSA, NPU, XPU or Blackwell; any other query answers False."""

    is_cuda = True
    device_name = "cuda"

    def is_out_of_tree(self) -> bool:
        return False

    def __getattr__(self, name: str):
        if name.startswith("is_") or name.startswith("supports_"):
            return False
        raise AttributeError(name)


@dataclass
class Outcome:
    """What SGLang's start-up hook did with a command.

    :ivar error: ``"ExceptionType: message"`` when the hook refused the command, else ``None``.
    :ivar warnings: the warnings SGLang logged while resolving, in order.
    :ivar resolved: fields the hook declared (``{field: value}``, last write wins), e.g. the
        automatic tree ``speculative_num_steps`` / ``speculative_eagle_topk`` / ``speculative_num_draft_tokens``.
    :ivar undecided: why the hook could not be run to the end without real hardware or
        downloads (a stand-in was reached), else ``None``.
    :ivar reads: the path of a local file SGLang's start-up code opened, listed, tested or wrote
        (the file is on the reader's machine: the hook was stopped there), else ``None``.
    :ivar crash: an exception the check does not expect from SGLang's code, as
        ``"ExceptionType: message (sglang/...py:LINE in function)"``, else ``None``.
    :ivar read_draft_config: the hook asked for the draft's ``config.json`` (and got the stand-in).
    """

    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    resolved: dict = field(default_factory=dict)
    undecided: str | None = None
    reads: str | None = None
    crash: str | None = None
    read_draft_config: bool = False

    @property
    def decided(self) -> bool:
        """The hook ran to its verdict (accepted, or refused with :attr:`error`)."""
        return self.undecided is None and self.reads is None and self.crash is None


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@dataclass
class _Loaded:
    modules: dict
    finder: object
    server_args: types.ModuleType
    hook: types.ModuleType
    overrides: types.ModuleType
    parallel: types.ModuleType


@functools.cache
def _loaded() -> _Loaded:
    """The modules the hook needs, on top of the load behind the pinned parser (see the module docstring)."""
    base = sglang_args.pinned_modules()
    held = _Loaded(dict(base["modules"]), base["finder"], None, None, None, None)
    with _sglang_modules(held):
        server_args = sglang_args._import("sglang.srt.server_args")
        hook = sglang_args._import("sglang.srt.arg_groups.speculative_hook")
        overrides = sglang_args._import("sglang.srt.arg_groups.overrides")
        parallel = sglang_args._import("sglang.srt.arg_groups.parallel_hook")
        # Imported lazily by the hook: load them now, with the same loader.
        for name in ("sglang.srt.speculative.spec_info", "sglang.srt.speculative.spec_registry",
                     "sglang.srt.utils.hf_transformers_utils", "sglang.srt.runtime_context",
                     "sglang.srt.configs.model_config"):
            sglang_args._import(name)
        modules = {n: m for n, m in sys.modules.items() if n == "sglang" or n.startswith("sglang.")}
    platform = _Platform()
    # ``sglang/srt/platforms/__init__.py`` is not run (it probes the GPU): give it the stand-in platform.
    if "sglang.srt.platforms" in modules:
        modules["sglang.srt.platforms"].current_platform = platform
    for module in [hook, overrides, *(modules[n] for n in ("sglang.srt.runtime_context",) if n in modules)]:
        if "current_platform" in vars(module):
            module.current_platform = platform
        if "get_platform" in vars(module):
            module.get_platform = lambda: platform
    return _Loaded(modules, base["finder"], server_args, hook, overrides, parallel)


@contextlib.contextmanager
def _sglang_modules(loaded: _Loaded):
    """Within the block, the loaded ``sglang`` modules are importable (lazy imports inside the hook)."""
    saved = {n: sys.modules[n] for n in loaded.modules if n in sys.modules}
    sys.modules.update(loaded.modules)
    sys.meta_path.insert(0, loaded.finder)
    try:
        yield
    finally:
        sys.meta_path.remove(loaded.finder)
        for name in loaded.modules:
            if name in saved:
                sys.modules[name] = saved[name]
            else:
                sys.modules.pop(name, None)


class ReadsLocalFile(BaseException):
    """SGLang's code touched a file while the hook ran (:func:`_apart`); ``args[0]`` is the path.

    A ``BaseException``, so that SGLang's own ``except Exception`` cannot swallow it and carry
    on with an answer from this machine's files.
    """


# The standard library's folder (``os.py`` lives there; a virtual environment's lib/ is not it).
_STDLIB = (os.path.dirname(os.__file__) + os.sep, os.path.dirname(os.path.realpath(os.__file__)) + os.sep)


def _called_from(root: str) -> bool:
    """Whether the first caller outside the standard library (``open`` is called through
    ``pathlib``, ``genericpath``, ``json``...) is a file under ``root``, outside the import of a module
    (a module's top-level code, run by a lazy import, reads this machine's libraries, not the reader's files)."""
    frame, first = sys._getframe(2), None
    while frame is not None:
        name = frame.f_code.co_filename
        if first is None and not (name.startswith("<") or (name.startswith(_STDLIB) and "site-packages" not in name)):
            first = name
        if frame.f_code.co_name == "<module>" and name.startswith(root):
            return False
        frame = frame.f_back
    return first is not None and first.startswith(root)


# Every way to reach a file that SGLang's start-up code uses, or that ``os.path`` and ``pathlib`` go through.
_FILE_CALLS = [(builtins, "open"), (io, "open"), *((os, n) for n in (
    "open", "stat", "lstat", "access", "listdir", "scandir", "mkdir", "makedirs", "remove", "unlink", "rmdir",
    "rename", "replace", "walk", "chmod", "symlink", "link", "truncate", "utime"))]


@contextlib.contextmanager
def _apart(sglang_root: str, env: dict[str, str]):
    """Within the block: ``os.environ`` is exactly ``env``, and a file call made by code under
    ``sglang_root`` raises :class:`ReadsLocalFile` instead of touching this machine's files.
    Calls from anywhere else (the module loader, the logging handler) go through unchanged."""
    def guard(real):
        @functools.wraps(real)
        def call(*args, **kwargs):
            if _called_from(sglang_root):
                target = args[0] if args else kwargs.get("file", kwargs.get("path", "."))
                raise ReadsLocalFile(os.fsdecode(target) if isinstance(target, (str, bytes, os.PathLike))
                                     else str(target))
            return real(*args, **kwargs)
        return call

    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.dict(os.environ, env, clear=True))
        for owner, name in _FILE_CALLS:
            if hasattr(owner, name):
                stack.enter_context(mock.patch.object(owner, name, guard(getattr(owner, name))))
        yield


def _where(exc: BaseException, sglang_root: str) -> str:
    """``"sglang/...py:LINE in function"``: the last frame of ``exc``'s traceback in SGLang's code."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(sglang_root)]
    if not frames:
        return "outside SGLang's code"
    last = frames[-1]
    rel = os.path.relpath(last.filename, os.path.dirname(sglang_root.rstrip(os.sep)))
    return f"{rel}:{last.lineno} in {last.name}"


def _model_config(architecture: str) -> types.SimpleNamespace:
    hf_config = types.SimpleNamespace(architectures=[architecture], model_type="", num_hidden_layers=1,
                                      num_nextn_predict_layers=1)
    return types.SimpleNamespace(hf_config=hf_config, hf_text_config=hf_config, attention_arch=None,
                                 is_hybrid_swa=False, context_len=None, is_multimodal=False)


def run(ns: argparse.Namespace, architecture: str, draft_architecture: str | None = None,
        env: dict[str, str] | None = None, draft_fields: dict | None = None) -> Outcome:
    """Run ``handle_speculative_decoding`` on the command parsed into ``ns``.

    :param ns: the namespace SGLang's server parser returned for the command.
    :param architecture: ``architectures[0]`` of the target's ``config.json`` the stub answers with
        (any name when the caller does not know it; then the verdict must not rely on it).
    :param draft_architecture: what the draft's ``config.json`` says (only Gemma4 assistant drafts
        change the hook's path); ``None``: a plain EAGLE-3 draft.
    :param env: environment variables the command sets (``SGLANG_...=1 sglang serve ...``), visible
        to SGLang's ``envs`` while the hook runs.
    :param draft_fields: more fields of the stand-in draft ``config.json`` (``{"block_size": 1}``:
        a DFLASH draft's block size); by default it has only ``architectures``.
    :returns: an :class:`Outcome`; never raises (what SGLang's code raises is in the outcome).
    """
    loaded = _loaded()
    sglang_root = os.path.dirname(os.path.realpath(loaded.modules["sglang"].__file__)) + os.sep
    outcome = Outcome()
    collect = _Collect()
    sglang_logger = logging.getLogger("sglang")
    draft_config = types.SimpleNamespace(architectures=[draft_architecture or "LlamaForCausalLMEagle3"],
                                         **(draft_fields or {}))
    with contextlib.ExitStack() as stack:
        stack.enter_context(_sglang_modules(loaded))
        hf_utils = loaded.modules["sglang.srt.utils.hf_transformers_utils"]

        def stand_in_config(*args, **kwargs):
            outcome.read_draft_config = True
            return draft_config

        stack.enter_context(mock.patch.object(hf_utils, "get_config", stand_in_config, create=True))
        sglang_logger.addHandler(collect)
        old_level, sglang_logger.level = sglang_logger.level, logging.WARNING
        old_disable = logging.root.manager.disable
        logging.disable(logging.NOTSET)
        old_propagate, sglang_logger.propagate = sglang_logger.propagate, False
        try:
            stack.enter_context(_apart(sglang_root, env or {}))
            record = loaded.server_args.ServerArgs.from_cli_args(ns)
            if getattr(record, "device", None) is None:
                record.device = "cuda"
            record._model_config = _model_config(architecture)
            # SGLang's first step: `--dp-size N --enable-dp-attention` becomes `--attn-dp-size N`.
            loaded.parallel.handle_deprecated_dp_attention(record)
            loaded.overrides.run_post_process_pass(record, loaded.overrides._page_size_default)
            if ns.attention_backend or ns.decode_attention_backend or ns.prefill_attention_backend:
                loaded.overrides.run_post_process_pass(record, loaded.overrides._mla_backend_page_constraints)
            loaded.hook.handle_speculative_decoding(record)
        except (sglang_args.SGLangParserError, ImportError) as exc:
            outcome.undecided = f"{type(exc).__name__}: {exc}"
        except (ValueError, NotImplementedError, AssertionError, TypeError, KeyError, AttributeError) as exc:
            outcome.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        except ReadsLocalFile as exc:
            outcome.reads = exc.args[0]
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - what SGLang raises is the finding
            text = " ".join(str(exc).split())
            outcome.crash = f"{type(exc).__name__}{': ' + text if text else ''} ({_where(exc, sglang_root)})"
        else:
            for _source, declared in getattr(record, "_resolved_overrides", None) or ():
                outcome.resolved.update(declared)
        finally:
            sglang_logger.removeHandler(collect)
            sglang_logger.level = old_level
            sglang_logger.propagate = old_propagate
            logging.disable(old_disable)
    outcome.warnings = collect.messages
    return outcome


# Stand-in draft config.json fields that change the hook's verdict, as drafts in the wild hold
# them: a DFLASH draft's block size (``dflash_utils.py::parse_dflash_draft_config``: the window
# and draft-token checks of ``_handle_dflash``) and a DSPARK draft's gamma, read from the same
# block size (``dspark_config.py::parse_dspark_draft_config``, ``_handle_dspark``). The default
# stand-in has neither, so the hook takes its own default (16 for DFLASH, DEFAULT_DSPARK_GAMMA).
DRAFT_CONFIG_VARIANTS: tuple[dict, ...] = ({"block_size": 1}, {"block_size": 64})


def draft_dependent(ns: argparse.Namespace, architecture: str, env: dict[str, str] | None,
                    first: Outcome) -> Outcome | None:
    """A run whose verdict differs from ``first`` only because of what the draft's config.json holds.

    :param first: the outcome of :func:`run` with the default stand-in draft.
    :returns: ``None`` when ``first`` did not read the draft's config or every variant of
        :data:`DRAFT_CONFIG_VARIANTS` gives the same verdict (refused or accepted); else the first
        variant's outcome that differs (its ``error`` is the refusal when ``first`` was accepted).
    """
    if not first.read_draft_config or not first.decided:
        return None
    for fields in DRAFT_CONFIG_VARIANTS:
        other = run(ns, architecture, None, env, fields)
        if other.decided and bool(other.error) != bool(first.error):
            return other
    return None


@functools.cache
def algorithm_error(name: str) -> str | None:
    """SGLang's verdict on an algorithm name: ``None`` when ``SpeculativeAlgorithm.from_string`` knows it
    (a member of the enum or the reserved alias NEXTN), else its ``ValueError`` message
    ("Unknown speculative algorithm name: EAGLE2")."""
    loaded = _loaded()
    spec_info = loaded.modules["sglang.srt.speculative.spec_info"]
    with _sglang_modules(loaded):
        try:
            spec_info.SpeculativeAlgorithm.from_string(name)
        except ValueError as exc:
            return str(exc)
    return None


@functools.cache
def algorithm_names() -> tuple[str, ...]:
    """The names SGLang's registry accepts: the ``SpeculativeAlgorithm`` members but ``NONE``, and the aliases."""
    loaded = _loaded()
    spec_info = loaded.modules["sglang.srt.speculative.spec_info"]
    registry = loaded.modules["sglang.srt.speculative.spec_registry"]
    names = [a.name for a in spec_info.SpeculativeAlgorithm if a.name != "NONE"]
    return tuple(names + sorted(registry._RESERVED_ALIASES))
