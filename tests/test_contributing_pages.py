"""Every file and ``make`` target that the contributing pages name exists.

A contributor follows ``docs/contributing/*.md`` word for word; a path that moved
(``sphinxext/spec_rules.py`` became ``speccheck/spec_rules.py``) or a target that
was renamed sends them nowhere. Checked here:

- **paths**: every inline-code span (`` `like/this.py` ``) whose first segment is a
  top-level entry of the repository (``docs``, ``speccheck``, ``tools``, ...) must
  match a file or folder; ``<placeholder>`` and ``*`` are wildcards that must match
  at least one. Paths of SGLang's package (``sglang/srt/...``), of the build
  (``_build/...``) and of ``.venv`` are not the repository's and are skipped, as are
  the files a page tells the reader to create (:data:`EXAMPLES`);
- **targets**: every ``make <target>`` in inline code or at the start of a line in a
  code block must be listed by ``make help``, and ``make help`` lists every target
  the Makefile declares phony.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

PAGES = sorted((ROOT / "docs" / "contributing").glob("*.md"))
TOP_LEVEL = {p.name for p in ROOT.iterdir() if p.name not in {".git", "_build", ".venv", ".venv-lab"}}
# Files that a page tells the reader to create, as examples: they must not exist.
EXAMPLES = {
    "docs/how-to/serve-qwen3-eagle3.md",
    "docs/how-to/old-name.md",
    "docs/how-to/new-name.md",
    "docs/explanation/acceptance-by-position.ipynb",
}
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
MAKE = re.compile(r"(?:^|`)\s*make ([a-z][a-z-]*)", re.M)


def named_paths(text: str, top_level: set[str] = TOP_LEVEL) -> list[str]:
    """The repository paths a page names in inline code (see the module docstring)."""
    out = []
    for span in INLINE.findall(text):
        word = span.strip().split("::")[0]  # a source-note path may end with ::function
        if " " in word or "/" not in word or "{{" in word:
            continue
        if word.split("/")[0] in top_level:
            out.append(word)
    return out


def missing_paths(text: str, root: Path = ROOT, top_level: set[str] = TOP_LEVEL) -> list[str]:
    """The named paths that match nothing under ``root`` (examples excepted)."""
    out = []
    for path in named_paths(text, top_level):
        if path in EXAMPLES:
            continue
        pattern = re.sub(r"<[^>]+>", "*", path).rstrip("/")
        if not (list(root.glob(pattern)) if "*" in pattern else (root / pattern).exists()):
            out.append(path)
    return out


def named_targets(text: str) -> set[str]:
    """Targets of ``make <target>`` in inline code or at the start of a code line."""
    return set(MAKE.findall(text))


def help_targets(root: Path = ROOT) -> set[str]:
    """The targets ``make help`` lists."""
    out = subprocess.run(["make", "--no-print-directory", "-C", str(root), "help"], capture_output=True,
                         text=True, check=True).stdout
    return set(re.findall(r"^\s*make (\S+)", out, re.M))


def phony_targets(makefile: Path) -> set[str]:
    """Every target the Makefile declares ``.PHONY`` (continuation lines included)."""
    text = makefile.read_text(encoding="utf-8").replace("\\\n", " ")
    return {t for line in re.findall(r"^\.PHONY:(.*)$", text, re.M) for t in line.split()
            if not t.startswith("$")}


@pytest.fixture(scope="module")
def listed() -> set[str]:
    return help_targets()


# The parameter is not called `page`: conftest.py marks tests using a fixture of that name as browser tests.
@pytest.mark.parametrize("md_file", PAGES, ids=lambda p: p.name)
def test_every_path_a_contributing_page_names_exists(md_file):
    assert missing_paths(md_file.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("md_file", PAGES, ids=lambda p: p.name)
def test_every_make_target_a_contributing_page_names_exists(md_file, listed):
    assert sorted(named_targets(md_file.read_text(encoding="utf-8")) - listed) == []


def test_make_help_lists_every_target(listed):
    assert sorted(phony_targets(ROOT / "Makefile") - listed) == []


def test_the_examples_to_create_do_not_exist():
    assert [p for p in EXAMPLES if (ROOT / p).exists()] == []


def test_a_wrong_path_and_a_wrong_target_are_caught(tmp_path, listed):
    """The fixture: a page naming a moved file and a target that does not exist."""
    (tmp_path / "speccheck").mkdir()
    (tmp_path / "speccheck" / "spec_rules.py").write_text("")
    text = ("Edit `speccheck/spec_rules.py` and `speccheck/sglang_args.py`, not `sglang/srt/server_args.py`.\n"
            "Then run `make flag-history` and:\n\n```bash\nmake flag-histroy\n```\n")
    assert missing_paths(text, tmp_path, {"speccheck"}) == ["speccheck/sglang_args.py"]
    assert sorted(named_targets(text) - listed) == ["flag-histroy"]


def test_placeholders_must_match_a_file(tmp_path):
    (tmp_path / "docs" / "_inventories").mkdir(parents=True)
    text = "It writes `docs/_inventories/specforge-<version>.inv`."
    assert missing_paths(text, tmp_path, {"docs"}) == ["docs/_inventories/specforge-<version>.inv"]
    (tmp_path / "docs" / "_inventories" / "specforge-1.0.inv").write_text("")
    assert missing_paths(text, tmp_path, {"docs"}) == []
