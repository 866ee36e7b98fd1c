"""Parse a command's words with a program's own argparse parser, collecting every problem.

The parser is SGLang's or SpecForge's own (:mod:`speccheck.sglang_args`,
:mod:`speccheck.specforge_args`); argparse itself stops at the first error, so
:func:`parse` takes the offending words out and parses again, until the parser
accepts what is left. Every error it met is kept, in the order of the words.
"""

from __future__ import annotations

import argparse
import logging
import re
from dataclasses import dataclass, field

from speccheck.shell import MANY_WORDS_RE, VARIABLE_RE


class ParseError(Exception):
    """argparse rejected the arguments; the message is argparse's own."""


def _raise(message: str):
    raise ParseError(message)


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out += list(action.choices.values())
    return out


def strict_parse(parser: argparse.ArgumentParser, args: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """``parser.parse_known_args(args)`` with errors raised as :class:`ParseError` instead of exiting."""
    parsers = _parsers(parser)
    saved = [p.__dict__.get("error") for p in parsers]
    for p in parsers:
        p.error = _raise
    logging.disable(logging.WARNING)  # SGLang's deprecated-flag actions log while parsing
    try:
        return parser.parse_known_args(args)
    finally:
        logging.disable(logging.NOTSET)
        for p, old in zip(parsers, saved, strict=True):
            if old is None:
                del p.error
            else:
                p.error = old


def action_for(parser: argparse.ArgumentParser, flag: str) -> tuple[argparse.Action | None, bool]:
    """The action a ``--flag`` selects and whether it was spelled exactly (not an abbreviation)."""
    actions = parser._option_string_actions
    if flag in actions:
        return actions[flag], True
    matches = {a for name, a in actions.items() if name.startswith(flag)}
    return (matches.pop(), False) if len(matches) == 1 else (None, False)


def stand_in(action: argparse.Action) -> str:
    """A valid literal for an option whose value on the page is a variable."""
    if action.choices:
        return str(next(iter(action.choices)))
    if callable(action.type) and action.type not in (int, float, str):
        # A type of SGLang's own (JSON, sizes such as 1G): the first literal it accepts.
        for text in ("1", "{}", "[]", "x", "true"):
            try:
                action.type(text)
            except Exception:  # noqa: BLE001 - the type refuses it (or needs SGLang's runtime)
                continue
            return text
    return {int: "1", float: "1.0"}.get(action.type, "x")


@dataclass(frozen=True)
class ArgProblem:
    """One thing the parser (or the check around it) found wrong with the words.

    :ivar rule: a rule id of :data:`speccheck.diagnostics.SECTIONS`.
    :ivar flag: the flag concerned (as written), or ``None``.
    :ivar message: argparse's own message, or the check's.
    :ivar severity: ``"error"`` (the program exits) or ``"warning"`` (it runs).
    """

    rule: str
    flag: str | None
    message: str
    severity: str = "error"


@dataclass
class Parsed:
    """What a parser made of a command's arguments (see :func:`parse`).

    :ivar namespace: the parsed values (of the words left once the bad ones were taken out).
    :ivar problems: every error and warning, in the order of the words.
    :ivar given: the fields (``dest``) the command sets with a literal value.
    :ivar unresolved: words left out because they expand to words the page does not give.
    :ivar words: the words handed to the parser (after stand-ins).
    """

    namespace: argparse.Namespace | None = None
    problems: list[ArgProblem] = field(default_factory=list)
    given: set[str] = field(default_factory=set)
    unresolved: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    variables: dict[str, argparse.Action] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """The program would exit with an argument error."""
        return any(p.severity == "error" for p in self.problems)


def _prepare(parser: argparse.ArgumentParser, args: list[str], parsed: Parsed) -> list[str]:
    """The arguments to hand to ``parser``; fills ``given``, ``unresolved`` and the spelling warnings."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if not word.startswith("-") or word == "-":
            (parsed.unresolved if VARIABLE_RE.search(word) else out).append(word)
            continue
        flag, eq, value = word.partition("=")
        action, exact = action_for(parser, flag)
        if action is None:
            out.append(word)
            continue
        if not exact:
            full = next(s for s in action.option_strings if s.startswith(flag))
            parsed.problems.append(ArgProblem(
                "abbreviated-flag", flag, f"{flag} is an abbreviation of {full}: the parser accepts it only while no "
                "other flag starts the same way; write the full flag", "warning"))
        if type(action).__name__.startswith("Deprecated"):  # SGLang's Deprecated*Action classes
            instead = f": use {action.new_flag}" if getattr(action, "new_flag", None) else ""
            parsed.problems.append(ArgProblem("deprecated-flag", flag, f"{flag} is deprecated{instead}", "warning"))
        if action.nargs == 0:
            out.append(word)
        elif eq:
            out.append(f"{flag}={stand_in(action)}" if VARIABLE_RE.search(value) else word)
        elif i < len(args) and MANY_WORDS_RE.match(args[i]):
            # A value from an expansion the page does not resolve ("${bs[@]}", "$@"): it may be one
            # value or several, and more flags after them. The value is a stand-in; the rest unknown.
            parsed.unresolved.append(args[i])
            i += 1
            out += [flag, stand_in(action)]
            parsed.variables[action.dest] = action
            continue
        elif i < len(args) and not (args[i].startswith("--") or MANY_WORDS_RE.match(args[i])):
            value = args[i]
            i += 1
            out += [flag, stand_in(action) if VARIABLE_RE.search(value) else value]
        else:  # no value: argparse says so
            out.append(word)
            continue
        if action.nargs == 0 or not VARIABLE_RE.search(value):
            parsed.given.add(action.dest)
        else:
            parsed.variables[action.dest] = action
    return out


def other_stand_in(action: argparse.Action):
    """A second valid value for an option whose value is a variable, unlike :func:`stand_in`'s (parsed)."""
    if action.choices:
        return list(action.choices)[-1]
    return {int: 2, float: 0.5}.get(action.type, "y")


# argparse (Python 3.11, _negative_number_matcher): with no option that looks like a negative
# number, "-5" and "-0.5" are values; so are "-" and any word with a space.
_NEGATIVE_NUMBER_RE = re.compile(r"^-\d+$|^-\d*\.\d+$")


def _is_value(word: str) -> bool:
    return not word.startswith("-") or word == "-" or bool(_NEGATIVE_NUMBER_RE.match(word)) or " " in word


def _drop(words: list[str], flag: str, nargs=None) -> list[str] | None:
    """``words`` without the first ``flag`` (or ``flag=...``) and the values argparse gives it; ``None`` if absent.

    :param nargs: the flag's ``argparse`` nargs: ``"+"``/``"*"`` take every value that follows,
        a number that many, anything else one.
    """
    most = len(words) if nargs in ("+", "*") else nargs if isinstance(nargs, int) else 1
    for k, w in enumerate(words):
        if w == flag or w.startswith(flag + "="):
            end = k + 1
            while w == flag and end < len(words) and end - k - 1 < most and _is_value(words[end]):
                end += 1
            return words[:k] + words[end:]
    return None


_ARG_RE = re.compile(r"^argument (?P<names>[^:]+): (?P<what>.*)$", re.S)


def _classify(message: str) -> str:
    if message.startswith("ambiguous option"):
        return "ambiguous-flag"
    if "invalid choice" in message or re.search(r"invalid \w+ value", message):
        return "invalid-value"
    if "expected" in message and "argument" in message:
        return "missing-value"
    return "parser-error"


def parse(parser: argparse.ArgumentParser, args: list[str], required_given: bool = False) -> Parsed:
    """Parse a command's arguments as the program would, without exiting, and find every problem.

    A value written as a variable (``$MODEL``, ``{port}``, ``<path>``) is replaced by a valid
    literal for its option, so only what the page spells out is checked. A variable where a flag
    would stand may expand to any flags: it is left out (:attr:`Parsed.unresolved`), and the
    required options it may hold get stand-in values. When the first word is a subcommand
    (``specforge train``), the subcommand's options are prepared the same way.

    :param required_given: treat required options as given elsewhere (``--config FILE``, whose
        content is merged first), so their absence is no error.
    """
    parsed = Parsed()
    target = parser
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if sub is not None and args and args[0] in sub.choices:
        target = sub.choices[args[0]]
        argv = [args[0], *_prepare(target, args[1:], parsed)]
    else:
        argv = _prepare(parser, args, parsed)
    if parsed.unresolved or required_given:
        written = {action_for(target, w.partition("=")[0])[0] for w in argv if w.startswith("-")}
        argv += [w for a in target._actions if a.required and a.option_strings and a not in written
                 for w in (a.option_strings[0], stand_in(a))]
    parsed.words = list(argv)
    for _attempt in range(50):
        try:
            namespace, extras = strict_parse(parser, argv)
        except ParseError as exc:
            message = str(exc)
            rule = _classify(message)
            flag = None
            m = _ARG_RE.match(message)
            if message.startswith("ambiguous option: "):
                flag = message.removeprefix("ambiguous option: ").split()[0].partition("=")[0]
            elif m and m["names"].startswith("-"):
                names = m["names"].split("/")
                flag = next((n for n in names if any(w == n or w.startswith(n + "=") for w in argv)), names[0])
            parsed.problems.append(ArgProblem(rule, flag, message))
            action = parser._option_string_actions.get(flag) if flag else None
            rest = _drop(argv, flag, getattr(action, "nargs", None)) if flag else None
            if rest is None:  # nothing to take out (a bad subcommand, a missing required option): stop here
                return parsed
            argv = rest
            continue
        k = 0
        while k < len(extras):
            group = [extras[k]]
            k += 1
            while k < len(extras) and not extras[k].startswith("-"):
                group.append(extras[k])
                k += 1
            flag = group[0].partition("=")[0] if group[0].startswith("-") else None
            parsed.problems.append(ArgProblem("unknown-flag", flag, f"unrecognized arguments: {' '.join(group)}"))
        parsed.namespace = namespace
        return parsed
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
