"""Every user-facing message of SGLang's speculative start-up and draft loading, read from the pinned wheel.

Usage::

    python -m speccheck.errors            # one line per message: file:line kind type text
    python -m speccheck.errors --check    # exit 1 when the explanations and the source disagree
    make error-messages                   # add a skeleton entry for each new message to the data, list stale ones

The page ``docs/reference/error-messages.md`` is rendered from :func:`extract`
by ``sphinxext/content/error_messages_ref.py``, which also fails the build on a message
without an explanation (or an explanation without a message).

Scope (:data:`SCOPE`): the files are parsed with :mod:`ast`, nothing is imported.
It covers the start-up validation and the worker start-up of every registered algorithm
(``EAGLE``, ``EAGLE3``, ``NEXTN``, ``STANDALONE``, ``NGRAM``, ``DFLASH``, ``DSPARK``, ``UNO``
and the internal ``FROZEN_KV_MTP``) and of separate MTP draft checkpoints:

- **whole files**: speculative start-up validation (``arg_groups/speculative_hook.py``,
  every ``_handle_*`` function), the algorithm registry (``speculative/spec_registry.py``,
  ``speculative/spec_info.py``), the draft-worker helpers every speculative worker calls
  while it starts (``speculative/draft_worker_common.py``, ``speculative/draft_utils.py``),
  the DSPARK draft-config checks (``speculative/dspark_components/dspark_config.py``), and the
  EAGLE / EAGLE-3 draft model files (``models/*eagle*.py``) with their loaders;
- **named functions** elsewhere that check speculative settings: the DFLASH-family draft
  ``config.json`` checks (``speculative/dflash_utils.py``: ``parse_dflash_draft_config`` and the
  helpers that resolve its layers and window), the draft's context
  length (``configs/model_config.py``: ``ModelConfig._derive_context_length``), and the
  speculative-decoding messages (text matching :data:`SPECULATIVE_TEXT`) of the general
  start-up checks (``arg_groups/validation_hook.py``: ``check_server_args``,
  ``check_pipeline_parallel_compat``, ``check_watermark_server_args``), of the NVFP4 KV
  cache check (``arg_groups/kv_cache_hook.py``: ``handle_kv4_compatibility``) and of the LoRA
  checks (``arg_groups/lora_hook.py``: ``check_lora_speculative_compatibility``,
  ``check_lora_moe_runner_args``);
- **start-up paths** of the speculative workers (``speculative/**/*worker*.py``, DSPARK's
  worker in ``dspark_components/`` included): each class's ``__init__``, every method whose
  name contains ``init`` or ``alloc``, and, transitively, every method of the same class that
  those call as ``self.<name>(...)`` and every module-level function of the file that they
  call by name.

What is left out is listed in the data, not here: an entry of the explanations file with
``excluded`` (a reason) names either messages (``keys``) that the page does not explain, or
a source file or function (``path``) that the scope does not read (:func:`load_exclusions`).

In those functions a *message* is a statement whose text a user sees:

- ``raise X("...")`` / ``raise X(f"...")`` (also ``raise X(msg)`` where ``msg`` is a string
  assigned earlier in the same function) -> kind ``raise``, type ``X``;
- ``assert cond, "..."`` -> kind ``assert``, type ``AssertionError``; a bare ``assert cond``
  has no text for a user to search for and is not collected;
- ``logger.warning(...)`` / ``logger.warning_once(...)`` / ``logger.warn(...)`` (any
  receiver whose name contains ``log``) and ``warnings.warn(...)`` -> kind ``warning``.

Text is rendered from the literal: string parts as written, each f-string field as
``{expression}`` (its source, e.g. ``{self.topk}``), ``%``-format specifiers kept, and
concatenations (``"a" + "b"``, ``"a" f"{b}"``) joined. A message whose text has no
literal part at all (``raise ValueError(err)`` with ``err`` from elsewhere) is skipped.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Scope:
    """One entry of :data:`SCOPE`.

    :ivar pattern: glob relative to ``site-packages``.
    :ivar mode: ``"file"`` (every function and the module level), ``"startup"`` (start-up
        paths, see the module docstring) or ``"functions"`` (only :attr:`functions`).
    :ivar functions: qualified names for mode ``"functions"``.
    :ivar text: when set, only messages whose text matches this regular expression.
    :ivar exclude: qualified names (or file names) left out, with the reason in :data:`SCOPE`.
    """

    pattern: str
    mode: str = "file"
    functions: tuple[str, ...] = ()
    text: str | None = None
    exclude: tuple[str, ...] = ()


SPECULATIVE_TEXT = r"(?i)specul|eagle|mtp|draft|_SPEC\b"
SCOPE: tuple[Scope, ...] = (
    # Start-up validation of every registered algorithm (EAGLE/EAGLE3/NEXTN, STANDALONE, NGRAM,
    # DFLASH, DSPARK, UNO, FROZEN_KV_MTP) and of separate MTP draft checkpoints (IQuest Q1).
    Scope("sglang/srt/arg_groups/speculative_hook.py"),
    Scope("sglang/srt/speculative/spec_registry.py"),
    Scope("sglang/srt/speculative/spec_info.py"),
    Scope("sglang/srt/speculative/draft_worker_common.py"),
    Scope("sglang/srt/speculative/draft_utils.py"),
    # DSPARK's draft config.json checks, run while the DSPARK worker starts.
    Scope("sglang/srt/speculative/dspark_components/dspark_config.py"),
    # The DFLASH-family draft config.json checks (DFLASH and DSPARK drafts), run while the draft loads;
    # the file's other functions run per batch.
    Scope("sglang/srt/speculative/dflash_utils.py", "functions",
          ("parse_dflash_draft_config", "_parse_optional_int", "DFlashDraftConfig.require_num_layers",
           "DFlashDraftConfig.resolve_target_layer_ids", "build_target_layer_ids", "get_dflash_layer_types",
           "get_dflash_attention_sliding_window_size")),
    Scope("sglang/srt/models/*eagle*.py"),
    # Worker start-up of every algorithm, DSPARK's worker (in its own folder) included.
    Scope("sglang/srt/speculative/**/*worker*.py", "startup"),
    # Draft loading: the draft's context length (SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN).
    Scope("sglang/srt/configs/model_config.py", "functions", ("ModelConfig._derive_context_length",)),
    # General start-up validation: only its speculative-decoding messages.
    Scope("sglang/srt/arg_groups/validation_hook.py", "functions",
          ("check_server_args", "check_pipeline_parallel_compat", "check_watermark_server_args"),
          text=SPECULATIVE_TEXT),
    # NVFP4 KV cache with speculative decoding.
    Scope("sglang/srt/arg_groups/kv_cache_hook.py", "functions", ("handle_kv4_compatibility",), text=SPECULATIVE_TEXT),
    # LoRA with speculative decoding.
    Scope("sglang/srt/arg_groups/lora_hook.py", "functions",
          ("check_lora_speculative_compatibility", "check_lora_moe_runner_args"), text=SPECULATIVE_TEXT),
)
KINDS = ("raise", "assert", "warning")
WARNING_METHODS = {"warning", "warning_once", "warn"}
STARTUP_NAME = re.compile(r"__init__|init|alloc")


@dataclass(frozen=True)
class Message:
    """One message a user can see.

    :ivar file: path relative to ``site-packages`` (``sglang/srt/arg_groups/speculative_hook.py``).
    :ivar function: dotted name of the enclosing def (``Class.method``), ``<module>`` at top level.
    :ivar line: 1-based line of the ``raise`` / ``assert`` / warning call.
    :ivar kind: ``"raise"``, ``"assert"`` or ``"warning"``.
    :ivar exception: the exception class (``ValueError``, ``AssertionError``) or, for a
        warning, the call (``logger.warning``, ``warnings.warn``).
    :ivar text: the message as the user reads it, f-string fields as ``{expression}``.
    """

    file: str
    function: str
    line: int
    kind: str
    exception: str
    text: str

    @property
    def key(self) -> str:
        """Stable key: ``file::function::normalized text`` (see :func:`normalize`); no line number."""
        return f"{self.file}::{self.function}::{normalize(self.text)}"

    @property
    def citation(self) -> str:
        """The ``{source}`` target of the enclosing function (or of the line, at module level)."""
        if self.function == "<module>":
            return f"{self.file}#L{self.line}"
        return f"{self.file}::{self.function}"


def normalize(text: str) -> str:
    """Lower-case, fields replaced by ``{}``, runs of non-alphanumerics by one space, cut to whole words
    within 160 characters.

    :param text: a :attr:`Message.text`.
    :returns: the part of a :attr:`Message.key` that survives rewording of f-string
        expressions and of whitespace/punctuation (a changed *wording* makes a new key,
        on purpose: its explanation must be checked again).
    """
    text = re.sub(r"\{[^{}]*\}", "{}", text.lower())
    text = re.sub(r"[^a-z0-9{}%]+", " ", text).strip()
    return text if len(text) <= 160 else text[:161].rsplit(" ", 1)[0]


def site_packages() -> Path:
    """The ``site-packages`` folder that holds the installed ``sglang`` (found without importing it).

    :raises RuntimeError: SGLang is not installed (run ``make venv``).
    """
    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("sglang is not installed: run `make venv`")
    return Path(next(iter(spec.submodule_search_locations))).parent


def scoped_files(root: Path, scope: tuple[Scope, ...] = SCOPE) -> list[tuple[str, Scope]]:
    """``[(relative path, scope entry)]`` of the files :data:`SCOPE` names under ``root``, sorted.

    A file matched by several entries takes the first; a file whose name is in the
    entry's ``exclude`` is left out.

    :param root: a ``site-packages`` folder (or a fixture tree laid out like one).
    :raises FileNotFoundError: a scope entry matches no file (the pin moved a file away).
    """
    out: dict[str, Scope] = {}
    for entry in scope:
        matched = sorted(p.relative_to(root).as_posix() for p in root.glob(entry.pattern) if p.is_file())
        if not matched:
            raise FileNotFoundError(f"error-message scope: no file matches {entry.pattern} under {root}")
        for rel in matched:
            if rel.rsplit("/", 1)[-1] not in entry.exclude:
                out.setdefault(rel, entry)
    return sorted(out.items())


def _render(node: ast.expr | None, assigned: dict[str, ast.expr]) -> str | None:
    """The text of a message expression, or ``None`` when it has no literal part."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                inner = value.value
                if isinstance(inner, ast.Name) and inner.id in assigned:  # f"{msg} ..." with msg = "..."
                    parts.append(_render(assigned[inner.id], {}) or "")
                else:
                    parts.append("{" + ast.unparse(inner) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _render(node.left, assigned), _render(node.right, assigned)
        if left is None and right is None:
            return None
        return (left if left is not None else "{" + ast.unparse(node.left) + "}") + (
            right if right is not None else "{" + ast.unparse(node.right) + "}")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):  # "... %s" % x
        return _render(node.left, assigned)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"):
        return _render(node.func.value, assigned)
    if isinstance(node, ast.Name) and node.id in assigned:
        return _render(assigned[node.id], {})
    return None


def _exception_name(node: ast.expr | None) -> tuple[str | None, ast.expr | None]:
    """``(class name, first argument)`` of a raised expression."""
    if isinstance(node, ast.Call):
        return ast.unparse(node.func), (node.args[0] if node.args else None)
    if node is not None:
        return ast.unparse(node), None
    return None, None


def _warning_call(node: ast.Call) -> str | None:
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in WARNING_METHODS:
        return None
    receiver = ast.unparse(func.value)
    if receiver == "warnings" and func.attr == "warn":
        return "warnings.warn"
    if "log" in receiver.lower():
        return f"{receiver}.{func.attr}"
    return None


def messages_in(func: ast.AST, file: str, qualname: str) -> list[Message]:
    """Messages raised, asserted or warned directly in ``func`` (nested defs excluded), in source order.

    :param func: a ``def`` (or a module holding top-level statements) of ``file``.
    :param file: its path relative to ``site-packages``; ``qualname``: ``Class.method`` or ``<module>``.
    :returns: one :class:`Message` per statement; text rendered as the module docstring says.
    """
    found: list[Message] = []
    assigned: dict[str, ast.expr] = {}

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                continue
            if isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name):
                if _render(child.value, {}) is not None:
                    assigned[child.targets[0].id] = child.value
            if isinstance(child, ast.Raise):
                name, arg = _exception_name(child.exc)
                text = _render(arg, assigned)
                if name and text is not None and text.strip():
                    found.append(Message(file, qualname, child.lineno, "raise", name, text))
            elif isinstance(child, ast.Assert) and child.msg is not None:
                text = _render(child.msg, assigned)
                if text is not None and text.strip():
                    found.append(Message(file, qualname, child.lineno, "assert", "AssertionError", text))
            elif isinstance(child, ast.Call) and (call := _warning_call(child)) and child.args:
                text = _render(child.args[0], assigned)
                if text is not None and text.strip():
                    found.append(Message(file, qualname, child.lineno, "warning", call, text))
            walk(child)

    walk(func)
    return found


def functions_of(tree: ast.Module) -> dict[str, ast.AST]:
    """``{qualname: def node}`` for module-level defs and methods of module-level classes of a parsed
    module (the units :func:`messages_in` reads)."""
    out: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            out[stmt.name] = stmt
        elif isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    out[f"{stmt.name}.{item.name}"] = item
    return out


def _startup_functions(functions: dict[str, ast.AST]) -> set[str]:
    """Start-up paths: ``__init__`` / ``*init*`` / ``*alloc*`` methods and what they call in the file."""
    todo = [q for q in functions if STARTUP_NAME.search(q.rsplit(".", 1)[-1])]
    seen: set[str] = set()
    while todo:
        qualname = todo.pop()
        if qualname in seen:
            continue
        seen.add(qualname)
        cls = qualname.rsplit(".", 1)[0] if "." in qualname else None
        for node in ast.walk(functions[qualname]):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if (cls and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.value.id == "self" and f"{cls}.{f.attr}" in functions):
                todo.append(f"{cls}.{f.attr}")
            elif isinstance(f, ast.Name) and f.id in functions:
                todo.append(f.id)
    return seen


def extract_file(path: Path, rel: str, entry: Scope = Scope("")) -> list[Message]:
    """Messages of one file, sorted by line.

    :param path: the file to parse.
    :param rel: its path relative to ``site-packages`` (stored in :attr:`Message.file`).
    :param entry: which functions to read (:class:`Scope`; default: the whole file).
    :raises SyntaxError: the file does not parse.
    :raises KeyError: a ``"functions"`` entry names a function the file does not define.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    functions = functions_of(tree)
    if entry.mode == "functions":
        missing = [f for f in entry.functions if f not in functions]
        if missing:
            raise KeyError(f"error-message scope: {rel} defines no {', '.join(missing)}")
        chosen = set(entry.functions)
    elif entry.mode == "startup":
        chosen = _startup_functions(functions)
    else:
        chosen = set(functions)
    chosen = {q for q in chosen if q not in entry.exclude and q.rsplit(".", 1)[-1] not in entry.exclude}
    found: list[Message] = []
    for qualname in sorted(chosen):
        found += messages_in(functions[qualname], rel, qualname)
    if entry.mode == "file":  # module level and class bodies outside methods
        top = [s for s in tree.body if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        found += messages_in(ast.Module(body=top, type_ignores=[]), rel, "<module>")
    if entry.text:
        found = [m for m in found if re.search(entry.text, m.text)]
    return sorted(found, key=lambda m: m.line)


def extract(root: Path | None = None, scope: tuple[Scope, ...] = SCOPE) -> list[Message]:
    """Every message in ``scope``, sorted by file and line.

    :param root: ``site-packages`` to read (default: the installed SGLang's, :func:`site_packages`).
    :param scope: the files and functions to read (default :data:`SCOPE`).
    :raises FileNotFoundError: a scope entry matches no file.
    :raises KeyError: a scope entry names a function its file lacks.
    """
    root = root or site_packages()
    found: list[Message] = []
    for rel, entry in scoped_files(root, scope):
        found += extract_file(root / rel, rel, entry)
    return found


def by_key(messages: list[Message]) -> dict[str, list[Message]]:
    """``{key: [messages]}``; one key can hold several identical messages of one function."""
    out: dict[str, list[Message]] = {}
    for m in messages:
        out.setdefault(m.key, []).append(m)
    return out


def _load(path: Path) -> list[dict]:
    import yaml

    # libyaml's parser where PyYAML has it: the objects of yaml.safe_load, several times faster (each
    # error-messages directive of the build reads the file).
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or []


def _keys(entry: dict) -> list[str]:
    return list(entry.get("keys") or ([entry["key"]] if entry.get("key") else []))


def load_explanations(path: Path) -> list[dict]:
    """The explained entries of the explanations file, each with ``keys`` as a list.

    :param path: a YAML list of mappings. An explanation has ``keys`` (a list) or ``key``
        (one), and ``group``, ``cause``, ``fix`` (MyST Markdown) and optionally ``see`` (a
        label). An exclusion has ``excluded`` (the reason) and either ``keys`` or ``path``;
        exclusions are skipped here (:func:`load_exclusions`).
    :raises ValueError: an entry lacks a field, or a key appears in two entries.
    """
    out: list[dict] = []
    seen: set[str] = set()
    for n, entry in enumerate(_load(path), start=1):
        keys = _keys(entry)
        if "excluded" in entry:
            missing = ([] if entry["excluded"] else ["excluded (a reason)"]) + (
                [] if keys or entry.get("path") else ["keys or path"])
        else:
            missing = [f for f in ("group", "cause", "fix") if not entry.get(f)] + ([] if keys else ["keys"])
        if missing:
            raise ValueError(f"{path}: entry {n} lacks {', '.join(missing)}")
        for key in keys:
            if key in seen:
                raise ValueError(f"{path}: key {key!r} appears twice")
            seen.add(key)
        if "excluded" not in entry:
            out.append({**entry, "keys": keys})
    return out


def load_exclusions(path: Path) -> list[dict]:
    """The exclusions of the explanations file: ``[{"excluded": reason, "keys": [...], "path": str | None}]``.

    ``keys`` are messages the extractor finds and the page does not explain; ``path``
    (a file, a glob of files, or ``file::function``, relative to ``site-packages``) is
    source the scope does not read. Validated by :func:`load_explanations`.
    """
    load_explanations(path)
    return [{"excluded": e["excluded"], "keys": _keys(e), "path": e.get("path")}
            for e in _load(path) if "excluded" in e]


def accounted_keys(path: Path) -> set[str]:
    """Every message key the explanations file explains or excludes (for :func:`compare`)."""
    return {k for e in load_explanations(path) for k in e["keys"]} | {
        k for e in load_exclusions(path) for k in e["keys"]}


def compare(messages: list[Message], explained: set[str]) -> tuple[list[Message], list[str]]:
    """``(first message of each key without an explanation, explained keys without a message)``.

    :param messages: from :func:`extract`.
    :param explained: every key the explanations file accounts for (:func:`accounted_keys`).
    """
    keys = by_key(messages)
    unexplained = [group[0] for k, group in keys.items() if k not in explained]
    stale = sorted(k for k in explained if k not in keys)
    return unexplained, stale


def update(path: Path, messages: list[Message]) -> tuple[list[Message], list[str]]:
    """Append a skeleton entry (empty ``group``/``cause``/``fix``) for each unexplained message to ``path``.

    The skeletons make the build fail until someone writes the explanation (or turns the
    entry into an exclusion with a reason); stale keys are returned, not deleted.

    :param path: the explanations file (created when missing).
    :param messages: from :func:`extract`.
    :returns: ``(messages that got a skeleton, stale keys)``.
    """
    import yaml

    accounted = accounted_keys(path) if path.exists() else set()
    unexplained, stale = compare(messages, accounted)
    if unexplained:
        skeleton = yaml.safe_dump([{"keys": [m.key], "group": "", "cause": "", "fix": "", "see": ""}
                                   for m in unexplained], sort_keys=False, width=120)
        with path.open("a", encoding="utf-8") as f:
            f.write(skeleton)
    return unexplained, stale


def main(argv: list[str] | None = None) -> int:
    """``python -m speccheck.errors [--check | --update] [--explanations PATH]``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m speccheck.errors", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if explanations and source disagree")
    mode.add_argument("--update", action="store_true",
                      help="append a skeleton entry for each unexplained message; list stale entries")
    parser.add_argument("--explanations", type=Path, default=Path("docs/_data/error-messages.yaml"))
    args = parser.parse_args(argv)
    messages = extract()
    if args.update:
        added, stale = update(args.explanations, messages)
        for m in added:
            print(f"added a skeleton: {m.file}:{m.line} {m.kind} {m.text!r}")
        for k in stale:
            print(f"stale (delete the entry): {k}")
        print(f"{len(by_key(messages))} message keys; {len(added)} new, {len(stale)} stale", file=sys.stderr)
        return 1 if stale else 0
    if args.check:
        unexplained, stale = compare(messages, accounted_keys(args.explanations))
        for m in unexplained:
            print(f"unexplained: {m.file}:{m.line} {m.kind} {m.text!r}")
        for k in stale:
            print(f"stale: {k}")
        return 1 if unexplained or stale else 0
    for m in messages:
        print(f"{m.file}:{m.line} [{m.function}] {m.kind} {m.exception}: {m.text}")
    print(f"{len(messages)} messages, {len(by_key(messages))} keys", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
