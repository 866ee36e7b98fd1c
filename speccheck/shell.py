"""Finding code blocks in pages and SGLang / SpecForge commands in blocks, as a shell would read them.

Commands are found in any block, also inside strings (``subprocess.run("...")``),
in Python argv lists and after ``!`` in notebooks; a program may be called by
path (``.venv/bin/specforge``) or through a variable (``$PYTHON -m
sglang.launch_server``, ``"$VENV/bin/python" -m ...``). Backslash continuations
are joined; environment variable prefixes (``A=1 B=2 cmd``, ``env "A=1" cmd``,
``"${env_array[@]}" cmd``), ``nohup`` / ``exec`` / ``time`` / ``sudo`` and ``#``
comments are skipped; a shell array assigned in the same block (``spec=(...)``,
``local -a spec=(...)``, ``declare -a``) is expanded where it is used
(``"${spec[@]}"``). A value that is a shell or Python variable (``$MODEL``,
``{port}``), a command's output (``$(...)``) or a ``<placeholder>`` is not
type-checked.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass, field

import yaml

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
    options: dict[str, str] = field(default_factory=dict)

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
        lang, classes, opts = info.split()[0] if info else "", set(), {}
        if directive:
            name, lang = directive.group(1), (directive.group(2).split() or [""])[0]
            if name == "code-cell":  # a code cell of a text notebook (.myst): IPython, its tags as classes
                lang = "ipython"
            elif name not in ("code-block", "code", "sourcecode"):
                lang = f"{{{name}}}"
        j = i + 1
        if directive:  # options: ":key: value" lines or a --- YAML block
            if j < len(lines) and lines[j].strip() == "---":
                end = next((k for k in range(j + 1, len(lines)) if lines[k].strip() == "---"), j)
                options = _yaml_mapping("\n".join(lines[j + 1:end]))
                classes.update(str(options.get("class", "")).split())
                classes.update(_tags(options.get("tags")))
                opts.update({str(k): str(v) for k, v in options.items()})
                j = end + 1
            while j < len(lines) and re.match(r"^\s*:[\w-]+:", lines[j]):
                opt = re.match(r"^\s*:([\w-]+):\s*(.*)$", lines[j])
                if opt.group(1) == "class":
                    classes.update(opt.group(2).split())
                elif opt.group(1) == "tags":
                    classes.update(_tags(_yaml_value(opt.group(2))))
                opts[opt.group(1)] = opt.group(2).strip()
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
            blocks.append(Block(lang.lower(), classes, body, cell, opts))
        i = j + 1
    return blocks


def _yaml_value(text: str):
    """A YAML value (``None`` when it is not valid YAML)."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _tags(value) -> set[str]:
    """A code cell's ``tags`` option (a YAML list of names) as a set; anything else gives none."""
    return {str(t) for t in value} if isinstance(value, list) else set()


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
# A Python interpreter named by a variable: ``$PYTHON``, ``${PY}``, ``"$VENV/bin/python"``.
VAR_PYTHON = r"\"?\$\{?\w+\}?(?:/[\w.-]+)*\"?"
MODULE = r"(?:sglang|specforge)(?:\.\w+)*"
ENTRY_RE = re.compile(rf"(?:{PATH}{PYTHON}|(?<![\w$])\"?{PATH}{PYTHON}\"|(?<![\w])(?P<varpy>{VAR_PYTHON}))\s+-m\s+(?P<module>{MODULE})\b"
                      rf"|{PATH}(?P<program>sglang\s+serve|specforge)(?=\s|$)")
# What may stand before a command that is not at the start of its line.
COMMAND_POSITION_RE = re.compile(
    r"""(^|[;&|(!"'`]|\$\()\s*((\w+=\S*|"\w+=[^"]*"|'\w+=[^']*'|"?\$\{\w+\[[@*]\]\}"?"""
    r"""|nohup|exec|time|env(?:\s+-u\s+\w+)*|sudo(?:\s+-E)?)\s+)*"?$""")
# An environment assignment before a command: ``A=1`` or ``"A=1"``.
ASSIGN_RE = re.compile(r"""^(\w+)=(.*)$""")
# A word whose value the page does not give: a shell or Python variable, a command's output, a <placeholder>.
VARIABLE_RE = re.compile(r"\$|\{.*\}|^<[^<>]+>$")
# A shell array assigned at the start of a line (``spec=(`` or ``spec+=(``), and its expansion.
ARRAY_RE = re.compile(r"^\s*(?:(?:local|declare|typeset|readonly|export)(?:\s+-\w+)*\s+)?"
                      r"(?P<name>\w+)(?P<op>\+?=)\((?P<rest>.*)$")
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
    env: dict[str, str] = field(default_factory=dict)
    unreadable: bool = False

    @property
    def read(self) -> str:
        """The command as the check read it, one line (shell quoting restored where needed)."""
        return " ".join([self.entry, *(shlex.quote(a) if a and not VARIABLE_RE.search(a) else a for a in self.args)])

    def line_of_flag(self, flag: str | None) -> int:
        """The line where ``flag`` is written (the command's first line if nowhere, or ``flag`` is ``None``)."""
        if flag:
            for number, text in self.physical:
                if re.search(rf"{re.escape(flag)}(?![\w-])", text):
                    return number
        return self.line

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


def _words(text: str, stop: str, errors: list[str] | None = None) -> tuple[list[str], bool]:
    """Shell words of ``text`` up to the first token starting with a character of ``stop``.

    :param errors: when given, a quoting error (an unbalanced quote) is appended to it.
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
    except ValueError as exc:
        if errors is not None:
            errors.append(str(exc))
    return words, False


def _open_quote(prefix: str) -> str:
    """The quote character left open at the end of ``prefix`` (``""`` when none is), as a shell reads it."""
    quote = ""
    k = 0
    while k < len(prefix):
        ch = prefix[k]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            k += 1
        elif quote == '"':
            quote = "" if ch == '"' else quote
        elif ch in "\"'":
            quote = ch
        k += 1
    return quote


def _env_prefix(prefix: str) -> dict[str, str]:
    """Environment assignments written before a command on its line (``A=1 env "B=2" cmd``)."""
    start = max(prefix.rfind(c) for c in ";&|(")
    words, _ = _words(prefix[start + 1:], "")
    return {m[1]: m[2] for w in words if (m := ASSIGN_RE.match(w))}


def _split(rest: str, errors: list[str] | None = None) -> list[str]:
    """Shell words of a command line, up to the first shell operator or redirection.

    A command substitution ``$(...)`` becomes one variable word: its output is not known here.
    """
    rest = re.sub(r"\$\((?:[^()]|\([^()]*\))*\)", "${command_output}", rest)
    return _words(rest, ";&|()", errors)[0]


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
            # A command inside a string ("python -m ...", in Python or after `bash -c`) ends
            # where that string does; a quoted word before the command does not open one.
            quote = _open_quote(prefix)
            if quote and quote in rest:
                rest = rest[: rest.index(quote)]
            args, lines, errors = [], list(physical), []
            for word in _split(rest, errors):
                use = ARRAY_USE_RE.match(word)
                if use and use["name"] in arrays:
                    args += arrays[use["name"]][0]
                    lines += arrays[use["name"]][1]
                else:
                    args.append(word)
            entry = f"python -m {m['module']}" if m["module"] else " ".join(m["program"].split())
            found.append(Command(entry, args, number, sorted(set(lines)), _env_prefix(prefix), bool(errors)))
    return found
