"""Check every SGLang and SpecForge command, Python snippet and SpecForge config on the site.

What is checked, in the code blocks of Markdown pages and in notebook cells:

- ``python -m sglang.launch_server ...`` and ``sglang serve ...`` commands are
  parsed by SGLang's own parser (:mod:`sglang_args`), exactly as
  ``sglang/srt/server_args.py: prepare_server_args`` does, then checked against the
  startup rules of :mod:`spec_rules`. A flag that argparse accepts only as an
  abbreviation of a longer one is reported too: abbreviations break as soon as
  SGLang adds a flag with the same prefix (``--cuda-graph-max-bs`` did).
- ``python -m sglang.benchmark.serving ...`` is parsed by the benchmark's own parser.
- ``specforge ...`` commands are parsed by SpecForge's own parser (:mod:`specforge_args`).
- Any ``python -m <sglang or specforge module>`` must name a module Python can run
  (``python -m specforge`` cannot); a deprecated module path is reported.
- Python blocks (language ``python``) must compile and use no undefined name (pyflakes).
- YAML blocks with the class ``specforge-config`` are validated as SpecForge run configs.

Commands are found in any block, also inside strings (``subprocess.run("...")``),
in Python argv lists and after ``!`` in notebooks; a program may be called by
path (``.venv/bin/specforge``). Backslash continuations are joined, environment
variable prefixes and ``#`` comments are skipped, and a shell array assigned in
the same block is expanded where it is used (``"${spec[@]}"``). A value that is
a shell or Python variable (``$MODEL``, ``{port}``), a command's output
(``$(...)``) or a ``<placeholder>`` is not type-checked. A variable where a flag
would stand (``$EXTRA_FLAGS``, ``"${extra[@]}"`` of an array not in the block)
may hold any flags: the flags written around it are still checked, but not the
startup rules.

A block that shows a command *meant* to fail carries the class ``expect-fail``
(```` ```{code-block} bash ```` with ``:class: expect-fail``; in a notebook, the
cell tag ``expect-fail``). Its commands must then fail, and a warning says so
when one passes.

In a Sphinx build, each problem is a warning at the page and line (``-W`` makes
it fail the build); ``tools/check_commands.py`` runs the same checks on files.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib.util
import json
import logging
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pyflakes import checker as pyflakes_checker
from pyflakes import messages as pyflakes_messages

import sglang_args
import spec_rules
import specforge_args

EXPECT_FAIL = "expect-fail"
SPECFORGE_CONFIG = "specforge-config"
PYTHON_LANGS = {"python", "py", "python3"}
OUTPUT_LANGS = {"text", "txt", "log", "output", "plaintext", "none"}
Lines = list[tuple[int, str]]  # [(line number, text)]

# -- Finding code blocks -------------------------------------------------------


@dataclass
class Block:
    """A code block: its language, classes, and its lines with their line numbers.

    :ivar lines: ``[(line number in the file, or in the cell for notebooks, text)]``.
    :ivar cell: the notebook cell number (1-based) or ``None`` for a Markdown page.
    """

    lang: str
    classes: set[str]
    lines: Lines
    cell: int | None = None

    @property
    def expect_fail(self) -> bool:
        """The block carries the ``expect-fail`` class (or notebook cell tag)."""
        return EXPECT_FAIL in self.classes

    @property
    def text(self) -> str:
        """The block's code, without line numbers."""
        return "\n".join(t for _, t in self.lines)


FENCE_RE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")


def markdown_blocks(text: str, first_line: int = 1, cell: int | None = None) -> list[Block]:
    """Fenced code blocks of a MyST Markdown text (```` ``` ````, ``~~~``, ```` ```{code-block} lang ````).

    Directive options (``:class: a b`` lines, or a ``---`` YAML header) right after
    the opening fence are read, not treated as code. Blocks nested in other fences
    (```` ```` ```` around ```` ``` ````) are reported once, as the outer block.
    As in CommonMark, a fence indented by N spaces (in a list item) has up to N
    spaces of indentation removed from each line of its content.
    """
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE_RE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, indent = m.group("fence"), m.group("info").strip(), len(m.group("indent"))
        directive = re.match(r"\{([\w-]+)\}\s*(.*)", info)
        lang, classes = info.split()[0] if info else "", set()
        if directive:
            name, lang = directive.group(1), (directive.group(2).split() or [""])[0]
            if name not in ("code-block", "code", "sourcecode", "code-cell"):
                lang = f"{{{name}}}"
        j = i + 1
        if directive:  # options: ":key: value" lines or a --- YAML block
            if j < len(lines) and lines[j].strip() == "---":
                end = next((k for k in range(j + 1, len(lines)) if lines[k].strip() == "---"), j)
                options = _yaml_mapping("\n".join(lines[j + 1:end]))
                classes.update(str(options.get("class", "")).split())
                j = end + 1
            while j < len(lines) and re.match(r"^\s*:[\w-]+:", lines[j]):
                opt = re.match(r"^\s*:([\w-]+):\s*(.*)$", lines[j])
                if opt.group(1) == "class":
                    classes.update(opt.group(2).split())
                j += 1
        body = []
        while j < len(lines) and not re.match(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[j]):
            line = lines[j]
            body.append((j + first_line, line[min(indent, len(line) - len(line.lstrip(" "))):]))
            j += 1
        if lang.lower() in ("markdown", "md", "myst") and body:
            # An example of page source: check the blocks it shows, with their own classes.
            blocks += markdown_blocks("\n".join(t for _, t in body), first_line=body[0][0], cell=cell)
        elif not lang.startswith("{") or lang == "{code-cell}":
            blocks.append(Block(lang.lower(), classes, body, cell))
        i = j + 1
    return blocks


def _yaml_mapping(text: str) -> dict:
    """A directive's ``---`` options header as a dict (``{}`` when it is not a YAML mapping)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def notebook_blocks(text: str) -> list[Block]:
    """Code cells (as Python blocks) and the fenced blocks of Markdown cells of a notebook (JSON text)."""
    nb = json.loads(text)
    blocks = []
    for number, cell in enumerate(nb.get("cells", []), start=1):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") == "code":
            tags = set(cell.get("metadata", {}).get("tags", []))
            lines = list(enumerate(source.splitlines(), start=1))
            blocks.append(Block("ipython", tags, lines, number))
        elif cell.get("cell_type") == "markdown":
            blocks += markdown_blocks(source, cell=number)
    return blocks


# -- Finding commands in a block ---------------------------------------------------

# A command's entry point: ``python -m`` and an ``sglang`` or ``specforge`` module, or the
# ``sglang serve`` and ``specforge`` programs; a path may stand before either (``.venv/bin/specforge``).
PATH = r"(?<![\w.:/~-])(?:[\w.~-]*/)*"
PYTHON = r"python(?:3(?:\.\d+)?)?"
MODULE = r"(?:sglang|specforge)(?:\.\w+)*"
ENTRY_RE = re.compile(rf"{PATH}(?:{PYTHON}\s+-m\s+(?P<module>{MODULE})\b|(?P<program>sglang\s+serve|specforge)(?=\s|$))")
# What may stand before a command that is not at the start of its line.
COMMAND_POSITION_RE = re.compile(r"""(^|[;&|(!"'`]|\$\()\s*((\w+=\S*|nohup|exec|time|env|sudo)\s+)*$""")
# A word whose value the page does not give: a shell or Python variable, a command's output, a <placeholder>.
VARIABLE_RE = re.compile(r"\$|\{.*\}|^<[^<>]+>$")
# A shell array assigned at the start of a line (``spec=(`` or ``spec+=(``), and its expansion.
ARRAY_RE = re.compile(r"^\s*(?P<name>\w+)(?P<op>\+?=)\((?P<rest>.*)$")
ARRAY_USE_RE = re.compile(r"^\$\{(?P<name>\w+)\[[@*]\]\}$")
# A word that expands to any number of words: "${name[@]}" or "$@".
MANY_WORDS_RE = re.compile(r"^\$(?:\{\w+\[[@*]\]\}|[@*])$")


@dataclass
class Command:
    """One command found in a block.

    :ivar entry: ``"python -m <module>"``, ``"sglang serve"`` or ``"specforge"``
        (``python3`` is written ``python``; a path before a program is dropped).
    :ivar args: the words after the entry point, with the block's shell arrays expanded.
    :ivar line: the line the command starts on.
    :ivar physical: ``[(line number, text)]`` of the lines it was read from (its
        continuation lines and the arrays it expands).
    """

    entry: str
    args: list[str]
    line: int
    physical: Lines = field(default_factory=list)

    def line_of(self, message: str) -> int:
        """The line holding the first flag that ``message`` names (the command's first line if none)."""
        for flag in re.findall(r"--[\w-]+", message):
            for number, text in self.physical:
                if re.search(rf"{re.escape(flag)}(?![\w-])", text):
                    return number
        return self.line


def logical_lines(lines: Lines) -> list[tuple[int, str, Lines]]:
    """Join lines ending with a backslash: ``(number of the first line, joined text, the physical lines)``."""
    out: list[tuple[int, str, Lines]] = []
    pending: tuple[int, str, Lines] | None = None
    for number, text in lines:
        physical = [(number, text)]
        if pending is not None:
            number, text, physical = pending[0], pending[1] + " " + text.lstrip(), pending[2] + physical
        if text.rstrip().endswith("\\"):
            pending = (number, text.rstrip()[:-1], physical)
            continue
        pending = None
        out.append((number, text, physical))
    if pending is not None:
        out.append(pending)
    return out


def _in_comment(prefix: str) -> bool:
    """Whether a ``#`` outside quotes starts a comment before the end of ``prefix``."""
    quote = None
    for k, ch in enumerate(prefix):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (k == 0 or prefix[k - 1].isspace()):
            return True
    return False


def _words(text: str, stop: str) -> tuple[list[str], bool]:
    """Shell words of ``text`` up to the first token starting with a character of ``stop``.

    :returns: ``(words, whether a stop token was reached)``; an unbalanced quote ends the words.
    """
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words = []
    try:
        for word in lexer:
            if word and (word[0] in stop or re.match(r"^\d*>", word) or (word[0] == "<" and not word.endswith(">"))):
                return words, True
            words.append(word)
    except ValueError:
        pass
    return words, False


def _split(rest: str) -> list[str]:
    """Shell words of a command line, up to the first shell operator or redirection.

    A command substitution ``$(...)`` becomes one variable word: its output is not known here.
    """
    rest = re.sub(r"\$\((?:[^()]|\([^()]*\))*\)", "${command_output}", rest)
    return _words(rest, ";&|()")[0]


def _argv_entry(words: list[str]) -> tuple[str, int] | None:
    """The entry point an argv list starts with (see :class:`Command`) and how many words it takes."""
    if (len(words) > 2 and re.fullmatch(rf"(?:.*/)?{PYTHON}|\{{sys\.executable\}}", words[0])
            and words[1] == "-m" and re.fullmatch(MODULE, words[2])):
        return f"python -m {words[2]}", 3
    program = words[0].rsplit("/", 1)[-1] if words else ""
    if program == "specforge":
        return "specforge", 1
    if program == "sglang" and words[1:2] == ["serve"]:
        return "sglang serve", 2
    return None


def argv_commands(block: Block) -> list[Command]:
    """Commands written as Python lists or tuples (``subprocess.run(["sglang", "serve", ...])``).

    An element that is not a plain string (a variable, an f-string, ``*extra``)
    becomes ``{...}``, a value the checks treat as unknown.
    """
    source = "\n".join("" if t.lstrip().startswith(("!", "%")) else t for _, t in block.lines)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.List, ast.Tuple)):
            continue
        words = [e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else "{" + ast.unparse(e) + "}"
                 for e in node.elts]
        entry = _argv_entry(words)
        if entry:
            physical = block.lines[node.lineno - 1: node.end_lineno]
            found.append(Command(entry[0], words[entry[1]:], physical[0][0], physical))
    return found


def shell_arrays(lines: list[tuple[int, str, Lines]]) -> tuple[dict[str, tuple[list[str], Lines]], set[int]]:
    """Shell arrays assigned at the start of a line: ``spec=(...)``, also over several lines, and ``spec+=(...)``.

    :param lines: the block's logical lines (:func:`logical_lines`).
    :returns: ``({name: (words, the lines they are written on)}, indices of the logical lines the arrays take)``.
    """
    arrays: dict[str, tuple[list[str], Lines]] = {}
    taken: set[int] = set()
    k = 0
    while k < len(lines):
        m = ARRAY_RE.match(lines[k][1])
        if m:
            start, body, written = k, m["rest"], list(lines[k][2])
            words, closed = _words(body, ")")
            while not closed and k + 1 < len(lines):
                k += 1
                body, written = body + "\n" + lines[k][1], written + lines[k][2]
                words, closed = _words(body, ")")
            before = arrays.get(m["name"], ([], [])) if m["op"] == "+=" else ([], [])
            arrays[m["name"]] = (before[0] + words, before[1] + written)
            taken.update(range(start, k + 1))
        k += 1
    return arrays, taken


def find_commands(block: Block) -> list[Command]:
    """Every SGLang / SpecForge command in a block.

    In a shell block, the arrays of :func:`shell_arrays` are expanded where a
    command uses them as ``"${spec[@]}"``.
    """
    python = block.lang in PYTHON_LANGS | {"ipython"}
    found = argv_commands(block) if python else []
    logical = logical_lines(block.lines)
    arrays, taken = ({}, set()) if python else shell_arrays(logical)
    for k, (number, text, physical) in enumerate(logical):
        if k in taken:
            continue
        for m in ENTRY_RE.finditer(text):
            prefix = text[: m.start()]
            if _in_comment(prefix):
                continue
            # In output or log blocks a command counts only where a command starts; elsewhere
            # `python -m sglang.launch_server` counts anywhere (after `docker run IMAGE`, ...).
            anywhere = m["module"] is not None and block.lang not in OUTPUT_LANGS
            if not anywhere and not COMMAND_POSITION_RE.search(prefix):
                continue
            rest = text[m.end():]
            quote = prefix.rstrip()[-1:] if prefix.rstrip()[-1:] in ("'", '"') else ""
            if quote and quote in rest:
                rest = rest[: rest.index(quote)]
            args, lines = [], list(physical)
            for word in _split(rest):
                use = ARRAY_USE_RE.match(word)
                if use and use["name"] in arrays:
                    args += arrays[use["name"]][0]
                    lines += arrays[use["name"]][1]
                else:
                    args.append(word)
            entry = f"python -m {m['module']}" if m["module"] else " ".join(m["program"].split())
            found.append(Command(entry, args, number, sorted(set(lines))))
    return found


# -- Entry points of the pinned packages ----------------------------------------------


def _package_dir(top: str) -> Path | None:
    spec = importlib.util.find_spec(top)  # finds the package without importing it
    return Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None


@functools.cache
def not_runnable(module: str) -> str | None:
    """Why ``python -m <module>`` fails with the installed packages, in Python's words; ``None`` if it runs.

    :param module: a dotted name in ``sglang`` or ``specforge``.

    A module runs when it is a ``.py`` file, or a package with a ``__main__.py``;
    SpecForge 0.2.0 has no ``specforge/__main__.py``, so ``python -m specforge`` fails.
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


# -- Checking ----------------------------------------------------------------


@dataclass
class Problem:
    """Something wrong at a line of a block (a notebook problem also names its cell)."""

    line: int
    message: str
    cell: int | None = None

    def where(self, path: str) -> str:
        """``path:line``, or ``path: cell N, line M`` for a notebook."""
        return where(path, self.line, self.cell)


def where(path: str, line: int, cell: int | None = None) -> str:
    """``path:line``, or ``path: cell N, line M`` for a line of a notebook cell."""
    return f"{path}:{line}" if cell is None else f"{path}: cell {cell}, line {line}"


class ParseError(Exception):
    """argparse rejected the arguments; the message is argparse's own."""


def _raise(message: str):
    raise ParseError(message)


def _strict_parse(parser: argparse.ArgumentParser, args: list[str]) -> argparse.Namespace:
    """``parser.parse_args(args)`` with errors raised as :class:`ParseError` instead of exiting."""
    parsers = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            parsers += list(action.choices.values())
    saved = [p.__dict__.get("error") for p in parsers]
    for p in parsers:
        p.error = _raise
    logging.disable(logging.WARNING)  # SGLang's deprecated-flag actions log while parsing
    try:
        return parser.parse_args(args)
    finally:
        logging.disable(logging.NOTSET)
        for p, old in zip(parsers, saved, strict=True):
            if old is None:
                del p.error
            else:
                p.error = old


def _action_for(parser: argparse.ArgumentParser, flag: str) -> tuple[argparse.Action | None, bool]:
    """The action a ``--flag`` selects and whether it was spelled exactly (not an abbreviation)."""
    actions = parser._option_string_actions
    if flag in actions:
        return actions[flag], True
    matches = {a for name, a in actions.items() if name.startswith(flag)}
    return (matches.pop(), False) if len(matches) == 1 else (None, False)


def _stand_in(action: argparse.Action) -> str:
    """A valid literal for an option whose value on the page is a variable."""
    if action.choices:
        return str(next(iter(action.choices)))
    return {int: "1", float: "1.0"}.get(action.type, "x")


@dataclass
class Parsed:
    """What a parser made of a command's arguments (see :func:`parse`).

    :ivar namespace: the parsed values; ``None`` when the parser rejected the arguments.
    :ivar error: the parser's own message when it rejected them.
    :ivar given: the fields (``dest``) the command sets with a literal value.
    :ivar notes: problems the parser lets through: abbreviated and deprecated flags.
    :ivar unresolved: words left out because they expand to words the page does not
        give (``"${extra[@]}"`` of an array not in the block, ``$FLAGS``).
    """

    namespace: argparse.Namespace | None = None
    error: str | None = None
    given: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


def _prepare(parser: argparse.ArgumentParser, args: list[str], parsed: Parsed) -> list[str]:
    """The arguments to hand to ``parser`` (see :func:`parse`); fills ``given``, ``notes`` and ``unresolved``."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if not word.startswith("-"):
            (parsed.unresolved if VARIABLE_RE.search(word) else out).append(word)
            continue
        flag, eq, value = word.partition("=")
        action, exact = _action_for(parser, flag)
        if action is None:
            out.append(word)
            continue
        if not exact:
            full = next(s for s in action.option_strings if s.startswith(flag))
            parsed.notes.append(f"{flag} is an abbreviation of {full}: the parser accepts it only while no other "
                                "flag starts the same way; write the full flag")
        if type(action).__name__.startswith("Deprecated"):  # SGLang's Deprecated*Action classes
            instead = f": use {action.new_flag}" if getattr(action, "new_flag", None) else ""
            parsed.notes.append(f"{flag} is deprecated{instead}")
        if action.nargs == 0:
            out.append(word)
        elif eq:
            out.append(f"{flag}={_stand_in(action)}" if VARIABLE_RE.search(value) else word)
        elif i < len(args) and not args[i].startswith("--"):
            value = args[i]
            i += 1
            out += [flag, _stand_in(action) if VARIABLE_RE.search(value) else value]
        else:  # no value: argparse says so
            out.append(word)
            continue
        if action.nargs == 0 or not VARIABLE_RE.search(value):
            parsed.given.add(action.dest)
    return out


def parse(parser: argparse.ArgumentParser, args: list[str]) -> Parsed:
    """Parse a command's arguments as the program would, without exiting on errors.

    A value written as a variable (``$MODEL``, ``{port}``, ``<path>``) is replaced
    by a valid literal for its option, so only what the page spells out is
    checked. A variable where a flag would stand may expand to any flags: it is
    left out (:attr:`Parsed.unresolved`), and the required options it may hold
    get stand-in values. When the first word is a subcommand (``specforge
    train``), the subcommand's options are prepared the same way.
    """
    parsed = Parsed()
    target = parser
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if sub is not None and args and args[0] in sub.choices:
        target = sub.choices[args[0]]
        argv = [args[0], *_prepare(target, args[1:], parsed)]
    else:
        argv = _prepare(parser, args, parsed)
    if parsed.unresolved:
        written = {_action_for(target, w.partition("=")[0])[0] for w in argv if w.startswith("-")}
        argv += [w for a in target._actions if a.required and a.option_strings and a not in written
                 for w in (a.option_strings[0], _stand_in(a))]
    try:
        parsed.namespace = _strict_parse(parser, argv)
    except ParseError as exc:
        parsed.error = str(exc)
    return parsed


def sglang_argv(entry: str, args: list[str]) -> list[str]:
    """What ``prepare_server_args`` receives for a command, as each entry point builds it.

    ``sglang serve`` drops ``--model-type`` (``sglang/cli/serve.py:
    _extract_model_type_override``) and turns a leading positional model into
    ``--model-path`` (``_normalize_positional_model_path``);
    ``python -m sglang.launch_server`` passes ``sys.argv[1:]`` unchanged.
    """
    if entry != "sglang serve":
        return list(args)
    out, i = [], 0
    while i < len(args):
        if args[i] == "--model-type":
            i += 2
            continue
        if not args[i].startswith("--model-type="):
            out.append(args[i])
        i += 1
    if out and not out[0].startswith("-") and not MANY_WORDS_RE.match(out[0]):
        out = ["--model-path", *out]
    return out


def check_server(entry: str, args: list[str]) -> list[str]:
    """Everything wrong with an SGLang server command (``entry`` ``python -m sglang.launch_server`` or
    ``sglang serve``): the parser's verdict, then the startup rules of :mod:`spec_rules`."""
    parsed = parse(sglang_args.pinned_parser().parser, sglang_argv(entry, args))
    if parsed.error:
        return [f"SGLang's parser rejects it: {parsed.error}", *parsed.notes]
    if parsed.unresolved:  # the expansion may set any flag, so the startup rules cannot be applied
        return parsed.notes
    return parsed.notes + [str(v) for v in spec_rules.check(parsed.namespace, parsed.given)]


def check_bench(args: list[str]) -> list[str]:
    """Everything ``python -m sglang.benchmark.serving``'s parser finds wrong with ``args``."""
    parsed = parse(sglang_args.bench_serving_parser(), args)
    return ([f"SGLang's benchmark parser rejects it: {parsed.error}"] if parsed.error else []) + parsed.notes


def check_specforge(args: list[str]) -> list[str]:
    """Everything SpecForge's parser (``specforge/cli.py: main``) finds wrong with ``args``."""
    parsed = parse(specforge_args.specforge_parser(), args)
    return ([f"SpecForge's parser rejects it: {parsed.error}"] if parsed.error else []) + parsed.notes


def check_command(cmd: Command) -> list[str]:
    """Everything wrong with one command; ``[]`` when it would run.

    A ``python -m`` module must be runnable in the installed release; a deprecated
    module path is reported, and its replacement checked. Server, serving-benchmark
    and SpecForge commands are then parsed by their program's own parser. Other
    entry points (``python -m sglang.benchmark.one_batch_server``, ...) are only
    checked to exist.

    :returns: one message per problem, without the entry point (:func:`check_block` adds it).
    :raises sglang_args.SGLangParserError: a pinned parser cannot be built (a Sphinx
        build finds that out first, before it reads any page).
    """
    entry, notes = cmd.entry, []
    if entry.startswith("python -m "):
        module = entry.removeprefix("python -m ")
        problem = not_runnable(module)
        if problem:
            return [f"Python cannot run it: {problem}"]
        new = replacement_of(module)
        if new:
            notes.append(f"this module path is deprecated: use python -m {new} [SGLang: {module.replace('.', '/')}.py]")
            entry = f"python -m {new}"
    if "-h" in cmd.args or "--help" in cmd.args:
        return notes
    if entry in ("python -m sglang.launch_server", "sglang serve"):
        return notes + check_server(entry, cmd.args)
    if entry == "python -m sglang.benchmark.serving":
        return notes + check_bench(cmd.args)
    if entry in ("specforge", "python -m specforge.cli"):
        return notes + check_specforge(cmd.args)
    return notes


def check_python(block: Block) -> list[Problem]:
    """Syntax errors and undefined names (pyflakes) in a Python block."""
    code = block.text
    if code.lstrip().startswith(">>>"):
        return []
    offset = block.lines[0][0] - 1 if block.lines else 0
    try:
        tree = compile(code, "<block>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as exc:
        return [Problem((exc.lineno or 1) + offset, f"Python block does not compile: {exc.msg}", block.cell)]
    undefined = (pyflakes_messages.UndefinedName, pyflakes_messages.UndefinedLocal, pyflakes_messages.UndefinedExport)
    found = pyflakes_checker.Checker(tree, filename="<block>").messages
    return [Problem(m.lineno + offset, f"Python block: {m.message % m.message_args}", block.cell)
            for m in sorted(found, key=lambda m: m.lineno) if isinstance(m, undefined)]


def check_config(block: Block) -> list[Problem]:
    """A YAML block marked ``specforge-config`` must load with ``specforge.config.load_config``."""
    try:
        specforge_args.validate_config(block.text)
    except Exception as exc:  # noqa: BLE001 - any loader error is the finding
        detail = " ".join(str(exc).split())
        line = block.lines[0][0] if block.lines else 0
        return [Problem(line, f"SpecForge rejects this run config: {type(exc).__name__}: {detail}", block.cell)]
    return []


def check_block(block: Block) -> list[Problem]:
    """All problems of one block, honouring the ``expect-fail`` class."""
    problems: list[Problem] = []
    for cmd in find_commands(block):
        found = check_command(cmd)
        shown = f"`{cmd.entry} {' '.join(cmd.args)}`"
        if block.expect_fail:
            if not found:
                problems.append(Problem(cmd.line, f"{shown} is marked {EXPECT_FAIL} but passes every check",
                                        block.cell))
            continue
        problems += [Problem(cmd.line_of(msg), f"{cmd.entry}: {msg}", block.cell) for msg in found]
    if block.lang in PYTHON_LANGS:
        found = check_python(block)
        if block.expect_fail and not found and not find_commands(block):
            problems.append(Problem(block.lines[0][0] if block.lines else 0,
                                    f"Python block is marked {EXPECT_FAIL} but has no error", block.cell))
        elif not block.expect_fail:
            problems += found
    if SPECFORGE_CONFIG in block.classes:
        found = check_config(block)
        if block.expect_fail and not found:
            problems.append(Problem(block.lines[0][0], f"config is marked {EXPECT_FAIL} but SpecForge accepts it",
                                    block.cell))
        elif not block.expect_fail:
            problems += found
    return problems


def source_blocks(text: str, suffix: str) -> list[Block]:
    """The code blocks of a page's source text (``suffix`` ``.md`` or ``.ipynb``)."""
    return notebook_blocks(text) if suffix == ".ipynb" else markdown_blocks(text)


# An SGLang speculative flag written inline in prose, e.g. `--speculative-eagle-topk 1`.
INLINE_SPEC_FLAG = re.compile(r"`(--speculative-[a-z0-9-]+)")


def check_inline_flags(text: str) -> list[Problem]:
    """Inline literals naming a ``--speculative-*`` flag the pinned SGLang parser does not have.

    Only that prefix is checked: it belongs to SGLang alone, while shorter names
    such as ``--dtype`` also exist in other tools a page may mention.

    :param text: a page's Markdown source; lines are counted from 1.
    :returns: one :class:`Problem` per unknown flag, at its line.
    """
    known = set(sglang_args.pinned_parser().parser._option_string_actions)
    return [Problem(lineno, f"inline flag {flag} is not an option of SGLang {sglang_args.pinned_parser().version}")
            for lineno, line in enumerate(text.splitlines(), start=1)
            for flag in INLINE_SPEC_FLAG.findall(line) if flag not in known]


def check_source(text: str, suffix: str) -> list[Problem]:
    """All problems of a page's source text (``suffix`` ``.md`` or ``.ipynb``)."""
    problems = [p for b in source_blocks(text, suffix) for p in check_block(b)]
    return problems + (check_inline_flags(text) if suffix == ".md" else [])


def check_file(path: str | Path) -> list[Problem]:
    """All problems of a ``.md`` or ``.ipynb`` file (other suffixes: none)."""
    path = Path(path)
    if path.suffix not in (".md", ".ipynb"):
        return []
    import pin_substitutions  # the build checks the text with the versions filled in; so does this

    return check_source(pin_substitutions.substitute(path.read_text(encoding="utf-8")), path.suffix)


# -- Sphinx ---------------------------------------------------------------------


def _build_parsers(app, env, docnames) -> None:
    """Build the pinned parsers before reading pages: a failure stops the build with the reason.

    A rebuild that reads no page (nothing changed) needs no parser and skips this (about 1 s).
    """
    if not docnames:
        return
    from sphinx.errors import ExtensionError
    from sphinx.util import logging as sphinx_logging

    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        loaded = sglang_args.pinned_parser()
        sglang_args.bench_serving_parser()
        specforge_args.specforge_parser()
        spec_rules.source_facts()
    except Exception as exc:
        raise ExtensionError(f"command_check: cannot build the pinned parsers, so no command can be checked: {exc}",
                             modname=__name__) from exc
    sphinx_logging.getLogger(__name__).info(
        f"command_check: parsers of SGLang {loaded.version} and SpecForge built in "
        f"{time.perf_counter() - start:.2f} s ({time.process_time() - cpu_start:.2f} s CPU)")


def _check_page(app, docname: str, source: list[str]) -> None:
    from sphinx.util import logging as sphinx_logging

    logger = sphinx_logging.getLogger(__name__)
    path = app.env.doc2path(docname)
    for problem in check_source(source[0], Path(path).suffix):
        if problem.cell is None:
            logger.warning(problem.message, location=(docname, problem.line), type="command", subtype="check")
        else:
            logger.warning(f"cell {problem.cell}, line {problem.line}: {problem.message}", location=docname,
                           type="command", subtype="check")


def setup(app):
    app.connect("env-before-read-docs", _build_parsers)
    app.connect("source-read", _check_page)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
