"""``_static/site.css`` (sphinxext/output/site_css.py) styles pages exactly as the files it replaces.

Each page links one stylesheet built from the theme's and the extensions' CSS with
unused rules left out and the icon fonts cut down and inlined. If a rule that some
element needs were left out, that element's computed style would change: the browser
test below computes the style of every element (and its ``::before``/``::after``) of
sample pages with ``site.css`` and again with the original files, in the light and
dark themes, on a phone and a desktop screen, and compares them.
"""

from __future__ import annotations

import base64
import io
import re

import pytest

import site_css

# Pages that between them use every kind of content the site has.
SAMPLES = {
    "grid cards (sphinx-design)": lambda html: "sd-card" in html,
    "code blocks and admonitions": lambda html: 'class="highlight' in html and "admonition" in html,
    "an executed notebook": lambda html: "nbinput" in html,
    "math": lambda html: "<math " in html and "math notranslate" in html,
}
WIDTHS = [390, 1280]

# Records the computed style of the elements of the page (one element per tag, classes and
# parent classes: the many code-token spans look alike) and of their ::before/::after, under
# a name; or compares them with the ones recorded under that name and returns the first
# differences.
SNAPSHOT_JS = """([name, compare]) => {
  const seen = new Set(), styles = [];
  const key = (el) => el.tagName + '.' + el.getAttribute('class') + '<' +
    (el.parentElement ? el.parentElement.tagName + '.' + el.parentElement.getAttribute('class') : '');
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.getAttribute('class') ? '.' + el.getAttribute('class').trim().split(/\\s+/).join('.') : '');
  for (const el of document.querySelectorAll('body, body *')) {
    if (['SCRIPT', 'STYLE', 'LINK'].includes(el.tagName) || seen.has(key(el))) continue;
    seen.add(key(el));
    for (const pseudo of [null, '::before', '::after']) {
      const cs = getComputedStyle(el, pseudo);
      // A custom property keeps its text as written: "\\f062" and the character itself are equal.
      const value = (prop) => cs.getPropertyValue(prop).replace(/\\\\([0-9a-fA-F]{1,6}) ?/g,
        (_, hex) => String.fromCodePoint(parseInt(hex, 16)));
      const values = pseudo && cs.content === 'none' ? {content: 'none'}
        : Object.fromEntries(Array.from(cs, (prop) => [prop, value(prop)]));
      styles.push({where: describe(el) + (pseudo || ''), values});
    }
  }
  window.__styles = window.__styles || {};
  if (!compare) { window.__styles[name] = styles; return []; }
  const saved = window.__styles[name], diffs = [];
  if (saved.length !== styles.length) return [`${saved.length} elements before, ${styles.length} after`];
  for (let i = 0; i < styles.length && diffs.length < 15; i++) {
    const a = saved[i].values, b = styles[i].values;
    const prop = [...new Set([...Object.keys(a), ...Object.keys(b)])].find((p) => a[p] !== b[p]);
    if (prop) diffs.push(`${styles[i].where} ${prop}: ${JSON.stringify(b[prop])} with the original CSS, ` +
                         `${JSON.stringify(a[prop])} with site.css`);
  }
  return diffs;
}"""

# Replaces the link to site.css by links to the files it was made from, in order.
UNBUNDLE_JS = """(sources) => new Promise((resolve, reject) => {
  const bundle = document.querySelector('link[href*="site.css"]');
  const loads = sources.map((name) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = new URL(name, bundle.href).href;
    bundle.before(link);
    return new Promise((ok, fail) => { link.onload = ok; link.onerror = () => fail(link.href); });
  });
  Promise.all(loads).then(() => {
    bundle.remove();
    document.body.getBoundingClientRect();  // lay out again, so the fonts the page uses load
    document.fonts.ready.then(resolve);
  }, reject);
})"""

# Icon font, weight and code points of every element whose ::before/::after shows an icon.
ICONS_JS = """() => {
  const icons = [];
  for (const el of document.querySelectorAll('*')) {
    for (const pseudo of ['::before', '::after']) {
      const cs = getComputedStyle(el, pseudo);
      if (!/Font Awesome/.test(cs.fontFamily) || !cs.content.startsWith('"') || cs.display === 'none') continue;
      icons.push({family: cs.fontFamily, weight: cs.fontWeight, content: cs.content,
                  where: el.tagName.toLowerCase() + '.' + String(el.className).trim().split(/\\s+/).join('.') + pseudo});
    }
  }
  return icons;
}"""

# Make the comparison independent of timing: no transitions or animations in either state.
NO_MOTION = "*,*::before,*::after{transition:none!important;animation:none!important}"


def bundle_sources(html_dir) -> list[str]:
    """The stylesheets site.css was made from (paths under ``_static/``), from its header comment."""
    header = (html_dir / "_static" / site_css.BUNDLE).read_text().split("\n", 2)[1]
    match = re.search(r"from (.+?); rules", header)
    assert match, f"site.css has no list of sources in its header: {header!r}"
    return match.group(1).split(", ")


def sample_pages(html_dir) -> dict[str, str]:
    """One built page for each kind of content in SAMPLES (the first in file order)."""
    import browser

    found = {}
    for rel in browser.site_pages(html_dir):
        html = (html_dir / rel).read_text()
        for kind, has in SAMPLES.items():
            if kind not in found and has(html):
                found[kind] = rel
    return found


def test_every_page_links_site_css_and_none_of_the_files_it_contains(html_dir):
    import browser

    bundled = {f"_static/{name}" for name in bundle_sources(html_dir)} | {"_static/styles/theme.css"}
    for rel in browser.site_pages(html_dir):
        html = (html_dir / rel).read_text()
        assert "_static/site.css" in html, f"{rel} does not link site.css"
        linked = {re.sub(r"^(\.\./)+|^/[^_]*", "", href).split("?")[0]
                  for href in re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"', html)
                  + re.findall(r'<link href="([^"]+)"[^>]*rel="stylesheet"', html)}
        assert not linked & bundled, f"{rel} still links {sorted(linked & bundled)}"


def test_samples_cover_every_kind_of_content(html_dir):
    missing = set(SAMPLES) - set(sample_pages(html_dir))
    assert not missing, f"no built page has {sorted(missing)}: update SAMPLES"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind", list(SAMPLES) + ["search page"])
def test_site_css_gives_every_element_the_style_of_the_original_files(kind, width, html_dir, site, chromium):
    rel = "search.html" if kind == "search page" else sample_pages(html_dir).get(kind)
    if rel is None:
        pytest.skip(f"no page has {kind} (test_samples_cover_every_kind_of_content fails)")
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(site + rel, wait_until="networkidle")
        page.add_style_tag(content=NO_MOTION)
        themes = ("light", "dark")
        for theme in themes:
            page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
            page.evaluate(SNAPSHOT_JS, [theme, False])
        page.evaluate(UNBUNDLE_JS, bundle_sources(html_dir))
        for theme in reversed(themes):
            page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
            diffs = page.evaluate(SNAPSHOT_JS, [theme, True])
            assert not diffs, f"{rel} ({theme} theme, {width}px) styled differently:\n" + "\n".join(diffs)
    finally:
        context.close()


def css_string(content: str) -> str:
    """The text of the first CSS string in a computed ``content`` value (``"\\f09b" / ""`` -> the icon)."""
    import tinycss2

    for token in tinycss2.parse_component_value_list(content):
        if token.type == "string":
            return token.value
    return ""


def inlined_fonts(html_dir) -> list[tuple[str, str, set[int]]]:
    """(family, weight, code points with a glyph) of each font inlined in site.css."""
    from fontTools.ttLib import TTFont

    css = (html_dir / "_static" / site_css.BUNDLE).read_text()
    fonts = []
    for face in re.findall(r"@font-face\s*\{(.*?)\}", css, re.S):
        data = re.search(r"base64,([A-Za-z0-9+/=]+)", face)
        if not data:
            continue
        family = re.search(r"font-family:\s*([^;]+)", face).group(1).replace("\\", "").strip(" \"'")
        weight = re.search(r"font-weight:\s*(\d+)", face).group(1)
        font = TTFont(io.BytesIO(base64.b64decode(data.group(1))))
        fonts.append((family, weight, set(font.getBestCmap())))
    return fonts


def test_icon_fonts_are_inlined_and_small(html_dir):
    fonts = inlined_fonts(html_dir)
    assert fonts, "site.css inlines no icon font"
    for family, weight, glyphs in fonts:
        assert len(glyphs) < 200, f"{family} {weight} keeps {len(glyphs)} glyphs: it was not cut down"


@pytest.mark.parametrize("width", WIDTHS)
def test_every_icon_on_the_sample_pages_has_its_glyph(width, html_dir, site, chromium):
    fonts = inlined_fonts(html_dir)
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    missing, shown = [], 0
    try:
        for rel in sorted(set(sample_pages(html_dir).values()) | {"search.html"}):
            page.goto(site + rel, wait_until="networkidle")
            for icon in page.evaluate(ICONS_JS):
                shown += 1
                family = icon["family"].split(",")[0].strip(" \"'")
                text = css_string(icon["content"])
                cmap = set().union(*(g for f, w, g in fonts if f == family and w == icon["weight"]))
                if not text or not all(ord(char) in cmap for char in text):
                    missing.append(f"{rel}: {icon['where']} {text!r} ({family} {icon['weight']})")
    finally:
        context.close()
    assert shown, "no icon found on the sample pages: the test looks in the wrong place"
    assert not missing, "icons without a glyph in the inlined fonts:\n" + "\n".join(missing)


@pytest.mark.parametrize("selector, tokens, expected", [
    (".a .b", {"a", "b"}, True),
    (".a .b", {"a"}, False),
    ("#main > p", {"main"}, True),
    ("#main > p", set(), False),
    ("div.x:not(.gone)", {"x"}, True),          # a name under :not() need not exist
    (":is(.gone,.x) p", set(), True),           # nor one of :is() alternatives
    ('a[href$=".pdf"]', set(), True),           # ".pdf" is an attribute value, not a class
    ("html[data-theme=dark] .y", {"y"}, True),
    (".sm\\:flex", {"sm:flex"}, True),
    ("p::before", set(), True),
])
def test_selector_can_match(selector, tokens, expected):
    assert site_css._selector_can_match(selector, tokens) is expected


def test_commas_inside_is_do_not_split_a_selector_list():
    import tinycss2

    rule = tinycss2.parse_one_rule(":is(.a,.b)::before, .c{color:red}")
    assert site_css._split_selectors(rule.prelude) == [":is(.a,.b)::before", ".c"]
