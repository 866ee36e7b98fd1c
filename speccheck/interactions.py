"""The interaction map: every place the pinned SGLang treats speculative decoding specially, read from its source.

The guide must explain each place where SGLang's behaviour changes under speculative decoding. This module
lists them from the installed wheel (parsed with :mod:`ast`, nothing imported, so no torch), as *points* of
eight kinds:

``reads-spec-state``
    a function (module-level, or a method as ``Class.method``; nested functions count as part of the
    function that holds them) outside ``sglang/srt/speculative/`` whose body names speculative state: an
    identifier, attribute or string constant matched by :data:`SPEC_IDENTIFIER` (the algorithm, the spec
    info, the draft worker/model/runner, draft-token counts, the ``speculative_*`` server arguments,
    MTP/NextN layers). Statements outside any function are one point per module (``<module>``), class-body
    statements one point per class. ``detail.messages`` lists the texts a user can see from the function
    (raised, asserted or logged as a warning, rendered by :func:`speccheck.errors.messages_in`) that name
    speculative decoding (:data:`speccheck.errors.SPECULATIVE_TEXT`), so the section that explains the
    function can make each one findable.
``sampling-param``
    a field of ``SamplingParams`` (``sglang/srt/sampling/sampling_params.py``); ``detail.spec_files`` lists
    the files of ``sglang/srt/speculative/`` that name it (as an attribute, a name, a keyword or a string),
    i.e. where verification handles it.
``request-field``
    a field of ``GenerateReqInput`` (``sglang/srt/managers/io_struct.py``), the request body of
    ``/generate`` and ``Engine.generate``, with the same ``detail.spec_files``.
``endpoint``
    an HTTP route (a ``@app.get/post/put/delete/api_route`` or ``@router.*`` decorator anywhere under
    ``sglang/srt``) or a public method of ``sglang.srt.entrypoints.engine.Engine``; ``detail.spec_calls``
    lists the functions it calls (directly, or through one more call by name) that read speculative state:
    an empty list means the handler's own code never reaches speculative state by name.
``server-arg``
    a server argument (a field declared in ``sglang/srt/arg_groups/fields/*.py``) that a speculative
    validation rule reads: any function of ``arg_groups/speculative_hook.py``, and any function of the other
    ``arg_groups/*_hook.py`` files that itself reads speculative state. ``detail.rules`` names the functions.
``algorithm``
    a member of ``SpeculativeAlgorithm`` (``speculative/spec_info.py``) other than ``NONE``, and each
    reserved alias of ``speculative/spec_registry.py`` (``_RESERVED_ALIASES``: ``NEXTN``).
``model-class``
    a class of ``sglang/srt/models/`` with a draft or MTP path: a class whose name or file names a draft
    (:data:`DRAFT_CLASS`, :data:`DRAFT_FILE`), or a class that defines one of the target-side hooks in
    :data:`TARGET_HOOKS` (it can serve as the target of an EAGLE-3 or shared-embedding draft).
    ``detail`` records the hooks it defines and whether the module's ``EntryClass`` registers it.
``speculative-file``
    a file of ``sglang/srt/speculative/`` (subfolders too) with at least one message: every raise, assert
    with a text and logged warning of its functions (:func:`speccheck.errors.messages_in` over
    :func:`speccheck.errors.functions_of`, the same list as
    :func:`speccheck.message_history.tree_messages` gives for the folder; no speculative-text filter, the
    whole folder is speculative). ``detail.messages`` is ``[[function, text], ...]`` in source order;
    ``detail.workers`` the sorted file stems of the worker modules that import the file, directly or through
    other files of the folder (:func:`worker_modules`, :func:`_closure`), so a file only one algorithm's
    worker uses maps to that algorithm's how-to. Id ``specfile:<file>``, qualname ``<module>``, line 1.

Each point has an ``id`` (stable across pins while the code stays put: kind prefix and ``file::qualname``
or name, never a line number), ``file`` (relative to ``site-packages``), ``qualname``, ``line``,
``subsystem`` (from :data:`SUBSYSTEMS`, by path; ``request-output`` for every sampling parameter and request
field, ``algorithms`` for algorithms) and ``kind``.

Where each point is explained lives in ``speccheck/data/interactions-map.yaml`` (rules and per-point
overrides, written by hand; see :func:`load_mapping`); :func:`coverage_problems` names every point that is
unmapped or mapped to a label the site does not define. ``make interactions`` writes the points to
``speccheck/data/interactions.json`` (run it when the pin moves).
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from speccheck.errors import SPECULATIVE_TEXT, functions_of, messages_in, site_packages

DATA_DIR = Path(__file__).resolve().parent / "data"
DATA_FILE = DATA_DIR / "interactions.json"
MAPPING_FILE = DATA_DIR / "interactions-map.yaml"

KINDS = ("reads-spec-state", "sampling-param", "request-field", "endpoint", "server-arg", "algorithm", "model-class",
         "speculative-file")

# Names of speculative state, read from the pinned source (identifiers counted over the whole wheel):
# the algorithm (speculative_algorithm, spec_algorithm, SpeculativeAlgorithm, is_eagle() ...), the
# per-batch spec info (spec_info, SpecInput*), the draft side (draft_worker, draft_model_runner,
# draft_token_num, num_draft_tokens ...), the speculative server arguments (speculative_*), the
# speculative metrics (spec_verify_ct, spec_accept_length ...) and the MTP/NextN layers of targets.
SPEC_IDENTIFIER = re.compile(
    r"""^(?:
        speculative_\w+ | \w+_speculative\w* | SpeculativeAlgorithm | Spec(?:Input|InputType|Info)\w*
      | spec_(?:info|algorithm|algo|alg|kind|steps|topk|state\w*|input_type|verify\w*|accept\w*|num_\w+
                |tokens\w*|v1|v2\w*|need_hidden_states|capture_hidden_mode|draft\w*|case|cap_\w+
                |correct_drafts\w*|block_accept\w*|decode\w*|total_\w+|hidden_\w+|bonus_tokens|tree\w*)
      | \w*draft\w* | \w*Draft\w* | \w*DRAFT\w* | \w*Eagle\w* | \w*eagle\w* | \w*EAGLE\w*
      | \w*nextn\w* | \w*NextN(?!ode)\w* | \w*mtp\w* | \w*MTP\w*
      | is_(?:standalone|ngram|dflash\w*|dspark\w*|uno|speculative|some)
      | \w*dflash\w* | \w*DFlash\w* | \w*dspark\w* | \w*DSpark\w*
    )$""",
    re.VERBOSE,
)
# Identifiers the pattern catches that are not speculative state: importlib's module spec, and words that
# merely contain the letters (checked against every match in the pinned wheel).
NOT_SPEC_IDENTIFIERS = frozenset({"spec_from_file_location", "is_some"})

# Draft or MTP model classes: by class name, or by file name (sglang/srt/models/<file>.py).
DRAFT_CLASS = re.compile(r"(?:Eagle|EAGLE|MTP|Mtp|NextN|Nextn|Draft|DFlash|Dflash|DSpark|Dspark|Uno(?=[A-Z]))")
DRAFT_FILE = re.compile(r"(?:eagle|mtp|nextn|draft|dflash|dspark|_uno)")
# Methods a target model defines so that a draft can run on it (read from sglang/srt/speculative/*:
# EAGLE-3 captures the target's hidden states at chosen layers; EAGLE and MTP drafts share its
# embedding and LM head).
TARGET_HOOKS = ("set_eagle3_layers_to_capture", "get_embed_and_head", "set_embed_and_head", "set_embed",
                "get_embed")

# Subsystem of a file, by path (first match wins); the names group the map's points for readers.
SUBSYSTEMS: tuple[tuple[str, str], ...] = (
    ("sglang/srt/sampling/*", "sampling"),
    ("sglang/srt/constrained/*", "structured-output"),
    ("sglang/srt/function_call/*", "structured-output"),
    ("sglang/srt/parser/*", "structured-output"),
    ("sglang/srt/layers/sampler.py", "sampling"),
    ("sglang/srt/layers/logits_processor.py", "sampling"),
    ("sglang/srt/entrypoints/*", "runtime-apis"),
    ("sglang/srt/managers/io_struct.py", "runtime-apis"),
    ("sglang/srt/managers/tokenizer_*", "runtime-apis"),
    ("sglang/srt/managers/detokenizer*", "request-output"),
    ("sglang/srt/managers/scheduler_output_processor_mixin.py", "request-output"),
    ("sglang/srt/observability/*", "observability"),
    ("sglang/srt/managers/scheduler_metrics*", "observability"),
    ("sglang/srt/disaggregation/*", "disaggregation"),
    ("sglang/srt/mem_cache/*", "kv-memory"),
    ("sglang/srt/kv_canary/*", "kv-memory"),
    ("sglang/srt/managers/cache_controller*", "kv-memory"),
    ("sglang/srt/layers/attention/*", "attention-backends"),
    ("sglang/srt/layers/moe/*", "parallelism"),
    ("sglang/srt/layers/dp_attention.py", "parallelism"),
    ("sglang/srt/layers/communicator*", "parallelism"),
    ("sglang/srt/distributed/*", "parallelism"),
    ("sglang/srt/eplb/*", "parallelism"),
    ("sglang/srt/elastic_ep/*", "parallelism"),
    ("sglang/srt/batch_overlap/*", "parallelism"),
    ("sglang/srt/managers/data_parallel*", "parallelism"),
    ("sglang/srt/model_executor/*cuda_graph*", "cuda-graphs"),
    ("sglang/srt/model_executor/*graph*", "cuda-graphs"),
    ("sglang/srt/compilation/*", "cuda-graphs"),
    ("sglang/srt/managers/*", "scheduling"),
    ("sglang/srt/model_executor/*", "model-executor"),
    ("sglang/srt/hardware_backend/*", "hardware"),
    ("sglang/srt/platforms/*", "hardware"),
    ("sglang/srt/models/*", "models"),
    ("sglang/srt/model_loader/*", "model-loading"),
    ("sglang/srt/configs/*", "model-loading"),
    ("sglang/srt/lora/*", "lora"),
    ("sglang/srt/multimodal/*", "multimodal"),
    ("sglang/srt/arg_groups/*", "server-args"),
    ("sglang/srt/server_args.py", "server-args"),
    ("sglang/srt/layers/*", "layers"),
    ("sglang/srt/speculative/*", "algorithms"),
    ("sglang/srt/*", "runtime-other"),
    ("sglang/test/*", "test-utilities"),
    ("sglang/kernels/ops/speculative/*", "speculative-kernels"),
    ("sglang/kernels/*", "kernels"),
    ("sglang/api/*", "runtime-apis"),
    ("sglang/bench*", "benchmarks"),
    ("sglang/benchmark/*", "benchmarks"),
    ("sglang/*", "tools-other"),
)
SPECULATIVE_DIR = "sglang/srt/speculative/"


@dataclass(frozen=True)
class Point:
    """One interaction point (see the module docstring for the kinds and the meaning of each field)."""

    id: str
    kind: str
    file: str
    qualname: str
    line: int
    subsystem: str
    reads: tuple[str, ...] = ()  # the speculative names it reads (reads-spec-state), sorted
    detail: dict = field(default_factory=dict, compare=False)


def subsystem_of(rel: str) -> str:
    """The subsystem of a file path relative to ``site-packages`` (first matching :data:`SUBSYSTEMS` glob)."""
    for pattern, name in SUBSYSTEMS:
        if fnmatch.fnmatchcase(rel, pattern):
            return name
    return "other"


def is_spec_identifier(name: str) -> bool:
    """Whether an identifier (or a string constant) names speculative state."""
    return name not in NOT_SPEC_IDENTIFIERS and bool(SPEC_IDENTIFIER.match(name))


def _names(node: ast.AST) -> Iterator[str]:
    """Every identifier a subtree uses: names, attributes, keyword names and identifier-like strings."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            yield sub.id
        elif isinstance(sub, ast.Attribute):
            yield sub.attr
        elif isinstance(sub, ast.keyword) and sub.arg:
            yield sub.arg
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value.isidentifier():
            yield sub.value


def _spec_reads(nodes: Iterable[ast.AST]) -> tuple[str, ...]:
    found = {name for node in nodes for name in _names(node) if is_spec_identifier(name)}
    return tuple(sorted(found))


def _python_files(root: Path, package: str = "sglang") -> Iterator[tuple[str, ast.Module]]:
    """(path relative to ``root``, parsed module) of every ``*.py`` under ``root/package``, sorted."""
    for path in sorted((root / package).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        except (SyntaxError, UnicodeDecodeError):
            continue
        yield rel, tree


@dataclass
class _Unit:
    qualname: str
    line: int
    nodes: list[ast.AST]
    func: ast.AST | None = None  # the def, for units that are functions


def _units(tree: ast.Module) -> Iterator[_Unit]:
    """The functions and methods of a module (nested classes as ``A.B.m``), then its class bodies and its
    module-level statements, each as one unit."""
    module_level: list[ast.AST] = []

    def visit_class(cls: ast.ClassDef, prefix: str) -> Iterator[_Unit]:
        body: list[ast.AST] = []
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield _Unit(f"{prefix}{cls.name}.{stmt.name}", stmt.lineno, [stmt], stmt)
            elif isinstance(stmt, ast.ClassDef):
                yield from visit_class(stmt, f"{prefix}{cls.name}.")
            else:
                body.append(stmt)
        body.extend(cls.decorator_list)
        body.extend(cls.bases)
        if body:
            yield _Unit(f"{prefix}{cls.name}", cls.lineno, body)

    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield _Unit(stmt.name, stmt.lineno, [stmt], stmt)
        elif isinstance(stmt, ast.ClassDef):
            yield from visit_class(stmt, "")
        elif not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            module_level.append(stmt)
    if module_level:
        yield _Unit("<module>", module_level[0].lineno, module_level)


def _called_names(func: ast.AST) -> set[str]:
    """The bare names of every function a subtree calls: ``f(...)`` -> f, ``a.b.f(...)`` -> f."""
    out = set()
    for sub in ast.walk(func):
        if isinstance(sub, ast.Call):
            if isinstance(sub.func, ast.Name):
                out.add(sub.func.id)
            elif isinstance(sub.func, ast.Attribute):
                out.add(sub.func.attr)
    return out


class _Source:
    """The parsed wheel, read once: modules, their units, and which functions read speculative state."""

    def __init__(self, root: Path, package: str = "sglang"):
        self.root = root
        self._spec_dir_names: dict[str, set[str]] | None = None
        self.modules = dict(_python_files(root, package))
        self.units: dict[str, list[_Unit]] = {rel: list(_units(tree)) for rel, tree in self.modules.items()}
        # bare function name -> [(file, qualname)] of the functions of that name that read spec state
        self.spec_functions: dict[str, list[tuple[str, str]]] = {}
        # bare function name -> the defs of that name under sglang/srt/{entrypoints,managers}
        self.defs_by_name: dict[str, list[ast.AST]] = {}
        for rel, units in self.units.items():
            for unit in units:
                if unit.func is None:
                    continue
                bare = unit.qualname.rsplit(".", 1)[-1]
                if _spec_reads(unit.nodes):
                    self.spec_functions.setdefault(bare, []).append((rel, unit.qualname))
                if "/srt/entrypoints/" in rel or "/srt/managers/" in rel:
                    self.defs_by_name.setdefault(bare, []).append(unit.func)

    def find_class(self, rel: str, name: str) -> ast.ClassDef | None:
        tree = self.modules.get(rel)
        if tree is None:
            return None
        return next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)

    def files_naming(self, name: str) -> list[str]:
        """Files under ``sglang/srt/speculative/`` whose code names ``name`` (attribute, name, keyword or
        string)."""
        if self._spec_dir_names is None:
            self._spec_dir_names = {rel: set(_names(tree)) for rel, tree in self.modules.items()
                                    if rel.startswith(SPECULATIVE_DIR)}
        return [rel for rel, names in self._spec_dir_names.items() if name in names]


def _function_points(src: _Source) -> Iterator[Point]:
    for rel, units in src.units.items():
        if rel.startswith(SPECULATIVE_DIR):
            continue
        for unit in units:
            reads = _spec_reads(unit.nodes)
            if reads:
                messages = _spec_messages(rel, unit)
                yield Point(f"fn:{rel}::{unit.qualname}", "reads-spec-state", rel, unit.qualname, unit.line,
                            subsystem_of(rel), reads, {"messages": messages} if messages else {})


def _spec_messages(rel: str, unit: _Unit) -> list[str]:
    """The distinct texts a user can see from a function unit that name speculative decoding, in source
    order (``[]`` for class bodies and module-level statements)."""
    if unit.func is None:
        return []
    texts = [m.text for m in messages_in(unit.func, rel, unit.qualname) if re.search(SPECULATIVE_TEXT, m.text)]
    return list(dict.fromkeys(texts))


def _class_fields(cls: ast.ClassDef) -> Iterator[tuple[str, int]]:
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            yield stmt.target.id, stmt.lineno


def _field_points(src: _Source, rel: str, cls_name: str, kind: str, prefix: str) -> Iterator[Point]:
    cls = src.find_class(rel, cls_name)
    if cls is None:
        return
    for name, line in _class_fields(cls):
        yield Point(f"{prefix}:{name}", kind, rel, f"{cls_name}.{name}", line, "request-output",
                    detail={"spec_files": src.files_naming(name)})


ROUTE_DECORATOR = re.compile(r"^(?:app|router|\w+_router|\w+_app)$")
ROUTE_METHODS = {"get": "GET", "post": "POST", "put": "PUT", "delete": "DELETE", "patch": "PATCH",
                 "api_route": "*", "websocket": "WS"}


def _route_of(decorator: ast.AST) -> tuple[str, str] | None:
    """(method, path) of a FastAPI route decorator ``@app.post("/x")`` / ``@app.api_route("/x", methods=[..])``."""
    if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)):
        return None
    target = decorator.func
    if target.attr not in ROUTE_METHODS or not isinstance(target.value, ast.Name):
        return None
    if not ROUTE_DECORATOR.match(target.value.id):
        return None
    if not (decorator.args and isinstance(decorator.args[0], ast.Constant) and isinstance(decorator.args[0].value, str)):
        return None
    method = ROUTE_METHODS[target.attr]
    for kw in decorator.keywords:
        if kw.arg == "methods" and isinstance(kw.value, (ast.List, ast.Tuple)):
            method = ",".join(sorted(e.value for e in kw.value.elts if isinstance(e, ast.Constant)))
    return method, decorator.args[0].value


def _spec_calls(src: _Source, func: ast.AST, depth: int = 2) -> list[str]:
    """``file::qualname`` of the speculative-state readers that ``func`` reaches by calling them by name,
    looking ``depth`` calls deep through the functions of ``sglang/srt/entrypoints`` and ``managers``."""
    seen: set[str] = set()
    frontier = _called_names(func)
    found: set[str] = set()
    for _ in range(depth):
        nxt: set[str] = set()
        for name in frontier - seen:
            seen.add(name)
            found.update(f"{f}::{q}" for f, q in src.spec_functions.get(name, []))
            for d in src.defs_by_name.get(name, []):
                nxt |= _called_names(d)
        frontier = nxt
    return sorted(found)


def _endpoint_points(src: _Source) -> Iterator[Point]:
    for rel, tree in src.modules.items():
        if not rel.startswith("sglang/srt/"):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for dec in node.decorator_list:
                route = _route_of(dec)
                if route is None:
                    continue
                method, path = route
                reads = _spec_reads([node])
                yield Point(f"http:{method} {path}", "endpoint", rel, node.name, node.lineno, subsystem_of(rel),
                            reads, detail={"spec_calls": _spec_calls(src, node)})
    engine_file = "sglang/srt/entrypoints/engine.py"
    engine = src.find_class(engine_file, "Engine")
    if engine is not None:
        for stmt in engine.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.name.startswith("_"):
                yield Point(f"engine:Engine.{stmt.name}", "endpoint", engine_file, f"Engine.{stmt.name}",
                            stmt.lineno, "runtime-apis", _spec_reads([stmt]),
                            detail={"spec_calls": _spec_calls(src, stmt)})


def _server_fields(src: _Source) -> set[str]:
    names = set()
    for rel, tree in src.modules.items():
        if rel.startswith("sglang/srt/arg_groups/fields/"):
            for cls in tree.body:
                if isinstance(cls, ast.ClassDef):
                    names.update(name for name, _ in _class_fields(cls))
    return names


def _server_arg_points(src: _Source) -> Iterator[Point]:
    fields = _server_fields(src)
    reads: dict[str, list[tuple[str, str, int]]] = {}
    for rel, units in src.units.items():
        if not fnmatch.fnmatchcase(rel, "sglang/srt/arg_groups/*_hook.py"):
            continue
        whole = rel.endswith("/speculative_hook.py")
        for unit in units:
            if unit.func is None or not (whole or _spec_reads(unit.nodes)):
                continue
            for sub in ast.walk(unit.func):
                if isinstance(sub, ast.Attribute) and sub.attr in fields:
                    reads.setdefault(sub.attr, []).append((rel, unit.qualname, sub.lineno))
    for name in sorted(reads):
        sites = sorted(set(reads[name]), key=lambda s: (s[0], s[2]))
        rel, qualname, line = sites[0]
        rules = sorted({f"{f}::{q}" for f, q, _ in sites})
        yield Point(f"arg:{name}", "server-arg", rel, qualname, line, "server-args", detail={"rules": rules})


def _algorithm_points(src: _Source) -> Iterator[Point]:
    rel = "sglang/srt/speculative/spec_info.py"
    cls = src.find_class(rel, "SpeculativeAlgorithm")
    if cls is not None:
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name != "NONE":
                    yield Point(f"algorithm:{name}", "algorithm", rel, f"SpeculativeAlgorithm.{name}",
                                stmt.lineno, "algorithms")
    reg = "sglang/srt/speculative/spec_registry.py"
    tree = src.modules.get(reg)
    for stmt in tree.body if tree else ():
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        if isinstance(stmt, ast.AnnAssign | ast.Assign) and "_RESERVED_ALIASES" in {getattr(t, "id", None)
                                                                                     for t in targets}:
            for const in ast.walk(stmt.value):
                if isinstance(const, ast.Constant) and isinstance(const.value, str):
                    yield Point(f"algorithm:{const.value}", "algorithm", reg, "_RESERVED_ALIASES", stmt.lineno,
                                "algorithms", detail={"alias": True})


# -- speculative-file points: the files of sglang/srt/speculative/ and the workers that import them -------

SPEC_PACKAGE = "sglang.srt.speculative"
# Left out of the import traversal (reached, but what they import is not followed): spec_info.py holds
# create_worker, which imports every worker, and a third of the folder imports spec_info.py (21 of 66 files in
# the pinned wheel), so following it would make those files, and all they import, reachable from every
# worker; spec_registry.py imports spec_info.py back (function-level). :func:`_hubs` adds, from the source,
# the files every worker imports directly (in the pinned wheel base_spec_worker.py and spec_utils.py, whose
# function-level imports reach uno_info.py and eagle_utils.py): shared machinery, whose own imports say
# nothing about which algorithm runs a file.
NOT_TRAVERSED = ("sglang/srt/speculative/spec_info.py", "sglang/srt/speculative/spec_registry.py")


def _module_file(src: _Source, dotted: str) -> str | None:
    """The file of a dotted module name in the parsed wheel (``a/b.py`` or ``a/b/__init__.py``), else None."""
    base = dotted.replace(".", "/")
    return next((rel for rel in (f"{base}.py", f"{base}/__init__.py") if rel in src.modules), None)


def _spec_imports(src: _Source, rel: str) -> set[str]:
    """Files of ``sglang/srt/speculative/`` that module ``rel`` imports anywhere in its body (function-level
    imports too): ``import sglang.srt.speculative.x``, ``from sglang.srt.speculative.x import y`` (and
    ``x/y.py`` when ``y`` is a submodule), relative imports resolved against ``rel``'s package."""
    package = rel.rsplit("/", 1)[0].replace("/", ".")
    out: set[str] = set()
    for node in ast.walk(src.modules[rel]):
        if isinstance(node, ast.Import):
            dotted = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            dotted = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in dotted:
            if name == SPEC_PACKAGE or name.startswith(SPEC_PACKAGE + "."):
                found = _module_file(src, name)
                if found is not None:
                    out.add(found)
    out.discard(rel)
    return out


def worker_modules(src: _Source) -> list[str]:
    """The worker modules, as files relative to ``site-packages``, in the order
    ``SpeculativeAlgorithm.create_worker`` (``sglang/srt/speculative/spec_info.py``) imports them: every
    ``from sglang.srt.speculative.<mod> import`` inside that method (``dspark_components/dspark_worker_v2.py``
    too). ``[]`` when the file, the class or the method is missing; raises nothing.

    :param src: the parsed wheel (the internal ``_Source`` of :func:`extract`).
    """
    cls = src.find_class("sglang/srt/speculative/spec_info.py", "SpeculativeAlgorithm")
    method = next((s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
                   and s.name == "create_worker"), None) if cls else None
    out: list[str] = []
    for node in ast.walk(method) if method else ():
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith(SPEC_PACKAGE + "."):
            found = _module_file(src, node.module)
            if found is not None and found not in out:
                out.append(found)
    return out


def _hubs(src: _Source, workers: list[str]) -> set[str]:
    """The files every worker module of ``workers`` imports directly (:func:`_spec_imports`), plus
    :data:`NOT_TRAVERSED`: the files whose imports :func:`_closure` does not follow."""
    direct = [_spec_imports(src, w) for w in workers]
    return set(NOT_TRAVERSED) | (set.intersection(*direct) if direct else set())


def _closure(src: _Source, start: str, hubs: set[str]) -> set[str]:
    """``start`` and every file of ``sglang/srt/speculative/`` it reaches through :func:`_spec_imports`,
    entering ``hubs`` but not following their imports."""
    seen, todo = {start}, [start]
    while todo:
        for rel in _spec_imports(src, todo.pop()):
            if rel not in seen:
                seen.add(rel)
                if rel not in hubs:
                    todo.append(rel)
    return seen


def _speculative_file_points(src: _Source) -> Iterator[Point]:
    workers = worker_modules(src)
    hubs = _hubs(src, workers)
    reach = {w: _closure(src, w, hubs) for w in workers}
    for rel, tree in src.modules.items():
        if not rel.startswith(SPECULATIVE_DIR):
            continue
        messages = [[qualname, m.text] for qualname, func in functions_of(tree).items()
                    for m in messages_in(func, rel, qualname)]
        if not messages:
            continue
        workers = sorted(Path(w).stem for w, files in reach.items() if rel in files)
        yield Point(f"specfile:{rel}", "speculative-file", rel, "<module>", 1, subsystem_of(rel),
                    detail={"messages": messages, "workers": workers})


def _entry_classes(tree: ast.Module) -> set[str]:
    out = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(getattr(t, "id", None) == "EntryClass" for t in stmt.targets):
            out.update(n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name))
    return out


def _model_points(src: _Source) -> Iterator[Point]:
    for rel, tree in src.modules.items():
        if not rel.startswith("sglang/srt/models/"):
            continue
        entry = _entry_classes(tree)
        draft_file = bool(DRAFT_FILE.search(rel.rsplit("/", 1)[-1]))
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef):
                continue
            methods = {s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
            hooks = sorted(methods & set(TARGET_HOOKS))
            is_draft = bool(DRAFT_CLASS.search(cls.name)) or (draft_file and cls.name in entry)
            if not (is_draft or hooks):
                continue
            bases = [ast.unparse(b) for b in cls.bases]
            yield Point(f"model:{rel}::{cls.name}", "model-class", rel, cls.name, cls.lineno, "models",
                        detail={"role": "draft" if is_draft else "target", "target_hooks": hooks,
                                "registered": cls.name in entry, "bases": bases})


def extract(root: Path | None = None, package: str = "sglang") -> list[Point]:
    """Every interaction point of the SGLang installed under ``root`` (default: the pinned wheel in this
    environment), sorted by kind then id. ``root`` is a folder laid out like ``site-packages``.

    :raises RuntimeError: no root given and SGLang is not installed.
    """
    src = _Source(root or site_packages(), package)
    points: list[Point] = []
    points += _function_points(src)
    points += _field_points(src, "sglang/srt/sampling/sampling_params.py", "SamplingParams",
                            "sampling-param", "param")
    points += _field_points(src, "sglang/srt/managers/io_struct.py", "GenerateReqInput", "request-field", "request")
    points += _endpoint_points(src)
    points += _server_arg_points(src)
    points += _algorithm_points(src)
    points += _model_points(src)
    points += _speculative_file_points(src)
    unique = {p.id: p for p in points}  # a route declared twice (two apps) is one point
    return sorted(unique.values(), key=lambda p: (KINDS.index(p.kind), p.id))


def dumps(points: Iterable[Point]) -> str:
    """The data file's text: a JSON list, one point per line (so a pin move diffs point by point)."""
    lines = [json.dumps(asdict(p), sort_keys=True) for p in points]
    return "[\n" + ",\n".join(lines) + "\n]\n"


def load(path: Path = DATA_FILE) -> list[Point]:
    """The points stored in a data file written by :func:`dumps`."""
    return [Point(**{**d, "reads": tuple(d.get("reads", ()))}) for d in json.loads(path.read_text())]


# -- The mapping: points -> sections --------------------------------------------------------------

NO_EFFECT = "no-user-visible-effect"


@dataclass(frozen=True)
class Rule:
    """One mapping rule: the points it matches go to ``section``, or are marked no-effect with ``reason``.

    Matching (every given key must hold): ``kind`` (exact), ``subsystem`` (exact), ``role`` (exact, against
    ``detail["role"]``, which only ``model-class`` points have: ``draft`` or ``target``), ``file`` and
    ``qualname`` (:mod:`fnmatch` globs), ``id`` (glob), ``workers`` (glob against
    ``",".join(detail["workers"])``, ``""`` when a point has none: only ``speculative-file`` points have
    workers, so ``workers: "*,*"`` matches a file two or more workers import and ``workers: ""`` one none does).
    """

    match: dict
    section: str | None
    reason: str | None

    def matches(self, point: Point) -> bool:
        m = self.match
        return (m.get("kind", point.kind) == point.kind
                and m.get("subsystem", point.subsystem) == point.subsystem
                and ("role" not in m or point.detail.get("role") == m["role"])
                and fnmatch.fnmatchcase(point.file, m.get("file", "*"))
                and fnmatch.fnmatchcase(point.qualname, m.get("qualname", "*"))
                and fnmatch.fnmatchcase(point.id, m.get("id", "*"))
                and ("workers" not in m
                     or fnmatch.fnmatchcase(",".join(point.detail.get("workers", ())), m["workers"])))


@dataclass(frozen=True)
class Mapping:
    """The hand-written mapping (``interactions-map.yaml``): per-point overrides first, then rules in order.

    File layout::

        overrides:                 # point id -> section label, or {no-effect: reason}
          "param:temperature": ix-request-output-sampling
          "param:is_normalized": {no-effect: "set by normalize(), not a request field"}
        rules:                     # first matching rule wins
          - match: {kind: reads-spec-state, subsystem: kv-memory}
            section: ix-kv-memory
          - match: {file: "sglang/test/*"}
            no-effect: "test helpers: nothing a server user runs"
          - match: {kind: speculative-file, workers: "uno_worker_v2"}   # files only the UNO worker imports
            section: uno-howto

    Match keys: see :class:`Rule` (``kind``, ``subsystem``, ``role``, ``file``, ``qualname``, ``id``,
    ``workers``).
    """

    overrides: dict
    rules: tuple[Rule, ...]


def load_mapping(path: Path = MAPPING_FILE) -> Mapping:
    """Read a mapping file (layout in :class:`Mapping`).

    A rule's ``match`` takes the keys of :class:`Rule`: ``kind``, ``subsystem``, ``role``, ``file``,
    ``qualname``, ``id``, ``workers`` (a glob against a ``speculative-file`` point's comma-joined workers).

    :raises ValueError: a rule or override with both or neither of ``section`` and ``no-effect``, or an
        unknown match key.
    """
    data = yaml.safe_load(path.read_text()) or {}
    rules = []
    for i, raw in enumerate(data.get("rules") or []):
        match = raw.get("match") or {}
        unknown = set(match) - {"kind", "subsystem", "role", "file", "qualname", "id", "workers"}
        if unknown:
            raise ValueError(f"{path.name}: rule {i + 1} has unknown match keys {sorted(unknown)}")
        if ("section" in raw) == ("no-effect" in raw):
            raise ValueError(f"{path.name}: rule {i + 1} needs exactly one of section and no-effect")
        rules.append(Rule(match, raw.get("section"), raw.get("no-effect")))
    overrides = {}
    for pid, value in (data.get("overrides") or {}).items():
        if isinstance(value, dict) and set(value) != {"no-effect"}:
            raise ValueError(f"{path.name}: override {pid!r} must be a label or {{no-effect: reason}}")
        overrides[pid] = value
    return Mapping(overrides, tuple(rules))


@dataclass(frozen=True)
class Resolution:
    """Where one point is explained: ``section`` (a label) or ``reason`` (no user-visible effect);
    ``by`` says which override or rule decided it (``override`` or ``rule N``), None when unmapped."""

    section: str | None
    reason: str | None
    by: str | None


def resolve(point: Point, mapping: Mapping) -> Resolution:
    """The section of one point under a mapping (overrides first, then the first matching rule)."""
    value = mapping.overrides.get(point.id)
    if value is not None:
        if isinstance(value, dict):
            return Resolution(None, value["no-effect"], "override")
        return Resolution(value, None, "override")
    for i, rule in enumerate(mapping.rules):
        if rule.matches(point):
            return Resolution(rule.section, rule.reason, f"rule {i + 1}")
    return Resolution(None, None, None)


def coverage_problems(points: Iterable[Point], mapping: Mapping, labels: set[str] | None) -> list[str]:
    """One message per point that is not covered, naming it: unmapped, or mapped to a label not in
    ``labels`` (the site's ``std:label`` names; None skips that check); also overrides naming no point.
    An empty list means complete coverage."""
    points = list(points)
    problems = []
    for p in points:
        r = resolve(p, mapping)
        where = f"{p.id} ({p.file}:{p.line})"
        if r.by is None:
            problems.append(f"unmapped point: {where}")
        elif r.section is not None and labels is not None and r.section not in labels:
            problems.append(f"point {where} maps ({r.by}) to {r.section!r}, which the site does not define")
        elif r.section is None and not (r.reason or "").strip():
            problems.append(f"point {where} is marked no-effect ({r.by}) without a reason")
    ids = {p.id for p in points}
    problems += [f"override for a point that no longer exists: {pid}" for pid in mapping.overrides if pid not in ids]
    return problems


# The page-level labels of the issue 22 subsystem pages (docs/reference/interactions/*.md, one label at the top
# of each page; the names were agreed between the helpers). A reads-spec-state point that resolves to one of
# them says only "somewhere on this page": nobody decided what it does for a user.
PAGE_LABELS = frozenset({"ix-index", "ix-request-output", "ix-runtime-apis", "ix-kv-memory", "ix-scheduling",
                         "ix-parallelism", "ix-disaggregation", "ix-hardware", "ix-model-architectures"})
PAGE_TOP_FILE = DATA_DIR / "interactions-page-top.yaml"


def load_page_top_allowance(path: Path = PAGE_TOP_FILE) -> dict[str, str]:
    """The reasoned allow-list of reads-spec-state points still allowed at a page top: point id -> reason
    (why it is not decided yet). File layout: ``points: {id: reason}``.

    :raises ValueError: an entry without a one-line reason.
    """
    data = yaml.safe_load(path.read_text()) or {}
    points = data.get("points") or {}
    for pid, reason in points.items():
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason.strip():
            raise ValueError(f"{path.name}: {pid!r} needs a one-line reason")
    return dict(points)


def page_top_problems(points: Iterable[Point], mapping: Mapping, allowed: Iterable[str] = (),
                      page_labels: frozenset[str] = PAGE_LABELS) -> list[str]:
    """One message per ``reads-spec-state`` point that resolves to a page-level label (``page_labels``)
    instead of a section or a no-effect reason, naming the point, unless its id is in ``allowed``; and one
    per allowed id that no longer sits at a page top (so the allow-list only shrinks).
    An empty list means every such point reaches a section or a reason."""
    allowed = set(allowed)
    problems, at_top = [], set()
    for p in points:
        if p.kind != "reads-spec-state":
            continue
        r = resolve(p, mapping)
        if r.section in page_labels:
            at_top.add(p.id)
            if p.id not in allowed:
                problems.append(f"point {p.id} ({p.file}:{p.line}) maps ({r.by}) to the page top {r.section!r}")
    problems += [f"allowed at a page top but no longer there: {pid}" for pid in sorted(allowed - at_top)]
    return problems


# Kinds whose points a reader looks up by name: each must be named by the section it maps to.
NAMED_KINDS = ("request-field", "sampling-param", "endpoint")


def point_name(point: Point) -> str:
    """What a section must write to name a point of :data:`NAMED_KINDS`: the field name
    (``request:rid`` -> ``rid``, ``param:top_k`` -> ``top_k``), the method name of an Engine method
    (``engine:Engine.shutdown`` -> ``shutdown``), the path of an HTTP route
    (``http:GET,POST /open_session`` -> ``/open_session``; the root route ``http:GET /`` -> ``GET /``).

    :raises ValueError: a point of another kind.
    """
    if point.kind not in NAMED_KINDS:
        raise ValueError(f"{point.id}: kind {point.kind} is not looked up by name")
    rest = point.id.split(":", 1)[1]
    if point.id.startswith("http:"):
        path = rest.split(" ", 1)[1]
        return "GET /" if path == "/" else path
    if point.id.startswith("engine:"):
        return rest.removeprefix("Engine.")
    return rest


def names_point(text: str, point: Point) -> bool:
    """Whether ``text`` names ``point`` (:func:`point_name`) as a whole word: an identifier not inside a
    longer identifier; a path not inside a longer path (``/encode`` is not named by ``/encoder`` nor
    ``/v1/encode``, but is by ``localhost:30000/encode``); an Engine
    method not by the route of the same name (``/generate`` does not name ``Engine.generate``)."""
    name = point_name(point)
    if point.id.startswith("http:"):
        # a path stands alone, or follows a host's port (http://127.0.0.1:30000/generate)
        pattern = r"(?:(?<![\w/])|(?<=:\d{4})|(?<=:\d{5}))" + re.escape(name) + r"(?![\w/{-])"
    elif point.id.startswith("engine:"):  # the route /generate does not name Engine.generate
        pattern = r"(?<![\w/])" + re.escape(name) + r"(?!\w)"
    else:
        pattern = r"(?<!\w)" + re.escape(name) + r"(?!\w)"
    return re.search(pattern, text) is not None


def unnamed_points(points: Iterable[Point], mapping: Mapping, section_text) -> list[str]:
    """One message per point of :data:`NAMED_KINDS` that maps to a section whose text does not name it
    (:func:`names_point`); no-effect points (with a reason) and unmapped points are left to
    :func:`coverage_problems`.

    :param section_text: a callable, label -> the section's reader-visible text (str), or None when the
        site has no such section (reported too).
    """
    problems = []
    texts: dict[str, str | None] = {}
    for p in points:
        if p.kind not in NAMED_KINDS:
            continue
        r = resolve(p, mapping)
        if r.section is None:
            continue
        if r.section not in texts:
            texts[r.section] = section_text(r.section)
        text = texts[r.section]
        if text is None:
            problems.append(f"point {p.id} maps ({r.by}) to {r.section!r}, which has no text on the site")
        elif not names_point(text, p):
            problems.append(f"point {p.id} maps ({r.by}) to {r.section!r}, whose text does not name "
                            f"{point_name(p)!r}: name it there or mark it no-effect with a reason")
    return problems


def summary(points: Iterable[Point], mapping: Mapping) -> dict[str, Counter]:
    """Per subsystem: points, mapped (to a section) and marked no-effect, as a Counter with keys
    ``points``, ``mapped``, ``no-effect``, ``unmapped``."""
    out: dict[str, Counter] = {}
    for p in points:
        r = resolve(p, mapping)
        c = out.setdefault(p.subsystem, Counter())
        c["points"] += 1
        c["mapped" if r.section else "no-effect" if r.reason else "unmapped"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m speccheck.interactions [--out FILE] [--check] [--summary]``: write the data file,
    or (``--check``) exit 1 when it differs from the pinned wheel, or print counts per subsystem."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA_FILE)
    parser.add_argument("--check", action="store_true", help="compare the data file with the wheel")
    parser.add_argument("--summary", action="store_true", help="print points per subsystem and their mapping")
    args = parser.parse_args(argv)
    if args.summary and not args.check:  # counts of the data file as written
        for name, c in sorted(summary(load(args.out), load_mapping()).items()):
            print(f"{name:22} {c['points']:5} mapped {c['mapped']:5} no-effect {c['no-effect']:5} "
                  f"unmapped {c['unmapped']:5}")
        return 0
    points = extract()
    text = dumps(points)
    if args.check:
        if args.out.read_text() != text:
            print(f"{args.out} is out of date: run `make interactions`", file=sys.stderr)
            return 1
    else:
        args.out.write_text(text)
        print(f"{len(points)} points -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def eagle3_target_classes(root: Path | None = None) -> list[str]:
    """Names of the model classes of the pinned SGLang that can feed an EAGLE-3 draft, sorted.

    A class qualifies when it defines ``set_eagle3_layers_to_capture`` (the hook the EAGLE-3 worker calls
    to capture the target's hidden states, :data:`TARGET_HOOKS`; these are the map's ``model-class``
    points with that hook) or inherits it from such a class (``MistralForCausalLM(LlamaForCausalLM)``):
    the bases are read by name over every module of ``sglang/srt/models/``.

    :param root: a folder laid out like ``site-packages`` (default: the pinned wheel in this environment).
    :raises RuntimeError: no root given and SGLang is not installed.
    """
    models = (root or site_packages()) / "sglang" / "srt" / "models"
    bases: dict[str, set[str]] = {}
    qualified: set[str] = set()
    for path in sorted(models.glob("*.py")):
        for cls in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            bases.setdefault(cls.name, set()).update(ast.unparse(b).rsplit(".", 1)[-1] for b in cls.bases)
            if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == TARGET_HOOKS[0]
                   for s in cls.body):
                qualified.add(cls.name)
    grown = True
    while grown:
        grown = False
        for name, parents in bases.items():
            if name not in qualified and parents & qualified:
                qualified.add(name)
                grown = True
    return sorted(qualified)
