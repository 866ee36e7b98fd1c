"""Every real user question in QUESTIONS.md points at an answer that exists on the site.

``docs/_data/questions.yaml`` maps each question id of ``QUESTIONS.md`` to the
label of the section that answers it (``(label)=`` before its heading), so a
page can be renamed or moved without touching the map. The questions are read from the project's ``shared/`` folder
beside the clone (``../shared/QUESTIONS.md``, where CI lays it) when it is
there, and otherwise from the repository's copy, ``docs/_data/user-questions.md``,
so ``make test`` works on any machine. Set the environment variable
``QUESTIONS_FILE`` to read them from somewhere else.
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import search_eval  # noqa: E402  (tools/search_eval.py: label -> page, from the build's inventory)

ANSWER_MAP = ROOT / "docs" / "_data" / "questions.yaml"
SHARED_QUESTIONS = ROOT.parent / "shared" / "QUESTIONS.md"
REPO_QUESTIONS = ROOT / "docs" / "_data" / "user-questions.md"
QUESTIONS_FILE = Path(
    os.environ.get("QUESTIONS_FILE", SHARED_QUESTIONS if SHARED_QUESTIONS.is_file() else REPO_QUESTIONS)
)

# A question starts a line with its id and a full stop: "Q07. My EAGLE-3 draft ...".
QUESTION_ID = re.compile(r"^(Q\d{2})\.\s", flags=re.M)
# "bench-measure": the label of the section that answers a question.
LABEL = re.compile(r"^[A-Za-z0-9_-]+$")


def load_answer_map() -> dict[str, str]:
    """Read ``docs/_data/questions.yaml``: ``{question id: "label"}``.

    :raises AssertionError: the file is not a mapping of ids to strings.
    """
    data = yaml.safe_load(ANSWER_MAP.read_text())
    assert isinstance(data, dict), f"{ANSWER_MAP} must be a mapping of question ids to section labels"
    return {str(key): value for key, value in data.items()}


ANSWERS = load_answer_map()


@pytest.fixture(scope="module")
def question_ids() -> list[str]:
    """The question ids of QUESTIONS.md, in file order; fails clearly when the file is missing."""
    if not QUESTIONS_FILE.is_file():
        pytest.fail(
            f"QUESTIONS.md not found at {QUESTIONS_FILE}: set QUESTIONS_FILE to its path, or restore "
            f"{REPO_QUESTIONS.relative_to(ROOT)}."
        )
    return QUESTION_ID.findall(QUESTIONS_FILE.read_text())


@cache
def html_ids(html_file: Path) -> frozenset[str]:
    """All ``id`` attributes of one built HTML page (empty when the page was not built)."""
    if not html_file.is_file():
        return frozenset()
    soup = BeautifulSoup(html_file.read_text(encoding="utf-8"), "html.parser")
    return frozenset(tag["id"] for tag in soup.find_all(id=True))


def test_repository_copy_of_the_questions_matches_shared():
    if not SHARED_QUESTIONS.is_file():
        pytest.skip("no ../shared/QUESTIONS.md beside this clone")
    assert QUESTION_ID.findall(REPO_QUESTIONS.read_text()) == QUESTION_ID.findall(SHARED_QUESTIONS.read_text()), (
        f"{REPO_QUESTIONS.relative_to(ROOT)} is out of date: copy ../shared/QUESTIONS.md over it"
    )


def test_questions_file_has_unique_question_ids(question_ids):
    assert question_ids, f"no line of {QUESTIONS_FILE} starts with a question id such as 'Q01. '"
    duplicates = sorted({q for q in question_ids if question_ids.count(q) > 1})
    assert not duplicates, f"question ids used twice in {QUESTIONS_FILE}: {duplicates}"


def test_every_question_is_mapped_to_an_answer(question_ids):
    missing = [q for q in question_ids if q not in ANSWERS]
    assert not missing, f"add these question ids to {ANSWER_MAP.relative_to(ROOT)}: {missing}"


def test_answer_map_lists_only_known_questions(question_ids):
    unknown = sorted(set(ANSWERS) - set(question_ids))
    assert not unknown, f"{ANSWER_MAP.relative_to(ROOT)} maps ids that QUESTIONS.md does not have: {unknown}"


@pytest.mark.parametrize("question", sorted(ANSWERS))
def test_answer_is_written_as_a_label(question):
    target = ANSWERS[question]
    assert isinstance(target, str) and LABEL.match(target), (
        f"{question}: {target!r} is not a section label (the name in '(label)=' before the heading)"
    )


@pytest.mark.parametrize("question", sorted(ANSWERS))
def test_answer_label_is_a_section_of_the_built_site(question, html_dir):
    label = ANSWERS[question]
    pages = search_eval.label_pages(html_dir)
    assert label in pages, f"{question}: no label {label!r} in the build; put '({label})=' before the answering heading"
    assert label in html_ids(html_dir / pages[label]), f"{question}: {pages[label]} has no section with id {label!r}"
