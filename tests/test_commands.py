"""Every command on the site is checked by the pinned releases' own parsers.

The bad-input pages in ``tests/fixtures/pages/`` are built once (``bad_build``);
each must produce a warning naming its file, the line of the mistake and what
is wrong, and ``good-commands.md`` must produce none. Other tests call the
checker directly (``sphinxext/command_check.py``), as ``tools/check_commands.py`` does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, copy_project

sys.path.insert(0, str(ROOT / "sphinxext"))
import command_check  # noqa: E402
import sglang_args  # noqa: E402


def warnings_for(build, page: str) -> list[str]:
    """The build's warning lines about ``page`` (a file in tests/fixtures/pages/)."""
    return [line for line in build.output.splitlines() if f"/{page}:" in line and "WARNING" in line]


def assert_warns(build, page: str, line: int | None, *fragments: str) -> None:
    found = warnings_for(build, page)
    where = f"/{page}:{line}:" if line is not None else f"/{page}:"
    matching = [w for w in found if where in w and all(f in w for f in fragments)]
    assert matching, f"no warning at {where} containing {fragments}; warnings for the page: {found}"


def test_the_bad_pages_fail_the_build(bad_build):
    assert bad_build.returncode != 0


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
                 "EAGLE3 needs --speculative-draft-model-path", "_handle_eagle_family")


def test_two_of_the_three_tree_knobs_fail(bad_build):
    assert_warns(bad_build, "bad-two-of-three-knobs.md", 7, "together or not at all",
                 "but not --speculative-num-draft-tokens")


def test_a_draft_tree_on_trtllm_mha_with_paged_kv_fails(bad_build):
    assert_warns(bad_build, "bad-topk-page-size-backend.md", 7, "trtllm_mha attention backend supports only "
                 "--speculative-eagle-topk 1")
    assert_warns(bad_build, "bad-topk-page-size-backend.md", None, "--page-size 64 works only with the attention "
                 "backends fa3, flashinfer, triton")


def test_a_command_marked_expect_fail_must_fail(bad_build):
    assert_warns(bad_build, "bad-expect-fail-passes.md", 6, "is marked expect-fail but passes every check")


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


LLAMA_EAGLE3 = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
                "--speculative-algorithm EAGLE3 --speculative-draft-model-path lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B ")


def test_topk_1_with_a_draft_token_count_other_than_steps_plus_1_is_flagged():
    found = problems(f"```bash\n{LLAMA_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 "
                     "--speculative-num-draft-tokens 8\n```\n")
    assert any("replaces --speculative-num-draft-tokens 8 by --speculative-num-steps + 1 = 4" in p for p in found)


def test_rejection_sampling_needs_topk_1():
    found = problems(f"```bash\n{LLAMA_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 4 "
                     "--speculative-num-draft-tokens 8 --speculative-use-rejection-sampling\n```\n")
    assert any("needs --speculative-eagle-topk 1 (got 4)" in p for p in found)


def test_standalone_and_ngram_reject_dp_attention():
    for algo in ("STANDALONE --speculative-draft-model-path Qwen/Qwen3-8B", "NGRAM"):
        found = problems(f"```bash\nsglang serve Qwen/Qwen3-8B --speculative-algorithm {algo} --attn-dp-size 2\n```\n")
        assert any("does not support DP attention" in p for p in found), (algo, found)


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
    assert re.search(r"bad-cuda-graph-max-bs\.md:6: .*ambiguous option", proc.stdout), proc.stdout


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
    assert any("DFLASH needs --speculative-draft-model-path" in p for p in found)


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
    assert any("supports only --speculative-eagle-topk 1 (got 4)" in p for p in found)


# -- Blocks and commands written in the ways pages write them ----------------------------


def test_a_python_block_inside_a_list_item_is_read_without_the_items_indent():
    page = ("1. Send a request:\n\n   ```python\n   import requests\n\n"
            "   print(requests.get(\"http://127.0.0.1:30000/health\", timeout=5).status_code)\n   ```\n")
    assert problems(page) == []


def test_an_undefined_name_in_an_indented_python_block_is_found_at_its_line():
    page = "- Step:\n\n  ```python\n  import requests\n\n  requests.get(base_url, timeout=5)\n  ```\n"
    found = command_check.check_source(page, ".md")
    assert [(p.line, p.message) for p in found] == [(6, "Python block: undefined name 'base_url'")]


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
        assert problems(page) == [], extra


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
    assert found == ["python -m specforge: Python cannot run it: No module named specforge.__main__; "
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
    assert any("deprecated: use python -m sglang.benchmark.serving" in p for p in found)
    assert any("unrecognized arguments: --bogus" in p for p in found)


def test_installing_or_cloning_specforge_is_not_a_specforge_command():
    page = ("```bash\npip install specforge==0.2.0\ngit clone https://github.com/sgl-project/specforge\n"
            "cd specforge\n```\n")
    assert command_check.find_commands(command_check.markdown_blocks(page)[0]) == []


def test_a_python_argv_list_starting_with_sys_executable_is_checked():
    found = problems('```python\nimport subprocess\nimport sys\n\nsubprocess.run([sys.executable, "-m", '
                     '"sglang.launch_server", "--model-path", "m", "--no-such-flag"], check=True)\n```\n')
    assert any("unrecognized arguments: --no-such-flag" in p for p in found)


def test_a_path_through_a_folder_named_specforge_is_not_a_specforge_command():
    page = ('```bash\npython3 -m venv ~/venvs/specforge\n~/venvs/specforge/bin/pip install "specforge==0.2.0"\n'
            "```\n")
    assert command_check.find_commands(command_check.markdown_blocks(page)[0]) == []


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
    (docs / "index.md").write_text("# Empty\n")
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
