"""Math is MathML written at build time (sphinxext/content/mathml.py): no script, TeX kept, bad TeX fails."""

from __future__ import annotations

import pytest

import mathml  # noqa: E402  (sphinxext/, on sys.path through conftest)
from test_commands import assert_warns


def test_a_formula_becomes_mathml_with_its_tex_in_alttext():
    markup = mathml.to_mathml(r"\frac{1 - a^{g+1}}{1 - a}", display=True)
    assert markup.startswith("<math ") and 'display="block"' in markup
    assert 'alttext="\\frac{1 - a^{g+1}}{1 - a}"' in markup
    assert "<mfrac>" in markup


def test_tex_that_cannot_be_converted_raises():
    from latex2mathml.exceptions import ExtraLeftOrMissingRightError

    with pytest.raises(ExtraLeftOrMissingRightError):
        mathml.to_mathml(r"\left( x", display=False)


def test_bad_tex_on_a_page_fails_the_build_at_its_line(bad_build):
    assert_warns(bad_build, "bad-math.md", 3, "latex2mathml cannot convert", "E = 1 + a^")


def test_math_pages_have_mathml_and_no_mathjax(html_dir):
    page = (html_dir / "explanation" / "speedup.html").read_text(encoding="utf-8")
    assert page.count("<math ") >= 5
    assert "mathjax" not in page.lower()
    assert not (html_dir / "_static" / "mathjax").exists()
