"""The speedup calculator on explanation/speedup: right numbers, usable by keyboard, readable in dark mode.

The page is served on 127.0.0.1 and driven in Debian's Chromium (fixtures ``site`` and ``page``
in conftest.py). Expected values are computed here with the formulas of Leviathan et al. 2023
(arXiv 2211.17192), independently of the page's JavaScript.
"""

from __future__ import annotations

import re

import pytest

PAGE = "explanation/speedup.html"


def expected_tokens(a: float, g: int) -> float:
    """Expected tokens per verification step, bonus token included."""
    return g + 1.0 if a == 1 else (1 - a ** (g + 1)) / (1 - a)


def speedup(a: float, g: int, c: float) -> float:
    return expected_tokens(a, g) / (g * c + 1)


def acceptance_from_accept_length(tau: float, g: int) -> float:
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if expected_tokens(mid, g) < tau else (lo, mid)
    return (lo + hi) / 2


def shown(page, name: str) -> str:
    return page.locator(f"#spec-calc-widget [data-out={name}]").inner_text().strip()


def number(text: str) -> float:
    match = re.search(r"[-+]?\d+(\.\d+)?", text)
    assert match, f"no number in {text!r}"
    return float(match.group())


@pytest.fixture
def calculator(page, site):
    """The speedup page, loaded, with the calculator's script run."""
    page.goto(site + PAGE)
    page.wait_for_function("document.querySelector('[data-out=tokens]').textContent !== '–'")
    return page


@pytest.mark.parametrize("a, g, c", [(0.8, 3, 0.05), (0.55, 7, 0.1), (1.0, 5, 0.02), (0.0, 4, 0.2), (0.93, 12, 0.01)])
def test_typed_acceptance_rate_gives_the_formulas_results(calculator, a, g, c):
    calculator.get_by_label("Acceptance rate a", exact=True).fill(str(a))
    calculator.get_by_label("Draft length g", exact=True).fill(str(g))
    calculator.get_by_label("Cost ratio c", exact=True).fill(str(c))
    assert number(shown(calculator, "tokens")) == pytest.approx(expected_tokens(a, g), abs=5e-4)
    assert number(shown(calculator, "speedup")) == pytest.approx(speedup(a, g, c), abs=5e-3)
    assert shown(calculator, "speedup").endswith("×")
    tau = expected_tokens(a, g)
    assert shown(calculator, "log") == f"accept len: {tau:.2f}, accept rate: {(tau - 1) / g:.2f}"


@pytest.mark.parametrize("tau, g, c", [(3.0, 3, 0.05), (3.0, 7, 0.05), (1.2, 2, 0.3), (5.5, 5, 0.0)])
def test_measured_accept_length_gives_the_acceptance_rate_and_speedup(calculator, tau, g, c):
    calculator.get_by_label("an accept length from SGLang's log").check()
    calculator.get_by_label("Accept length", exact=True).fill(str(tau))
    calculator.get_by_label("Draft length g", exact=True).fill(str(g))
    calculator.get_by_label("Cost ratio c", exact=True).fill(str(c))
    assert number(shown(calculator, "a")) == pytest.approx(acceptance_from_accept_length(tau, g), abs=5e-4)
    assert number(shown(calculator, "speedup")) == pytest.approx(tau / (g * c + 1), abs=5e-3)
    assert number(shown(calculator, "tokens")) == pytest.approx(tau, abs=5e-4)


@pytest.mark.parametrize("field, value, message", [
    ("Acceptance rate a", "1.5", "from 0 to 1"),
    ("Draft length g", "2.5", "whole number"),
    ("Cost ratio c", "-1", "from 0 to 10"),
])
def test_out_of_range_input_is_flagged_and_gives_no_result(calculator, field, value, message):
    box = calculator.get_by_label(field, exact=True)
    box.fill(value)
    assert box.get_attribute("aria-invalid") == "true"
    assert message in shown(calculator, "error")
    assert shown(calculator, "tokens") == "–" and shown(calculator, "speedup") == "–"


def test_accept_length_above_g_plus_one_is_rejected(calculator):
    calculator.get_by_label("an accept length from SGLang's log").check()
    calculator.get_by_label("Draft length g", exact=True).fill("3")
    calculator.get_by_label("Accept length", exact=True).fill("4.5")
    assert "between 1 and 4" in shown(calculator, "error")


def test_calculator_works_with_the_keyboard_alone(calculator):
    calculator.get_by_label("the acceptance rate a").focus()
    calculator.keyboard.press("ArrowRight")  # radio group: choose the accept-length mode
    assert calculator.get_by_label("an accept length from SGLang's log").is_checked()
    order = []
    for _ in range(3):
        calculator.keyboard.press("Tab")
        order.append(calculator.evaluate("document.activeElement.id"))
    assert order == ["spec-calc-tau", "spec-calc-g", "spec-calc-c"], "hidden fields must not take focus"
    calculator.keyboard.press("Shift+Tab")
    calculator.keyboard.press("Shift+Tab")
    calculator.keyboard.press("Control+a")
    calculator.keyboard.type("3.5")
    assert number(shown(calculator, "tokens")) == pytest.approx(3.5, abs=5e-4)


def test_results_are_announced_to_screen_readers(calculator):
    region = calculator.locator("#spec-calc-widget [role=status]")
    assert region.get_attribute("aria-live") == "polite"
    assert region.locator("[data-out=speedup]").count() == 1
    assert region.locator("[data-out=error]").count() == 1


def _rgb(css: str) -> tuple[float, ...]:
    return tuple(float(v) for v in re.findall(r"[\d.]+", css)[:3])


def _contrast(fg: str, bg: str) -> float:
    def luminance(rgb):
        lin = [(v / 255) / 12.92 if v / 255 <= 0.03928 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(_rgb(fg)), luminance(_rgb(bg))), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_calculator_text_is_readable_in_both_themes(calculator, theme):
    calculator.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
    colours = calculator.evaluate("""() => {
        const box = document.querySelector('#spec-calc-widget');
        const input = box.querySelector('#spec-calc-a');
        const result = box.querySelector('[data-out=tokens]');
        const css = (el) => getComputedStyle(el);
        return {box_bg: css(box).backgroundColor, result: css(result).color,
                input_bg: css(input).backgroundColor, input_fg: css(input).color};
    }""")
    dark_background = sum(_rgb(colours["box_bg"])) < 3 * 128
    assert dark_background == (theme == "dark"), f"calculator background {colours['box_bg']} in the {theme} theme"
    assert _contrast(colours["result"], colours["box_bg"]) >= 4.5
    assert _contrast(colours["input_fg"], colours["input_bg"]) >= 4.5


def test_calculator_loads_its_script_from_the_site_and_has_its_styles_in_the_page(calculator, site):
    scripts = calculator.evaluate("[...document.scripts].map(s => s.src).filter(s => s.includes('calculator'))")
    assert scripts and all(s.startswith(site) for s in scripts)
    # The small stylesheet is written into the page (sphinxext/output/page_scripts.py): no request, same rules.
    inline = calculator.evaluate(
        "[...document.querySelectorAll('style[data-from]')].map(s => s.dataset.from).filter(f => f.includes('calculator'))")
    assert inline == ["_static/speedup-calculator.css"]
    padding = calculator.evaluate("getComputedStyle(document.querySelector('.spec-calc')).paddingTop")
    assert padding not in ("", "0px"), "the calculator's own styles do not apply"
