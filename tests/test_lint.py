"""The pre-commit hooks run offline, pass on the repository, and catch what they exist for.

pre-commit needs a git repository, and its fixers rewrite files, so every test
runs the hooks in a temporary git repository: the working tree is never changed.
The temporary repositories get the project's hook configuration and a link to
the project's ``.venv``, where the hooks' tools are installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

CONFIG = ROOT / ".pre-commit-config.yaml"
# What the hooks read besides the files they check.
HOOK_SETTINGS = [".pre-commit-config.yaml", "pyproject.toml", "tools/spelling-words.txt"]


def hooks() -> list[dict]:
    """Every hook declared in .pre-commit-config.yaml."""
    config = yaml.safe_load(CONFIG.read_text())
    return [hook for repo in config["repos"] for hook in repo["hooks"]]


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run a command without raising; stdout and stderr are combined in ``.stdout``."""
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300, check=False)


@pytest.fixture(scope="session")
def pre_commit_env(tmp_path_factory) -> dict[str, str]:
    """Environment for pre-commit with its cache in a temporary folder, not the user's home."""
    return {**os.environ, "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home"))}


def git_repo(dest: Path, files: dict[str, str]) -> Path:
    """Make ``dest`` a git repository holding the hook settings, ``files`` and a link to .venv.

    :param files: relative path -> text; written, then staged with the settings.
    """
    for name in HOOK_SETTINGS:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    for name, text in files.items():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / name).write_text(text)
    (dest / ".venv").symlink_to(ROOT / ".venv")
    (dest / ".gitignore").write_text(".venv\n")
    run(["git", "init", "-q"], dest)
    run(["git", "add", "-A"], dest)
    return dest


def pre_commit(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``pre-commit run [args] --all-files`` in ``repo`` with the project's pre-commit."""
    return run([str(ROOT / ".venv" / "bin" / "pre-commit"), "run", *args, "--all-files"], repo, env)


def notebook(outputs: list[dict], execution_count: int | None) -> str:
    """A notebook (nbformat 4.5): a Markdown title cell, then one code cell with these outputs."""
    cell = {"cell_type": "code", "execution_count": execution_count, "id": "1", "metadata": {},
            "outputs": outputs, "source": ["print(1 + 1)"]}
    title = {"cell_type": "markdown", "id": "0", "metadata": {}, "source": ["# Title"]}
    nb = {"cells": [title, cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    # The layout nbformat writes, with the cell ids nbstripout gives (their positions).
    return json.dumps(nb, indent=1, sort_keys=True) + "\n"


# -- The configuration ---------------------------------------------------------------


def test_every_hook_is_local_and_runs_a_tool_from_the_venv():
    config = yaml.safe_load(CONFIG.read_text())
    assert [repo["repo"] for repo in config["repos"]] == ["local"] * len(config["repos"])
    for hook in hooks():
        assert hook["language"] == "system", hook["id"]
        assert hook["entry"].startswith(".venv/bin/"), hook["id"]


def test_every_hook_tool_is_pinned_exactly_in_requirements():
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==\S+", line.split("#", 1)[0].strip())
        if match:
            pins[match.group(1).lower().replace("_", "-")] = line
    # pip lists the scripts it installs (console scripts and binaries like ruff's) in RECORD.
    scripts = {file.name: dist.metadata["Name"].lower().replace("_", "-")
               for dist in metadata.distributions() for file in dist.files or [] if file.parent.name == "bin"}
    for hook in hooks():
        command = hook["entry"].split()
        if command[0] == ".venv/bin/python":  # a script of this repository, run by the build's Python
            assert (ROOT / command[1]).is_file(), f"{hook['id']}: {command[1]} does not exist"
            continue
        script = command[0].removeprefix(".venv/bin/")
        assert script in scripts, f"{hook['id']}: no installed distribution provides {script}"
        assert scripts[script] in pins, f"{hook['id']}: {scripts[script]} is not pinned in requirements.txt"


# -- The repository passes -----------------------------------------------------------


def test_hooks_pass_on_every_tracked_file(tmp_path, pre_commit_env):
    listed = run(["git", "ls-files", "-z"], ROOT)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: pre-commit checks the files git tracks")
    repo = tmp_path / "copy"
    repo.mkdir()
    for name in listed.stdout.split("\0"):
        src = ROOT / name
        if name and src.is_file():  # a tracked file deleted in the working tree is skipped
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / name)
    git_repo(repo, {})
    result = pre_commit(repo, pre_commit_env, "--show-diff-on-failure")
    assert result.returncode == 0, f"`make lint` would fail:\n{result.stdout}"


# -- Each hook catches its mistake ---------------------------------------------------


def test_notebook_outputs_are_stripped_and_the_run_fails(tmp_path, pre_commit_env):
    output = {"name": "stdout", "output_type": "stream", "text": ["2\n"]}
    repo = git_repo(tmp_path, {"docs/explanation/demo.ipynb": notebook([output], execution_count=1)})
    result = pre_commit(repo, pre_commit_env, "nbstripout")
    assert result.returncode != 0
    code_cell = json.loads((repo / "docs/explanation/demo.ipynb").read_text())["cells"][1]
    assert code_cell["outputs"] == []
    assert code_cell["execution_count"] is None


def test_notebook_without_outputs_passes(tmp_path, pre_commit_env):
    repo = git_repo(tmp_path, {"docs/explanation/demo.ipynb": notebook([], execution_count=None)})
    result = pre_commit(repo, pre_commit_env, "nbstripout")
    assert result.returncode == 0, result.stdout


def test_a_json_notebook_is_refused_with_the_command_that_converts_it(tmp_path, pre_commit_env):
    files = {"docs/explanation/demo.ipynb": notebook([], execution_count=None),
             "tools/notebooks_to_text.py": (ROOT / "tools" / "notebooks_to_text.py").read_text()}
    repo = git_repo(tmp_path, files)
    shutil.copytree(ROOT / "sphinxext", repo / "sphinxext", ignore=shutil.ignore_patterns("__pycache__"))
    result = pre_commit(repo, pre_commit_env, "notebooks-as-text")
    assert result.returncode != 0
    assert "docs/explanation/demo.ipynb: notebooks are stored as text" in result.stdout
    assert "tools/notebooks_to_text.py docs/explanation/demo.ipynb" in result.stdout


def test_the_converted_notebook_passes_the_hook(tmp_path, pre_commit_env):
    files = {"docs/explanation/demo.ipynb": notebook([], execution_count=None),
             "tools/notebooks_to_text.py": (ROOT / "tools" / "notebooks_to_text.py").read_text()}
    repo = git_repo(tmp_path, files)
    shutil.copytree(ROOT / "sphinxext", repo / "sphinxext", ignore=shutil.ignore_patterns("__pycache__"))
    converted = run([str(ROOT / ".venv" / "bin" / "python"), "tools/notebooks_to_text.py",
                     "docs/explanation/demo.ipynb"], repo)
    assert converted.returncode == 0, converted.stdout
    assert "```{code-cell}\nprint(1 + 1)\n```" in (repo / "docs/explanation/demo.myst").read_text()
    run(["git", "add", "-A"], repo)
    result = pre_commit(repo, pre_commit_env, "notebooks-as-text")
    assert result.returncode == 0, result.stdout


def test_misspelling_is_flagged_with_file_and_line(tmp_path, pre_commit_env):
    typo = "rec" + "ieve"  # spelled out whole, it would fail the hook on this file
    page = f"# Drafting\n\nThe target model will {typo} the draft tokens.\n"
    repo = git_repo(tmp_path, {"docs/how-to/typo.md": page})
    result = pre_commit(repo, pre_commit_env, "codespell")
    assert result.returncode != 0
    assert f"docs/how-to/typo.md:3: {typo} ==> receive" in result.stdout


def test_words_in_the_project_word_list_are_accepted(tmp_path, pre_commit_env):
    words = (ROOT / "tools" / "spelling-words.txt").read_text().split()
    page = "# Vocabulary\n\n" + "".join(f"- {word} {word.upper()}\n" for word in words)
    repo = git_repo(tmp_path, {"docs/reference/words.md": page})
    result = pre_commit(repo, pre_commit_env, "codespell")
    assert result.returncode == 0, result.stdout


def test_unused_import_is_flagged_by_ruff(tmp_path, pre_commit_env):
    repo = git_repo(tmp_path, {"tools/example.py": '"""Example."""\n\nimport os\n'})
    result = pre_commit(repo, pre_commit_env, "ruff")
    assert result.returncode != 0
    assert "F401" in result.stdout and "tools/example.py" in result.stdout


def test_trailing_whitespace_and_missing_final_newline_are_fixed(tmp_path, pre_commit_env):
    repo = git_repo(tmp_path, {"docs/how-to/space.md": "# Title  \n\nText. \nLast line"})
    result = pre_commit(repo, pre_commit_env, "trailing-whitespace")
    result_eof = pre_commit(repo, pre_commit_env, "end-of-file-fixer")
    assert result.returncode != 0 and result_eof.returncode != 0
    # Two trailing spaces are a Markdown line break and are kept; one space is removed.
    assert (repo / "docs/how-to/space.md").read_text() == "# Title  \n\nText.\nLast line\n"


def test_invalid_yaml_is_flagged(tmp_path, pre_commit_env):
    repo = git_repo(tmp_path, {"docs/_data/broken.yaml": "key: [unclosed\n"})
    result = pre_commit(repo, pre_commit_env, "check-yaml")
    assert result.returncode != 0
    assert "docs/_data/broken.yaml" in result.stdout


def test_installed_hook_stops_a_commit_of_a_notebook_with_outputs(tmp_path, pre_commit_env):
    output = {"name": "stdout", "output_type": "stream", "text": ["2\n"]}
    repo = git_repo(tmp_path, {"docs/explanation/demo.ipynb": notebook([output], execution_count=1)})
    installed = run([str(ROOT / ".venv" / "bin" / "pre-commit"), "install"], repo, pre_commit_env)
    assert installed.returncode == 0, installed.stdout
    commit = run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "demo"],
                 repo, pre_commit_env)
    assert commit.returncode != 0, "the commit went through with notebook outputs"
    assert "strip notebook outputs" in commit.stdout and "Failed" in commit.stdout
    assert run(["git", "rev-parse", "--verify", "HEAD"], repo).returncode != 0, "a commit was made"


def test_command_check_hook_flags_a_bad_flag_in_a_changed_page(tmp_path, pre_commit_env):
    page = "# Serve\n\n```bash\npython -m sglang.launch_server --model-path m --no-such-flag 1\n```\n"
    files = {"docs/how-to/serve.md": page, "tools/check_commands.py": (ROOT / "tools" / "check_commands.py").read_text()}
    repo = git_repo(tmp_path, files)
    shutil.copytree(ROOT / "sphinxext", repo / "sphinxext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "requirements-pinned.txt", repo / "requirements-pinned.txt")
    result = pre_commit(repo, pre_commit_env, "check-commands")
    assert result.returncode != 0
    assert "docs/how-to/serve.md:4:" in result.stdout and "--no-such-flag" in result.stdout
