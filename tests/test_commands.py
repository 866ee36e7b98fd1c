"""Every command on the site is checked by the pinned releases' own parsers.

The bad-input pages in ``tests/fixtures/pages/`` are built once (``bad_build``);
each must produce a warning naming its file, the line of the mistake and what
is wrong, and ``good-commands.md`` must produce none. Other tests call the
checker directly (the ``speccheck`` package), as ``tools/check_commands.py`` does, and
assert its verdict on every command of the regression corpus (``tests/fixtures/commands/``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

import pytest
import yaml

import speccheck
from conftest import ROOT, copy_project
from speccheck import check as command_check
from speccheck import sglang_args, shell, spec_rules, startup
from speccheck.diagnostics import SECTIONS

CORPUS = ROOT / "tests" / "fixtures" / "commands"


def warnings_for(build, page: str) -> list[str]:
    """The build's warning and error lines about ``page`` (a file in tests/fixtures/pages/), which read
    ``docs/page.md:LINE: ERROR: message [command.rule]`` (``WARNING:`` for a warning)."""
    return [line for line in build.output.splitlines() if f"/{page}:" in line and ("WARNING" in line or "ERROR" in line)]


def assert_warns(build, page: str, line: int | None, *fragments: str) -> None:
    found = warnings_for(build, page)
    where = f"/{page}:{line}:" if line is not None else f"/{page}:"
    matching = [w for w in found if where in w and all(f in w for f in fragments)]
    assert matching, f"no warning at {where} containing {fragments}; warnings for the page: {found}"


def test_the_bad_pages_fail_the_build(bad_build):
    assert bad_build.returncode != 0


def test_a_release_reference_to_an_undeclared_change_names_page_and_line(bad_build):
    assert_warns(bad_build, "bad-release-reference.md", 5, "{{ since:no-such-change }}", "names no change")


def test_an_ambiguous_flag_fails_with_the_parsers_message(bad_build):
    assert_warns(bad_build, "bad-cuda-graph-max-bs.md", 6,
                 "ambiguous option: --cuda-graph-max-bs could match --cuda-graph-max-bs-decode")


def test_a_typo_that_argparse_reads_as_an_abbreviation_fails(bad_build):
    assert_warns(bad_build, "bad-flag-abbreviation.md", 7,
                 "--speculative-num-step is an abbreviation of --speculative-num-steps")


def test_an_unknown_flag_fails(bad_build):
    assert_warns(bad_build, "bad-flag-unknown.md", 4, "unrecognized arguments: --speculative-num-stepz")


def test_an_unknown_speculative_flag_in_prose_fails(bad_build):
    assert_warns(bad_build, "bad-inline-flag.md", 3,
                 "inline flag --speculative-num-draft-token is not an option of SGLang")


def test_a_value_of_the_wrong_type_fails(bad_build):
    assert_warns(bad_build, "bad-topk-not-int.md", 7,
                 "argument --speculative-eagle-topk: invalid int value: 'two'")


def test_eagle3_without_a_draft_model_fails(bad_build):
    assert_warns(bad_build, "bad-eagle3-without-draft.md", 4,
                 "ERROR: EAGLE3 needs --speculative-draft-model-path", "[command.draft-path]")


def test_two_of_the_three_tree_knobs_fail(bad_build):
    assert_warns(bad_build, "bad-two-of-three-knobs.md", 7, "WARNING: set", "together or not at all",
                 "but not --speculative-num-draft-tokens", "[command.tree-knobs-all-or-none]")


def test_a_draft_tree_on_trtllm_mha_with_paged_kv_fails(bad_build):
    # SGLang's own message for the first problem, then the one it would report next.
    assert_warns(bad_build, "bad-topk-page-size-backend.md", 7, "ERROR: SGLang", "refuses it at start-up: trtllm_mha "
                 "backend only supports topk = 1")
    assert_warns(bad_build, "bad-topk-page-size-backend.md", 8, "page_size > 1 is only supported on "
                 "('fa3', 'flashinfer', 'triton')")


def test_an_algorithm_name_sglang_does_not_know_fails_with_sglangs_message(bad_build):
    assert_warns(bad_build, "bad-unknown-algorithm.md", 5, "ERROR: SGLang",
                 "Unknown speculative algorithm name: EAGLE2", "[command.unknown-algorithm]")


def test_a_command_marked_expect_fail_must_fail(bad_build):
    assert_warns(bad_build, "bad-expect-fail-passes.md", 6, "is marked expect-fail but the pinned releases accept it")


def test_a_command_in_a_notebook_cell_is_checked_at_its_line_of_the_text_notebook(bad_build):
    # Line 20 of the .myst file is the cell's line that holds the command.
    assert_warns(bad_build, "bad-notebook-command.myst", 20, "ambiguous option: --cuda-graph-max-bs")


def test_a_wrong_specforge_subcommand_fails(bad_build):
    assert_warns(bad_build, "bad-specforge-subcommand.md", 4, "argument command: invalid choice: 'trian'")


def test_a_wrong_specforge_flag_fails(bad_build):
    assert_warns(bad_build, "bad-specforge-flag.md", 4, "unrecognized arguments: --dtype bf16")


def test_a_python_block_with_an_undefined_name_fails(bad_build):
    assert_warns(bad_build, "bad-python-undefined-name.md", 6, "undefined name 'base_url'")


def test_a_specforge_config_that_specforge_rejects_fails(bad_build):
    assert_warns(bad_build, "bad-specforge-config.md", 5, "SpecForge rejects this run config", "data")


def test_the_good_page_passes(bad_build):
    assert warnings_for(bad_build, "good-commands.md") == []


# -- The checker, called directly ----------------------------------------------------


def problems(markdown: str) -> list[str]:
    return [p.message for p in command_check.check_source(markdown, ".md")]


def errors(text: str) -> list[speccheck.Diagnostic]:
    return [d for d in speccheck.check_command(text) if d.severity == "error"]


LLAMA_EAGLE3 = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
                "--speculative-algorithm EAGLE3 --speculative-draft-model-path lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B ")


def test_topk_1_with_a_draft_token_count_other_than_steps_plus_1_is_flagged():
    found = problems(f"```bash\n{LLAMA_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 "
                     "--speculative-num-draft-tokens 8\n```\n")
    assert any("replaces --speculative-num-draft-tokens 8 by --speculative-num-steps + 1 = 4" in p for p in found)


def test_rejection_sampling_needs_topk_1():
    found = problems(f"```bash\n{LLAMA_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 4 "
                     "--speculative-num-draft-tokens 8 --speculative-use-rejection-sampling\n```\n")
    assert any("--speculative-use-rejection-sampling requires --speculative-eagle-topk=1" in p for p in found)


def test_standalone_and_ngram_reject_dp_attention():
    for algo in ("STANDALONE --speculative-draft-model-path Qwen/Qwen3-8B", "NGRAM"):
        found = problems(f"```bash\nsglang serve Qwen/Qwen3-8B --speculative-algorithm {algo} --attn-dp-size 2\n```\n")
        assert any("does not support dp attention" in p.lower() for p in found), (algo, found)


def test_a_target_that_carries_its_own_mtp_layers_needs_no_draft_path():
    assert problems("```bash\nsglang serve deepseek-ai/DeepSeek-V3 --speculative-algorithm EAGLE\n```\n") == []


def test_a_deprecated_flag_is_reported_with_its_replacement():
    found = problems("```bash\nsglang serve Qwen/Qwen3-8B --dp-size 2 --enable-dp-attention\n```\n")
    assert any("--enable-dp-attention is deprecated: use --attn-dp-size" in p for p in found)


def test_a_command_that_only_appears_in_a_comment_is_not_checked():
    assert problems("```bash\n# python -m sglang.launch_server --no-such-flag\n```\n") == []


def test_the_command_line_tool_reports_file_and_line():
    page = ROOT / "tests" / "fixtures" / "pages" / "bad-cuda-graph-max-bs.md"
    proc = subprocess.run([sys.executable, "tools/check_commands.py", str(page)], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert re.search(r"bad-cuda-graph-max-bs\.md:6: error: .*split into --cuda-graph-max-bs-decode.*\[renamed-flag\]$",
                     proc.stdout,
                     re.M), proc.stdout


def test_the_parser_is_sglangs_own_and_has_the_spec_namespace():
    loaded = sglang_args.pinned_parser()
    assert loaded.parser.prog == "sglang serve"
    names = {o.name for o in sglang_args.spec_options(loaded)}
    assert "--speculative-eagle-topk" in names and "--page-size" not in names


def test_a_missing_sglang_stops_with_a_clear_message(tmp_path):
    with pytest.raises(sglang_args.SGLangParserError, match="SGLang is not installed"):
        sglang_args.load_parser(tmp_path)


def test_dflash_needs_a_draft_model():
    found = problems("```bash\nsglang serve Qwen/Qwen3-8B --speculative-algorithm DFLASH\n```\n")
    assert any("DFLASH speculative decoding requires setting --speculative-draft-model-path" in p for p in found)


def test_a_command_written_as_a_python_list_is_checked():
    found = problems('```python\nimport subprocess\n\nsubprocess.run(["sglang", "serve", "Qwen/Qwen3-8B", '
                     '"--cuda-graph-max-bs", "8"], check=True)\n```\n')
    assert any("ambiguous option: --cuda-graph-max-bs" in p for p in found)


def test_a_command_quoted_in_a_log_block_is_not_checked():
    log = "```text\n[2026-01-01] docs/x.md:3: python -m sglang.launch_server: set --speculative-num-steps\n```\n"
    assert problems(log) == []


def test_rules_use_the_draft_tree_sglang_picks_when_none_is_set():
    # Llama targets get topk 4 (_auto_choose_speculative_params), which trtllm_mha cannot run.
    found = problems(f"```bash\n{LLAMA_EAGLE3} --attention-backend trtllm_mha\n```\n")
    assert any("trtllm_mha backend only supports topk = 1" in p for p in found)


# -- Blocks and commands written in the ways pages write them ----------------------------


def test_a_python_block_inside_a_list_item_is_read_without_the_items_indent():
    page = ("1. Send a request:\n\n   ```python\n   import requests\n\n"
            "   print(requests.get(\"http://127.0.0.1:30000/health\", timeout=5).status_code)\n   ```\n")
    assert problems(page) == []


def test_an_undefined_name_in_an_indented_python_block_is_found_at_its_line():
    page = "- Step:\n\n  ```python\n  import requests\n\n  requests.get(base_url, timeout=5)\n  ```\n"
    found = command_check.check_source(page, ".md")
    assert [(p.line, p.severity, p.message) for p in found] == [(6, "error", "Python block: undefined name 'base_url'")]


SPEC_ARRAY = ("spec=(\n  --speculative-algorithm EAGLE3\n"
              "  --speculative-draft-model-path lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B  # the draft\n)\n")


def test_a_shell_array_defined_in_the_block_is_expanded_into_the_command():
    page = f"```bash\n{SPEC_ARRAY}sglang serve meta-llama/Llama-3.1-8B-Instruct \"${{spec[@]}}\"\n```\n"
    assert problems(page) == []


def test_a_wrong_flag_inside_a_shell_array_is_reported_at_the_arrays_line():
    page = ("```bash\nspec=(--speculative-algorithm EAGLE3)\nspec+=(\n  --speculative-num-stepz 3\n)\n"
            "sglang serve meta-llama/Llama-3.1-8B-Instruct \"${spec[@]}\"\n```\n")
    found = command_check.check_source(page, ".md")
    assert [p.line for p in found if "unrecognized arguments: --speculative-num-stepz" in p.message] == [4]


def test_an_expansion_that_cannot_be_resolved_is_not_taken_for_an_argument():
    for extra in ('"${extra[@]}"', "$EXTRA_FLAGS", '"$@"', "$(cat flags.txt)"):
        page = f"```bash\nsglang serve meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE3 {extra}\n```\n"
        found = command_check.check_source(page, ".md")  # no parser error: only "cannot be decided here"
        assert [(d.severity, d.rule) for d in found] == [("undecided", "undecided-expansion")], extra


def test_the_written_flags_around_an_unresolved_expansion_are_still_checked():
    for extra in ('"${extra[@]}"', "$EXTRA_FLAGS", "$(cat flags.txt)"):
        page = f"```bash\npython -m sglang.launch_server {extra} --speculative-num-stepz 3\n```\n"
        assert any("unrecognized arguments: --speculative-num-stepz" in p for p in problems(page)), extra


@pytest.mark.parametrize("command", ["~/venvs/train/bin/specforge trian", ".venv/bin/specforge trian",  # codespell:ignore trian
                                     "python3 -m specforge.cli trian", "cd /tmp && /opt/sf/bin/specforge trian"])  # codespell:ignore trian
def test_specforge_called_by_path_or_module_is_checked(command):
    assert any("invalid choice: 'trian'" in p for p in problems(f"```bash\n{command}\n```\n")), command


def test_python_m_specforge_fails_because_specforge_has_no_main_module():
    found = problems("```bash\npython -m specforge train -c run.yaml\n```\n")
    assert found == ["Python cannot run `python -m specforge`: No module named specforge.__main__; "
                     "'specforge' is a package and cannot be directly executed"]


def test_a_python_m_module_that_does_not_exist_fails():
    assert any("No module named sglang.launch_sever" in p
               for p in problems("```bash\npython -m sglang.launch_sever --model-path m\n```\n"))


@pytest.mark.parametrize("entry", ["python3 -m sglang.launch_server --model-path m", "sglang serve m",
                                   ".venv/bin/sglang serve m", "python3.11 -m sglang.launch_server --model m"])
def test_every_server_entry_point_is_checked(entry):
    assert any("unrecognized arguments: --no-such-flag" in p
               for p in problems(f"```bash\n{entry} --no-such-flag\n```\n")), entry


def test_a_serving_benchmark_command_is_checked_by_the_benchmarks_own_parser():
    found = problems("```bash\npython -m sglang.benchmark.serving --backend sglang --port 30000 "
                     "--dataset-name nope --num-prompts 8\n```\n")
    assert any("benchmark parser rejects it: argument --dataset-name: invalid choice: 'nope'" in p for p in found)
    assert problems("```bash\npython -m sglang.benchmark.serving --backend sglang --port \"$PORT\" "
                    "--dataset-name random --num-prompts 8\n```\n") == []


def test_the_deprecated_benchmark_module_path_is_reported_and_still_checked():
    found = problems("```bash\npython -m sglang.bench_serving --backend sglang --bogus 1\n```\n")
    assert any("deprecated module path: use python -m sglang.benchmark.serving" in p for p in found)
    assert any("unrecognized arguments: --bogus" in p for p in found)


def test_installing_or_cloning_specforge_is_not_a_specforge_command():
    page = ("```bash\npip install specforge==9.9.9\ngit clone https://github.com/sgl-project/specforge\n"
            "cd specforge\n```\n")
    assert shell.find_commands(shell.markdown_blocks(page)[0]) == []


def test_a_python_argv_list_starting_with_sys_executable_is_checked():
    found = problems('```python\nimport subprocess\nimport sys\n\nsubprocess.run([sys.executable, "-m", '
                     '"sglang.launch_server", "--model-path", "m", "--no-such-flag"], check=True)\n```\n')
    assert any("unrecognized arguments: --no-such-flag" in p for p in found)


def test_a_path_through_a_folder_named_specforge_is_not_a_specforge_command():
    page = ('```bash\npython3 -m venv ~/venvs/specforge\n~/venvs/specforge/bin/pip install "specforge==9.9.9"\n'
            "```\n")
    assert shell.find_commands(shell.markdown_blocks(page)[0]) == []


def fake_sglang(root, server_args: str, **modules: str):
    """A stand-in ``sglang`` package under ``root``: ``srt/server_args.py`` is ``server_args``, and each
    keyword ``a__b="source"`` adds ``sglang/srt/a/b.py`` (with the packages it needs)."""
    files = {"__init__.py": "", "version.py": '__version__ = "0.0.0"\n', "srt/__init__.py": "",
             "srt/server_args.py": server_args}
    for name, source in modules.items():
        parts = name.split("__")
        for k in range(1, len(parts)):
            files.setdefault("srt/" + "/".join(parts[:k]) + "/__init__.py", "")
        files["srt/" + "/".join(parts) + ".py"] = source
    for rel, text in files.items():
        (root / "sglang" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "sglang" / rel).write_text(text)
    return root


TORCH_DEFAULT = """import torch

DEFAULT_DTYPE = torch.float16


class ServerArgs:
    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--dtype", default=DEFAULT_DTYPE)
"""


def test_an_option_that_needs_torch_stops_the_parser_build_naming_the_option(tmp_path):
    with pytest.raises(sglang_args.SGLangParserError, match=r"would not be SGLang's own: --dtype"):
        sglang_args.load_parser(fake_sglang(tmp_path, TORCH_DEFAULT))


def test_a_parser_that_cannot_be_built_stops_the_sphinx_build_with_the_reason(tmp_path):
    site = fake_sglang(tmp_path / "site", TORCH_DEFAULT.replace("DEFAULT_DTYPE)", "torch.float16)"))
    (tmp_path / "project").mkdir()
    docs = copy_project(tmp_path / "project")
    # A page with a command: pages without one do not need the parsers, and a build of them skips it.
    (docs / "index.md").write_text("# Serve\n\n```bash\npython -m sglang.launch_server --model-path m\n```\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-c", str(tmp_path / "project"), "-q",
                           str(docs), str(tmp_path / "out")], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode != 0
    assert "cannot build the pinned parsers" in proc.stderr
    assert "attribute 'float16' of sglang.srt.server_args.torch" in proc.stderr, proc.stderr[-2000:]


def test_an_empty_quoted_value_does_not_end_the_command():
    found = problems('```bash\nsglang serve Qwen/Qwen3-8B --api-key "" --no-such-flag\n```\n')
    assert any("unrecognized arguments: --no-such-flag" in p for p in found)


def test_an_option_declaration_module_that_did_not_load_completely_stops_the_parser_build(tmp_path):
    server_args = ("from sglang.srt.arg_groups.choices import BACKENDS\n\n\nclass ServerArgs:\n"
                   "    @staticmethod\n    def add_cli_args(parser):\n"
                   "        parser.add_argument('--backend', choices=BACKENDS)\n")
    choices = "BACKENDS = ['a']\nfrom torch_backends import NAMES\nBACKENDS += NAMES\n"
    site = fake_sglang(tmp_path, server_args, arg_groups__choices=choices)
    with pytest.raises(sglang_args.SGLangParserError,
                       match=r"did not load completely.*sglang.srt.arg_groups.choices: line 2: ModuleNotFoundError"):
        sglang_args.load_parser(site)


# -- The regression corpus: real commands and seeded faults ------------------------------------


def corpus(name: str) -> list[dict]:
    return yaml.safe_load((CORPUS / name).read_text(encoding="utf-8"))


REAL = corpus("real.yaml")
SEEDED = corpus("seeded.yaml")


def test_the_corpus_has_enough_real_commands_and_seeded_faults_covering_every_command_rule():
    assert len(REAL) >= 150 and len(SEEDED) >= 40
    assert all(e["repo"] and e["commit"] and e["path"] for e in REAL)
    assert len({" ".join(e["command"].split()) for e in REAL}) == len(REAL), "duplicate real commands"
    # Every rule a single command can break is seeded; the rest are page-level (fixtures/pages).
    page_level = {"python-syntax", "python-undefined-name", "specforge-config", "expect-fail-passes", "inline-flag",
                  "check-failed"}  # check-failed: a fault of the check itself, which a fixed fault cannot seed
    assert set(SECTIONS) - page_level <= {e["rule"] for e in SEEDED}


@pytest.mark.parametrize("entry", REAL + SEEDED, ids=lambda e: e["id"])
def test_the_check_gives_the_pinned_releases_verdict(entry):
    found = speccheck.check_command(entry["command"])
    errs = [d for d in found if d.severity == "error"]
    undecided = [d for d in found if d.severity == "undecided"]
    assert ("error" if errs else "undecided" if undecided else "pass") == entry["verdict"], [str(d) for d in found]
    if entry["verdict"] == "undecided":
        assert undecided[0].rule == entry["rule"], [str(d) for d in undecided]
        assert set(entry["flags"]) <= {d.flag for d in undecided}, [str(d) for d in undecided]
    elif entry["verdict"] == "error":
        assert errs[0].rule == entry["rule"], [str(d) for d in errs]
        assert set(entry["flags"]) <= {d.flag for d in errs}, [str(d) for d in errs]
    elif entry["rule"] is not None:  # it runs, and the guide warns
        assert any(d.rule == entry["rule"] and (d.flag in entry["flags"] or not entry["flags"]) for d in found)


def _server_namespace(command: str):
    """SGLang's parse of a corpus command (``None`` when it is no server command or does not parse)."""
    cmds = shell.find_commands(shell.Block("bash", set(), list(enumerate(command.splitlines(), 1))))
    if not cmds or cmds[0].entry not in command_check.SERVER_ENTRIES:
        return None
    from speccheck.parse import parse, sglang_argv

    try:
        parsed = parse(sglang_args.pinned_parser().parser, sglang_argv(cmds[0].entry, cmds[0].args))
    except sglang_args.SGLangParserError:  # a value needs SGLang's runtime (an undecided entry)
        return None
    if parsed.failed or parsed.unresolved or parsed.variables or "--config" in command:
        return None
    return parsed.namespace


SPEC_SERVER = [(e, ns) for e in REAL + SEEDED if (ns := _server_namespace(e["command"])) is not None
               and ns.speculative_algorithm]


def test_an_ambiguous_abbreviation_names_what_it_meant_before_a_second_flag_started_that_way(tmp_path):
    from speccheck import history

    data = {"releases": ["0.1", "0.2", "0.3", "0.4"], "flags": {
        "--draft-path": {"events": [{"release": "0.1", "change": "added"}]},
        "--draft-revision": {"events": [{"release": "0.3", "change": "added"}]},
        "--steps": {"events": [{"release": "0.1", "change": "added"}]},
        "--steps-max": {"events": [{"release": "0.1", "change": "added"}]},
        "--gone-a": {"events": [{"release": "0.1", "change": "added"}, {"release": "0.2", "change": "removed"}]},
        "--gone-b": {"events": [{"release": "0.3", "change": "added"}]},
        "--gone-c": {"events": [{"release": "0.4", "change": "added"}]}}}
    path = tmp_path / "flag-history.json"
    path.write_text(__import__("json").dumps(data))
    history._presence.cache_clear()
    try:
        assert history.former_meaning("--draft", ["--draft-path", "--draft-revision"], path) == ("--draft-path", "0.3")
        assert history.former_meaning("--step", ["--steps", "--steps-max"], path) is None  # never only one
        assert history.former_meaning("--draft", ["--draft-path", "--draft-unknown"], path) is None  # dates unknown
        # --gone-a alone in 0.1, nothing in 0.2, --gone-b alone in 0.3, two from 0.4: the later single one counts
        assert history.former_meaning("--gone", ["--gone-b", "--gone-c"], path) == ("--gone-b", "0.4")
        # The page's table: every ambiguous prefix with a former meaning, and nothing else.
        table = history.former_abbreviations(["--draft-path", "--draft-revision", "--steps", "--steps-max"], path)
        assert table == {p: ("--draft-path", "0.3") for p in ("--d", "--dr", "--dra", "--draf", "--draft", "--draft-")}
    finally:
        history._presence.cache_clear()


def test_prose_may_name_an_abbreviation_older_releases_accepted_but_not_a_misspelt_flag():
    from speccheck.check import check_inline_flags

    text = "Old commands wrote `--speculative-draft`.\nThis one writes `--speculative-draftt`.\n"
    assert [(d.line, d.flag) for d in check_inline_flags(text)] == [(2, "--speculative-draftt")]


def test_the_eagle_announcement_command_is_told_which_flag_its_draft_abbreviation_meant():
    # The command SGLang's EAGLE announcement gave (SafeAILab/EAGLE PR 173, January 2025), as readers paste it.
    text = ("python3 -m sglang.launch_server --model meta-llama/Llama-2-7b-chat-hf --speculative-algo EAGLE "
            "--speculative-draft lmsys/sglang-EAGLE-llama2-chat-7B --speculative-num-steps 5 "
            "--speculative-eagle-topk 8 --speculative-num-draft-tokens 64 --mem-fraction 0.7")
    found = [d for d in speccheck.check_command(text) if d.rule == "ambiguous-flag"]
    assert [d.flag for d in found] == ["--speculative-draft"]
    data = __import__("json").loads((ROOT / "speccheck" / "data" / "flag-history.json").read_text())
    added = {f: e["events"][0]["release"] for f, e in data["flags"].items() if f.startswith("--speculative-draft")}
    first, second = sorted(set(added.values()), key=data["releases"].index)[:2]
    assert [f for f, r in added.items() if r == first] == ["--speculative-draft-model-path"]
    assert f"until SGLang {second} only --speculative-draft-model-path started this way" in found[0].message


@pytest.mark.parametrize("entry,ns", SPEC_SERVER, ids=[e["id"] for e, _ in SPEC_SERVER])
def test_the_restated_rules_agree_with_sglangs_start_up_hook(entry, ns):
    """Re-stated rules (spec_rules.restated_problems) fire only where SGLang's own hook refuses."""
    arch = spec_rules.architecture_of(ns.model_path) if ns.model_path else None
    if startup.algorithm_error(ns.speculative_algorithm):
        return
    restated = spec_rules.restated_problems(ns, ns.speculative_algorithm.upper(), arch)
    outcome = startup.run(ns, arch or "UnknownForCausalLM")
    if restated:
        assert outcome.error, (entry["id"], restated)


@pytest.mark.parametrize("entry,ns", SPEC_SERVER, ids=[e["id"] for e, _ in SPEC_SERVER])
def test_the_draft_path_rule_agrees_with_what_sglang_does_without_a_draft_path(entry, ns):
    """Where a command omits the draft path, SGLang either points the draft at the target (its hook
    declares ``speculative_draft_model_path``) or rewrites the target's architecture to a draft one
    (``ModelConfig``, read by spec_rules); the check's draft-path error fires exactly otherwise."""
    algo = ns.speculative_algorithm.upper()
    if ns.speculative_draft_model_path or algo not in ("EAGLE", "EAGLE3", "NEXTN"):
        return
    arch = spec_rules.architecture_of(ns.model_path)
    if arch is None:
        return  # the check warns: it cannot place the model
    outcome = startup.run(ns, arch)
    sglang_supplies_draft = outcome.resolved.get("speculative_draft_model_path") == ns.model_path
    draft_rewrite = arch in spec_rules.source_facts().bundled_draft_architectures
    fires = any(d.rule == "draft-path" for d in speccheck.check_command(entry["command"]))
    assert fires == (not sglang_supplies_draft and not draft_rewrite), (entry["id"], arch, outcome)


def test_specforge_exits_on_embedding_source_with_to_sglang_as_the_check_says():
    from specforge import cli

    argv = ["export", "--to", "sglang", "--checkpoint", "c", "--draft-config", "d", "--output-dir", "o",
            "--embedding-source", "x"]
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)  # SpecForge's own main: parser.error before any export work
    assert exc.value.code == 2
    assert [d.rule for d in errors("specforge " + " ".join(argv))] == ["specforge-export"]


# The run config the SpecForge how-to includes (docs/_examples/specforge/), valid for SpecForge's loader.
GOOD_RUN_CONFIG = next((p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs/_examples/specforge").glob("*.yaml"))),
                       None)


@pytest.mark.parametrize("override", ["training.learning_rate=1e-4", "training.learning_rte=1e-4",
                                      "model.target_model_path=Qwen/Qwen3-8B", "nosection.field=1"])
def test_the_override_rule_agrees_with_specforges_apply_overrides(override, tmp_path):
    from specforge.config import load_config

    if GOOD_RUN_CONFIG is None:
        pytest.skip("docs/_examples/specforge has no run config")
    path = tmp_path / "run.yaml"
    path.write_text(GOOD_RUN_CONFIG)
    try:
        load_config(str(path), [override])
        specforge_accepts = True
    except ValueError as exc:
        specforge_accepts = "does not exist" not in str(exc)
    check_accepts = command_check._override_problem(override) is None
    assert check_accepts == specforge_accepts


def test_an_unknown_algorithm_is_refused_with_sglangs_own_message():
    found = errors(f"sglang serve {LLAMA_EAGLE3.split()[4]} --speculative-algorithm EAGLE2")
    assert found[0].rule == "unknown-algorithm"
    assert "Unknown speculative algorithm name: EAGLE2" in found[0].message
    assert found[0].source.endswith("SpeculativeAlgorithm.from_string")


def test_the_algorithm_names_come_from_sglangs_registry():
    assert {"EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO"} <= set(
        startup.algorithm_names())
    assert startup.algorithm_error("NEXTN") is None and startup.algorithm_error("nextn") is None


def test_every_problem_of_a_command_is_reported_in_line_order():
    text = ("python -m sglang.launch_server --model-path m \\\n  --cuda-graph-max-bs 8 \\\n"
            "  --speculative-num-stepz 3 \\\n  --attention-backend nope")
    found = speccheck.check_command(text)
    assert [(d.line, d.rule, d.flag) for d in found] == [
        (2, "renamed-flag", "--cuda-graph-max-bs"), (3, "unknown-flag", "--speculative-num-stepz"),
        (4, "invalid-value", "--attention-backend")]


def test_a_diagnostic_reads_like_a_compiler_message():
    d = speccheck.check_command("sglang serve m --speculative-num-stepz 3")[0]
    assert str(d).startswith("<command>:1: error: ")
    d = speccheck.check_file(ROOT / "tests/fixtures/pages/bad-flag-unknown.md")[0]
    assert str(d).startswith(f"{ROOT / 'tests/fixtures/pages/bad-flag-unknown.md'}:4: error: ")
    assert d.section == "server-arguments" and d.flag == "--speculative-num-stepz"


def test_a_renamed_flag_names_its_replacement_and_when_it_changed():
    d = errors("sglang serve m --speculative-dflash-draft-window-size 8")[0]
    assert d.rule == "renamed-flag"
    assert "renamed to --speculative-draft-window-size" in d.message
    assert re.search(r"(in SGLang \S+|between SGLang \S+ and \S+)", d.message)


def test_a_split_flag_names_the_flags_that_replace_it():
    d = errors("sglang serve m --cuda-graph-max-bs 8")[0]
    assert "--cuda-graph-max-bs-decode and --cuda-graph-max-bs-prefill" in d.message


def test_a_text_without_a_command_says_so():
    assert [d.rule for d in speccheck.check_command("pip install sglang")] == ["not-a-command"]


def test_an_unbalanced_quote_shows_what_was_read():
    found = speccheck.check_command('sglang serve m --api-key "abc --speculative-num-stepz 3')
    assert found[0].rule == "unreadable-command" and "the check read only" in found[0].message


def test_a_model_the_check_cannot_place_is_a_warning_unless_the_page_states_its_architecture():
    text = "sglang serve my-org/new-model --speculative-algorithm NEXTN"
    assert [(d.severity, d.rule) for d in speccheck.check_command(text)] == [("warning", "unknown-architecture")]
    assert speccheck.check_command("# architecture: DeepseekV3ForCausalLM\n" + text) == []
    page = ("```{code-block} bash\n:architecture: LlamaForCausalLM\n\n" + text + "\n```\n")
    assert [d.rule for d in speccheck.check_source(page, ".md")] == ["draft-path"]


def test_every_rule_has_a_section_that_the_guide_defines():
    labels = set()
    for page in (ROOT / "docs").rglob("*.md"):
        labels |= set(re.findall(r"^\(([\w-]+)\)=", page.read_text(encoding="utf-8"), re.M))
    missing = {rule: label for rule, label in SECTIONS.items() if label and label not in labels}
    assert not missing


def test_each_architecture_entry_names_its_config_and_an_sglang_model_class_that_serves_it():
    root = spec_rules._sglang_dir().parent
    for model, entry in spec_rules.architectures_file_entries().items():
        assert entry["config"] == f"https://huggingface.co/{model}/blob/main/config.json"
        path, name = entry["registry"].split("::")
        assert name == entry["architecture"], model
        source = (root / path).read_text(encoding="utf-8")
        assert re.search(rf"^class {name}\b", source, re.M), (model, path)
        entry_class = re.search(r"^EntryClass\s*=\s*(.+?)(?:\n\S|\Z)", source, re.M | re.S)
        assert entry_class and re.search(rf"\b{name}\b", entry_class.group(1)), (model, "not in EntryClass")


def test_the_tool_exits_non_zero_on_errors_only_and_on_warnings_with_strict(tmp_path):
    warn = tmp_path / "warn.sh"
    warn.write_text("sglang serve Qwen/Qwen3-8B --dp-size 2 --enable-dp-attention\n")
    err = tmp_path / "err.md"
    err.write_text("```bash\nsglang serve Qwen/Qwen3-8B --nope\n```\n")
    run = lambda *a: subprocess.run([sys.executable, "tools/check_commands.py", *a], cwd=ROOT,  # noqa: E731
                                    capture_output=True, text=True)
    assert run(str(warn)).returncode == 0
    proc = run("--strict", str(warn))
    assert proc.returncode == 1 and f"{warn}:1: warning: --enable-dp-attention is deprecated" in proc.stdout
    assert run(str(err)).returncode == 1


def test_no_tool_or_test_reaches_the_checker_through_sys_path():
    for path in [*(ROOT / "tools").glob("*.py"), *(ROOT / "tests").glob("*.py")]:
        text = path.read_text(encoding="utf-8")
        for module in ("command_check", "sglang_args", "spec_rules", "specforge_args", "pinned"):
            assert not re.search(rf"^\s*(import {module}\b|from {module} import)", text, re.M), (path, module)


def test_the_namespace_of_a_stand_in_value_is_not_taken_for_sglangs_verdict():
    # A topk given as a variable may be 1 (trtllm_mha runs it) or 2 (it does not): no error.
    text = f"{LLAMA_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk $TOPK " \
           "--speculative-num-draft-tokens 4 --attention-backend trtllm_mha"
    assert errors(text) == []
    assert argparse  # the module is used by the corpus helpers above


def test_the_flag_history_file_names_the_release_of_a_split(tmp_path):
    from speccheck import history

    data = {"releases": ["0.4.0", "0.5.20"], "flags": {"--cuda-graph-max-bs": {"events": [
        {"release": "0.4.0", "change": "added"},
        {"release": "0.5.20", "change": "split", "into": ["--cuda-graph-max-bs-decode", "--cuda-graph-max-bs-prefill"]}]}}}
    path = tmp_path / "flag-history.json"
    path.write_text(__import__("json").dumps(data))
    change = history.changes(path, tmp_path / "none.json")["--cuda-graph-max-bs"]
    assert change.sentence() == ("--cuda-graph-max-bs was split into --cuda-graph-max-bs-decode and "
                                 "--cuda-graph-max-bs-prefill in SGLang 0.5.20")


@pytest.mark.parametrize("entry,ns", SPEC_SERVER, ids=[e["id"] for e, _ in SPEC_SERVER])
def test_sglangs_start_up_hook_runs_to_the_end_on_every_corpus_command(entry, ns):
    """The stand-ins (hardware, model config, draft config) suffice: no corpus command leaves the hook
    undecided, which the check would otherwise treat as accepted."""
    if startup.algorithm_error(ns.speculative_algorithm):
        return
    arch = spec_rules.architecture_of(ns.model_path or "") or "UnknownForCausalLM"
    assert startup.run(ns, arch).undecided is None


def test_a_misspelt_draft_flag_is_not_reported_again_as_a_missing_draft_path():
    # The ambiguous --speculative-draft was the reader's draft path: its own error says what to write.
    entry = next(e for e in SEEDED if e["id"] == "seeded-064-ambiguous-draft-prefix-no-knock-on")
    found = speccheck.check_command(entry["command"])
    assert [d.rule for d in found if d.severity == "error"] == ["ambiguous-flag"], [str(d) for d in found]
    # Without the misspelt flag, the same command does need a draft path.
    without = entry["command"].replace("--speculative-draft lmsys/sglang-EAGLE-LLaMA3-Instruct-8B ", "")
    assert any(d.rule == "draft-path" for d in speccheck.check_command(without))


# -- Caches that make rebuilds cheap ----------------------------------------------------

BAD_PAGE = """# A page

Some prose.

```bash
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-num-stepz 3
```
"""


def test_cached_diagnostics_equal_fresh_ones_and_follow_a_block_that_moved(tmp_path):
    from speccheck.check import ResultCache, located

    cache = ResultCache(tmp_path / "cache.pickle")
    fresh = located(BAD_PAGE, ".md")
    assert [d for _, d in located(BAD_PAGE, ".md", cache)] == [d for _, d in fresh]
    cache.save()
    again = ResultCache(tmp_path / "cache.pickle")
    moved = BAD_PAGE.replace("Some prose.", "Some prose.\n\nTwo more\nlines.")
    assert not again.misses(moved, ".md"), "a block that only moved was checked again"
    from_cache = [d for _, d in located(moved, ".md", again)]
    assert from_cache == [d for _, d in located(moved, ".md")]
    assert from_cache[0].line == fresh[0][1].line + 3


def test_an_edited_block_or_another_checker_is_a_cache_miss(tmp_path, monkeypatch):
    from speccheck import check as check_module
    from speccheck.check import ResultCache, located

    cache = ResultCache(tmp_path / "cache.pickle")
    located(BAD_PAGE, ".md", cache)
    cache.save()
    assert ResultCache(tmp_path / "cache.pickle").misses(BAD_PAGE.replace("stepz 3", "stepz 4"), ".md")
    monkeypatch.setattr(check_module, "checker_digest", lambda: "another checker")
    assert ResultCache(tmp_path / "cache.pickle").misses(BAD_PAGE, ".md")


def test_compiled_statements_are_reused_until_the_source_changes(tmp_path, monkeypatch):
    from speccheck import filecache, sglang_args

    monkeypatch.setattr(filecache, "CACHE_DIR", tmp_path / "cache")
    source = tmp_path / "module.py"
    source.write_text("import torch\nX = 1\n")
    first = sglang_args.compiled_statements(str(source))
    assert [(line, names) for _, line, names in first] == [(1, ["torch"]), (2, ["X"])]
    assert len(list((tmp_path / "cache").iterdir())) == 1
    assert sglang_args.compiled_statements(str(source))[1][0].co_consts == first[1][0].co_consts
    source.write_text("import torch\nX = 2\nY = 3\n")
    changed = sglang_args.compiled_statements(str(source))
    assert [names for _, _, names in changed] == [["torch"], ["X"], ["Y"]]


def test_an_unknown_flag_names_the_nearest_flags_of_the_parser():
    found = speccheck.check_command(
        "python -m sglang.launch_server --model-path m --speculative-num-stepz 3")
    assert len(found) == 1 and found[0].rule == "unknown-flag"
    assert "did you mean --speculative-num-steps" in found[0].message, found[0].message


# -- Issue 24: no input ends the run --------------------------------------------------------

ADAPTIVE = next(e["command"] for e in REAL if e["id"] == "real-157")


def test_make_check_commands_reports_the_local_file_verdict_and_all_20_faults_after_it(tmp_path):
    """The adaptive-config command, which once ended the run, then 20 seeded faults in the same file
    and in a second file: every fault is still reported, at its line."""
    faults = [e for e in SEEDED if e["verdict"] == "error" and "\n" not in e["command"]][:20]
    assert len(faults) == 20
    folder = tmp_path / "commands"
    folder.mkdir()
    (folder / "a.sh").write_text("\n".join([ADAPTIVE] + [e["command"] for e in faults[:10]]) + "\n")
    (folder / "b.md").write_text("".join(f"```bash\n{e['command']}\n```\n" for e in faults[10:]))
    proc = subprocess.run(["make", "--no-print-directory", "check-commands", str(folder)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode != 0  # errors were found
    lines = proc.stdout.splitlines()
    assert any(line.startswith(f"{folder / 'a.sh'}:1: undecided: ") and "/tmp/adaptive.json" in line
               and line.endswith("[undecided-file]") for line in lines), proc.stdout
    for k, entry in enumerate(faults):
        where = f"{folder / 'a.sh'}:{k + 2}:" if k < 10 else f"{folder / 'b.md'}:{3 * (k - 10) + 2}:"
        assert any(line.startswith(where) and f"[{entry['rule']}]" in line for line in lines), (entry["id"], where)
    assert any(re.search(r"^\d+ error\(s\)(, \d+ warning\(s\))?, 1 undecided$", line)
               for line in proc.stderr.splitlines()), proc.stderr


def test_check_file_returns_the_local_file_verdict_instead_of_raising(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(f"```bash\n{ADAPTIVE}\npython -m sglang.launch_server --model-path m --bogus-flag\n```\n")
    found = speccheck.check_file(page)
    assert [(d.line, d.severity, d.rule) for d in found] == [(2, "undecided", "undecided-file"),
                                                              (3, "error", "unknown-flag")]


def test_sglangs_start_up_code_sees_only_the_commands_environment_and_none_of_our_files(monkeypatch):
    """The hook runs apart: a variable of this process is not visible, one the command sets is,
    and a file SGLang's code opens stops the run with its path instead of reading it."""
    seen = {}
    loaded = startup._loaded()
    hook = loaded.hook
    original = hook.handle_speculative_decoding

    def spy(record):
        seen["ours"] = os.environ.get("H24_OURS")
        seen["theirs"] = os.environ.get("SGLANG_ENABLE_SPEC_V2")
        return original(record)

    monkeypatch.setenv("H24_OURS", "1")
    monkeypatch.setattr(hook, "handle_speculative_decoding", spy)
    from speccheck.parse import parse

    ns = parse(sglang_args.pinned_parser().parser, ["--model-path", "m", "--speculative-algorithm", "EAGLE3",
                                                    "--speculative-draft-model-path", "d"]).namespace
    outcome = startup.run(ns, "LlamaForCausalLM", env={"SGLANG_ENABLE_SPEC_V2": "1"})
    assert outcome.decided and seen == {"ours": None, "theirs": "1"}
    assert os.environ.get("H24_OURS") == "1"
    ns.speculative_adaptive, ns.speculative_adaptive_config = True, str(ROOT / "README.md")
    outcome = startup.run(ns, "LlamaForCausalLM")
    assert outcome.reads == str(ROOT / "README.md") and outcome.error is None


def test_an_exception_sglang_raises_unexpectedly_names_the_exception_file_and_line(monkeypatch):
    hook = startup._loaded().hook

    def broken(record):
        raise IndexError("list index out of range")

    monkeypatch.setattr(hook, "handle_speculative_decoding", broken)
    broken.__code__ = broken.__code__.replace(co_filename=hook.__file__)  # raised "in SGLang's code"
    found = speccheck.check_command("sglang serve meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE3 "
                                    "--speculative-draft-model-path lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B")
    assert [(d.severity, d.rule) for d in found] == [("undecided", "undecided-startup")]
    assert "IndexError: list index out of range (sglang/srt/arg_groups/speculative_hook.py:" in found[0].message


def test_a_failure_of_the_check_itself_is_a_diagnostic_and_the_next_command_is_still_checked(monkeypatch):
    real = command_check.check_server

    def fails_on_the_first(cmd, entry, block=None):
        if "first" in cmd.args:
            raise RuntimeError("boom")
        return real(cmd, entry, block)

    monkeypatch.setattr(command_check, "check_server", fails_on_the_first)
    found = command_check.check_source("```bash\nsglang serve first\nsglang serve m --bogus-flag\n```\n", ".md", "p.md")
    assert [(d.line, d.severity, d.rule) for d in found] == [(2, "undecided", "check-failed"), (3, "error", "unknown-flag")]
    assert "RuntimeError: boom at test_commands.py:" in found[0].message


DFLASH = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm DFLASH "
          "--speculative-draft-model-path z-lab/some-dflash-draft --speculative-draft-window-size 4")


def test_a_dflash_window_checked_against_an_unread_draft_block_size_is_undecided():
    """_handle_dflash compares the window with the block size from the draft's config.json
    (16 when it has none); without the block size on the command line SGLang's verdict depends
    on the reader's draft, so the check says it cannot decide; with it, it refuses."""
    assert [(d.severity, d.rule) for d in speccheck.check_command(DFLASH)] == [("undecided", "undecided-file")]
    given = [(d.severity, d.rule, d.flag) for d in speccheck.check_command(DFLASH + " --speculative-num-draft-tokens 8")]
    assert given == [("error", "draft-window", "--speculative-draft-window-size")]
    assert not speccheck.check_command(DFLASH + " --speculative-num-draft-tokens 4")


def test_a_dspark_draft_token_count_checked_against_an_unread_gamma_is_undecided():
    """_handle_dspark compares --speculative-num-draft-tokens with gamma + 1, gamma from the draft's
    config.json unless --speculative-dspark-block-size gives it: the same rule as DFLASH's window,
    found by running the hook with other stand-in drafts (startup.DRAFT_CONFIG_VARIANTS)."""
    base = ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK "
            "--speculative-draft-model-path some/dspark-draft --speculative-num-draft-tokens 5")
    assert [(d.severity, d.rule) for d in speccheck.check_command(base)] == [("undecided", "undecided-file")]
    assert [d.rule for d in speccheck.check_command(base + " --speculative-dspark-block-size 5")] == ["dspark"]
    assert not speccheck.check_command(base + " --speculative-dspark-block-size 4")


def test_a_stray_dash_word_is_named_once_and_a_list_flag_loses_all_its_values():
    """argparse reads "-1" as a value, so "--max-total-tokens 4096 -1" has one stray word; after a
    refused list value ("--cuda-graph-bs-prefill - -") the check drops every value of the flag
    before parsing on, instead of reporting the second "-" as unrecognized too."""
    stray = speccheck.check_command("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --max-total-tokens 4096 -1")
    assert [(d.rule, d.flag) for d in stray] == [("unknown-flag", "-1")]
    listed = speccheck.check_command("sglang serve --model-path Qwen/Qwen3-8B --cuda-graph-bs-prefill - - --port 3")
    assert [(d.rule, d.flag) for d in listed] == [("invalid-value", "--cuda-graph-bs-prefill")]
