"""SGLang's own argument parsers, built from the installed wheel without torch.

``python -m sglang.launch_server`` and ``sglang serve`` both parse their flags
with an :class:`argparse.ArgumentParser` filled by
``sglang.srt.server_args.ServerArgs.add_cli_args`` (see
``sglang/srt/server_args.py: prepare_server_args``); ``python -m
sglang.benchmark.serving`` builds its own in ``cli_main``. This module builds
those very parsers (:func:`pinned_parser`, :func:`bench_serving_parser`), so the
guide's commands and its reference page are checked against the pinned release
and nothing else.

How, without torch: importing ``sglang.srt.server_args`` normally pulls in
torch, triton and GPU kernels, which a documentation machine does not have. The
modules of the ``sglang`` package are therefore loaded *statement by statement*
from their real source (:func:`_sglang_sources`): a top-level statement that
fails (``import torch``, a class deriving from a torch type, ...) binds the
names it would have defined to :class:`Unavailable` stand-ins, and the rest of
the module still runs. The argument declarations themselves
(``sglang/srt/arg_groups/fields/*.py``) are plain Python and load unchanged.

Why the result can be trusted: a stand-in raises :class:`SGLangParserError` on
any use but identity (call, attribute, truth value, iteration, text), and after
a parser is built no option may hold one as its type, default, choice, help or
metavar; nor may any statement of the modules that declare the options
(:data:`DECLARATIONS`) have failed. So the parser is either SGLang's real one or
the build stops with a message naming the statement that could not run. The loaded ``sglang`` modules
are removed from :data:`sys.modules` afterwards, so nothing else in the process
sees the partially loaded package.
"""

from __future__ import annotations
import __future__

import argparse
import ast
import contextlib
import functools
import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from speccheck import filecache

# Package ``__init__`` files that are not executed: they only re-export the
# frontend language and the GPU kernels (slow, useless here). Stand-ins cover
# anything taken from them; _check_no_stand_ins guards the result.
SKIPPED_INITS = ("sglang", "sglang.kernels", "sglang.srt.platforms", "sglang.srt.distributed", "sglang.srt.utils")

# Where SGLang declares its options (``sglang/srt/arg_groups/``, since the namespace
# layout). Every statement of these modules must run: a failed one could leave a
# choice list short without any stand-in reaching the parser.
DECLARATIONS = ("sglang.srt.arg_groups.fields", "sglang.srt.arg_groups.choices", "sglang.srt.arg_groups.arg_utils",
                "sglang.srt.arg_groups.argparse_actions")

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

    def __bool__(self):
        self._fail("truth value of")

    def __iter__(self):
        self._fail("iteration over")

    def __str__(self):
        self._fail("text of")

    def __repr__(self) -> str:
        return f"<unavailable {self._name}>"


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Module-level names a top-level statement would bind (defs, classes, assignments, imports).

    Names bound inside function and class bodies, lambdas and comprehensions are
    local to them and not included.
    """
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            return
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name.split(".")[0]) for a in node.names if a.name != "*")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(stmt)
    # A stand-in module ``__getattr__`` would answer every lookup with a stand-in.
    return names - {"__getattr__", "__all__"}


def compiled_statements(path: str) -> list[tuple[Any, int, list[str]]]:
    """The top-level statements of the Python file ``path``, each compiled on its own.

    Compiling the sources statement by statement is most of the time a parser takes to
    build, so the result is kept between runs (:func:`speccheck.filecache.cached`).

    :param path: an absolute path to a ``.py`` file.
    :returns: ``(code object, line number, names the statement binds)`` per statement, in order.
    :raises SyntaxError: the file does not parse.
    """

    def compile_statements() -> list[tuple[Any, int, list[str]]]:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), path)
        flags, out = 0, []
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                for alias in stmt.names:
                    flags |= getattr(__future__, alias.name).compiler_flag
            code = compile(ast.Module([stmt], []), path, "exec", flags=flags, dont_inherit=True)
            out.append((code, stmt.lineno, sorted(_bound_names(stmt))))
        return out

    return filecache.cached("statements", path, compile_statements)


class _TolerantLoader(importlib.abc.Loader):
    """Execute a module's real source one top-level statement at a time."""

    def __init__(self, failures: dict[str, list[str]]):
        self.failures = failures

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        if module.__name__ in SKIPPED_INITS:
            return
        for code, lineno, names in compiled_statements(module.__spec__.origin):
            try:
                exec(code, module.__dict__)
            except Exception as exc:  # noqa: BLE001 - any failure degrades to stand-ins
                reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
                self.failures.setdefault(module.__name__, []).append(f"line {lineno}: {reason}")
                for name in names:
                    module.__dict__.setdefault(name, Unavailable(f"{module.__name__}.{name}", reason))


class _SGLangFinder(importlib.abc.MetaPathFinder):
    """Route ``sglang`` and its submodules, found under ``search_path``, to the tolerant loader.

    A module in ``blocked`` (or below it) is reported missing, so the statements
    importing it bind stand-ins instead of running it.
    """

    def __init__(self, search_path: list[str] | None, blocked: tuple[str, ...], failures: dict[str, list[str]]):
        self.search_path = search_path
        self.blocked = blocked
        self.loader = _TolerantLoader(failures)

    def find_spec(self, name, path, target=None):
        if name != "sglang" and not name.startswith("sglang."):
            return None
        if any(name == b or name.startswith(b + ".") for b in self.blocked):
            raise ModuleNotFoundError(f"{name} is not loaded here (it is not needed to build the parser)")
        spec = importlib.machinery.PathFinder.find_spec(name, path if "." in name else self.search_path)
        if spec is None and name == "sglang" and self.search_path:
            raise ModuleNotFoundError(f"no sglang package in {self.search_path[0]}")
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            spec.loader = self.loader
        return spec


@contextlib.contextmanager
def _sglang_sources(site_dir: str | Path | None = None, blocked: tuple[str, ...] = ()) -> Iterator[dict]:
    """Within the block, ``import sglang...`` runs the real sources with stand-ins (see the module docstring).

    :param site_dir: a directory holding an ``sglang`` package; ``None``: the one on ``sys.path``.
    :param blocked: dotted module names that are not loaded at all (their importers get stand-ins).
    :returns: (as the ``with`` target) ``{module: ["line N: error", ...]}``, filled as modules load.
    Afterwards the ``sglang`` modules loaded here are removed from :data:`sys.modules` again.
    """
    before = set(sys.modules)
    failures: dict[str, list[str]] = {}
    finder = _SGLangFinder([str(site_dir)] if site_dir else None, blocked, failures)
    sys.meta_path.insert(0, finder)
    try:
        yield failures
    finally:
        sys.meta_path.remove(finder)
        for name in set(sys.modules) - before:
            if name == "sglang" or name.startswith("sglang."):
                del sys.modules[name]


def _import(name: str):
    """``importlib.import_module(name)`` inside :func:`_sglang_sources`; a missing SGLang is a clear error."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise SGLangParserError(f"SGLang is not installed, or is a release without {name} ({exc}). "
                                "Run `make venv`.") from exc


def _failure_summary(failures: dict[str, list[str]]) -> str:
    return "; ".join(f"{module}: {lines[0]}" for module, lines in sorted(failures.items()))


def _check_no_stand_ins(parser: argparse.ArgumentParser, what: str) -> None:
    """Raise :class:`SGLangParserError` when a stand-in reached an option (the parser would not be SGLang's)."""
    bad = []
    for action in parser._actions:
        values = [action.type, action.default, action.const, action.help, action.metavar, action.choices]
        if not isinstance(action.choices, Unavailable):
            values += list(action.choices or [])
        if any(isinstance(v, Unavailable) for v in values):
            bad.append("/".join(action.option_strings) or action.dest)
    if bad:
        raise SGLangParserError(f"{what}: these options depend on code that needs SGLang's runtime dependencies, "
                                f"so the parser would not be SGLang's own: {', '.join(bad)}")


class _Captured(Exception):
    def __init__(self, parser: argparse.ArgumentParser):
        super().__init__("parser captured")
        self.parser = parser


def _capture(self, args=None, namespace=None):
    raise _Captured(self)


def parser_built_by(main: Callable[..., Any], *args: Any) -> argparse.ArgumentParser:
    """The parser ``main(*args)`` builds, taken when it calls ``parse_args``; nothing after that runs.

    For command-line entry points that build their parser inside ``main`` and do
    not expose it (``sglang/benchmark/serving.py: cli_main``, ``specforge/cli.py: main``).

    :raises RuntimeError: ``main`` returned without calling ``parse_args`` (its shape changed).
    """
    with mock.patch.object(argparse.ArgumentParser, "parse_args", _capture):
        try:
            main(*args)
        except _Captured as got:
            return got.parser
    raise RuntimeError(f"{main.__module__}.{main.__qualname__} finished without calling parse_args")


@dataclass
class LoadedParser:
    """SGLang's server parser and what is known about where its options come from.

    :ivar parser: the :class:`argparse.ArgumentParser` of ``sglang serve``.
    :ivar version: the SGLang version the parser was built from (``sglang/version.py``).
    :ivar namespaces: ``{dest: namespace}`` for options declared in a namespace
        class (``"spec"`` for ``fields/spec.py: Spec``), read from
        ``ServerArgs._NS_BY_FIELD`` (``sglang/srt/server_args.py``); empty for
        releases without namespaces.
    """

    parser: argparse.ArgumentParser
    version: str
    namespaces: dict[str, str]


def load_parser(site_dir: str | Path | None = None, keep: dict | None = None) -> LoadedParser:
    """Build ``ServerArgs.add_cli_args`` into a fresh parser, from ``site_dir`` or the installed wheel.

    This is the parser both ``python -m sglang.launch_server`` and ``sglang serve``
    use (``sglang/srt/server_args.py: prepare_server_args``).

    :param site_dir: a directory holding an ``sglang`` package (e.g. a
        ``pip install --no-deps --target`` directory); ``None`` uses the one on
        ``sys.path``. Runs in this process and leaves :data:`sys.modules` as it was.
    :param keep: when given, receives ``modules`` (the ``sglang`` modules loaded) and ``finder``
        (the import hook that loads more of them the same way), so that :mod:`speccheck.startup`
        can run SGLang's start-up code on the same modules without loading them again.
    :returns: a :class:`LoadedParser`.
    :raises SGLangParserError: SGLang is not installed there, its ``server_args``
        module did not load, ``add_cli_args`` failed, a stand-in reached an
        option, or a statement of the option declarations (:data:`DECLARATIONS`)
        failed. The message names the module and statement that failed.
    """
    with _sglang_sources(site_dir) as failures:
        server_args = _import("sglang.srt.server_args")
        version = str(getattr(_import("sglang.version"), "__version__", "unknown"))
        server_args_cls = getattr(server_args, "ServerArgs", None)
        add_cli_args = getattr(server_args_cls, "add_cli_args", None)
        if add_cli_args is None or isinstance(server_args_cls, Unavailable):
            detail = "; ".join(failures.get("sglang.srt.server_args", [])) or "no ServerArgs.add_cli_args"
            raise SGLangParserError(f"sglang/srt/server_args.py did not load: {detail}")
        parser = argparse.ArgumentParser(prog=PROG)
        try:
            add_cli_args(parser)
        except Exception as exc:
            raise SGLangParserError(
                f"ServerArgs.add_cli_args failed: {type(exc).__name__}: {exc}. "
                f"Statements that could not run without torch: {_failure_summary(failures)}"
            ) from exc
        _check_no_stand_ins(parser, "sglang/srt/server_args.py: ServerArgs.add_cli_args")
        partial = {m: f for m, f in failures.items() if any(m == d or m.startswith(d + ".") for d in DECLARATIONS)}
        if partial:
            raise SGLangParserError(f"SGLang's option declarations did not load completely, so the parser could "
                                    f"differ from SGLang's: {_failure_summary(partial)}")
        namespaces = dict(getattr(server_args_cls, "_NS_BY_FIELD", None) or {})
        if keep is not None:
            keep["modules"] = {n: m for n, m in sys.modules.items() if n == "sglang" or n.startswith("sglang.")}
            keep["finder"] = next(f for f in sys.meta_path if isinstance(f, _SGLangFinder))
    return LoadedParser(parser, version, namespaces)


@functools.cache
def _pinned() -> tuple[LoadedParser, dict]:
    keep: dict = {}
    return load_parser(keep=keep), keep


def pinned_parser() -> LoadedParser:
    """The server parser of the installed SGLang, built once per process (see :func:`load_parser`)."""
    return _pinned()[0]


def pinned_modules() -> dict:
    """``{"modules": ..., "finder": ...}`` of the load behind :func:`pinned_parser` (see ``keep`` there)."""
    return _pinned()[1]


@functools.cache
def bench_serving_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m sglang.benchmark.serving`` (``sglang/benchmark/serving.py: cli_main``).

    The benchmark client imports a few helpers from ``sglang.srt`` that it uses
    only while running; ``sglang.srt`` is not loaded at all here (it would cost
    seconds), and the stand-in check proves the parser did not need it.
    ``cli_main`` checks some flag combinations after parsing (``--rust-worker-threads``
    needs ``--rust-client``, ``_validate_parsed_gsp_args``); those are not applied.

    :raises SGLangParserError: the module did not load, ``cli_main`` failed or
        changed shape, or a stand-in reached an option.
    """
    with _sglang_sources(blocked=("sglang.srt",)) as failures:
        serving = _import("sglang.benchmark.serving")
        try:
            parser = parser_built_by(serving.cli_main)
        except Exception as exc:
            raise SGLangParserError(
                f"sglang/benchmark/serving.py: cli_main did not build its parser: {type(exc).__name__}: {exc}. "
                f"Statements that could not run without the runtime: {_failure_summary(failures)}"
            ) from exc
        _check_no_stand_ins(parser, "sglang/benchmark/serving.py: cli_main")
    return parser


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


if __name__ == "__main__":  # pragma: no cover - manual diagnosis: python speccheck/sglang_args.py
    import time

    start, cpu_start = time.perf_counter(), time.process_time()
    got = pinned_parser()
    bench = bench_serving_parser()
    print(f"SGLang {got.version}: {len(options(got))} server options ({len(spec_options(got))} in the spec "
          f"namespace), {len(bench._actions)} benchmark options, built in {time.perf_counter() - start:.2f} s "
          f"({time.process_time() - cpu_start:.2f} s CPU)")
