"""The "Check a command" page (reference/check-a-command) and the flag history behind it.

- The page gives the right verdicts on the commands the issue names, by keyboard,
  at 390 px, in a live region, with no axe-core violations (Chromium, fixtures
  ``site`` and ``page`` of conftest.py).
- Differential test: several hundred commands (every server command on the site's
  pages, the command corpus in ``tests/fixtures/commands/`` when it exists, and
  generated variations) get the same verdict (error or not) and name the same
  flags in the page's script as in the Python check the build runs
  (``speccheck.check_command``, see :func:`python_verdict`).
- ``speccheck/data/flag-history.json`` has the promised shape and agrees with
  facts read by hand from the wheels.
- The page's data is generated from the pinned parser, and no other page loads it.
"""

from __future__ import annotations

import json
import re
import shlex
import sys

import pytest
import yaml

import browser
import check_command_page
import speccheck
from conftest import BUILDDIR, ROOT
from speccheck import sglang_args, spec_rules
from speccheck.check import source_blocks
from speccheck.parse import action_for
from speccheck.shell import Block, find_commands

PAGE = "reference/check-a-command.html"
HISTORY = ROOT / "speccheck" / "data" / "flag-history.json"
CORPUS = ROOT / "tests" / "fixtures" / "commands"
SERVER_ENTRIES = ("python -m sglang.launch_server", "sglang serve")

QUICKSTART = """export SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1
python -m sglang.launch_server \\
  --model-path meta-llama/Llama-3.1-8B-Instruct \\
  --speculative-algorithm EAGLE3 \\
  --speculative-draft-model-path lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B \\
  --speculative-num-steps 5 \\
  --speculative-eagle-topk 4 \\
  --speculative-num-draft-tokens 8 \\
  --dtype bfloat16 \\
  --mem-fraction-static 0.8 \\
  --cuda-graph-max-bs-decode 8 \\
  --host 127.0.0.1 \\
  --port 30000
"""
LLAMA = "--model-path meta-llama/Llama-3.1-8B-Instruct"
EAGLE3 = f"{LLAMA} --speculative-algorithm EAGLE3 --speculative-draft-model-path lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B"


# -- The Python side ------------------------------------------------------------------


def canonical(flag: str | None) -> str | None:
    """A flag as its option's first spelling (``--model`` -> ``--model-path``); unknown flags as written."""
    if flag is None:
        return None
    action = sglang_args.pinned_parser().parser._option_string_actions.get(flag)
    return sorted(action.option_strings, key=lambda s: not s.startswith("--"))[0] if action else flag


def _remove(args: list[str], flag: str, values: bool) -> list[str]:
    """``args`` without the first word spelling ``flag`` (also ``flag=...``) and, if ``values``, the words after it."""
    parser = sglang_args.pinned_parser().parser
    target = parser._option_string_actions.get(flag)
    for k, word in enumerate(args):
        name = word.partition("=")[0]
        action, _ = action_for(parser, name)
        if name == flag or (action is not None and action is target):
            end = k + 1
            if values and "=" not in word:
                while end < len(args) and not _option_like(args[end]):
                    end += 1
            return args[:k] + args[end:]
    return args


def _option_like(word: str) -> bool:
    """argparse's test for a word that starts an option (``-1`` is a value)."""
    return word.startswith("-") and word != "-" and (word in sglang_args.pinned_parser().parser._option_string_actions
                                                      or not re.fullmatch(r"-\d+|-\d*\.\d+", word)) and " " not in word


def python_verdict(text: str) -> tuple[bool, set[str]] | None:
    """``(has an error, the flags its errors name)`` from the build's check, ``speccheck.check_command``;
    ``None`` when the text holds no server command.

    When the parser refuses the command, the check stops there, as SGLang does; the
    page names every flag the parser refuses. So each flag the parser refused is
    taken out (with its values) and the rest checked again, until the parser accepts
    it; a refusal naming no flag (``the following arguments are required:
    --model-path/--model``) is read from its message.
    """
    block = Block("bash", set(), list(enumerate(text.splitlines(), start=1)))
    commands = [c for c in find_commands(block) if c.entry in SERVER_ENTRIES]
    if not commands:
        return None
    entry, args = commands[0].entry, list(commands[0].args)
    comments = "".join(line + "\n" for line in text.splitlines() if line.lstrip().startswith("#"))
    errors: set[str] = set()
    failed = misspelt_draft = False
    for round_ in range(50):
        before = list(args)
        # The text itself first; then the command without the refused flags, after the text's
        # comment lines (a "# architecture: X" line states the target's architecture).
        again = text if round_ == 0 else f"{comments}{entry} {shlex.join(args)}"
        diagnostics = [d for d in speccheck.check_command(again) if d.severity == "error"
                       # A misspelt --speculative-draft... flag stands for the draft path, also once removed.
                       and not (d.rule == "draft-path" and misspelt_draft)]
        failed = failed or bool(diagnostics)
        refused = []
        for d in diagnostics:
            flag = d.flag
            required = re.search(r"arguments are required: (--[\w-]+)", d.message)
            if flag is None and required:
                flag = required.group(1)
                args += [flag, "$UNKNOWN"]  # a value the rules do not count as given
            elif "parser rejects" in d.message and flag:
                refused.append(flag)
            if flag:
                errors.add(canonical(flag))
        misspelt_draft = misspelt_draft or any(f.startswith("--speculative-draft") for f in refused)
        for flag in refused:
            args = _remove(args, flag, values=True)
        if args == before:
            break
    return failed, errors


# -- The corpus ---------------------------------------------------------------------


def site_commands() -> list[tuple[str, str]]:
    """``(id, text)`` of every server command in a code block of the site's pages (the build's block finder)."""
    out = []
    for path in sorted((ROOT / "docs").rglob("*")):
        if path.suffix not in (".md", ".ipynb") or "_build" in path.parts:
            continue
        for block in source_blocks(path.read_text(encoding="utf-8"), path.suffix):
            for cmd in find_commands(block):
                if cmd.entry in SERVER_ENTRIES:
                    rel = path.relative_to(ROOT).as_posix()
                    out.append((f"{rel}:{cmd.line}", f"{cmd.entry} {shlex.join(cmd.args)}"))
    return out


def corpus_commands() -> list[tuple[str, str]]:
    """``(id, command)`` of ``tests/fixtures/commands/{real,seeded}.yaml`` entries, when those files exist."""
    out = []
    for name in ("real.yaml", "seeded.yaml"):
        path = CORPUS / name
        if not path.exists():
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        entries = data.get("commands", data) if isinstance(data, dict) else data
        for k, entry in enumerate(entries):
            if isinstance(entry, dict) and entry.get("command"):
                out.append((f"{name}:{entry.get('id', k)}", str(entry["command"])))
    return out


def _history() -> dict:
    return json.loads(HISTORY.read_text(encoding="utf-8")) if HISTORY.exists() else {"flags": {}, "env": {}}


def variations(base: list[str]) -> list[tuple[str, str]]:
    """Generated commands around the base argument lists: each one changes one thing.

    Dropped flags, flags replaced by their old spellings (from the flag history),
    misspelled flags, wrong values, an added tree knob, other attention backends and
    page sizes, DP attention and rejection sampling added, other algorithm names.
    """
    history = _history()
    old_names = [f for f, h in history["flags"].items()
                 if h["events"] and h["events"][-1]["change"] in ("removed", "renamed", "split")][:25]
    out: list[tuple[str, str]] = []

    def add(kind: str, words: list[str], entry: str = "python -m sglang.launch_server") -> None:
        out.append((f"generated:{kind}:{len(out)}", f"{entry} {shlex.join(words)}"))

    for b, text in enumerate(base):
        words = shlex.split(text)
        flags = [k for k, w in enumerate(words) if w.startswith("--")]
        for k in flags:  # drop one flag with its value
            end = k + 1 + (k + 1 < len(words) and not words[k + 1].startswith("--"))
            add(f"drop{b}", words[:k] + words[end:])
        for k in flags[:4]:  # misspell: drop a letter, swap two letters
            w = words[k]
            add(f"typo{b}", words[:k] + [w[:-2] + w[-1]] + words[k + 1:])
            add(f"swap{b}", words[:k] + [w[:4] + w[5] + w[4] + w[6:]] + words[k + 1:])
        for k in flags:  # wrong values
            if words[k] in ("--speculative-num-steps", "--speculative-eagle-topk", "--mem-fraction-static"):
                add(f"value{b}", words[:k + 1] + ["two"] + words[k + 2:])
        add(f"serve{b}", words[words.index("--model-path") + 1:words.index("--model-path") + 2]
            + words[:words.index("--model-path")] + words[words.index("--model-path") + 2:], "sglang serve")
    words = shlex.split(EAGLE3)
    for name in old_names:
        add("old-flag", words + [name, "8"])
    for algo in ("EAGLE2", "eagle3", "NEXTN", "LOOKAHEAD", "MEDUSA", "standalone", "Eagle"):
        add("algorithm", [w if w != "EAGLE3" else algo for w in words])
    tree = ["--speculative-num-steps", "3", "--speculative-eagle-topk", "4", "--speculative-num-draft-tokens", "8"]
    for knobs in (tree[:2], tree[2:4], tree[4:], tree[:4], tree[2:], tree[:2] + tree[4:]):
        add("knobs", words + knobs)
    for backend in ("fa3", "flashinfer", "triton", "trtllm_mha", "flashmla", "trtllm_mla", "torch_native"):
        for page in ("1", "16", "64"):
            for topk in ("1", "4"):
                draft = "4" if topk == "1" else "8"
                add("backend", words + ["--speculative-num-steps", "3", "--speculative-eagle-topk", topk,
                                        "--speculative-num-draft-tokens", draft, "--attention-backend", backend,
                                        "--page-size", page])
    for extra in (["--attn-dp-size", "2"], ["--enable-dp-attention", "--dp-size", "2"],
                  ["--speculative-use-rejection-sampling"],
                  ["--speculative-use-rejection-sampling", "--speculative-eagle-topk", "1", "--speculative-num-steps",
                   "3", "--speculative-num-draft-tokens", "4"],
                  ["--speculative-use-rejection-sampling", "--speculative-accept-threshold-single", "0.5"],
                  ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens",
                   "6"], ["--max-running-requests", "64"], ["--speculative-num-steps=3"]):
        add("extra", words + extra)
        for algo in ("STANDALONE", "NGRAM", "DFLASH"):
            add(f"extra-{algo}", [w if w != "EAGLE3" else algo for w in words] + extra)
    for extra in (["--tp", "2"], ["--tp", "two"], ["--speculative-num-step", "3"], ["--page-size=abc"],
                  ["--disable-overlap-schedule=1"], ["--attention-backend", "bogus"], ["--speculative-eagle-topk", "-1"],
                  ["--mem-fraction-static", "1e-1"], ["--cuda-graph-bs-decode", "1", "2", "4"],
                  ["--cuda-graph-bs-decode"], ["--speculative-draft", "x"], ["--enable-dp-attention"],
                  ["--disable-cuda-graph"], ["stray-word"], ["--port", "$PORT"], ["$EXTRA_ARGS"],
                  ["--speculative-num-steps", "${STEPS}"]):
        add("parser", words + extra)
    for k, (_, text) in enumerate(out[:40]):  # as pasted: over several lines, with an environment prefix
        command = text.replace(" --", " \\\n  --")
        out.append((f"generated:multiline:{k}", f"SGLANG_ENABLE_SPEC_V2=1 CUDA_VISIBLE_DEVICES=0 {command}"))
    for model in ("deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-8B", "some-org/unknown-model"):
        add("no-draft", [LLAMA.split()[0], model, "--speculative-algorithm", "EAGLE"])
    return out


def all_commands() -> list[tuple[str, str]]:
    """The differential test's commands: the site's, the corpus's and the generated ones."""
    site = site_commands()
    base = [text.split(" ", 3)[3] if text.startswith("python -m") else text for _, text in site[:12]]
    base = [t for t in base if "--model-path" in t] + [EAGLE3]
    return site + corpus_commands() + variations(base)


# -- Browser helpers ------------------------------------------------------------------


@pytest.fixture
def checker(page, site):
    """The check-a-command page, loaded, with its script run."""
    page.goto(site + PAGE)
    page.wait_for_function("typeof window.sglangCheck === 'function'")
    return page


def run_page(page, texts: list[str]) -> list[dict]:
    return page.evaluate("texts => texts.map(t => window.sglangCheck(t))", texts)


def page_verdict(result: dict) -> tuple[bool, set[str]] | None:
    if not result["command"]:
        return None
    errors = [d for d in result["diagnostics"] if d["severity"] == "error"]
    return bool(errors), {canonical(d["flag"]) for d in errors if d["flag"]}


def submit(page, text: str) -> str:
    """Paste ``text`` into the text area, press Check, and return the live region's text."""
    page.get_by_label("Launch command").fill(text)
    page.get_by_role("button", name="Check").click()
    return page.get_by_role("status").inner_text()


# -- The five commands of the issue ----------------------------------------------------


def test_the_quickstart_command_has_no_error(checker):
    shown = submit(checker, QUICKSTART)
    assert "No problems found" in shown
    assert "Error" not in shown


def test_the_old_cuda_graph_flag_names_both_new_flags_and_the_release(checker):
    shown = submit(checker, f"python -m sglang.launch_server {EAGLE3} --cuda-graph-max-bs 8")
    assert "Error" in shown
    assert "--cuda-graph-max-bs-decode" in shown and "--cuda-graph-max-bs-prefill" in shown
    split = [e for e in _history()["flags"]["--cuda-graph-max-bs"]["events"] if e["change"] == "split"]
    assert split, "the flag history does not record the split of --cuda-graph-max-bs"
    assert f"split into --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill in sglang {split[0]['release']}" \
        in shown.replace("`", "").lower()


def test_an_old_draft_abbreviation_is_told_what_it_meant_as_the_python_check_says(checker):
    from speccheck import history

    shown = submit(checker, "python3 -m sglang.launch_server --model meta-llama/Llama-2-7b-chat-hf "
                            "--speculative-algo EAGLE --speculative-draft lmsys/sglang-EAGLE-llama2-chat-7B "
                            "--speculative-num-steps 5 --speculative-eagle-topk 8 --speculative-num-draft-tokens 64")
    candidates = [f for f in json.loads(check_command_page.HISTORY_FILE.read_text())["flags"]
                  if f.startswith("--speculative-draft")]
    flag, release = history.former_meaning("--speculative-draft", candidates)
    assert f"Until SGLang {release} only {flag} started this way" in shown.replace("`", "")


def test_cuda_graphs_for_fewer_requests_than_the_server_runs_are_a_warning(checker):
    # A tutorial's batch-2 CUDA graphs under the default request cap, and the same graphs with the cap at 2.
    below, = [d for d in run_page(checker, [f"python -m sglang.launch_server {EAGLE3} --cuda-graph-max-bs-decode 2"])[0]
              ["diagnostics"] if d["rule"] == "graph-below-cap"]
    assert below["severity"] == "warning" and "without CUDA graphs" in below["message"]
    assert re.search(r"how-to/troubleshooting[\w-]*\.html#trouble-example-values$", below["link"]), below["link"]
    for fine in (f"{EAGLE3} --cuda-graph-max-bs-decode 2 --max-running-requests 2",
                 f"{EAGLE3} --cuda-graph-max-bs-decode 64 --max-running-requests 64", f"{LLAMA} --cuda-graph-max-bs-decode 2"):
        rules = {d["rule"] for d in run_page(checker, [f"python -m sglang.launch_server {fine}"])[0]["diagnostics"]}
        assert "graph-below-cap" not in rules, fine


def test_dflash_tree_flags_that_sglang_replaces_are_a_warning_as_in_the_python_check(checker):
    text = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm DFLASH "
            "--speculative-draft-model-path z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat --speculative-num-steps 3 "
            "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4")
    page = [(d["severity"], d["flag"]) for d in run_page(checker, [text])[0]["diagnostics"] if d["rule"] == "dflash-overrides"]
    python = [(d.severity, d.flag) for d in speccheck.check_command(text) if d.rule == "dflash-overrides"]
    assert page == python == [("warning", "--speculative-num-steps")]


def test_adaptive_mode_that_sglang_switches_off_is_a_warning_as_in_the_python_check(checker):
    base = f"python -m sglang.launch_server {EAGLE3} --speculative-adaptive"
    for extra, expected in (("--tp-size 2 --attn-dp-size 2", [("warning", "--speculative-adaptive")]), ("", [])):
        text = f"{base} {extra}"
        page = [(d["severity"], d["flag"]) for d in run_page(checker, [text])[0]["diagnostics"] if d["rule"] == "adaptive-disabled"]
        python = [(d.severity, d.flag) for d in speccheck.check_command(text) if d.rule == "adaptive-disabled"]
        assert page == python == expected, text


def test_the_overlap_scheduler_switched_off_is_a_warning_as_in_the_python_check(checker):
    text = f"python -m sglang.launch_server {EAGLE3} --disable-overlap-schedule"
    page = [(d["severity"], d["flag"]) for d in run_page(checker, [text])[0]["diagnostics"] if d["rule"] == "overlap-off"]
    python = [(d.severity, d.flag) for d in speccheck.check_command(text) if d.rule == "overlap-off"]
    assert page == python == [("warning", "--disable-overlap-schedule")]


def test_a_renamed_flag_links_to_its_own_line_of_the_flag_history(checker, html_dir):
    submit(checker, f"python -m sglang.launch_server {EAGLE3} --cuda-graph-max-bs 8")
    links = checker.locator("[data-out=results] a")
    hrefs = [links.nth(k).get_attribute("href") for k in range(links.count())]
    history = [h for h in hrefs if "release-changes.html#" in h]
    assert history, hrefs
    anchor = history[0].split("#", 1)[1]
    page = (html_dir / "reference" / "release-changes.html").read_text(encoding="utf-8")
    assert f'id="{anchor}"' in page and "cuda-graph-max-bs" in anchor, anchor


def test_one_tree_knob_alone_asks_for_all_three_or_none(checker):
    shown = submit(checker, f"python -m sglang.launch_server {EAGLE3} --speculative-num-steps 3")
    assert "together or not at all" in shown
    assert "--speculative-eagle-topk" in shown and "--speculative-num-draft-tokens" in shown


def test_an_unknown_algorithm_lists_the_valid_names(checker):
    shown = submit(checker, f"python -m sglang.launch_server {EAGLE3.replace('EAGLE3', 'EAGLE2', 1)}")
    assert "Unknown speculative algorithm name" in shown
    for name in ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH"):
        assert re.search(rf"\b{name}\b", shown.split("Valid names:")[1]), name


def test_topk_4_on_64_token_pages_with_trtllm_mha_names_the_backends_that_allow_it(checker):
    shown = submit(checker, f"python -m sglang.launch_server {EAGLE3} --speculative-num-steps 5 "
                            "--speculative-eagle-topk 4 --speculative-num-draft-tokens 8 --page-size 64 "
                            "--attention-backend trtllm_mha")
    allowed = sorted(spec_rules.source_facts().page_tree_backends)
    assert "works only with the attention backends " + ", ".join(allowed) in shown
    assert "trtllm_mha" in shown


def test_text_that_is_not_an_sglang_command_says_so(checker):
    shown = submit(checker, "pip install sglang\nvllm serve meta-llama/Llama-3.1-8B-Instruct")
    assert "No SGLang server command found" in shown


def test_another_sglang_program_is_named_as_not_a_server_command(checker):
    shown = submit(checker, "python -m sglang.benchmark.serving --backend sglang --num-prompts 10")
    assert "not an SGLang server command" in shown


def test_each_result_links_to_a_section_of_the_guide(checker, site):
    submit(checker, f"python -m sglang.launch_server {EAGLE3} --speculative-num-steps 3")
    links = checker.locator("[data-out=results] a")
    hrefs = [links.nth(k).get_attribute("href") for k in range(links.count())]
    assert any("tune-draft-tree.html#tune-all-or-none" in h for h in hrefs), hrefs
    for href in hrefs:
        visit = browser.visit(checker.context.new_page(), checker.url.rsplit("/", 1)[0] + "/" + href)
        assert not visit.failed, visit.failed


# -- Commands as people paste them -------------------------------------------------

SHAPES = {
    # text: (an error expected, rules that must appear, rules that must not)
    "python3 -m sglang.launch_server --model <your-model> --speculative-algorithm EAGLE3 "
    "--speculative-draft-model-path <your-draft>": (False, set(), {"value", "required"}),
    "python -m sglang.launch_server \\\n  --model-path m \\\n  --port 30000 \\": (False, set(), {"unrecognized"}),
    "spec=(\n  --speculative-algorithm EAGLE3\n  --speculative-num-stepz 3\n)\nsglang serve m \"${spec[@]}\"":
        (True, {"unknown"}, set()),
    "sglang serve --config server.yaml --port 30000": (False, {"config-file"}, {"required"}),
    "sglang serve m --api-key \"abc --speculative-num-steps 3": (True, {"unbalanced-quote"}, set()),
    "# architecture: DeepseekV3ForCausalLM\nsglang serve /models/my-v3 --speculative-algorithm EAGLE":
        (False, {"draft-path", "auto-tree"}, set()),
    "# architecture: LlamaForCausalLM\nsglang serve /models/my-llama --speculative-algorithm EAGLE":
        (True, {"draft-path"}, set()),
    "env SGLANG_ENABLE_SPEC_V2=1 python3 -m sglang.launch_server --model-path m": (False, {"env-removed"}, set()),
    "python -m sglang.launch_server --model-path m --tp 2": (False, {"abbreviation"}, set()),
    "export SGLANG_ENABLE_SPEC_V2=1\nHere's the command:\npython -m sglang.launch_server --model-path m":
        (False, {"env-removed"}, {"unbalanced-quote"}),
}


def test_pasted_shapes_are_read_as_the_shell_reads_them(checker):
    results = run_page(checker, list(SHAPES))
    for (text, (error, present, absent)), result in zip(SHAPES.items(), results, strict=True):
        rules = {d["rule"] for d in result["diagnostics"]}
        has_error = any(d["severity"] == "error" for d in result["diagnostics"])
        assert result["command"], text
        assert has_error == error, (text, result["diagnostics"])
        assert present <= rules and not absent & rules, (text, sorted(rules))


def test_a_bare_double_dash_ends_the_options_as_argparse_reads_it(checker):
    """argparse reads every word after "--" as positional; SGLang's parser names "--" and each flag after it."""
    text = "python -m sglang.launch_server --model-path m --speculative-algorithm NGRAM -- --page-size 16 --enable-eplb"
    expected = python_verdict(text)
    assert expected is not None and expected[1] >= {"--", "--page-size", "--enable-eplb"}
    assert page_verdict(run_page(checker, [text])[0]) == expected


def test_a_removed_variable_names_the_release_it_went_in(checker):
    result = run_page(checker, ["SGLANG_ENABLE_SPEC_V2=1 sglang serve m"])[0]
    removed = [e for e in _history()["env"]["SGLANG_ENABLE_SPEC_V2"]["events"] if e["change"] == "removed"]
    warning = next(d for d in result["diagnostics"] if d["rule"] == "env-removed")
    assert removed and f"since {removed[-1]['release']}" in warning["message"]


@pytest.mark.skipif(not CORPUS.exists(), reason="no command corpus in tests/fixtures/commands yet")
def test_the_page_gives_the_corpus_verdicts(checker):
    """Each server command of the corpus gets the verdict recorded there (read from the pinned release)."""
    entries = []
    for name in ("real.yaml", "seeded.yaml"):
        if (CORPUS / name).exists():
            entries += [e for e in yaml.safe_load((CORPUS / name).read_text(encoding="utf-8")) or []
                        if isinstance(e, dict) and e.get("command")]
    results = run_page(checker, [e["command"] for e in entries])
    wrong = []
    for entry, result in zip(entries, results, strict=True):
        got = page_verdict(result)
        if got is None:
            continue
        want_error = entry.get("verdict") == "error"
        named = {canonical(f) for f in entry.get("flags") or []}
        if got[0] != want_error or (want_error and not named <= got[1]):
            wrong.append(f"{entry.get('id')}: corpus {entry.get('verdict')} {sorted(named)}, page {got}")
    assert not wrong, "\n".join(wrong)


# -- Usable by everyone -------------------------------------------------------------


def test_checking_while_typing_updates_the_live_region_without_the_button(checker):
    region = checker.get_by_role("status")
    assert region.get_attribute("aria-live") == "polite"
    checker.get_by_label("Launch command").press_sequentially("sglang serve --speculative-num-stepz 3", delay=5)
    checker.wait_for_function("document.querySelector('[data-out=results]').textContent.includes('stepz')")
    assert "Did you mean" in region.inner_text()


def test_the_checker_works_with_the_keyboard_alone(checker):
    checker.get_by_label("Launch command").focus()
    checker.keyboard.insert_text("python -m sglang.launch_server --model-path m --page-size x")
    checker.keyboard.press("Tab")
    assert checker.evaluate("document.activeElement.textContent") == "Check"
    checker.keyboard.press("Enter")
    assert "invalid int value" in checker.get_by_role("status").inner_text()


def test_the_checker_fits_a_390_px_screen(checker):
    checker.set_viewport_size({"width": 390, "height": 844})
    submit(checker, f"python -m sglang.launch_server {EAGLE3} --cuda-graph-max-bs 8 --speculative-num-steps 3")
    width = checker.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at a 390 px viewport"
    box = checker.get_by_label("Launch command").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_page_with_results_has_no_axe_violations(checker, theme):
    from test_pages_in_browser import axe_violations, set_theme

    submit(checker, "SGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server "
                    f"{EAGLE3} --cuda-graph-max-bs 8 --speculative-num-steps 3 --tp 2")
    set_theme(checker, theme)
    kinds = {d.split("--")[-1] for d in checker.locator("[data-out=results] li").evaluate_all(
        "items => items.map(i => i.className)")}
    assert kinds == {"error", "warning", "info"}, kinds  # every kind of result is on the page
    violations = axe_violations(checker)
    assert not violations, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in violations]


# -- Same verdicts as the build ----------------------------------------------------------

def test_the_page_and_the_python_check_agree_on_at_least_300_commands(checker):
    commands = all_commands()
    assert len(commands) >= 300, len(commands)
    results = run_page(checker, [text for _, text in commands])
    disagreements, checked = [], 0
    for (name, text), result in zip(commands, results, strict=True):
        expected = python_verdict(text)
        got = page_verdict(result)
        if expected is None:
            continue
        checked += 1
        if got == expected:
            continue
        page_rules = sorted({d["rule"] for d in result["diagnostics"] if d["severity"] == "error"})
        disagreements.append(f"{name}: {text}\n    python: {expected}\n    page:   {got} {page_rules}")
    assert checked >= 300
    assert not disagreements, f"{len(disagreements)} disagreements:\n" + "\n".join(disagreements)


# -- Data, generated and loaded on one page only -----------------------------------------


def test_the_page_data_is_the_pinned_parsers_option_table(html_dir):
    text = (html_dir / "_static" / check_command_page.OUTPUT).read_text(encoding="utf-8")
    data = json.loads(text.removeprefix("window.SGLANG_CHECK_DATA = ").rstrip().rstrip(";"))
    assert data["version"] == sglang_args.pinned_parser().version
    expected = json.loads(json.dumps(check_command_page.option_table(sglang_args.pinned_parser().parser)))
    assert data["options"] == expected
    assert data["history"]["releases"] == _history().get("releases", [])


@pytest.mark.parametrize("rel", browser.site_pages(BUILDDIR / "html") if (BUILDDIR / "html").exists() else [PAGE])
def test_only_the_check_page_loads_its_data_and_script(rel, html_dir):
    html = (html_dir / rel).read_text(encoding="utf-8")
    loads = [name for name in ("check-command-data.js", "check-command.js", "check-command.css") if name in html]
    # The "Build a command" page checks the commands it writes with the same script and data.
    expected = {PAGE: ["check-command-data.js", "check-command.js", "check-command.css"],
                "how-to/build-a-command.html": ["check-command-data.js", "check-command.js"]}
    assert loads == expected.get(rel, [])


# -- The flag history -------------------------------------------------------------------

CHANGES = {"added", "removed", "renamed", "split", "deprecated", "choices", "default"}


def test_the_flag_history_has_the_promised_shape_and_ten_releases():
    data = _history()
    assert set(data) == {"releases", "flags", "env"}
    assert len(data["releases"]) >= 10
    assert data["releases"][-1] == sglang_args.pinned_parser().version
    for section in ("flags", "env"):
        for name, entry in data[section].items():
            assert set(entry) == {"events"}, name
            for event in entry["events"]:
                assert event["release"] in data["releases"] and event["change"] in CHANGES, (name, event)
                if event["change"] in ("split", "renamed"):
                    assert event["into"] and event["evidence"] in ("dest", "name"), name
                if event["change"] in ("choices", "default"):
                    assert {"from", "to"} <= set(event), name


def test_the_flag_history_covers_every_speculative_flag_of_the_pin():
    names = {n for o in sglang_args.options(sglang_args.pinned_parser()) for n in (o.name, *o.aliases)
             if "speculative" in n}
    assert names <= set(_history()["flags"])


def test_the_flag_history_follows_every_flag_that_speculative_validation_reads():
    # Complete by construction: the server-arg points of the interaction map name ServerArgs fields.
    points = json.loads((ROOT / "speccheck" / "data" / "interactions.json").read_text(encoding="utf-8"))
    fields = {p["id"].split(":", 1)[1] for p in points if p["kind"] == "server-arg"}
    names = {n for o in sglang_args.options(sglang_args.pinned_parser()) if o.dest in fields
             for n in (o.name, *o.aliases)}
    assert "--mamba-radix-cache-strategy" in names and len(names) > 150
    assert names <= set(_history()["flags"]), sorted(names - set(_history()["flags"]))


def test_the_flag_history_connects_a_flag_to_its_former_name():
    # Read by hand in the wheels' sglang/srt/server_args.py: 0.5.7 is the first release declaring
    # --mamba-scheduler-strategy; 0.5.14 declares --mamba-radix-cache-strategy and keeps the old name as a
    # DeprecatedAliasStoreAction with dest="mamba_radix_cache_strategy"; 0.5.20 has only the new name.
    events = _history()["flags"]["--mamba-scheduler-strategy"]["events"]
    assert events[0] == {"release": "0.5.7", "change": "added"}
    assert {"release": "0.5.14", "change": "deprecated", "into": ["--mamba-radix-cache-strategy"]} in events
    assert events[-1] == {"release": "0.5.20", "change": "renamed", "into": ["--mamba-radix-cache-strategy"],
                          "evidence": "dest"}
    assert _events("--mamba-radix-cache-strategy")[0] == ("0.5.14", "added")


def test_the_history_tool_keeps_former_names_and_drops_what_it_does_not_follow():
    sys.path.insert(0, str(ROOT / "tools"))
    import flag_history

    def option(name, dest, deprecated=False):
        return {"name": name, "aliases": [], "dest": dest, "type": "str", "default": "a", "choices": None,
                "help": "", "namespace": "", "deprecated": deprecated}

    def snap(*options):
        return {"flags": {o["name"]: o for o in options}, "env_speculative": set(), "env": {}, "method": "parser"}

    old, new, other = option("--old", "old"), option("--new", "new"), option("--other", "other")
    alias = option("--old", "new", deprecated=True)
    data = flag_history.history({"1": snap(old, other), "2": snap(alias, new, other), "3": snap(new)},
                                frozenset({"new"}))
    assert data["flags"] == {
        "--new": {"events": [{"release": "2", "change": "added"}]},
        "--old": {"events": [{"release": "1", "change": "added"},
                             {"release": "2", "change": "deprecated", "into": ["--new"]},
                             {"release": "3", "change": "renamed", "into": ["--new"], "evidence": "dest"}]}}
    # Without the field, nothing here is followed: not even the flag that was renamed.
    assert flag_history.history({"1": snap(old, other), "2": snap(alias, new, other), "3": snap(new)})["flags"] == {}


def test_only_events_that_change_a_command_matter_for_the_flags_validation_reads():
    from speccheck.history import matters

    grew = {"release": "0.5.9", "change": "choices", "from": ["a"], "to": ["a", "b"]}
    shrank = {"release": "0.5.9", "change": "choices", "from": ["a", "b"], "to": ["a"]}
    added = {"release": "0.5.9", "change": "added"}
    assert not matters("--quantization", grew) and not matters("--quantization", added)
    assert matters("--quantization", shrank) and matters("--speculative-algorithm", grew)
    assert matters("--speculative-algorithm", added) and matters("SGLANG_X", added)
    assert matters("--page-size", {"release": "0.5.9", "change": "default", "from": "1", "to": "16"})


def test_the_build_check_dates_a_renamed_companion_flag():
    found = [d for d in speccheck.check_command(f"python -m sglang.launch_server {EAGLE3} "
                                                "--mamba-scheduler-strategy extra_buffer") if d.flag ==
             "--mamba-scheduler-strategy"]
    assert [d.rule for d in found] == ["renamed-flag"], [str(d) for d in found]
    assert ("--mamba-scheduler-strategy was renamed to --mamba-radix-cache-strategy in SGLang 0.5.20 "
            "(deprecated from SGLang 0.5.14)") in found[0].message


def test_the_page_dates_a_renamed_companion_flag_and_links_its_history_line(checker, html_dir):
    text = f"python -m sglang.launch_server {EAGLE3} --mamba-scheduler-strategy extra_buffer"
    [diag] = [d for d in run_page(checker, [text])[0]["diagnostics"] if d["flag"] == "--mamba-scheduler-strategy"]
    assert diag["severity"] == "error", diag
    assert ("Renamed to `--mamba-radix-cache-strategy` in SGLang 0.5.20 (deprecated from SGLang 0.5.14): "
            "use that.") in diag["message"]
    anchor = diag["link"].split("#", 1)[1]
    page = (html_dir / "reference" / "release-changes.html").read_text(encoding="utf-8")
    assert f'id="{anchor}"' in page and "mamba-scheduler-strategy" in anchor, anchor


def _events(name: str, section: str = "flags") -> list[tuple[str, str]]:
    return [(e["release"], e["change"]) for e in _history()[section][name]["events"]]


def _choices_at(flag: str, release: str) -> list[str] | None:
    """The choices of ``flag`` in ``release``, replayed from its ``choices`` events."""
    data = _history()
    order = {r: k for k, r in enumerate(data["releases"])}
    events = [e for e in data["flags"][flag]["events"] if e["change"] == "choices"]
    before = [e for e in events if order[e["release"]] <= order[release]]
    after = [e for e in events if order[e["release"]] > order[release]]
    return before[-1]["to"] if before else after[0]["from"] if after else None


# Facts read by hand from the wheels (unzip, then grep sglang/srt/server_args.py):
# - 0.4.0 declares --cuda-graph-max-bs and no option whose name contains "speculative";
# - 0.4.10 declares --speculative-algorithm with choices=["EAGLE", "EAGLE3", "NEXTN"]
#   and still has --cuda-graph-max-bs;
# - 0.5.23 (the pin when this was read; release-fact) has no --cuda-graph-max-bs, but --cuda-graph-max-bs-decode and
#   --cuda-graph-max-bs-prefill, and --speculative-algorithm takes any string (no choices).
#   Read the same way: 0.5.14 is the first release declaring --cuda-graph-max-bs-decode and
#   -prefill next to --cuda-graph-max-bs, and 0.5.20 the first without --cuda-graph-max-bs.


def test_the_flag_history_agrees_with_the_0_4_0_wheel():
    data = _history()
    assert data["releases"][0] == "0.4.0"
    assert _events("--cuda-graph-max-bs")[0] == ("0.4.0", "added")
    early = [n for n, h in data["flags"].items() if "speculative" in n and h["events"][0]["release"] == "0.4.0"]
    assert not early, early


def test_the_flag_history_has_the_eagle_topk_defaults_of_0_4_3_and_0_4_4():
    # Read by hand: `speculative_eagle_topk: int = 8` in 0.4.3.post2's ServerArgs, `int = 4` in
    # 0.4.3.post3, `Optional[int] = None` in 0.4.4.post4 (sglang/srt/server_args.py).
    defaults = [(e["release"], e["from"], e["to"]) for e in _history()["flags"]["--speculative-eagle-topk"]["events"]
                if e["change"] == "default"]
    assert defaults[:2] == [("0.4.3.post3", "8", "4"), ("0.4.4.post4", "4", None)]


def test_the_flag_history_agrees_with_the_0_4_10_wheel():
    assert "0.4.10" in _history()["releases"]
    assert sorted(_choices_at("--speculative-algorithm", "0.4.10")) == ["EAGLE", "EAGLE3", "NEXTN"]
    assert not any(change in ("removed", "split") and _history()["releases"].index(r) <=
                   _history()["releases"].index("0.4.10") for r, change in _events("--cuda-graph-max-bs"))


def test_the_flag_history_agrees_with_the_0_5_23_wheel():
    events = _history()["flags"]["--cuda-graph-max-bs"]["events"]
    assert events[-1]["change"] == "split"
    assert events[-1]["into"] == ["--cuda-graph-max-bs-decode", "--cuda-graph-max-bs-prefill"]
    assert events[-1]["release"] == "0.5.20"
    assert _events("--cuda-graph-max-bs-decode")[0] == ("0.5.14", "added")
    assert _choices_at("--speculative-algorithm", "0.5.23") is None  # release-fact: read in that wheel


# -- Same verdicts on generated commands (tests/test_fuzz_commands.py's generators) -------------

# Types whose values the page does not read (check-a-command-limits: JSON and file values).
UNREAD_TYPES = {"loads", "json_list_type", "parse_cuda_graph_config_arg", "parse_cuda_graph_backend_arg"}


def explained(text: str, expected, got) -> str | None:
    """Why the page may deliberately say less than the build's check on ``text`` (a sentence of
    reference/check-a-command.md's "What it cannot tell"), or ``None`` when nothing explains it."""
    found = speccheck.check_command(text)
    if got is None and not text.lstrip().startswith(("python", "sglang")):
        return "the page reads a command at the start of the text, not inside bash -c, docker run or $(...)"
    if any(d.severity == "undecided" for d in found):
        return "the build cannot decide it (an expansion, a local file); the page checks what it sees"
    if expected and expected[0] and got and got[0]:
        if any(d.rule in ("unreadable-command", "unknown-flag") and d.flag is None for d in found):
            return "both refuse it; after a stray word or an open quote the page names more flags"
    parser = sglang_args.pinned_parser().parser._option_string_actions
    unread = {f for f in (expected or (False, set()))[1] if getattr(getattr(parser.get(f), "type", None),
                                                                    "__name__", "") in UNREAD_TYPES}
    if unread and expected[1] - unread == (got or (False, set()))[1]:
        return "the page does not read JSON values"
    return None


def test_the_page_and_the_python_check_agree_on_generated_commands(checker):
    """Commands from the fuzz tests' generators: every disagreement is reported with its command,
    unless the page deliberately says less (:func:`explained`)."""
    from test_fuzz_commands import generated_examples

    texts = generated_examples(200, seed=1)
    results = run_page(checker, texts)
    unexplained, checked = [], 0
    for text, result in zip(texts, results, strict=True):
        expected, got = python_verdict(text), page_verdict(result)
        if expected is None:
            continue
        checked += 1
        if got != expected and explained(text, expected, got) is None:
            page_rules = sorted({d["rule"] for d in result["diagnostics"] if d["severity"] == "error"})
            unexplained.append(f"{text}\n    python: {expected}\n    page:   {got} {page_rules}")
    assert checked >= 150, checked
    assert not unexplained, f"{len(unexplained)} disagreements:\n" + "\n".join(unexplained)


def test_the_page_reads_suffixed_integers_as_sglang_does(checker):
    """sglang/srt/utils/common.py::human_readable_int: SI suffixes with decimals, IEC suffixes
    without, case-sensitive; the page and the build's check agree value by value."""
    values = ["16384", "1k", "25.6k", "1Ki", "2Mi", "1.5Ki", "1K", "abc", "+5"]
    texts = [f"sglang serve --model-path Qwen/Qwen3-8B --max-prefill-tokens {v}" for v in values]
    refused = {v: page_verdict(r)[0] for v, r in zip(values, run_page(checker, texts), strict=True)}
    assert refused == {v: python_verdict(t)[0] for v, t in zip(values, texts, strict=True)}
    assert [v for v, bad in refused.items() if bad] == ["1.5Ki", "1K", "abc"]


# -- Issue 23, trial 7: DeepSeek-V4 targets and DeepEP v2 drafts (rules outside the speculative hook) --

V4 = ("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Pro --tp-size 8 "
      "--speculative-algorithm {algo} --speculative-num-steps 1 --speculative-eagle-topk 1 "
      "--speculative-num-draft-tokens 2")
SGLANG_SRT = ROOT / ".venv" / "lib" / "python3.11" / "site-packages" / "sglang" / "srt"


def _error_rules(text: str) -> set[str]:
    return {d.rule for d in speccheck.check_command(text) if d.severity == "error"}


def test_the_deepseek_v4_ids_the_site_names_are_deepseek_v4_targets():
    for model in ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Pro", "deepseek-ai/DeepSeek-V4.1-Flash",
                  "deepseek-ai/DeepSeek-V4-Flash-DSpark", "deepseek-ai/DeepSeek-V4-Pro-DSpark"):
        assert spec_rules.architecture_of(model) == spec_rules.DEEPSEEK_V4, model
    assert spec_rules.carries_draft(spec_rules.DEEPSEEK_V4)


def test_nextn_and_a_tree_are_refused_for_a_deepseek_v4_target_and_eagle_chain_is_not():
    assert "deepseek-v4-algorithm" in _error_rules(V4.format(algo="NEXTN"))
    assert not _error_rules(V4.format(algo="EAGLE"))
    tree = V4.format(algo="EAGLE").replace("--speculative-eagle-topk 1", "--speculative-eagle-topk 4").replace(
        "--speculative-num-draft-tokens 2", "--speculative-num-draft-tokens 4")
    assert "deepseek-v4-topk" in _error_rules(tree)
    # the same NEXTN command for DeepSeek-V3 is fine
    assert not _error_rules(V4.format(algo="NEXTN").replace("DeepSeek-V4-Pro", "DeepSeek-V3"))


def test_deepep_v2_is_refused_for_the_draft_whether_set_or_inherited():
    cmd = V4.format(algo="EAGLE")
    assert "deepep-v2-draft" in _error_rules(cmd + " --moe-a2a-backend deepep_v2")
    assert "deepep-v2-draft" in _error_rules(cmd + " --moe-a2a-backend deepep --speculative-moe-a2a-backend deepep_v2")
    assert "deepep-v2-draft" not in _error_rules(cmd + " --moe-a2a-backend deepep_v2 --speculative-moe-a2a-backend deepep")
    assert "deepep-v2-draft" not in _error_rules(cmd + " --moe-a2a-backend deepep")


def test_the_deepseek_v4_rules_are_the_pinned_hooks():
    import ast

    hook = ast.parse((SGLANG_SRT / "arg_groups" / "deepseek_v4_hook.py").read_text())
    func = spec_rules._function(hook, "apply_deepseek_v4_defaults")
    caps = [k.value.value for n in ast.walk(func) if isinstance(n, ast.Call) for k in n.keywords
            if k.arg == "max_running_requests" and isinstance(k.value, ast.Constant)]
    assert caps == [spec_rules.DEEPSEEK_V4_REQUEST_CAP]
    algos = [tuple(e.value for e in n.comparators[0].elts) for n in ast.walk(func) if isinstance(n, ast.Compare)
             and isinstance(n.ops[0], ast.In) and isinstance(n.comparators[0], ast.Tuple)
             and "speculative_algorithm" in ast.unparse(n.left)]
    assert algos == [spec_rules.DEEPSEEK_V4_ALGORITHMS]
    model_hook = (SGLANG_SRT / "arg_groups" / "model_hook.py").read_text()
    assert re.search(r'if model_arch in \[\s*"DeepseekV4ForCausalLM",\s*\]:\s*from sglang\.srt\.arg_groups\.deepseek_v4_hook',
                     model_hook)
    moe = ast.parse((SGLANG_SRT / "arg_groups" / "moe_hook.py").read_text())
    assert "draft_backend == 'deepep_v2'" in ast.unparse(spec_rules._function(moe, "validate_deepep_v2_speculative_draft"))


def _run_sglang_block(tree, func_name: str, keep, env: dict) -> bool:
    """Run the statements of SGLang's ``func_name`` that ``keep(stmt)`` selects, compiled from the pinned
    wheel's source (its module imports torch), with ``env`` as globals and locals; True when they refuse
    (raise AssertionError or ValueError)."""
    import ast

    body = [stmt for stmt in spec_rules._function(tree, func_name).body if keep(stmt)]
    assert body, f"{func_name}: no statement selected"
    code = compile(ast.fix_missing_locations(ast.Module(body=body, type_ignores=[])), func_name, "exec")
    try:
        exec(code, dict(env))  # noqa: S102 - the pinned wheel's own code
    except (AssertionError, ValueError):
        return True
    return False


def test_the_deepseek_v4_and_deepep_v2_rules_agree_with_the_pinned_hooks_when_run():
    """Run the speculative branch of ``apply_deepseek_v4_defaults`` and the whole of
    ``validate_deepep_v2_speculative_draft`` on every algorithm, top-k and a2a-backend pair, and compare
    their refusals with ``spec_rules.other_hook_problems`` (which the page's JavaScript mirrors)."""
    import ast
    import sys
    import types
    from unittest import mock

    v4 = ast.parse((SGLANG_SRT / "arg_groups" / "deepseek_v4_hook.py").read_text())
    moe = ast.parse((SGLANG_SRT / "arg_groups" / "moe_hook.py").read_text())
    algos = ["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO"]
    for algo in algos:
        for topk in (None, 1, 4):
            cfg = types.SimpleNamespace(speculative_algorithm=algo, speculative_eagle_topk=topk)
            refused = _run_sglang_block(v4, "apply_deepseek_v4_defaults",
                                        lambda st: "speculative_algorithm" in ast.unparse(getattr(st, "test", st))
                                        and isinstance(st, ast.If),
                                        {"cfg": cfg, "model_arch": spec_rules.DEEPSEEK_V4})
            ns = types.SimpleNamespace(speculative_eagle_topk=topk, speculative_moe_a2a_backend=None,
                                       moe_a2a_backend=None)
            ours = {r for r, *_ in spec_rules.other_hook_problems(ns, algo, spec_rules.DEEPSEEK_V4)}
            assert refused == bool(ours & {"deepseek-v4-algorithm", "deepseek-v4-topk"}), (algo, topk, ours)
        for target_backend in (None, "deepep", "deepep_v2"):
            for draft_backend in (None, "deepep", "deepep_v2"):
                view = types.SimpleNamespace(speculative_algorithm=algo, speculative_moe_a2a_backend=draft_backend,
                                             moe_a2a_backend=target_backend)
                algorithm = types.SimpleNamespace(is_ngram=lambda a=algo: a == "NGRAM")
                fake_spec_info = types.ModuleType("sglang.srt.speculative.spec_info")
                fake_spec_info.SpeculativeAlgorithm = types.SimpleNamespace(from_string=lambda _n, a=algorithm: a)
                with mock.patch.dict(sys.modules, {"sglang.srt.speculative.spec_info": fake_spec_info}):
                    refused = _run_sglang_block(moe, "validate_deepep_v2_speculative_draft", lambda st: True,
                                                {"server_args": view, "resolved_view": lambda a: a})
                ns = types.SimpleNamespace(speculative_eagle_topk=1, speculative_moe_a2a_backend=draft_backend,
                                           moe_a2a_backend=target_backend)
                ours = {r for r, *_ in spec_rules.other_hook_problems(ns, algo, None)}
                assert refused == ("deepep-v2-draft" in ours), (algo, target_backend, draft_backend)


def test_the_page_refuses_nextn_and_deepep_v2_for_deepseek_v4_and_states_its_cap_of_256(checker):
    shown = submit(checker, V4.format(algo="NEXTN"))
    assert "Only EAGLE and DSPARK" in shown
    shown = submit(checker, V4.format(algo="EAGLE") + " --moe-a2a-backend deepep_v2")
    assert "DeepEP v2 MoE is not validated" in shown
    shown = submit(checker, V4.format(algo="EAGLE"))
    assert "SGLang sets it to 256 for DeepseekV4ForCausalLM" in shown.replace("`", "")
    assert "No problems found" in shown
    shown = submit(checker, V4.format(algo="EAGLE").replace("DeepSeek-V4-Pro", "DeepSeek-V3"))
    assert "SGLang sets it to 48" in shown.replace("`", "")
