"""Check every SGLang and SpecForge command, Python snippet and SpecForge config on the site.

What is checked, in the code blocks of Markdown pages and in notebook cells:

- ``python -m sglang.launch_server ...`` and ``sglang serve ...`` commands are
  parsed by SGLang's own parser (:mod:`sglang_args`), exactly as
  ``sglang/srt/server_args.py: prepare_server_args`` does, then checked against the
  startup rules of :mod:`spec_rules`. A flag that argparse accepts only as an
  abbreviation of a longer one is reported too: abbreviations break as soon as
  SGLang adds a flag with the same prefix (``--cuda-graph-max-bs`` did).
- ``specforge ...`` commands are parsed by SpecForge's own parser (:mod:`specforge_args`).
- Python blocks (language ``python``) must compile and use no undefined name (pyflakes).
- YAML blocks with the class ``specforge-config`` are validated as SpecForge run configs.

Commands are found in any block, also inside strings (``subprocess.run("...")``)
and after ``!`` in notebooks; backslash continuations are joined, environment
variable prefixes and ``#`` comments are skipped, and a value that is a shell or
Python variable (``$MODEL``, ``{port}``) or a ``<placeholder>`` is not type-checked.

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
import json
import logging
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from pyflakes import checker as pyflakes_checker
from pyflakes import messages as pyflakes_messages

import sglang_args
import spec_rules
import specforge_args

EXPECT_FAIL = "expect-fail"
SPECFORGE_CONFIG = "specforge-config"
PYTHON_LANGS = {"python", "py", "python3"}
OUTPUT_LANGS = {"text", "txt", "log", "output", "plaintext", "none"}

# -- Finding code blocks -------------------------------------------------------


@dataclass
class Block:
    """A code block: its language, classes, and its lines with their line numbers.

    :ivar lines: ``[(line number in the file, or in the cell for notebooks, text)]``.
    :ivar cell: the notebook cell number (1-based) or ``None`` for a Markdown page.
    """

    lang: str
    classes: set[str]
    lines: list[tuple[int, str]]
    cell: int | None = None

    @property
    def expect_fail(self) -> bool:
        return EXPECT_FAIL in self.classes

    @property
    def text(self) -> str:
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
                options = yaml_safe("\n".join(lines[j + 1:end]))
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


def yaml_safe(text: str) -> dict:
    import yaml

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

SGLANG_RE = re.compile(r"\bpython(?:3(?:\.\d+)?)?\s+-m\s+sglang\.launch_server\b|(?<![\w./-])sglang\s+serve\b")
SPECFORGE_RE = re.compile(r"\bpython(?:3(?:\.\d+)?)?\s+-m\s+specforge(?:\.cli)?\b|(?<![\w./-])specforge(?=\s)")
# What may stand before a command that is not at the start of its line.
COMMAND_POSITION_RE = re.compile(r"""(^|[;&|(!"'`]|\$\()\s*((\w+=\S*|nohup|exec|time|env|sudo)\s+)*$""")
VARIABLE_RE = re.compile(r"\$|\{.*\}|^<[^<>]+>$")


@dataclass
class Command:
    """One command found in a block: which tool, its arguments (after the entry point), and where it starts."""

    tool: str  # "sglang" or "specforge"
    entry: str  # "python -m sglang.launch_server", "sglang serve", "specforge"
    args: list[str]
    line: int
    physical: list[tuple[int, str]] = field(default_factory=list)

    def line_of(self, message: str) -> int:
        """The line holding the first flag that ``message`` names (the command's first line if none)."""
        for flag in re.findall(r"--[\w-]+", message):
            for number, text in self.physical:
                if re.search(rf"{re.escape(flag)}(?![\w-])", text):
                    return number
        return self.line


def logical_lines(lines: list[tuple[int, str]]) -> list[tuple[int, str, list[tuple[int, str]]]]:
    """Join lines ending with a backslash: ``(number of the first line, joined text, the physical lines)``."""
    out: list[tuple[int, str, list[tuple[int, str]]]] = []
    pending: tuple[int, str, list[tuple[int, str]]] | None = None
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


def _split(rest: str) -> list[str]:
    """Shell words of a command line, up to the first shell operator or redirection."""
    lexer = shlex.shlex(rest, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words = []
    try:
        for word in lexer:
            if word and (word[0] in ";&|()" or re.match(r"^\d*>", word) or (word[0] == "<" and not word.endswith(">"))):
                break
            words.append(word)
    except ValueError:  # unbalanced quote: keep what was read
        pass
    return words


ARGV_ENTRIES = {("python", "-m", "sglang.launch_server"): ("sglang", "python -m sglang.launch_server"),
                ("python3", "-m", "sglang.launch_server"): ("sglang", "python -m sglang.launch_server"),
                ("sglang", "serve"): ("sglang", "sglang serve"), ("specforge",): ("specforge", "specforge")}


def argv_commands(block: Block) -> list[Command]:
    """Commands written as Python lists or tuples (``subprocess.run(["sglang", "serve", ...])``).

    An element that is not a plain string (a variable, an f-string) becomes
    ``{...}``, a value the checks treat as unknown.
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
        for prefix, (tool, entry) in ARGV_ENTRIES.items():
            if tuple(words[: len(prefix)]) == prefix:
                line = block.lines[node.lineno - 1][0]
                physical = block.lines[node.lineno - 1: node.end_lineno]
                found.append(Command(tool, entry, words[len(prefix):], line, physical))
    return found


def find_commands(block: Block) -> list[Command]:
    """Every SGLang server / SpecForge command in a block."""
    found = argv_commands(block) if block.lang in PYTHON_LANGS | {"ipython"} else []
    for number, text, physical in logical_lines(block.lines):
        for tool, regex in (("sglang", SGLANG_RE), ("specforge", SPECFORGE_RE)):
            for m in regex.finditer(text):
                prefix = text[: m.start()]
                if _in_comment(prefix):
                    continue
                # In output or log blocks a command counts only where a command starts; elsewhere
                # `python -m sglang.launch_server` counts anywhere (after `docker run IMAGE`, ...).
                anywhere = m.group(0).startswith("python") and block.lang not in OUTPUT_LANGS
                if not anywhere and not COMMAND_POSITION_RE.search(prefix):
                    continue
                rest = text[m.end():]
                quote = prefix.rstrip()[-1:] if prefix.rstrip()[-1:] in ("'", '"') else ""
                if quote and quote in rest:
                    rest = rest[: rest.index(quote)]
                entry = " ".join(m.group(0).split())
                found.append(Command(tool, entry, _split(rest), number, physical))
    return found


# -- Checking ----------------------------------------------------------------


@dataclass
class Problem:
    """Something wrong at a line of a block (a notebook problem also names its cell)."""

    line: int
    message: str
    cell: int | None = None

    def where(self, path: str) -> str:
        return f"{path}:{self.line}" if self.cell is None else f"{path}: cell {self.cell}, line {self.line}"


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


def prepare_args(parser: argparse.ArgumentParser, args: list[str]) -> tuple[list[str], set[str], list[str]]:
    """Replace variable values by valid literals; report which fields got literal values, and abbreviations.

    :returns: ``(arguments to parse, fields set by a literal value, notes on abbreviated flags)``.
    """
    out, given, notes = [], set(), []
    i = 0
    while i < len(args):
        word = args[i]
        if word.startswith("--"):
            flag, eq, value = word.partition("=")
            action, exact = _action_for(parser, flag)
            if action is not None and not exact:
                notes.append(f"{flag} is an abbreviation of {action.option_strings[0]}: SGLang accepts it only "
                             "while no other flag starts the same way; write the full flag")
            if action is not None and type(action).__name__.startswith("Deprecated"):
                instead = f": use {action.new_flag}" if getattr(action, "new_flag", None) else ""
                notes.append(f"{flag} is deprecated{instead}")
            takes_value = action is not None and action.nargs != 0
            if action is not None and eq:
                variable = bool(VARIABLE_RE.search(value))
                out.append(f"{flag}={_stand_in(action)}" if variable else word)
                if not variable:
                    given.add(action.dest)
                i += 1
                continue
            out.append(word)
            if action is not None and not takes_value:
                given.add(action.dest)
            if takes_value and i + 1 < len(args) and not args[i + 1].startswith("--"):
                value = args[i + 1]
                if VARIABLE_RE.search(value):
                    out.append(_stand_in(action))
                else:
                    out.append(value)
                    given.add(action.dest)
                i += 2
                continue
            i += 1
            continue
        out.append(word)
        i += 1
    return out, given, notes


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
    if out and not out[0].startswith("-"):
        out = ["--model-path", *out]
    return out


def check_sglang(entry: str, args: list[str]) -> list[str]:
    """Everything wrong with one SGLang server command; ``[]`` when SGLang would accept it."""
    if "-h" in args or "--help" in args:
        return []
    parser = sglang_args.pinned_parser().parser
    argv, given, notes = prepare_args(parser, sglang_argv(entry, args))
    try:
        ns = _strict_parse(parser, argv)
    except ParseError as exc:
        return [f"SGLang's parser rejects it: {exc}", *notes]
    return notes + [str(v) for v in spec_rules.check(ns, given)]


def check_specforge(args: list[str]) -> list[str]:
    """Everything wrong with one ``specforge`` command, as SpecForge's parser reports it."""
    if "-h" in args or "--help" in args:
        return []
    parser = specforge_args.specforge_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if args and args[0] in subparsers.choices:  # the subcommand's own options
        rest, _, _ = prepare_args(subparsers.choices[args[0]], args[1:])
        argv = [args[0], *rest]
    else:
        argv, _, _ = prepare_args(parser, args)
    try:
        _strict_parse(parser, argv)
    except ParseError as exc:
        return [f"SpecForge's parser rejects it: {exc}"]
    return []


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
        found = check_sglang(cmd.entry, cmd.args) if cmd.tool == "sglang" else check_specforge(cmd.args)
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


def check_source(text: str, suffix: str) -> list[Problem]:
    """All problems of a page's source text (``suffix`` ``.md`` or ``.ipynb``)."""
    blocks = notebook_blocks(text) if suffix == ".ipynb" else markdown_blocks(text)
    return [p for b in blocks for p in check_block(b)]


def check_file(path: str | Path) -> list[Problem]:
    """All problems of a ``.md`` or ``.ipynb`` file (other suffixes: none)."""
    path = Path(path)
    if path.suffix not in (".md", ".ipynb"):
        return []
    return check_source(path.read_text(encoding="utf-8"), path.suffix)


# -- Sphinx ---------------------------------------------------------------------


def _build_parsers(app) -> None:
    """Build SGLang's parser before reading pages: a failure stops the build with the reason."""
    from sphinx.errors import ExtensionError
    from sphinx.util import logging as sphinx_logging

    try:
        loaded = sglang_args.pinned_parser()
        specforge_args.specforge_parser()
        spec_rules.source_facts()
    except Exception as exc:
        raise ExtensionError(f"command_check: cannot build the pinned parsers, so no command can be checked: {exc}",
                             modname=__name__) from exc
    sphinx_logging.getLogger(__name__).info(
        f"command_check: SGLang {loaded.version} parser built in {loaded.seconds:.2f} s "
        f"({loaded.cpu_seconds:.2f} s CPU)")


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
    app.connect("builder-inited", _build_parsers)
    app.connect("source-read", _check_page)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
