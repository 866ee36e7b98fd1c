"""Check SGLang and SpecForge commands, Python blocks and SpecForge configs; report :class:`Diagnostic` s.

Who decides what, for a server command (``python -m sglang.launch_server``,
``sglang serve``):

1. SGLang's own parser (:mod:`speccheck.sglang_args`): unknown flags, values of the
   wrong type or outside the choices, ambiguous prefixes. Every bad flag of the
   command is reported (:mod:`speccheck.parse`); a flag that the flag history says was
   renamed, split or removed names its replacement and the release.
2. SGLang's algorithm registry (``SpeculativeAlgorithm.from_string``): an unknown
   ``--speculative-algorithm`` name (``--speculative-algorithm`` has no choices,
   so argparse accepts ``EAGLE2``; start-up refuses it).
3. SGLang's speculative start-up hook, run with the hardware and the model config
   stubbed (:mod:`speccheck.startup`): everything it refuses is an error with its own
   message; the draft-token count it silently replaces is a warning.
4. Re-stated, because the hook cannot see it without the checkpoint: whether a target
   without ``--speculative-draft-model-path`` carries its own draft layer
   (:func:`speccheck.spec_rules.carries_draft`). A target the check cannot place is a
   warning, unless the page states its architecture (``# architecture: X`` in the
   block, or the block option ``:architecture: X``).
5. The guide's style, warnings: abbreviations, deprecated spellings, setting only some
   of the three draft-tree flags (SGLang fills the rest or fails later).

SpecForge commands are parsed by SpecForge's own parser; the checks ``specforge/cli.py:
main`` makes after parsing (``--embedding-source`` only with ``--to hf``) and the dotted
overrides of ``specforge train`` (each path must exist in the run-config schema) are
re-stated, because running ``main`` would start the work.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import functools
import hashlib
import importlib.util
import os
import pickle
import re
import traceback
from collections.abc import Iterable
from dataclasses import astuple
from pathlib import Path

from pyflakes import checker as pyflakes_checker
from pyflakes import messages as pyflakes_messages

from speccheck import history, sglang_args, shell, spec_rules, specforge_args, startup
from speccheck.diagnostics import ERROR, UNDECIDED, WARNING, Diagnostic, make
from speccheck.parse import ArgProblem, Parsed, other_stand_in, parse, sglang_argv
from speccheck.pinned import PINNED, checker_digest
from speccheck.shell import (
    EXPECT_FAIL,
    PYTHON_LANGS,
    SPECFORGE_CONFIG,
    Block,
    Command,
    find_commands,
    markdown_blocks,
    notebook_blocks,
)

HOOK = startup.HOOK
SERVER_ENTRIES = ("python -m sglang.launch_server", "sglang serve")
# "# architecture: DeepseekV3ForCausalLM" in a block states the target's architecture.
ARCH_COMMENT_RE = re.compile(r"#\s*architecture:\s*([A-Za-z_][\w.]*)")

# -- Entry points of the pinned packages ----------------------------------------------


def _package_dir(top: str) -> Path | None:
    spec = importlib.util.find_spec(top)  # finds the package without importing it
    return Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None


@functools.cache
def not_runnable(module: str) -> str | None:
    """Why ``python -m <module>`` fails with the installed packages, in Python's words; ``None`` if it runs.

    :param module: a dotted name in ``sglang`` or ``specforge``.

    A module runs when it is a ``.py`` file, or a package with a ``__main__.py``;
    The pinned SpecForge has no ``specforge/__main__.py``, so ``python -m specforge`` fails.
    """
    top, *rest = module.split(".")
    base = _package_dir(top)
    path = base.joinpath(*rest) if base else None
    if path is None:
        return f"No module named {top}"
    if rest and path.with_suffix(".py").is_file():
        return None
    if (path / "__init__.py").is_file():
        if (path / "__main__.py").is_file():
            return None
        return f"No module named {module}.__main__; '{module}' is a package and cannot be directly executed"
    return f"No module named {module}"


@functools.cache
def replacement_of(module: str) -> str | None:
    """The module a deprecated ``python -m`` path names as its replacement, or ``None``.

    Read from the module's docstring, which SGLang writes as "Deprecated import
    path for ``sglang.benchmark.serving``" (``sglang/bench_serving.py``,
    ``sglang/bench_one_batch_server.py``).
    """
    top, *rest = module.split(".")
    base = _package_dir(top)
    path = base.joinpath(*rest).with_suffix(".py") if base and rest else None
    if path is None or not path.is_file():
        return None
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    found = re.match(r"Deprecated import path for ``([\w.]+)``", doc)
    return found.group(1) if found else None


# -- Turning parser problems into diagnostics -------------------------------------------

# SGLang's start-up messages -> (rule id, flag the message is about: the first of them the command
# writes, else the first). Only to file the message under a rule and a line: the verdict and the
# words are SGLang's own.
HOOK_RULES: list[tuple[str, str, str | tuple[str, ...]]] = [
    (r"trtllm_mha backend only supports topk", "topk-backend", "--speculative-eagle-topk"),
    (r"speculative_eagle_topk > 1 with page_size > 1", "topk-backend", "--speculative-eagle-topk"),
    (r"does not support dp attention|with dp attention", "dp-attention", ("--attn-dp-size", "--enable-dp-attention")),
    (r"--speculative-use-rejection-sampling", "rejection-sampling", "--speculative-use-rejection-sampling"),
    (r"--speculative-use-block-verification", "block-verification", "--speculative-use-block-verification"),
    (r"--speculative-draft-sink-size|--speculative-draft-window-size", "draft-window",
     "--speculative-draft-sink-size"),
    (r"^(?:ValueError: )?DFLASH", "dflash", "--speculative-algorithm"),
    (r"DSpark", "dspark", "--speculative-num-draft-tokens"),
    (r"^(?:ValueError: )?UNO", "uno", "--speculative-algorithm"),
    (r"adaptive", "adaptive-steps", "--speculative-num-steps"),
    (r"ngram-external", "ngram-corpus", "--speculative-ngram-external-corpus-path"),
    (r"Unknown speculative algorithm name", "unknown-algorithm", "--speculative-algorithm"),
    (r"NoneType|assert", "tree-knobs-all-or-none", "--speculative-num-steps"),
]


# Start-up warnings of the pinned release that mean a flag as written does not do what it seems to:
# (pattern on SGLang's warning, the flag it is about, message). For ``None`` the pattern's group
# "dest" names the flag. A warning counts only when the command wrote that flag (CPU servers turn
# the overlap scheduler off by themselves, for example). Source: speculative_hook.py
# (_handle_eagle_family, _maybe_disable_adaptive, _handle_dflash).
HOOK_WARNINGS = [
    (r"Non-overlap \(synchronous\) spec v2", "--disable-overlap-schedule", "overlap-off",
     "{flag} makes the speculative worker run synchronously, which is slower; every built-in algorithm "
     "runs with the overlap scheduler"),
    (r"speculative_adaptive disabled:", "--speculative-adaptive", "adaptive-disabled",
     "{flag} is switched off at start-up and the static tree is used"),
    (r"DFLASH only supports (?P<dest>speculative_num_steps|speculative_eagle_topk) == 1", None, "dflash-overrides",
     "DFLASH drafts one block per step: SGLang replaces {flag} by 1; leave it out"),
]


def _argparse_diagnostic(cmd: Command, problem: ArgProblem, program: str, known: Iterable[str] = ()) -> Diagnostic:
    """A parser problem as a diagnostic; renamed, split and removed flags name the replacement and release.

    :param known: the option strings of the parser, for the nearest ones to an unknown flag.
    """
    flag, message, rule = problem.flag, problem.message, problem.rule
    change = history.changes().get(flag) if flag and rule in ("unknown-flag", "ambiguous-flag") else None
    if change is not None:
        rule = "removed-flag" if change.kind == "removed" else "renamed-flag"
        instead = f": use {' or '.join(change.into)}" if change.into else ""
        message = f"{change.sentence()}{instead} ({program}: {message}; flag history: {history.source()})"
    elif rule == "ambiguous-flag" and flag:
        candidates = re.findall(r"--[\w-]+", message.split("could match", 1)[-1])
        release = (f"SpecForge {PINNED['specforge']}" if program.startswith("SpecForge")
                   else f"SGLang {PINNED['sglang']}")
        former = None if program.startswith("SpecForge") else history.former_meaning(flag, candidates)
        meant = (f"; until SGLang {former[1]} only {former[0]} started this way, so a command written for an "
                 f"older release means {former[0]}" if former else "")
        message = (f"{flag} is not a flag of {release}: it is the "
                   f"start of {' and '.join(candidates)}, so the parser cannot tell which one you mean; write one of "
                   f"them{meant} ({program}: {message})")
    elif problem.severity == ERROR:
        near = (difflib.get_close_matches(flag, [k for k in known if k.startswith("--")], n=3, cutoff=0.75)
                if rule == "unknown-flag" and flag else [])
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        message = f"{program} rejects it: {message}{hint} (read: `{_short(cmd.read)}`)"
    if rule == "abbreviated-flag" and flag and change is None:
        message = problem.message
    return make(cmd.line_of_flag(flag), problem.severity, rule, message, flag)


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _hook_diagnostic(cmd: Command, error: str, version: str) -> Diagnostic:
    rule, flag = "startup-error", None
    for pattern, r, f in HOOK_RULES:
        if re.search(pattern, error):
            choices = (f,) if isinstance(f, str) else f
            written = [c for c in choices if re.search(rf"{re.escape(c)}(?![\w-])", cmd.read)]
            rule, flag = r, (written or choices)[0]
            break
    # The flag SGLang's message names first, when it is one of the parser's.
    known = sglang_args.pinned_parser().parser._option_string_actions
    named = [f for f in re.findall(r"--[a-z][\w-]*", error) if f in known]
    if named and rule not in ("topk-backend", "dspark", "tree-knobs-all-or-none"):
        flag = named[0]
    text = error.removeprefix("ValueError: ")
    return make(cmd.line_of_flag(flag), ERROR, rule, f"SGLang {version} refuses it at start-up: {text}", flag,
                HOOK)


# -- Server commands ------------------------------------------------------------------


def _stated_architecture(block: Block | None, cmd: Command) -> str | None:
    if block is not None and block.options.get("architecture"):
        return block.options["architecture"]
    texts = [t for _, t in (block.lines if block is not None else cmd.physical)]
    for text in texts:
        m = ARCH_COMMENT_RE.search(text)
        if m:
            return m.group(1)
    return None


def check_server(cmd: Command, entry: str, block: Block | None = None) -> list[Diagnostic]:
    """Every problem of an SGLang server command, in the order described in the module docstring."""
    loaded = sglang_args.pinned_parser()
    words = sglang_argv(entry, cmd.args)
    has_config = any(w == "--config" or w.startswith("--config=") for w in words)
    parsed = parse(loaded.parser, words, required_given=has_config)
    out = [_argparse_diagnostic(cmd, p, "SGLang's parser", loaded.parser._option_string_actions)
           for p in parsed.problems]
    if parsed.failed or parsed.namespace is None:
        return out
    if has_config:
        # A config file SGLang merges before parsing (prepare_server_args) may set any flag: the
        # start-up rules cannot be applied.
        config = _value_of(words, "--config") or "the file"
        out.append(make(cmd.line_of_flag("--config"), UNDECIDED, "undecided-file",
                        f"SGLang reads {config} (--config) before it parses the command, and the file may set any "
                        "flag; this check cannot read your files, so the start-up checks were not run",
                        "--config", "sglang/srt/server_args.py::prepare_server_args"))
        return out
    if parsed.unresolved:
        # An expansion may hold any flags: the start-up rules cannot be applied.
        shown = " ".join(dict.fromkeys(parsed.unresolved))
        out.append(make(_line_of_word(cmd, parsed.unresolved[0]),
                        UNDECIDED, "undecided-expansion",
                        f"{_short(shown, 80)} expands to words this check cannot see (a shell array, a command's "
                        "output or a variable where flags would stand); the flags written around it were checked, "
                        "SGLang's start-up checks were not run"))
        return out
    ns, given = parsed.namespace, parsed.given
    algo = (ns.speculative_algorithm or "") if "speculative_algorithm" in given else ""
    if not algo:
        return out
    unknown = startup.algorithm_error(algo)
    if unknown:
        names = ", ".join(startup.algorithm_names())
        out.append(make(cmd.line_of_flag("--speculative-algorithm"), ERROR, "unknown-algorithm",
                        f"SGLang {loaded.version} refuses it at start-up: {unknown} (SGLang knows {names})",
                        "--speculative-algorithm", "sglang/srt/speculative/spec_info.py::SpeculativeAlgorithm.from_string"))
        return out
    upper = algo.upper()
    stated = _stated_architecture(block, cmd)
    arch = stated or (spec_rules.architecture_of(ns.model_path) if "model_path" in given else None)
    # A misspelt or ambiguous --speculative-draft... flag was an attempt to give the draft: its own error says
    # what to write, and "needs --speculative-draft-model-path" on top would be a knock-on of the same word.
    draft_misspelt = any(p.flag and p.severity == ERROR and p.flag.startswith("--speculative-draft")
                         for p in parsed.problems)
    if (upper in spec_rules.DRAFT_FROM_TARGET and "speculative_draft_model_path" not in given | set(parsed.variables)
            and "model_path" in given and not draft_misspelt):
        if arch is None:
            out.append(make(
                cmd.line, WARNING, "unknown-architecture",
                f"{upper} without --speculative-draft-model-path: the check cannot tell whether {ns.model_path} "
                "carries its own draft (MTP) layers, so it cannot say whether SGLang can load a draft. Pass a draft "
                "path, or state the target's architecture in the block (`# architecture: DeepseekV3ForCausalLM`, "
                "or add the model to speccheck/data/model_architectures.yaml)", "--speculative-draft-model-path",
                "sglang/srt/arg_groups/speculative_hook.py::_handle_eagle_family"))
        elif upper == "STANDALONE" or not spec_rules.carries_draft(arch):
            # Re-stated: the hook only points the draft at the target for the listed architectures;
            # the failure comes when the draft worker loads the target checkpoint as a draft.
            out.append(make(
                cmd.line, ERROR, "draft-path",
                f"{upper} needs --speculative-draft-model-path: {ns.model_path} ({arch}) has no draft layer of its "
                "own, and without a draft path SGLang loads the target checkpoint as the draft",
                "--speculative-draft-model-path", "sglang/srt/arg_groups/speculative_hook.py::_handle_eagle_family"))
    knobs = {"--speculative-num-steps": "speculative_num_steps", "--speculative-eagle-topk": "speculative_eagle_topk",
             "--speculative-num-draft-tokens": "speculative_num_draft_tokens"}
    set_knobs = [f for f, d in knobs.items() if getattr(ns, d) is not None]
    adaptive = bool(getattr(ns, "speculative_adaptive", False))
    outcome = startup.run(ns, arch or "UnknownForCausalLM", None, cmd.env)
    if outcome.error and parsed.variables:
        # A value the page gives as a variable got a stand-in: the refusal counts only if SGLang also
        # refuses the command with other stand-ins.
        variant = argparse.Namespace(**vars(ns))
        for dest, action in parsed.variables.items():
            setattr(variant, dest, other_stand_in(action))
        other = startup.run(variant, arch or "UnknownForCausalLM", None, cmd.env)
        if not other.error:
            if other.decided:
                # Refused with one value of the variable, accepted with another: SGLang's verdict
                # depends on what the variable holds on the reader's machine.
                flags = [f for f, a in sglang_args.pinned_parser().parser._option_string_actions.items()
                         if a.dest in parsed.variables and f.startswith("--") and f in cmd.read]
                shown = ", ".join(f"{f} {_value_of(cmd.args, f)}" for f in flags) or "a variable"
                out.append(make(cmd.line_of_flag(flags[0] if flags else None), UNDECIDED, "undecided-expansion",
                                f"SGLang {loaded.version} refuses it at start-up for some values of {shown} and "
                                f"accepts it for others ({_short(outcome.error, 160)}); the value is not on the "
                                "page, so the check cannot say which", flags[0] if flags else None, HOOK))
                return out
            outcome.error = None
            outcome.reads, outcome.crash, outcome.undecided = other.reads, other.crash, other.undecided
    if not outcome.decided:
        out.append(_undecided_startup(cmd, ns, parsed, outcome, loaded.version))
        return out
    other = startup.draft_dependent(ns, arch or "UnknownForCausalLM", cmd.env, outcome)
    if other is not None:
        # The hook read the draft's config.json (the check's stand-in), and a draft with other values
        # there gets the other verdict: the check does not read the reader's draft.
        refusal = outcome.error or other.error or ""
        out.append(make(cmd.line_of_flag("--speculative-draft-model-path"), UNDECIDED, "undecided-file",
                        f"SGLang {loaded.version} refuses it at start-up for some drafts and accepts it for "
                        f"others, depending on what the draft's config.json holds ({_short(refusal, 160)}); the "
                        "check does not read the draft's config.json: give the draft's block size on the "
                        "command line to have it decided", "--speculative-draft-model-path", HOOK))
        return out
    if outcome.error:
        first = _hook_diagnostic(cmd, outcome.error, loaded.version)
        out.append(first)
        # SGLang stops at its first start-up error; the re-stated rules report the others.
        for rule, flag, text in spec_rules.restated_problems(ns, upper, arch):
            if text.split(";")[0].split(" (")[0] not in first.message:
                out.append(make(cmd.line_of_flag(flag), ERROR, rule,
                                f"SGLang {loaded.version} also refuses it at start-up: {text}", flag, HOOK))
    elif upper in ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE") and 0 < len(set_knobs) < 3 and not adaptive:
        missing = [f for f in knobs if f not in set_knobs]
        out.append(make(
            cmd.line_of_flag(set_knobs[0]), WARNING, "tree-knobs-all-or-none",
            f"set {', '.join(knobs)} together or not at all: this command sets {', '.join(set_knobs)} but not "
            f"{', '.join(missing)}", set_knobs[0], "sglang/srt/arg_groups/speculative_hook.py::_handle_eagle_family"))
    for rule, flag, text, source in spec_rules.other_hook_problems(ns, upper, arch):
        out.append(make(cmd.line_of_flag(flag), ERROR, rule,
                        f"SGLang {loaded.version} {'also ' if outcome.error else ''}refuses it at start-up: {text}",
                        flag, source))
    problem = None if outcome.error else too_few_candidates(ns, upper)
    if problem:
        out.append(make(cmd.line_of_flag("--speculative-num-draft-tokens"), ERROR, "too-few-candidates", problem,
                        "--speculative-num-draft-tokens", "sglang/srt/speculative/eagle_utils.py::organize_draft_results"))
    for warning in outcome.warnings:
        for pattern, flag, rule, text in HOOK_WARNINGS:
            found = re.match(pattern, warning)
            flag = flag or (found and "--" + found.group("dest").replace("_", "-"))
            if found and flag[2:].replace("-", "_") in given:
                out.append(make(cmd.line_of_flag(flag), WARNING, rule,
                                f"{text.format(flag=flag)} (SGLang's warning: {warning})", flag, HOOK))
        if "adjusted to speculative_num_steps + 1" in warning and {
                "speculative_num_draft_tokens", "speculative_eagle_topk", "speculative_num_steps"} <= given:
            out.append(make(
                cmd.line_of_flag("--speculative-num-draft-tokens"), WARNING, "topk-one-draft-tokens",
                f"with --speculative-eagle-topk 1, SGLang replaces --speculative-num-draft-tokens "
                f"{ns.speculative_num_draft_tokens} by --speculative-num-steps + 1 = {ns.speculative_num_steps + 1} "
                "(SGLang's warning: " + warning + "): write that value", "--speculative-num-draft-tokens", HOOK))
    return out


def _value_of(words: list[str], flag: str) -> str | None:
    """The value written after ``flag`` (``flag VALUE`` or ``flag=VALUE``) in ``words``, or ``None``."""
    for k, word in enumerate(words):
        if word.startswith(flag + "="):
            return word.partition("=")[2]
        if word == flag and k + 1 < len(words):
            return words[k + 1]
    return None


def _line_of_word(cmd: Command, word: str) -> int:
    """The line where ``word`` is written (the command's first line if nowhere)."""
    return next((number for number, text in cmd.physical if word in text), cmd.line)


def _undecided_startup(cmd: Command, ns, parsed: Parsed, outcome: startup.Outcome, version: str) -> Diagnostic:
    """The "cannot be decided here" diagnostic of a start-up run that did not reach a verdict.

    :param outcome: an outcome whose :attr:`startup.Outcome.decided` is false.
    """
    if outcome.reads is not None:
        # The flag whose value is that path; a path SGLang read from a stand-in is the variable's.
        dest = next((d for d, v in sorted(vars(ns).items()) if isinstance(v, str) and v == outcome.reads
                     and d in parsed.given | set(parsed.variables)), None)
        action = sglang_args.pinned_parser().parser._option_string_actions
        flag = next((f for f, a in action.items() if a.dest == dest and f.startswith("--")), None) if dest else None
        written = _value_of(cmd.args, flag) if flag else None
        if written is not None and shell.VARIABLE_RE.search(written):
            what = f"the file {written} names"
        else:
            what = f"the local file {written if written is not None else outcome.reads}"
        named = f" ({flag})" if flag else ""
        return make(cmd.line_of_flag(flag), UNDECIDED, "undecided-file",
                    f"SGLang {version} reads {what}{named} at start-up: the file is on your machine and this "
                    "check cannot read it, so it cannot say whether SGLang accepts the command", flag, HOOK)
    if outcome.crash is not None:
        return make(cmd.line, UNDECIDED, "undecided-startup",
                    f"SGLang {version}'s start-up code raised an exception this check does not expect: "
                    f"{_short(outcome.crash)}; the check cannot say whether SGLang accepts the command", None, HOOK)
    return make(cmd.line, UNDECIDED, "undecided-startup",
                f"SGLang {version}'s start-up code needs something this check does not have "
                f"({_short(outcome.undecided or '')}), so it cannot say whether SGLang accepts the command", None,
                HOOK)


def too_few_candidates(ns, algo: str) -> str | None:
    """Why a draft tree fails once the draft first runs, or ``None``: it asks for more tokens than it proposes.

    With top-k above 1 the EAGLE-family draft proposes top-k + (steps - 1) x top-k² candidate
    tokens per request and keeps the best ``num_draft_tokens - 1`` of them with ``torch.topk``
    (``sglang/srt/speculative/eagle_utils.py::organize_draft_results``), which fails when asked for
    more than exist. SGLang's argument checks do not test this, so the server starts and the error
    comes at CUDA-graph capture or with the first request.

    :param ns: the parsed namespace (the three tree flags as integers, or ``None`` when unset).
    :param algo: the upper-cased algorithm; only ``EAGLE``, ``EAGLE3``, ``NEXTN`` and ``STANDALONE`` count.
    """
    steps, topk, tokens = ns.speculative_num_steps, ns.speculative_eagle_topk, ns.speculative_num_draft_tokens
    if algo not in ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE") or None in (steps, topk, tokens) or topk <= 1 or steps < 1:
        return None
    candidates = topk + (steps - 1) * topk * topk
    if tokens - 1 <= candidates:
        return None
    return (f"--speculative-num-draft-tokens {tokens} keeps the best {tokens - 1} draft candidates, but "
            f"--speculative-num-steps {steps} with --speculative-eagle-topk {topk} proposes only {candidates}: "
            f"SGLang starts, then torch.topk fails when the draft first runs (CUDA-graph capture or the first "
            f"request); use at most {candidates + 1} draft tokens")


# -- SpecForge commands ---------------------------------------------------------------


def _override_problem(item: str) -> str | None:
    """Why SpecForge's ``apply_overrides`` (``specforge/config/schema.py``) would reject a dotted override.

    Re-stated, because ``apply_overrides`` needs the run config the page does not show: the path
    must name fields of the ``Config`` schema, section by section, as that function walks it.
    """
    from pydantic import BaseModel
    from specforge.config import Config

    if "=" not in item:
        return f"override {item!r} is not of the form path=value"
    path = item.split("=", 1)[0]
    model: type | None = Config
    for key in path.split("."):
        fields = getattr(model, "model_fields", None) if model is not None else None
        if not fields or key not in fields:
            return f"override path {path!r} does not exist"
        annotation = fields[key].annotation
        candidates = [a for a in (getattr(annotation, "__args__", None) or (annotation,))
                      if isinstance(a, type) and issubclass(a, BaseModel)]
        model = candidates[0] if candidates else None
    return None


def check_specforge(cmd: Command) -> list[Diagnostic]:
    """Everything SpecForge's parser (``specforge/cli.py: main``) and the checks after it find wrong."""
    parsed: Parsed = parse(specforge_args.specforge_parser(), cmd.args)
    out = [_argparse_diagnostic(cmd, p, "SpecForge's parser") for p in parsed.problems]
    ns = parsed.namespace
    if parsed.failed or ns is None:
        return out
    if getattr(ns, "command", None) == "export" and ns.to == "sglang" and ns.embedding_source is not None:
        out.append(make(cmd.line_of_flag("--embedding-source"), ERROR, "specforge-export",
                        "SpecForge rejects it after parsing: --embedding-source is only valid with --to hf",
                        "--embedding-source", "specforge/cli.py::main"))
    if getattr(ns, "command", None) == "train":
        for item in ns.overrides or []:
            if re.search(r"\$|\{", item):
                continue
            problem = _override_problem(item)
            if problem:
                out.append(make(cmd.line_of_flag(item.split("=")[0]), ERROR, "specforge-override",
                                f"SpecForge rejects it: {problem}", item.split("=")[0],
                                "specforge/config/schema.py::apply_overrides"))
    return out


def check_bench(cmd: Command) -> list[Diagnostic]:
    """Everything ``python -m sglang.benchmark.serving``'s parser finds wrong."""
    parsed = parse(sglang_args.bench_serving_parser(), cmd.args)
    return [_argparse_diagnostic(cmd, p, "SGLang's benchmark parser") for p in parsed.problems]


def check_one(cmd: Command, block: Block | None = None) -> list[Diagnostic]:
    """Every problem of one command found in a text (lines as in that text), in line order.

    :raises sglang_args.SGLangParserError: a pinned parser cannot be built.
    """
    out: list[Diagnostic] = []
    if cmd.unreadable:
        out.append(make(cmd.line, ERROR, "unreadable-command",
                        f"the command has an unbalanced quote; the check read only: `{_short(cmd.read)}`"))
    entry = cmd.entry
    if entry.startswith("python -m "):
        module = entry.removeprefix("python -m ")
        problem = not_runnable(module)
        if problem:
            return out + [make(cmd.line, ERROR, "not-runnable", f"Python cannot run `{entry}`: {problem}")]
        new = replacement_of(module)
        if new:
            out.append(make(cmd.line, WARNING, "deprecated-module",
                            f"python -m {module} is a deprecated module path: use python -m {new}",
                            source=f"{module.replace('.', '/')}.py"))
            entry = f"python -m {new}"
    if "-h" in cmd.args or "--help" in cmd.args:
        return out
    if entry in SERVER_ENTRIES:
        out += check_server(cmd, entry, block)
    elif entry == "python -m sglang.benchmark.serving":
        out += check_bench(cmd)
    elif entry in ("specforge", "python -m specforge.cli"):
        out += check_specforge(cmd)
    return sorted(out, key=lambda d: (d.line, _column(cmd, d)))


def _column(cmd: Command, d: Diagnostic) -> int:
    """Where ``d``'s flag is written on its line (for the order of several problems on one line)."""
    text = dict(cmd.physical).get(d.line, "")
    return text.find(d.flag) if d.flag and d.flag in text else -1


# -- Texts, blocks, pages ---------------------------------------------------------------


def check_command(text: str) -> list[Diagnostic]:
    """Check one pasted shell text exactly as a reader pastes it; lines are counted from 1.

    :param text: one command, possibly over several lines joined with backslashes, with
        environment prefixes (``A=1 python -m ...``, ``env A=1 ...``), arrays assigned before it.
    :returns: every problem, in line order; ``[]`` when the pinned releases accept it. A text
        without any SGLang / SpecForge command gives one ``not-a-command`` error.
    """
    block = Block("bash", set(), list(enumerate(text.splitlines(), start=1)))
    commands = find_commands(block)
    if not commands:
        return [make(1, ERROR, "not-a-command",
                     "no SGLang or SpecForge command found (looked for `python -m sglang...`, `sglang serve`, "
                     f"`specforge ...`) in: `{_short(' '.join(text.split()))}`")]
    return sorted((d for cmd in commands for d in _check_safely(cmd, block)), key=lambda d: d.line)


def _check_safely(cmd: Command, block: Block | None) -> list[Diagnostic]:
    """:func:`check_one`, with an exception of the check itself turned into a ``check-failed`` diagnostic
    (naming the exception and where it was raised), so that the other commands are still checked.

    :raises sglang_args.SGLangParserError: a pinned parser cannot be built (no command can be checked).
    """
    try:
        return check_one(cmd, block)
    except sglang_args.SGLangParserError as exc:
        build_parsers()  # raises again when a parser cannot be built: then nothing can be checked
        # The parsers are built: a value reached a stand-in (a type function that needs SGLang's runtime).
        return [make(cmd.line, UNDECIDED, "undecided-startup",
                     f"SGLang's parser needs something this check does not have to read a value of this command "
                     f"({_short(' '.join(str(exc).split()), 200)}), so it cannot say whether SGLang accepts it")]
    except Exception as exc:  # noqa: BLE001 - reported as a diagnostic, never a traceback
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
        text = " ".join(str(exc).split())
        return [make(cmd.line, UNDECIDED, "check-failed",
                     f"the check itself failed on this command ({type(exc).__name__}{': ' + _short(text, 160) if text else ''} "
                     f"at {where}), so it cannot say whether SGLang accepts it; please report it with the command")]


def check_python(block: Block) -> list[Diagnostic]:
    """Syntax errors and undefined names (pyflakes) in a Python block."""
    code = block.text
    if code.lstrip().startswith(">>>"):
        return []
    offset = block.lines[0][0] - 1 if block.lines else 0
    try:
        tree = compile(code, "<block>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as exc:
        return [make((exc.lineno or 1) + offset, ERROR, "python-syntax", f"Python block does not compile: {exc.msg}")]
    undefined = (pyflakes_messages.UndefinedName, pyflakes_messages.UndefinedLocal, pyflakes_messages.UndefinedExport)
    found = pyflakes_checker.Checker(tree, filename="<block>").messages
    return [make(m.lineno + offset, ERROR, "python-undefined-name", f"Python block: {m.message % m.message_args}")
            for m in sorted(found, key=lambda m: m.lineno) if isinstance(m, undefined)]


def check_config(block: Block) -> list[Diagnostic]:
    """A YAML block marked ``specforge-config`` must load with ``specforge.config.load_config``."""
    try:
        specforge_args.validate_config(block.text)
    except Exception as exc:  # noqa: BLE001 - any loader error is the finding
        detail = " ".join(str(exc).split())
        line = block.lines[0][0] if block.lines else 0
        return [make(line, ERROR, "specforge-config",
                     f"SpecForge rejects this run config: {type(exc).__name__}: {detail}",
                     source="specforge/config/schema.py::load_config")]
    return []


def check_block(block: Block) -> list[Diagnostic]:
    """All problems of one block, honouring the ``expect-fail`` class (a command meant to fail must fail)."""
    out: list[Diagnostic] = []
    commands = find_commands(block)
    for cmd in commands:
        found = _check_safely(cmd, block)
        if block.expect_fail:
            if not any(d.severity == ERROR for d in found):
                out.append(make(cmd.line, ERROR, "expect-fail-passes",
                                f"`{_short(cmd.read)}` is marked {EXPECT_FAIL} but the pinned releases accept it"))
            continue
        out += found
    if block.lang in PYTHON_LANGS:
        found = check_python(block)
        if block.expect_fail and not found and not commands:
            out.append(make(block.lines[0][0] if block.lines else 0, ERROR, "expect-fail-passes",
                            f"Python block is marked {EXPECT_FAIL} but has no error"))
        elif not block.expect_fail:
            out += found
    if SPECFORGE_CONFIG in block.classes:
        found = check_config(block)
        if block.expect_fail and not found:
            out.append(make(block.lines[0][0], ERROR, "expect-fail-passes",
                            f"config is marked {EXPECT_FAIL} but SpecForge accepts it"))
        elif not block.expect_fail:
            out += found
    return out


def source_blocks(text: str, suffix: str) -> list[Block]:
    """The code blocks of a file's text: ``.md`` (fenced blocks), ``.myst`` (a text notebook: its
    ```` ```{code-cell} ```` fences and Markdown, at lines of the file), ``.ipynb`` (cells), ``.py``
    (one Python block), ``.sh`` or anything else (one shell block)."""
    if suffix == ".ipynb":
        return notebook_blocks(text)
    if suffix in (".md", ".markdown", ".myst"):
        return markdown_blocks(text)
    lang = "python" if suffix == ".py" else "bash"
    return [Block(lang, set(), list(enumerate(text.splitlines(), start=1)))]


# An SGLang speculative flag written inline in prose, e.g. `--speculative-eagle-topk 1`.
INLINE_SPEC_FLAG = re.compile(r"`(--speculative-[a-z0-9-]+)")


def _known_flags(cache: ResultCache | None) -> tuple[str, set[str]]:
    """``(SGLang version, every option string of its parser)``, from ``cache`` when it holds them."""
    if cache is not None and cache.flags is not None:
        return cache.flags
    loaded = sglang_args.pinned_parser()
    found = (loaded.version, set(loaded.parser._option_string_actions))
    if cache is not None:
        cache.flags = found
    return found


def check_inline_flags(text: str, cache: ResultCache | None = None) -> list[Diagnostic]:
    """Inline literals naming a ``--speculative-*`` flag the pinned SGLang parser does not have.

    Only that prefix is checked: it belongs to SGLang alone, while shorter names
    such as ``--dtype`` also exist in other tools a page may mention. An abbreviation
    that older releases accepted for one flag (:func:`speccheck.history.former_meaning`,
    such as ``--speculative-draft``) may be named, so that a page can explain it.
    """
    if not INLINE_SPEC_FLAG.search(text):  # no flag to look up: the parser need not be built
        return []
    version, known = _known_flags(cache)
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        for flag in INLINE_SPEC_FLAG.findall(line):
            if flag in known or history.former_meaning(flag, [k for k in known if k.startswith(flag)]):
                continue
            change = history.changes().get(flag)
            why = f" ({change.sentence()})" if change else ""
            out.append(make(lineno, ERROR, "inline-flag",
                            f"inline flag {flag} is not an option of SGLang {version}{why}", flag))
    return out


class ResultCache:
    """Diagnostics of code blocks already checked, so that a page edited elsewhere needs no parser.

    An entry is keyed by the block (language, classes, options, cell, text) and
    :func:`speccheck.pinned.checker_digest`; its lines are stored relative to the block's first
    line, so a block that moved down the page gets its diagnostics at its new lines. The parser's option strings
    are kept too, for :func:`check_inline_flags`. The Sphinx build keeps one cache in its
    doctree folder (``sphinxext/content/command_check.py``); :meth:`save` writes it.

    :param path: the pickle file to read and write; a missing or unreadable file is an empty cache.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.entries: dict[str, list[tuple]] = {}
        self.flags: tuple[str, set[str]] | None = None
        try:
            stored = pickle.loads(self.path.read_bytes())
            if stored.get("checker") == checker_digest():
                self.entries, self.flags = stored["entries"], stored["flags"]
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, KeyError, TypeError, ValueError):
            pass
        self.changed = False

    @staticmethod
    def key(block: Block) -> str:
        what = [checker_digest(), block.lang, sorted(block.classes), sorted(block.options.items()), block.cell,
                block.text]
        return hashlib.sha256(repr(what).encode()).hexdigest()

    def get(self, block: Block) -> list[Diagnostic] | None:
        """The block's diagnostics at its current lines, or ``None`` when it was not checked before."""
        stored = self.entries.get(self.key(block))
        if stored is None:
            return None
        first = block.lines[0][0] if block.lines else 0
        return [Diagnostic(*fields).at(line_offset=first) for fields in stored]

    def put(self, block: Block, found: list[Diagnostic]) -> None:
        first = block.lines[0][0] if block.lines else 0
        self.entries[self.key(block)] = [astuple(d.at(line_offset=-first)) for d in found]
        self.changed = True

    def misses(self, text: str, suffix: str) -> bool:
        """Whether checking ``text`` would need the parsers: a block not in the cache, or inline flags
        while the parser's option strings are not."""
        try:
            blocks = source_blocks(text, suffix)
        except ValueError:  # not readable as its kind of file: checking it reports that
            return True
        if needs_parsers(text) and any(self.get(b) is None for b in blocks):
            return True
        return suffix in (".md", ".myst") and self.flags is None and bool(INLINE_SPEC_FLAG.search(text))

    def save(self) -> None:
        """Write the cache if anything was added (atomically: a reader never sees half a file)."""
        if not self.changed and self.path.exists():
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        scratch = self.path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_bytes(pickle.dumps({"checker": checker_digest(), "entries": self.entries, "flags": self.flags}))
        scratch.replace(self.path)
        self.changed = False


def _checked(block: Block, cache: ResultCache | None) -> list[Diagnostic]:
    if cache is None:
        return check_block(block)
    found = cache.get(block)
    if found is None:
        found = check_block(block)
        cache.put(block, found)
    return found


def located(text: str, suffix: str, cache: ResultCache | None = None) -> list[tuple[int | None, Diagnostic]]:
    """``[(notebook cell number or None, diagnostic)]`` of a file's text, sorted by cell and line.

    :param cache: diagnostics of blocks checked before (:class:`ResultCache`), or ``None``.
    """
    try:
        blocks = source_blocks(text, suffix)
    except ValueError as exc:  # a notebook that is not JSON
        return [(None, make(getattr(exc, "lineno", 1) or 1, ERROR, "unreadable-command",
                            f"the file cannot be read as {suffix or 'text'}: {' '.join(str(exc).split())}"))]
    found = [(b.cell, d) for b in blocks for d in _checked(b, cache)]
    found += [(None, d) for d in check_inline_flags(text, cache)] if suffix in (".md", ".myst") else []
    return sorted(found, key=lambda cd: (cd[0] or 0, cd[1].line))


def check_source(text: str, suffix: str, path: str | None = None) -> list[Diagnostic]:
    """All problems of a file's text (``suffix`` ``.md``, ``.myst``, ``.ipynb``, ``.sh``, ``.py``), sorted by cell and line.

    In a notebook, a diagnostic's line is counted in its cell, and its message starts with ``cell N:``.
    """
    return [d.at(path=path, prefix=f"cell {cell}: " if cell is not None else "") for cell, d in located(text, suffix)]


def check_file(path: str | Path) -> list[Diagnostic]:
    """All problems of a Markdown page, notebook or shell script (any other file is read as shell)."""
    from speccheck.pinned import substitute  # {{ sglang_version }} reads as the build reads it

    path = Path(path)
    return check_source(substitute(path.read_text(encoding="utf-8")), path.suffix, str(path))


_NEEDS_PARSERS = re.compile(r"\b(?:sglang|specforge)\b|`--speculative-")  # lower case: commands, not prose


def needs_parsers(text: str) -> bool:
    """The text may hold something checked against the pinned parsers: a command (``sglang`` or
    ``specforge`` in lower case, also in a Python argv list), an inline ``--speculative-*`` flag,
    or a ``specforge-config`` block. A text without any needs none of them."""
    return bool(_NEEDS_PARSERS.search(text))


def build_parsers() -> str:
    """Build every pinned parser and the start-up hook now (a Sphinx build does it before reading pages).

    :returns: the SGLang version.
    :raises Exception: whatever stops them from being built; the message says why.
    """
    loaded = sglang_args.pinned_parser()
    sglang_args.bench_serving_parser()
    specforge_args.specforge_parser()
    spec_rules.source_facts()
    startup.algorithm_names()
    return loaded.version


__all__ = ["Diagnostic", "check_command", "check_file", "check_source", "build_parsers"]
