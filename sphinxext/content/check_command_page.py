"""Data for the "Check a command" page (``docs/reference/check-a-command.md``), written at build time.

The page's script (``docs/_static/check-command.js``) checks a pasted SGLang
launch command in the browser. Everything it knows comes from the file this
extension writes, ``_static/check-command-data.js`` in the output, which sets
``window.SGLANG_CHECK_DATA``:

- ``options``: every option of the pinned server parser (:func:`sglang_args.pinned_parser`):
  spellings, ``nargs``, value type, choices, default, required and SGLang's
  deprecation target: the fields ``check-command.js`` reads. The help texts are left out
  (no script reads them, and they were more than half of the file's compressed size; the
  "Build a command" page loads this file too). It is never written by hand.
- ``facts``: what the start-up rules need from SGLang's source, read with
  :mod:`ast` (:func:`spec_rules.source_facts` and :func:`source_extras`):
  backends that run a tree on pages, architectures that carry their own draft
  layer, the automatic trees, the algorithm names, the request cap, the page
  sizes some attention backends force, the adaptive step candidates; and the
  model -> architecture table of ``model_architectures.yaml``.
- ``history``: ``speccheck/data/flag-history.json`` (``tools/flag_history.py``): its
  releases, its variables, and the flags the pinned parser does not have (the script
  explains only those; the others' histories would only weigh the page).
- ``links``: the guide sections each result links to, resolved from their labels
  (a missing label fails the build).

Only the page that holds ``<div id="check-command">`` loads the file and the
script (its raw HTML names them), so no other page gets heavier.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
from pathlib import Path

from speccheck import history as speccheck_history
from speccheck import sglang_args, spec_rules
from speccheck.pinned import checker_digest

ROOT = Path(__file__).resolve().parents[2]
HISTORY_FILE = ROOT / "speccheck" / "data" / "flag-history.json"
PAGE = "reference/check-a-command"
OUTPUT = "check-command-data.js"

# Result kind -> the label of the guide section that explains it.
LINKS = {
    "all-or-none": "tune-all-or-none",
    "topk-one": "tune-topk-one",
    "auto-tree": "tune-auto-defaults",
    "request-cap": "request-cap",
    "deepseek-v4": "mtp-deepseek-v4",
    "deepep-v2": "ix-parallelism-moe",
    "draft-path": "draft-path-rule",
    "topk-backends": "compat-topk-backends",
    "page-size": "compat-page-size",
    "dp-attention": "compat-dp-attention",
    "rejection-sampling": "compat-rejection-sampling",
    "algorithm": "trouble-wrong-algorithm",
    "renamed": "release-changes",
    "unknown-flag": "server-arguments",
    "value": "server-arguments",
    "parser": "server-arguments-checks",
    "dflash": "dflash-howto",
    "ngram": "ngram-howto",
    "standalone": "standalone-howto",
    "cuda-graph": "trouble-cuda-graph",
    "example-values": "trouble-example-values",
    "tree-limits": "tune-limits",
    "adaptive": "tune-chain-vs-tree",
    "overlap": "compat-overlap",
}


def _json_value(value):
    """A parser default as JSON: numbers, strings, booleans and lists as they are, anything else as text."""
    if value is None or value is argparse.SUPPRESS:
        return None
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, (bool, int, float, str)) for v in value):
        return list(value)
    return str(value)


def option_table(parser: argparse.ArgumentParser) -> list[dict]:
    """Every option of ``parser`` except ``--help``, as the page's script reads it.

    :returns: dicts with ``flags`` (the option strings, long first), ``dest``,
        ``nargs`` (``null``, ``"?"``, ``"+"``, ``"*"`` or a count; 0 for a switch),
        ``type`` (``"int"``, ``"float"``, ``"str"`` or the type function's name),
        ``choices`` (text, or ``null``), ``default``, ``const``, ``required``,
        ``deprecated`` (SGLang's ``Deprecated*Action``), ``new_flag``, ``error_message`` (a retired flag
        that stops the parser with this text).
    """
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or not action.option_strings:
            continue
        kind = "str" if action.type is None else getattr(action.type, "__name__", type(action.type).__name__)
        choices = None if action.choices is None else [str(c) for c in action.choices]
        if isinstance(action.choices, (set, frozenset)):  # no order of its own: sorted, so every build is the same
            choices.sort()
        out.append({
            "flags": sorted(action.option_strings, key=lambda s: not s.startswith("--")),
            "dest": action.dest,
            "nargs": action.nargs,
            "type": kind,
            "choices": choices,
            "default": _json_value(action.default),
            "const": _json_value(action.const),
            "required": bool(action.required),
            "deprecated": type(action).__name__.startswith("Deprecated"),
            "new_flag": getattr(action, "new_flag", None),
            "error_message": getattr(action, "error_message", None),
        })
    return out


def _parse(rel: str) -> ast.Module:
    return ast.parse((spec_rules._sglang_dir() / rel).read_text(encoding="utf-8"))


def _keyword_constant(func: ast.FunctionDef, name: str):
    """The first constant passed as keyword ``name=`` inside ``func`` (``max_running_requests=48``)."""
    for node in ast.walk(func):
        if isinstance(node, ast.keyword) and node.arg == name and isinstance(node.value, ast.Constant):
            return node.value.value
    raise RuntimeError(f"{func.name} no longer passes {name}=<constant>: update check_command_page.source_extras")


def _forced_page_sizes(func: ast.FunctionDef) -> list[dict]:
    """The backends ``_mla_backend_page_constraints`` moves to another page size.

    :returns: ``[{"backends", "fields", "allowed", "to"}]``: when one of the
        ``fields`` (``attention_backend``, ...) names one of ``backends`` and the
        page size is not in ``allowed`` (empty: any page size), SGLang sets it to ``to``.
    """
    out = []
    for stmt in func.body:
        if not isinstance(stmt, ast.If):
            continue
        backends = sorted({n.value for n in ast.walk(stmt.test) if isinstance(n, ast.Constant)})
        fields = sorted({n.attr for n in ast.walk(stmt.test) if isinstance(n, ast.Attribute)})
        allowed, forced = [], None
        for node in ast.walk(stmt):
            if isinstance(node, ast.If) and node is not stmt and isinstance(node.test, ast.Compare):
                comp = node.test.comparators[0]
                if isinstance(node.test.ops[0], ast.NotIn):  # codespell:ignore
                    allowed = [e.value for e in comp.elts]
                elif isinstance(node.test.ops[0], ast.NotEq):
                    allowed = [comp.value]
            if (isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "page_size"
                    and isinstance(node.value, ast.Constant)):
                forced = node.value.value
        if backends and forced is not None:
            out.append({"backends": backends, "fields": fields, "allowed": allowed, "to": forced})
    if not out:
        raise RuntimeError("_mla_backend_page_constraints changed shape: update check_command_page")
    return out


def source_extras() -> dict:
    """Facts the page needs beyond :class:`spec_rules.SourceFacts`, read from the installed SGLang with :mod:`ast`.

    - ``algorithms``: members of ``SpeculativeAlgorithm`` (``speculative/spec_info.py``)
      but ``NONE``, and ``aliases``: ``_RESERVED_ALIASES`` (``speculative/spec_registry.py``);
    - ``request_cap``: the ``max_running_requests`` ``_handle_eagle_family`` sets
      (``arg_groups/speculative_hook.py``);
    - ``ngram_draft_tokens``: the ``speculative_num_draft_tokens`` ``_handle_ngram`` sets;
    - ``adaptive_steps``: every ``candidate_steps`` value of ``DEFAULT_ADAPTIVE_CONFIG``
      (``speculative/adaptive_spec_params.py``);
    - ``forced_page_sizes``: :func:`_forced_page_sizes` of ``arg_groups/overrides.py``.

    :raises RuntimeError: a file no longer has the shape read here.
    """
    info = _parse("srt/speculative/spec_info.py")
    enum = next(n for n in info.body if isinstance(n, ast.ClassDef) and n.name == "SpeculativeAlgorithm")
    algorithms = [t.id for s in enum.body if isinstance(s, ast.Assign) for t in s.targets
                  if isinstance(t, ast.Name) and t.id != "NONE"]
    registry = _parse("srt/speculative/spec_registry.py")
    aliases = []
    for node in registry.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_RESERVED_ALIASES":
            aliases = sorted(n.value for n in ast.walk(node.value) if isinstance(n, ast.Constant))
    hook = _parse("srt/arg_groups/speculative_hook.py")
    adaptive = _parse("srt/speculative/adaptive_spec_params.py")
    steps: set[int] = set()
    for node in adaptive.body:
        target = getattr(node, "target", None) or (node.targets[0] if isinstance(node, ast.Assign) else None)
        if getattr(target, "id", "") == "DEFAULT_ADAPTIVE_CONFIG":
            for entry in ast.literal_eval(node.value).values():
                steps.update(entry["candidate_steps"])
    overrides = _parse("srt/arg_groups/overrides.py")
    if not (algorithms and aliases and steps):
        raise RuntimeError("spec_info.py / spec_registry.py / adaptive_spec_params.py changed shape")
    return {
        "algorithms": algorithms,
        "aliases": aliases,
        "request_cap": _keyword_constant(spec_rules._function(hook, "_handle_eagle_family"), "max_running_requests"),
        "ngram_draft_tokens": _keyword_constant(spec_rules._function(hook, "_handle_ngram"),
                                                "speculative_num_draft_tokens"),
        "adaptive_steps": sorted(steps),
        "forced_page_sizes": _forced_page_sizes(spec_rules._function(overrides, "_mla_backend_page_constraints")),
    }


def page_data(links: dict[str, str]) -> dict:
    """Everything ``check-command.js`` reads (see the module docstring); ``links`` maps result kinds to URLs."""
    loaded = sglang_args.pinned_parser()
    facts = spec_rules.source_facts()
    history = json.loads(HISTORY_FILE.read_text(encoding="utf-8")) if HISTORY_FILE.exists() else {}
    return {
        "version": loaded.version,
        "options": option_table(loaded.parser),
        "facts": {
            "page_tree_backends": sorted(facts.page_tree_backends),
            "bundled_draft_architectures": sorted(facts.bundled_draft_architectures),
            "auto_params": [[kind, list(values), list(params)] for kind, values, params in facts.auto_params],
            "architectures": spec_rules.known_architectures(),
            # spec_rules.other_hook_problems (sources there)
            "deepseek_v4": {"architecture": spec_rules.DEEPSEEK_V4, "algorithms": list(spec_rules.DEEPSEEK_V4_ALGORITHMS),
                            "request_cap": spec_rules.DEEPSEEK_V4_REQUEST_CAP},
            **source_extras(),
        },
        "history": {"releases": history.get("releases", []),
                    "flags": {name: entry for name, entry in history.get("flags", {}).items()
                              if name not in loaded.parser._option_string_actions},
                    "env": history.get("env", {}),
                    "former": {prefix: list(found) for prefix, found in
                               speccheck_history.former_abbreviations(loaded.parser._option_string_actions).items()}},
        "links": links,
    }


def _links(app) -> dict[str, str]:
    labels = app.env.domaindata["std"]["labels"]
    out = {}
    for kind, label in LINKS.items():
        if label not in labels:
            raise RuntimeError(f"check_command_page: label {label!r} (for {kind!r} results) does not exist")
        docname, anchor, _ = labels[label]
        uri = app.builder.get_relative_uri(PAGE, docname)
        out[kind] = f"{uri}#{anchor}" if anchor else uri
    return out


def inputs_key(links: dict[str, str]) -> str:
    """A digest of everything :func:`page_data` reads, so an unchanged build can keep the file it wrote:
    the checker's inputs (:func:`speccheck.pinned.checker_digest`), this module and the resolved links."""
    digest = hashlib.sha256(f"{checker_digest()}|{json.dumps(links, sort_keys=True)}".encode())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def _write(app, exception) -> None:
    """Write the page's data after the build; skipped when its inputs and the written file are unchanged.

    Building the data loads SGLang's parser (most of a no-change rebuild's time otherwise).
    """
    if exception is not None or app.builder.format != "html" or PAGE not in app.env.all_docs:
        return
    from sphinx.errors import ExtensionError

    out = Path(app.outdir) / "_static" / OUTPUT
    stamp = Path(app.doctreedir) / (OUTPUT + ".key")
    try:
        links = _links(app)
        key = inputs_key(links)
        if out.exists() and stamp.exists() and stamp.read_text() == key:
            return
        data = page_data(links)
    except Exception as exc:
        raise ExtensionError(f"check_command_page: cannot write the page's data: {exc}", modname=__name__) from exc
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    out.write_text(f"window.SGLANG_CHECK_DATA = {text};\n", encoding="utf-8")
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(key)


def setup(app):
    """Sphinx entry point: write the data file once the HTML is built."""
    app.connect("build-finished", _write)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
