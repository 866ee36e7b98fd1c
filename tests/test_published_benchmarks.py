"""The table on reference/published-benchmarks.md says what the data file says.

The page shows a narrow, readable table; ``published-benchmarks.csv`` keeps every
column (dataset, date, notes, source URL) and feeds the plotting notebook. The
two are typed separately, so this test keeps them in step, row by row.
"""

from __future__ import annotations

import csv
import re

from conftest import ROOT

PAGE = ROOT / "docs" / "reference" / "published-benchmarks.md"
DATA = ROOT / "docs" / "reference" / "published-benchmarks.csv"
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def page_rows() -> list[list[str]]:
    """Cells of the page's Markdown table body, one list per row (header and rule left out)."""
    rows = [line.strip().strip("|").split("|") for line in PAGE.read_text().splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows[1:]]


def test_page_table_has_one_row_per_data_row():
    with DATA.open() as f:
        assert len(page_rows()) == len(list(csv.DictReader(f)))


def test_page_table_rows_match_the_data_file_in_order():
    with DATA.open() as f:
        data = list(csv.DictReader(f))
    for lineno, (cells, row) in enumerate(zip(page_rows(), data, strict=True), start=2):
        method, value = cells[0], cells[4]
        expected = [float(row["value"])] + ([float(row["value_high"])] if row["value_high"] else [])
        assert method == row["method"], f"{DATA.name}:{lineno}: page says {method!r}"
        assert [float(n) for n in NUMBER.findall(value)] == expected, f"{DATA.name}:{lineno}: page says {value!r}"
