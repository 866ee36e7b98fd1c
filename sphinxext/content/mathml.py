"""Math rendered at build time as MathML: no script, no request, readable in both themes.

Sphinx's HTML math renderers (MathJax, imgmath) either load a 1 MB script on every
page with a formula or draw images that ignore the colour theme. Browsers render
MathML Core natively (Chromium since 109, Firefox, Safari), and screen readers read it.
This extension registers the HTML math renderer ``mathml``: every ``math`` and
``math_block`` node - from MyST's ``$...$``/``$$...$$`` and ``{math}``, and from
notebook Markdown cells through nbsphinx - is converted with latex2mathml
(PyPI ``latex2mathml``) while the page is written. The TeX source stays in the
``alttext`` attribute of each ``<math>`` element.

A formula latex2mathml cannot convert is a warning at the page and line of the
formula (``-W`` makes it fatal), with the TeX that failed; the page then shows the
TeX as code, so nothing is lost.
"""

from __future__ import annotations

import html

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.util import logging

logger = logging.getLogger(__name__)


def to_mathml(tex: str, display: bool) -> str:
    """Convert one TeX formula to a ``<math>`` element.

    :param tex: the formula without delimiters, e.g. ``"\\frac{1 - a^{g+1}}{1 - a}"``.
    :param display: ``True`` for a displayed (block) formula, ``False`` for inline.
    :returns: MathML markup with ``display="block"`` or ``"inline"`` and the TeX in ``alttext``.
    :raises Exception: whatever latex2mathml raises for TeX it cannot read.
    """
    markup = convert(tex.strip(), display="block" if display else "inline")
    return markup.replace("<math ", f'<math alttext="{html.escape(tex.strip(), quote=True)}" ', 1)


def _render(self, node: nodes.Element, tex: str, display: bool) -> None:
    try:
        markup = to_mathml(tex, display)
    except Exception as error:  # latex2mathml raises several exception types
        logger.warning("math: latex2mathml cannot convert %r: %s", tex, error, location=node, type="math")
        markup = f'<code class="math-source">{html.escape(tex)}</code>'
    if display:
        label = f'<span class="eqno">({node["number"]})</span>' if node.get("number") else ""
        # tabindex: a formula wider than the column scrolls, and a scrolling region must be
        # reachable by keyboard (axe: scrollable-region-focusable).
        self.body.append(f'<div class="math notranslate nohighlight" tabindex="0">{markup}{label}</div>\n')
    else:
        self.body.append(f'<span class="math notranslate nohighlight">{markup}</span>')
    raise nodes.SkipNode


def visit_math(self, node: nodes.math) -> None:
    _render(self, node, node.astext(), display=False)


def visit_math_block(self, node: nodes.math_block) -> None:
    _render(self, node, node.astext(), display=True)


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_math_block, None))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
