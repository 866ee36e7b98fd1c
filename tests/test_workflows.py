"""The CI workflows, the Read the Docs configuration and the contributor documents agree with the Makefile.

Every ``make X`` that a workflow runs or that the README, the contributing pages,
the pull request and issue templates or ``.ci/run`` tell someone to run must be a
target of the Makefile; the hosted builds use the same Python and system packages
as ``.ci/run``; and the repository's URL is written once, in ``conf.py``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
READTHEDOCS = ROOT / ".readthedocs.yaml"
# Documents whose code (inline code and code blocks) may tell a contributor to run `make X`.
MARKDOWN_DOCS = sorted(
    [ROOT / "README.md", *(ROOT / "docs" / "contributing").rglob("*.md"), *(ROOT / ".github").rglob("*.md")]
)
MAKE_CALL = re.compile(r"(?<![\w-])make\s+([a-z][\w-]*)")


def make_targets() -> set[str]:
    """Names of the rules in the Makefile (``name:`` at the start of a line, not ``name :=``)."""
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", (ROOT / "Makefile").read_text(), flags=re.M))


def load(path: Path):
    return yaml.safe_load(path.read_text())


def steps(workflow: Path) -> list[dict]:
    return [step for job in load(workflow)["jobs"].values() for step in job.get("steps", [])]


def strings(node) -> list[str]:
    """Every string inside a parsed YAML node."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in strings(value)]
    if isinstance(node, list):
        return [s for item in node for s in strings(item)]
    return []


def markdown_code(text: str) -> list[str]:
    """The fenced code blocks and inline code spans of a Markdown text."""
    fences = re.findall(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1", text, flags=re.M | re.S)
    rest = re.sub(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1", "", text, flags=re.M | re.S)
    return [body for _, body in fences] + re.findall(r"`([^`\n]+)`", rest)


def make_calls() -> list[tuple[str, str]]:
    """(file, target) for each ``make target`` that a workflow, .ci/run or a contributor document runs."""
    calls = []
    for workflow in WORKFLOWS:
        calls += [(workflow.name, t) for step in steps(workflow) for t in MAKE_CALL.findall(step.get("run", ""))]
    calls += [(READTHEDOCS.name, t) for s in strings(load(READTHEDOCS)["build"]) for t in MAKE_CALL.findall(s)]
    script = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if not line.lstrip().startswith("#")]
    calls += [(".ci/run", t) for t in MAKE_CALL.findall("\n".join(script))]
    for doc in MARKDOWN_DOCS:
        for code in markdown_code(doc.read_text()):
            calls += [(str(doc.relative_to(ROOT)), t) for t in MAKE_CALL.findall(code)]
    return calls


# -- Every file parses -----------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [*WORKFLOWS, READTHEDOCS, *sorted((ROOT / ".github" / "ISSUE_TEMPLATE").glob("*.yml"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_yaml_file_parses_to_a_mapping(path):
    assert isinstance(load(path), dict)


def test_the_three_workflows_exist():
    assert {w.name for w in WORKFLOWS} >= {"ci.yml", "pages.yml", "linkcheck.yml"}


# -- Commands exist ------------------------------------------------------------------


def test_every_make_command_shown_or_run_is_a_makefile_target():
    calls = make_calls()
    assert calls, "no `make X` found: the extraction is broken"
    targets = make_targets()
    missing = sorted({(where, target) for where, target in calls if target not in targets})
    assert not missing, f"`make X` with no Makefile target X: {missing}"


def test_make_calls_in_prose_are_not_taken_for_commands():
    # "make decoding faster" in a sentence is not a command; in code it would be.
    assert markdown_code("We make decoding faster. Run `make html`.\n") == ["make html"]


# -- What each workflow runs ---------------------------------------------------------


def test_ci_run_runs_exactly_make_test():
    script = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
              if line.strip() and not line.lstrip().startswith("#")]
    assert [line for line in script if MAKE_CALL.search(line)] == ["make test"]


def make_dry_run(target: str) -> str:
    return subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_make_test_runs_every_tier_and_make_test_fast_leaves_out_browser_and_build():
    full = [line for line in make_dry_run("test").splitlines() if "pytest" in line]
    fast = [line for line in make_dry_run("test-fast").splitlines() if "pytest" in line]
    assert full and ' -m "' not in full[0], full
    assert fast and re.search(r'-m "not \(browser or build\)"', fast[0]), fast
    markers = (ROOT / "tests" / "pytest.ini").read_text()
    assert re.search(r"^\s+browser:", markers, flags=re.M) and re.search(r"^\s+build:", markers, flags=re.M)


def test_pull_requests_run_ci_run():
    workflow = load(ROOT / ".github" / "workflows" / "ci.yml")
    assert "pull_request" in workflow[True]  # PyYAML reads the key `on` as True
    assert "bash .ci/run" in [step.get("run") for step in steps(ROOT / ".github" / "workflows" / "ci.yml")]


def test_pages_builds_with_make_html_and_deploys_with_the_official_actions():
    path = ROOT / ".github" / "workflows" / "pages.yml"
    assert load(path)[True]["push"]["branches"] == ["main"]
    uses = [step["uses"].split("@")[0] for step in steps(path) if "uses" in step]
    for action in ("actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"):
        assert action in uses
    runs = [step.get("run", "") for step in steps(path)]
    assert "make html" in runs
    upload = next(step for step in steps(path) if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "_build/html", "make html writes the site to _build/html"


def test_link_check_is_scheduled_and_runs_make_linkcheck():
    path = ROOT / ".github" / "workflows" / "linkcheck.yml"
    assert load(path)[True]["schedule"][0]["cron"]
    assert "make linkcheck" in [step.get("run") for step in steps(path)]


def test_every_action_is_pinned_to_a_release_tag():
    for workflow in WORKFLOWS:
        for step in steps(workflow):
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+(\.\d+){0,2}", step["uses"]), (workflow.name, step["uses"])


# -- Hosted builds use the same pins -------------------------------------------------


def ci_run_apt_packages() -> set[str]:
    match = re.search(r"^packages=\(([^)]*)\)", (ROOT / ".ci" / "run").read_text(), flags=re.M)
    assert match, ".ci/run no longer lists its Debian packages as packages=(...)"
    return set(match.group(1).split())


def test_read_the_docs_uses_python_3_11_and_the_system_packages_of_ci_run():
    build = load(READTHEDOCS)["build"]
    assert build["tools"]["python"] == "3.11"
    assert set(build["apt_packages"]) <= ci_run_apt_packages()
    assert "make html" in strings(build["jobs"])


def test_read_the_docs_publishes_the_makefile_output():
    commands = " ".join(strings(load(READTHEDOCS)["build"]["jobs"]))
    assert "_build/html" in commands and "$READTHEDOCS_OUTPUT/html" in commands


def test_hosted_builds_publish_only_the_site_folder():
    """Pages and Read the Docs publish _build/html, which holds no doctrees (make html writes them beside it)."""
    html = next(line for line in make_dry_run("html").splitlines() if " -b html " in line)
    assert re.search(r" -d \S+/doctrees ", html), html
    copies = [s for s in strings(load(READTHEDOCS)["build"]["jobs"]) if s.startswith("cp ")]
    assert copies == ["cp -r _build/html/. $READTHEDOCS_OUTPUT/html/"], copies


def test_workflow_containers_use_python_3_11():
    for workflow in WORKFLOWS:
        for job in load(workflow)["jobs"].values():
            if "container" in job:
                assert job["container"].startswith("python:3.11-"), (workflow.name, job["container"])


# -- One place for the repository URL -----------------------------------------------


def test_repository_url_is_written_only_in_conf_py():
    match = re.search(r'^repository_url = "([^"]+)"', (ROOT / "conf.py").read_text(), flags=re.M)
    assert match, "conf.py sets repository_url"
    url = match.group(1)
    places = [ROOT / "README.md", ROOT / "Makefile", READTHEDOCS, *(ROOT / ".github").rglob("*"),
              *(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.myst"), *(ROOT / "docs").rglob("*.ipynb"),
              *(ROOT / "sphinxext").rglob("*.py"), *(ROOT / "tools").rglob("*.py")]
    repeated = [str(p.relative_to(ROOT)) for p in places if p.is_file() and url in p.read_text(errors="replace")]
    assert not repeated, f"{url} is repeated outside conf.py in {repeated}"


# -- Issue forms -----------------------------------------------------------------------

ISSUE_FORMS = ["wrong-fact.yml", "broken-example.yml", "missing-topic.yml"]
FORM_FIELD_TYPES = {"markdown", "input", "textarea", "dropdown", "checkboxes"}


@pytest.mark.parametrize("name", ISSUE_FORMS)
def test_issue_form_has_the_keys_github_requires(name):
    form = load(ROOT / ".github" / "ISSUE_TEMPLATE" / name)
    assert form["name"] and form["description"] and form["body"]
    ids = [field["id"] for field in form["body"] if "id" in field]
    assert len(ids) == len(set(ids)), "field ids must be unique"
    for field in form["body"]:
        assert field["type"] in FORM_FIELD_TYPES
        assert field["attributes"].get("label") or field["type"] == "markdown"
    assert any(field.get("validations", {}).get("required") for field in form["body"]), "no required field"


# -- make lab keeps Jupyter out of the build -----------------------------------------


def test_jupyterlab_is_pinned_for_make_lab_and_not_a_build_requirement():
    assert not re.search(r"^(jupyterlab|notebook|jupyter)\b", (ROOT / "requirements.txt").read_text(), flags=re.M)
    assert re.search(r"^jupyterlab==\d+\.\d+\.\d+$", (ROOT / "requirements-lab.txt").read_text(), flags=re.M)


def lab_command(*overrides: str) -> str:
    """The ``jupyter lab`` line that ``make lab`` would run (dry run)."""
    dry_run = subprocess.run(["make", "-n", "lab", *overrides], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    lines = [line for line in dry_run.splitlines() if "jupyter lab" in line]
    assert lines, dry_run
    return lines[0]


def test_make_lab_runs_jupyter_from_its_own_environment():
    line = lab_command()
    assert ".venv-lab/bin/jupyter lab" in line and line.rstrip().endswith(" docs"), line


def test_make_lab_passes_lab_opts_and_allows_root_by_default_as_root():
    assert " --port 9999 " in lab_command("LAB_OPTS=--port 9999") + " "
    if os.geteuid() == 0:
        assert "--allow-root" in lab_command(), "as root JupyterLab refuses to start without --allow-root"
    else:
        assert "--allow-root" not in lab_command()


def test_build_environment_does_not_install_jupyterlab():
    assert importlib.util.find_spec("jupyterlab") is None, "jupyterlab is in the build venv: it slows every build"


def test_contributing_page_lists_every_make_target_that_make_help_shows():
    shown = set(re.findall(r"^([a-z][\w-]*):.*## ", (ROOT / "Makefile").read_text(), flags=re.M)) - {"help"}
    page = (ROOT / "docs" / "contributing" / "index.md").read_text()
    missing = sorted(t for t in shown if f"`make {t}`" not in page)
    assert not missing, f"add these targets to the table in docs/contributing/index.md: {missing}"


def test_make_venv_refuses_a_symlinked_venv_instead_of_emptying_its_target(tmp_path):
    import shutil

    for name in ("Makefile", "requirements.lock", "requirements-pinned.lock", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep").write_text("x")
    (tmp_path / ".venv").symlink_to(target)
    proc = subprocess.run(["make", "venv"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "symbolic link" in proc.stderr, proc.stdout + proc.stderr
    assert (target / "keep").exists(), "make venv emptied the link's target"
