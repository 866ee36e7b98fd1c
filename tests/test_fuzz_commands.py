"""Property-based tests of the command check (hypothesis): no input ends the run.

Commands are generated from the pinned parser's own option table (its flags, choices,
types and ``nargs``, :func:`generated_command`) and by mutating real commands: the
corpus in ``tests/fixtures/commands/`` and the server commands on the site's pages
(:func:`mutated_command`: drop or duplicate a flag, swap two values, put a local path
where a value or a file flag goes, break the quoting, add environment prefixes, wrap
the command in another shell's syntax). For each the tests assert:

- the check never raises (:func:`speccheck.check_command`, :func:`speccheck.check_source`);
- every diagnostic names the file and a line of it, with a known severity and rule;
- the output is deterministic (checked twice, the same diagnostics);
- checking a file gives the diagnostics of checking its commands one by one.

How many examples run: the profile ``fast`` (the default of ``make test-fast``, which
leaves the ``build`` tier out) or ``slow`` (``make test``, and any run that keeps the
``build`` tier); ``HYPOTHESIS_PROFILE=fast|slow`` chooses one by hand. Examples are
derandomized, so a failure is reproduced by running the test again.
"""

from __future__ import annotations

import os
import re
import shlex

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import speccheck
from conftest import ROOT
from speccheck import sglang_args, startup
from speccheck.check import source_blocks
from speccheck.diagnostics import SECTIONS, SEVERITIES
from speccheck.shell import find_commands

CORPUS = ROOT / "tests" / "fixtures" / "commands"
COMMON = dict(deadline=None, derandomize=True, database=None, print_blob=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                     HealthCheck.function_scoped_fixture])
# Examples per property: a few seconds in all for the fast tier; about a minute each in `make test`.
PROFILES = {"fast": settings(max_examples=15, **COMMON), "slow": settings(max_examples=300, **COMMON)}
SERVER_ENTRIES = ("python -m sglang.launch_server", "sglang serve")


@pytest.fixture(scope="module")
def fuzz_settings(request) -> settings:
    """The hypothesis settings of this run: ``HYPOTHESIS_PROFILE``, else ``fast`` when the run leaves
    the ``build`` tier out (``make test-fast``), else ``slow``."""
    name = os.environ.get("HYPOTHESIS_PROFILE")
    if name not in PROFILES:
        markexpr = request.config.getoption("markexpr") or ""
        name = "fast" if re.search(r"not\b.*\bbuild", markexpr) else "slow"
    return PROFILES[name]


# -- What the generated commands are made of ---------------------------------------------------

MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3", "/models/local",
          "some-org/unknown-model", "$MODEL", "{model}"]
# Values for flags that take text: literals, local paths, and what the shell expands.
TEXT_VALUES = ["x", "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B", "/tmp/adaptive.json", "./draft", "~/cfg.yaml",
               "$VALUE", '"$VALUE"', '"${arr[@]}"', "$(cat cfg)", "{port}", "<path>", "''", "'{\"a\": 1}'", "1",
               "-1", "true", "none"]
JUNK = ["two", "", "-", "--", "1e9", "nan", "ünïcode", "$", "'a b'", "=", "-5", "0x10"]
# Flags that name a file SGLang may read at start-up, or a folder it may look into.
FILE_FLAGS = ["--speculative-adaptive-config", "--config", "--speculative-ngram-external-corpus-path",
              "--speculative-draft-model-path", "--model-path", "--tokenizer-path", "--json-model-override-args"]
ENV_PREFIXES = ["A=1 ", "SGLANG_ENABLE_SPEC_V2=1 ", "env SGLANG_ENABLE_SPEC_V2=True ", 'env "B=2 3" ',
                "CUDA_VISIBLE_DEVICES=$GPUS ", '"${env[@]}" ', "SGLANG_X=$(pwd) ", "nohup ", "time ", "sudo -E ",
                "exec "]


def _parser():
    return sglang_args.pinned_parser().parser


def _options() -> list:
    return sorted((a for a in _parser()._actions if a.option_strings), key=lambda a: a.option_strings[0])


def _long(action) -> str:
    return next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])


@st.composite
def _value(draw, action) -> str:
    """One value for ``action`` as shell text: mostly of its type or choices, sometimes junk."""
    if draw(st.integers(0, 9)) == 0:
        return shlex.quote(draw(st.sampled_from(JUNK)))
    if action.choices:
        return shlex.quote(str(draw(st.sampled_from(sorted(map(str, action.choices))))))
    if action.type is int:
        return str(draw(st.integers(-3, 4096)))
    if action.type is float:
        return draw(st.sampled_from(["0", "0.5", "0.85", "1.0", "2", "-0.1", "1e-3"]))
    value = draw(st.sampled_from(TEXT_VALUES))
    return value if value.startswith(("$", '"', "'", "{", "<", "~")) else shlex.quote(value)


@st.composite
def _flag(draw, actions) -> list[str]:
    """A flag of the parser with values as ``nargs`` asks (or one too few / too many, now and then)."""
    action = draw(st.sampled_from(actions))
    flag = _long(action)
    nargs = action.nargs
    if nargs == 0:
        count = 0
    elif nargs in ("+", "*"):
        count = draw(st.integers(1, 3))
    elif nargs == "?":
        count = draw(st.integers(0, 1))
    else:
        count = nargs if isinstance(nargs, int) else 1
    if draw(st.integers(0, 14)) == 0:
        count = max(0, count + draw(st.sampled_from([-1, 1])))
    values = [draw(_value(action)) for _ in range(count)]
    if len(values) == 1 and draw(st.integers(0, 5)) == 0:
        return [f"{flag}={values[0]}"]
    return [flag, *values]


@st.composite
def generated_command(draw) -> str:
    """A server command built from the pinned parser's option table: a model, mostly a speculative
    algorithm of SGLang's registry, and flags drawn from all options, speculative ones more often."""
    options = _options()
    spec = [a for a in options if _long(a).startswith(("--speculative", "--attention", "--page-size", "--attn-dp",
                                                        "--enable-dp", "--dp", "--tp", "--cuda-graph", "--dflash",
                                                        "--dspark", "--uno", "--disable-overlap"))]
    entry = draw(st.sampled_from(SERVER_ENTRIES))
    model = draw(st.sampled_from(MODELS))
    words = [model] if entry == "sglang serve" and draw(st.booleans()) else ["--model-path", model]
    if draw(st.integers(0, 9)) < 8:
        algos = list(startup.algorithm_names()) + ["EAGLE2", "eagle3", "none"]
        words += ["--speculative-algorithm", draw(st.sampled_from(algos))]
    if draw(st.booleans()):
        words += ["--speculative-draft-model-path", draw(st.sampled_from(TEXT_VALUES[:6]))]
    for _ in range(draw(st.integers(0, 6))):
        words += draw(_flag(spec if draw(st.booleans()) else options))
    return f"{entry} {' '.join(words)}"


def _corpus() -> list[str]:
    out = []
    for name in ("real.yaml", "seeded.yaml"):
        out += [e["command"] for e in yaml.safe_load((CORPUS / name).read_text(encoding="utf-8"))]
    return out


def _site() -> list[str]:
    """The server commands of the site's pages, as the build reads them (one line each)."""
    out = []
    for path in sorted((ROOT / "docs").rglob("*.md")):
        for block in source_blocks(path.read_text(encoding="utf-8"), ".md"):
            out += [f"{c.entry} {shlex.join(c.args)}" for c in find_commands(block) if c.entry in SERVER_ENTRIES]
    return out


REAL_COMMANDS = _corpus() + _site()


def _split_flags(words: list[str]) -> list[list[str]]:
    """``words`` in groups: each flag with the values after it (a leading positional is a group of its own)."""
    groups: list[list[str]] = []
    for word in words:
        if word.startswith("-") or not groups:
            groups.append([word])
        else:
            groups[-1].append(word)
    return groups


@st.composite
def mutated_command(draw) -> str:
    """A real command (the corpus, the site's pages) with one to three mutations."""
    text = draw(st.sampled_from(REAL_COMMANDS))
    commands = find_commands(speccheck_block(text))
    if commands:
        cmd = commands[0]
        groups = _split_flags([shlex.quote(w) if w and not re.search(r"\$|\{|^<", w) else w for w in cmd.args])
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["drop", "duplicate", "swap", "path", "file-flag", "generated"]))
            k = draw(st.integers(0, max(0, len(groups) - 1)))
            if kind == "drop" and groups:
                del groups[k]
            elif kind == "duplicate" and groups:
                groups.append(list(groups[k]))
            elif kind == "swap" and len(groups) > 1:
                j = draw(st.integers(0, len(groups) - 1))
                a, b = groups[k], groups[j]
                if len(a) > 1 and len(b) > 1:
                    a[1], b[1] = b[1], a[1]
            elif kind == "path" and groups and len(groups[k]) > 1:
                groups[k][1] = draw(st.sampled_from(["/tmp/adaptive.json", "./cfg.yaml", "~/data.jsonl", "/dev/null",
                                                     "../x", '"${paths[@]}"', "$(realpath cfg)"]))
            elif kind == "file-flag":
                flag = draw(st.sampled_from(FILE_FLAGS))
                extra = ["--speculative-adaptive"] if flag == "--speculative-adaptive-config" else []
                groups.append([*extra, flag, draw(st.sampled_from(["/tmp/adaptive.json", "$ADAPTIVE_CFG", "./c.json"]))])
            elif kind == "generated":
                groups.append(draw(_flag(_options())))
        text = " ".join([cmd.entry, *(w for g in groups for w in g)])
    return draw(_shell_mutation(text))


def speccheck_block(text: str):
    from speccheck.shell import Block

    return Block("bash", set(), list(enumerate(text.splitlines(), start=1)))


def _insert_quote(draw, text: str) -> str:
    k = draw(st.integers(0, len(text)))
    return text[:k] + draw(st.sampled_from(['"', "'", "\\", "`"])) + text[k:]


# How another shell or another hand writes a command: name -> (draw, text) -> the command as written.
SHELL_MUTATIONS = {
    "none": lambda draw, text: text,
    "env": lambda draw, text: draw(st.sampled_from(ENV_PREFIXES)) + text,
    "quote": _insert_quote,
    "multiline": lambda draw, text: text.replace(" --", " \\\n  --"),
    "bash-c": lambda draw, text: f"bash -c {shlex.quote(text)}",
    "fish": lambda draw, text: f"set -x SGLANG_ENABLE_SPEC_V2 1; {text}",
    "powershell": lambda draw, text: text.replace(" --", " `\n  --"),
    "cmd": lambda draw, text: "set A=1\n" + text.replace(" --", " ^\n  --"),
    "background": lambda draw, text: f"{text} > server.log 2>&1 &",
    "substitution": lambda draw, text: f'OUT="$({text})"',
    "docker": lambda draw, text: f"docker run --gpus all -p 30000:30000 lmsysorg/sglang:latest {text}",
    "comment": lambda draw, text: f"# serve it\n{text}  # done",
    "crlf": lambda draw, text: text.replace(" --", " \\\r\n  --"),
}


@st.composite
def _shell_mutation(draw, text: str) -> str:
    """``text`` as another shell or another hand would write it (or unchanged, twice as often as each other way)."""
    kind = draw(st.sampled_from(["none", *SHELL_MUTATIONS]))
    return SHELL_MUTATIONS[kind](draw, text)


any_command = st.one_of(generated_command(), mutated_command())


# -- The properties ----------------------------------------------------------------------------


def _shape_problems(found, path: str | None, lines: int) -> list[str]:
    """What is wrong with the diagnostics' shape: file, line, severity, rule."""
    return [f"{d!r}" for d in found
            if d.path != path or not 1 <= d.line <= max(lines, 1) or d.severity not in SEVERITIES
            or d.rule not in SECTIONS or not d.message]


def test_a_command_always_gets_diagnostics_with_a_line_and_the_same_ones_twice(fuzz_settings):
    @fuzz_settings
    @given(any_command)
    def check(text):
        first = speccheck.check_command(text)
        assert not _shape_problems(first, None, len(text.splitlines())), text
        assert first == speccheck.check_command(text), text

    check()


def test_a_file_always_gets_diagnostics_naming_it_and_a_line_of_it(fuzz_settings, tmp_path):
    @fuzz_settings
    @given(st.lists(any_command, min_size=1, max_size=4), st.sampled_from([".sh", ".md"]))
    def check(texts, suffix):
        if suffix == ".md":
            text = "".join(f"Text {k}.\n\n```bash\n{t}\n```\n\n" for k, t in enumerate(texts))
        else:
            text = "\n".join(texts) + "\n"
        path = tmp_path / f"page{suffix}"
        path.write_text(text, encoding="utf-8")
        found = speccheck.check_file(path)
        assert not _shape_problems(found, str(path), len(text.splitlines())), text
        assert found == speccheck.check_file(path), text

    check()


def test_checking_a_page_gives_the_diagnostics_of_its_commands_one_by_one(fuzz_settings):
    @fuzz_settings
    @given(st.lists(any_command, min_size=1, max_size=4))
    def check(texts):
        page, expected, line = "", [], 1
        for k, text in enumerate(texts):
            head = f"Command {k}.\n\n```bash\n"
            page += head + text + "\n```\n\n"
            first = line + head.count("\n")  # the line the command starts on
            expected += [d.at(path="page.md", line_offset=first - 1) for d in speccheck.check_command(text)
                         if d.rule != "not-a-command"]
            line = first + len(text.splitlines()) + 2
        found = speccheck.check_source(page, ".md", "page.md")
        # The page's inline-flag rule reads prose, which these pages do not have: compare the blocks' findings.
        found = [d for d in found if d.rule != "inline-flag"]
        assert sorted(found, key=repr) == sorted(expected, key=repr), page

    check()


def test_the_check_never_raises_on_text_around_commands(fuzz_settings):
    """Any text at all: the block finder and the shell reader must not fall over either."""
    alphabet = st.sampled_from(list("ab -=$\"'\\`(){}[]<>|&;#\n\r\t") + ["--", "sglang serve ", "python -m sglang.launch_server ",
                                                                          "specforge train ", "${a[@]}", "$(x)"])

    @fuzz_settings
    @given(st.lists(alphabet, max_size=40).map("".join))
    def check(text):
        found = speccheck.check_command(text)
        assert not _shape_problems(found, None, len(text.splitlines())), text
        assert not _shape_problems(speccheck.check_source(text, ".md", "x.md"), "x.md", len(text.splitlines())), text

    check()


def generated_examples(count: int, seed: int = 0) -> list[str]:
    """``count`` commands drawn from the generators (deterministic for a seed), for tests that run them
    elsewhere (the page's JavaScript: tests/test_check_a_command.py)."""
    out: list[str] = []

    @settings(max_examples=count, phases=[Phase.generate], **{k: v for k, v in COMMON.items() if k != "derandomize"},
              derandomize=True)
    @given(any_command, st.just(seed))
    def collect(text, _seed):
        out.append(text)

    collect()
    return out


def test_the_generators_reach_the_start_up_hook_and_each_kind_of_verdict():
    """The generated commands are not all refused by the parser: each verdict occurs among 60 of them."""
    severities = set()
    for text in generated_examples(60):
        severities |= {d.severity for d in speccheck.check_command(text)}
    assert {"error", "warning"} <= severities, severities


def test_the_corpus_and_the_site_give_the_mutations_commands_to_work_on():
    assert sum(bool(find_commands(speccheck_block(t))) for t in REAL_COMMANDS) > 200
