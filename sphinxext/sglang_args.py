"""SGLang's own server-argument parser, built from the installed wheel without torch.

``python -m sglang.launch_server`` and ``sglang serve`` both parse their flags
with an :class:`argparse.ArgumentParser` filled by
``sglang.srt.server_args.ServerArgs.add_cli_args`` (see
``sglang/srt/server_args.py: prepare_server_args``). This module builds that very
parser, so the guide's commands and its reference page are checked against the
pinned release and nothing else.

Importing ``sglang.srt.server_args`` normally pulls in torch, triton and GPU
kernels, which a documentation machine does not have. The modules of the
``sglang`` package are therefore loaded *statement by statement* from their real
source: a top-level statement that fails (``import torch``, a class deriving
from a torch type, ...) binds the names it would have defined to
:class:`Unavailable` stand-ins, and the rest of the module still runs. The
argument declarations themselves (``sglang/srt/arg_groups/fields/*.py``) are
plain Python and load unchanged. After the parser is built, :func:`build_parser`
checks that no stand-in reached it (as a ``type=``, default or choice), and
fails loudly otherwise: the parser is either SGLang's real one or the build
stops.

The loaded ``sglang`` modules are removed from :data:`sys.modules` afterwards, so
nothing else in the process sees the partially loaded package.
"""

from __future__ import annotations
import __future__

import argparse
import ast
import functools
import importlib
import importlib.abc
import importlib.machinery
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Package ``__init__`` files that are not executed: they only re-export the
# frontend language and the GPU kernels (slow, useless here). Stand-ins cover
# anything taken from them; the leak check below guards the result.
SKIPPED_INITS = ("sglang", "sglang.kernels", "sglang.srt.platforms", "sglang.srt.distributed", "sglang.srt.utils")

# The spelling both entry points use for the parser (``prepare_server_args``).
PROG = "sglang serve"


class SGLangParserError(RuntimeError):
    """SGLang's parser could not be built from the installed sources; the message says why."""


class Unavailable:
    """Stand-in for a name whose defining statement failed (usually: it needs torch).

    Any use other than identity raises :class:`SGLangParserError` naming the
    symbol, so a stand-in can never silently change what the parser accepts.
    """

    __slots__ = ("_name", "_reason")

    def __init__(self, name: str, reason: str):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_reason", reason)

    def _fail(self, what: str):
        raise SGLangParserError(
            f"{what} {self._name}, which could not be loaded without SGLang's runtime "
            f"dependencies ({self._reason})"
        )

    def __getattr__(self, attr: str):
        self._fail(f"attribute {attr!r} of")

    def __call__(self, *args, **kwargs):
        self._fail("call to")

    def __repr__(self) -> str:
        return f"<unavailable {self._name}>"


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Names a top-level statement would bind (defs, classes, assignments, imports)."""
    names: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name.split(".")[0]) for a in node.names if a.name != "*")
    # A stand-in module ``__getattr__`` would answer every lookup with a stand-in.
    return names - {"__getattr__", "__all__"}


class _TolerantLoader(importlib.abc.Loader):
    """Execute a module's real source one top-level statement at a time."""

    def __init__(self, failures: dict[str, list[str]]):
        self.failures = failures

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        if module.__name__ in SKIPPED_INITS:
            return
        path = module.__spec__.origin
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), path)
        flags = 0
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                for alias in stmt.names:
                    flags |= getattr(__future__, alias.name).compiler_flag
            code = compile(ast.Module([stmt], []), path, "exec", flags=flags, dont_inherit=True)
            try:
                exec(code, module.__dict__)
            except Exception as exc:  # noqa: BLE001 - any failure degrades to stand-ins
                reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
                self.failures.setdefault(module.__name__, []).append(f"line {stmt.lineno}: {reason}")
                for name in _bound_names(stmt):
                    module.__dict__.setdefault(name, Unavailable(f"{module.__name__}.{name}", reason))


class _SGLangFinder(importlib.abc.MetaPathFinder):
    """Route ``sglang`` and its submodules, found under ``search_path``, to the tolerant loader."""

    def __init__(self, search_path: list[str] | None, failures: dict[str, list[str]]):
        self.search_path = search_path
        self.loader = _TolerantLoader(failures)

    def find_spec(self, name, path, target=None):
        if name != "sglang" and not name.startswith("sglang."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path if "." in name else self.search_path)
        if spec is None and name == "sglang" and self.search_path:
            raise ModuleNotFoundError(f"no sglang package in {self.search_path[0]}")
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            spec.loader = self.loader
        return spec


@dataclass
class LoadedParser:
    """SGLang's parser plus what is known about where its options come from.

    :ivar parser: the :class:`argparse.ArgumentParser` of ``sglang serve``.
    :ivar version: the SGLang version the parser was built from (``sglang/version.py``).
    :ivar namespaces: ``{dest: namespace}`` for options declared in a namespace
        class (``"spec"`` for ``fields/spec.py: Spec``); empty for releases without
        namespaces.
    :ivar seconds: wall time spent building it.
    :ivar cpu_seconds: CPU time of this process spent building it (wall time grows on a busy machine).
    :ivar failures: ``{module: [failed statements]}``, for diagnosis only.
    """

    parser: argparse.ArgumentParser
    version: str
    namespaces: dict[str, str]
    seconds: float
    cpu_seconds: float
    failures: dict[str, list[str]] = field(default_factory=dict)


def _leaks(parser: argparse.ArgumentParser) -> list[str]:
    """Options whose type, default or choices is a stand-in (the parser would not be SGLang's)."""
    bad = []
    for action in parser._actions:
        values = [action.type, action.default, action.const, *(action.choices or [])]
        if any(isinstance(v, Unavailable) for v in values):
            bad.append("/".join(action.option_strings) or action.dest)
    return bad


def load_parser(site_dir: str | Path | None = None) -> LoadedParser:
    """Build ``ServerArgs.add_cli_args`` into a fresh parser, from ``site_dir`` or the installed wheel.

    :param site_dir: a directory holding an ``sglang`` package (e.g. a
        ``pip install --no-deps --target`` directory); ``None`` uses the one on
        ``sys.path``. Runs in this process and leaves :data:`sys.modules` as it was.
    :returns: a :class:`LoadedParser`.
    :raises SGLangParserError: SGLang is not installed there, its ``server_args``
        module did not load, or a stand-in leaked into the parser. The message
        names the module and statement that failed.
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    before = set(sys.modules)
    failures: dict[str, list[str]] = {}
    finder = _SGLangFinder([str(site_dir)] if site_dir else None, failures)
    sys.meta_path.insert(0, finder)
    try:
        try:
            server_args = importlib.import_module("sglang.srt.server_args")
            version_mod = importlib.import_module("sglang.version")
        except ModuleNotFoundError as exc:
            raise SGLangParserError(f"SGLang is not installed ({exc}). Run `make venv`.") from exc
        server_args_cls = getattr(server_args, "ServerArgs", None)
        add_cli_args = getattr(server_args_cls, "add_cli_args", None)
        if add_cli_args is None or isinstance(server_args_cls, Unavailable):
            detail = "; ".join(failures.get("sglang.srt.server_args", [])) or "no ServerArgs.add_cli_args"
            raise SGLangParserError(f"sglang/srt/server_args.py did not load: {detail}")
        parser = argparse.ArgumentParser(prog=PROG)
        try:
            add_cli_args(parser)
        except Exception as exc:
            hints = "; ".join(f"{m}: {f[0]}" for m, f in sorted(failures.items()))
            raise SGLangParserError(
                f"ServerArgs.add_cli_args failed: {type(exc).__name__}: {exc}. "
                f"Statements that could not run without torch: {hints}"
            ) from exc
        leaked = _leaks(parser)
        if leaked:
            raise SGLangParserError(
                "these options depend on code that needs SGLang's runtime dependencies, so the "
                f"parser would not be SGLang's own: {', '.join(leaked)}"
            )
        namespaces = dict(getattr(server_args_cls, "_NS_BY_FIELD", None) or {})
        version = str(getattr(version_mod, "__version__", "unknown"))
    finally:
        sys.meta_path.remove(finder)
        for name in set(sys.modules) - before:
            if name == "sglang" or name.startswith("sglang."):
                del sys.modules[name]
    return LoadedParser(parser, version, namespaces, time.perf_counter() - start, time.process_time() - cpu_start,
                        failures)


@functools.cache
def pinned_parser() -> LoadedParser:
    """The parser of the installed SGLang, built once per process (see :func:`load_parser`)."""
    return load_parser()


# -- A plain description of each option, for the reference page and the drift report --


@dataclass(frozen=True)
class OptionInfo:
    """One command-line option as SGLang's parser declares it.

    :ivar name: the primary flag (``--speculative-eagle-topk``).
    :ivar aliases: the other spellings (``--speculative-draft-model``).
    :ivar dest: the ``ServerArgs`` field it sets.
    :ivar type: ``"int"``, ``"float"``, ``"str"``, ``"flag"`` (takes no value) or the type function's name.
    :ivar default: the parser default, as text (``None`` when unset).
    :ivar choices: allowed values, as text, or ``None``.
    :ivar help: SGLang's help string.
    :ivar namespace: the ``ServerArgs`` namespace (``"spec"``) or ``""``.
    :ivar deprecated: the action is one of SGLang's ``Deprecated*Action`` classes.
    """

    name: str
    aliases: tuple[str, ...]
    dest: str
    type: str
    default: str | None
    choices: tuple[str, ...] | None
    help: str
    namespace: str
    deprecated: bool

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (tuples become lists)."""
        return {
            "name": self.name, "aliases": list(self.aliases), "dest": self.dest, "type": self.type,
            "default": self.default, "choices": list(self.choices) if self.choices is not None else None,
            "help": self.help, "namespace": self.namespace, "deprecated": self.deprecated,
        }


def _type_name(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "flag"
    kind = getattr(action.type, "__name__", None) or type(action.type).__name__
    kind = "str" if action.type is None else kind
    if action.nargs in ("+", "*"):
        kind = f"list of {kind}"
    return kind


def _text(value: Any) -> str | None:
    if value is None or value is argparse.SUPPRESS:
        return None
    return str(value)


def options(loaded: LoadedParser) -> list[OptionInfo]:
    """Every option of the parser except ``--help``, in declaration order."""
    out = []
    for action in loaded.parser._actions:
        if isinstance(action, argparse._HelpAction) or not action.option_strings:
            continue
        long_first = sorted(action.option_strings, key=lambda s: (not s.startswith("--"), 0))
        choices = action.choices
        if choices is not None:
            choices = tuple(str(c) for c in (sorted(choices) if isinstance(choices, set) else choices))
        out.append(OptionInfo(
            name=long_first[0],
            aliases=tuple(long_first[1:]),
            dest=action.dest,
            type=_type_name(action),
            default=_text(action.default),
            choices=choices,
            help=" ".join((action.help or "").split()),
            namespace=loaded.namespaces.get(action.dest, ""),
            deprecated=type(action).__name__.startswith("Deprecated"),
        ))
    return out


def spec_options(loaded: LoadedParser) -> list[OptionInfo]:
    """Options declared in SGLang's ``spec`` namespace (``sglang/srt/arg_groups/fields/spec.py: Spec``).

    :raises SGLangParserError: the release has no namespace information (older
        than the ``arg_groups.fields`` layout), so "the spec namespace" is undefined.
    """
    if not loaded.namespaces:
        raise SGLangParserError(f"SGLang {loaded.version} declares no option namespaces")
    return [o for o in options(loaded) if o.namespace == "spec"]


if __name__ == "__main__":  # pragma: no cover - manual diagnosis: python sphinxext/sglang_args.py
    got = pinned_parser()
    print(f"SGLang {got.version}: {len(options(got))} options "
          f"({len(spec_options(got))} in the spec namespace) in {got.seconds:.2f} s ({got.cpu_seconds:.2f} s CPU)")
