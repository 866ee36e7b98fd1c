"""tools/bench.py's arithmetic: the rebuild budgets scaled by the reference site, and the OK/MISS lines."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import bench  # noqa: E402


def test_a_machine_three_times_slower_gets_budgets_three_times_larger():
    reference = {k: 3 * v for k, v in bench.REFERENCE_ON_BUDGET_MACHINE.items()}
    scaled = bench.scaled_budgets(reference)
    assert scaled["nochange_rebuild_cpu_s"] == pytest.approx(3 * bench.BUDGETS["nochange_rebuild_cpu_s"])
    assert scaled["one_page_rebuild_cpu_s"] == pytest.approx(3 * bench.BUDGETS["one_page_rebuild_cpu_s"])
    # the notebook's prose edit is scaled like the rebuild with no change
    assert scaled["notebook_prose_rebuild_cpu_s"] == pytest.approx(3 * bench.BUDGETS["notebook_prose_rebuild_cpu_s"])


def test_the_budget_lines_judge_by_the_scaled_budget_on_this_machine():
    report = {"build": {"nochange_rebuild_cpu_s": 2.0, "one_page_rebuild_cpu_s": 5.0},
              "scaled_budgets": {"nochange_rebuild_cpu_s": 2.5, "one_page_rebuild_cpu_s": 4.0}}
    lines = bench.budget_lines(report)
    assert any(line.startswith("OK") and "nochange_rebuild_cpu_s on this machine" in line for line in lines), lines
    assert any(line.startswith("MISS") and "one_page_rebuild_cpu_s on this machine" in line for line in lines), lines
    assert any(line.startswith("MISS") and line.split()[1] == "nochange_rebuild_cpu_s:" for line in lines), lines


def test_the_reference_site_has_the_pages_it_is_said_to_have(tmp_path):
    touched = bench.write_reference_project(tmp_path / "reference")
    pages = sorted((tmp_path / "reference" / "docs").glob("*.md"))
    assert len(pages) == bench.REFERENCE_PAGES
    assert touched in pages and touched.name != "index.md"
    assert "sphinx_book_theme" in (tmp_path / "reference" / "conf.py").read_text()
