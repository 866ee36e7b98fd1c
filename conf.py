"""Sphinx configuration for the SGLang speculative decoding guide.

Sources live in ``docs/``; this file stays at the repository root and the
Makefile runs ``sphinx-build -c . docs _build/html``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import sys
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent
# The project's Sphinx extensions, one folder per concern (sphinxext/README.md), imported by module name.
sys.path[:0] = [str(d) for d in sorted((ROOT / "sphinxext").glob("*/")) if not d.name.startswith("_")]

from speccheck.pinned import PINNED, check_installed  # noqa: E402  (the checker package, installed by make venv)

# -- The releases the guide documents (single source: requirements-pinned.txt) --
check_installed()
sglang_version = PINNED["sglang"]
specforge_version = PINNED["specforge"]

# -- Project -------------------------------------------------------------------
project = "SGLang Speculative Decoding Guide"
author = "The guide's contributors"
copyright = "2026, the guide's contributors"
release = version = f"SGLang {sglang_version}"

# Where the site and its sources live; every URL below derives from these.
repository_url = "https://github.com/sglang-spec-guide/guide"
repository_branch = "main"
site_url = "https://sglang-spec-guide.github.io/guide/"
specforge_docs_url = "https://docs.sglang.ai/SpecForge/"

# -- Extensions ----------------------------------------------------------------
extensions = [
    "myst_parser",
    "nbsphinx",
    "sphinx.ext.intersphinx",
    "sphinx_copybutton",
    "sphinx_design",
    "mathml",  # math rendered at build time as MathML (no script)
    "sphinxcontrib.bibtex",
    # What readers and crawlers expect of a site (configured under "Site features").
    "sphinxext.opengraph",
    "sphinx_sitemap",
    "notfound.extension",
    "sphinx_llms_txt",
    # The project's own extensions (sphinxext/), one purpose each.
    "no_source_maps",
    "quick_rebuilds",  # a rebuild with no change compiles, renders and formats nothing again
    "site_css",  # one stylesheet per page: the theme's and extensions' CSS, unused rules left out
    "page_scripts",  # scripts deferred, and copy-button/tab scripts only on pages that use them
    "sized_images",  # images carry width/height, so pages do not jump while they load
    "notebook_errors",
    "xref_lines",  # a broken cross-reference is reported at its own line, not its paragraph's first
    "reread_warned",  # a page that warned is read again by the next build, so a failed build stays failed
    "notebook_cache",  # a notebook whose code cells did not change is not executed again
    "aria_roles",  # citation/footnote entries get role="listitem" (axe-core aria-required-children)
    "sitemap_complete",  # sitemap.xml lists every page after an incremental build too
    "source_notes",  # {source} role and source-note directive: citations of the pinned source, checked
    "pagefind_search",  # the search index (Pagefind, by section), written after the HTML build
    "command_check",  # every SGLang/SpecForge command and Python block, checked by speccheck (the pinned code)
    "sglang_options",  # the sglang-options directive (reference/server-arguments.md)
    "sglang_drift",  # the sglang-drift and flag-history directives (reference/release-changes.md)
    "behaviour_history",  # the behaviour-history and upgrade-notes directives (reference/release-changes.md, upgrade-notes.md)
    "check_command_page",  # data of the "Check a command" page, written into _static at build time
    "interaction_map",  # interaction-summary and interaction-models directives (reference/interactions/), from speccheck's map
    "field_reports",  # the field-reports directive: the corpus reports filed under a section
    "my_release",  # the "my release" view: the my-release directive and its data, written into _static
    "build_command_page",  # data of the "Build a command" page (docs/_data/recipes.yaml), written into _static at build time
    "error_messages_ref",  # the error-messages directive (reference/error-messages.md), checked against the pinned source
    "pin_substitutions",  # {{ sglang_version }} also in front matter, code blocks and notebooks
    "notebook_copies",  # the executed notebooks in the site carry no execution times (reproducible builds)
    "stable_config",  # a rebuild of an unchanged project does not say "The configuration has changed"
    "sphinx_reredirects",  # pages that moved keep answering at their old address (redirects below)
]

exclude_patterns = ["**.ipynb_checkpoints", "_templates", "_static", "_inventories", "_data"]
templates_path = ["docs/_templates"]  # paths here are relative to this file
nitpicky = True

# Sphinx tracks pages and the data files directives declare, not the Python that renders
# them: a digest of that code is a configuration value with rebuild "env", so an edited
# extension or checker module makes the next incremental build read every page again.
project_code_digest = hashlib.sha256(b"".join(
    f.relative_to(ROOT).as_posix().encode() + f.read_bytes()
    for f in sorted([*(ROOT / "sphinxext").rglob("*.py"), *(ROOT / "speccheck").rglob("*.py")])
)).hexdigest()


def setup(app) -> None:
    app.add_config_value("project_code_digest", "", "env", types=[str])


# -- MyST ----------------------------------------------------------------------
html_math_renderer = "mathml"  # sphinxext/content/mathml.py
myst_update_mathjax = False  # no MathJax: MyST need not mark pages for it

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "amsmath", "substitution", "attrs_inline"]
myst_heading_anchors = 3
# pin_substitutions (sphinxext/) replaces these before MyST reads a page, in code and front matter too.
myst_substitutions = {"sglang_version": sglang_version, "specforge_version": specforge_version}

# -- Citations: one BibTeX file, one bibliography page -------------------------
bibtex_bibfiles = ["docs/references.bib"]  # relative to this file
bibtex_reference_style = "author_year"
bibtex_default_style = "plain"

# -- Notebooks: executed on every build, outputs never stored ------------------
nbsphinx_execute = "always"
# Notebooks are stored as text (jupytext MyST, .myst files; sphinxext/notebooks/text_notebooks.py).
nbsphinx_custom_formats = {".myst": "text_notebooks.reads"}
nbsphinx_allow_errors = False
nbsphinx_timeout = 120
nbsphinx_requirejs_path = ""  # no widgets: do not load require.js from a CDN
# The kernel runs on this machine only; keep ipykernel's "TCP without encryption"
# warning out of the build log, where it reads like a build warning.
nbsphinx_execute_arguments = ["--IPKernelApp.log_level=ERROR",
                              # Plots as SVG: text compresses, PNG does not (a plot page stays light);
                              # no date and fixed ids in the SVG, so two builds write the same file.
                              "--InlineBackend.figure_formats={'svg'}",
                              "--InlineBackend.rc={'svg.hashsalt': 'sglang-spec-guide'}",
                              "--InlineBackend.print_figure_kwargs={'bbox_inches': 'tight', 'metadata': {'Date': None}}"]

# -- Cross-links to SpecForge's documentation (offline inventory in the repo) ---
# tools/make_specforge_inventory.py writes the inventory from SpecForge's page list.
intersphinx_mapping = {
    "specforge": (specforge_docs_url, str(ROOT / "docs" / "_inventories" / f"specforge-{specforge_version}.inv")),
}
intersphinx_disabled_reftypes = ["*"]  # only explicit `specforge:` targets go outside
intersphinx_timeout = 1

# -- Copy buttons: copy the command, not prompts or output ----------------------
# In a `console` or `pycon` block the lines after a prompt ("$ ", ">>> ", "... ") are the
# commands: the button copies those lines without the prompt and leaves out the output
# (and the blank lines between). Blocks without prompts are copied whole.
copybutton_exclude = ".linenos"
copybutton_prompt_text = r"\$ |>>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_copy_empty_lines = False
copybutton_line_continuation_character = "\\"  # a command continued with a backslash

# -- HTML ----------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = "SGLang Speculative Decoding Guide"
html_static_path = ["docs/_static"]
html_css_files = ["theme-fixes.css"]  # accessibility and phone-layout fixes to the theme
# The book theme's sidebar, with the site title inside a landmark (docs/_templates/sidebar-home.html).
html_sidebars = {"**": ["sidebar-home.html", "icon-links.html", "search-button-field.html", "sbt-sidebar-nav.html"]}
html_baseurl = site_url
html_last_updated_fmt = "%Y-%m-%d"
html_theme_options = {
    "repository_url": repository_url,
    "repository_branch": repository_branch,
    "path_to_docs": "docs",
    "use_repository_button": True,
    "use_edit_page_button": True,
    "use_issues_button": True,
    "show_toc_level": 2,
    # No top navbar: the book theme has its own header buttons, and the navbar's extra
    # sidebar toggle would steal the click handler from the visible one on phones
    # (pydata-sphinx-theme issue 2451).
    "navbar_persistent": [],
    "announcement": (
        f"Checked against SGLang {sglang_version} and SpecForge {specforge_version}."
    ),
}
# The theme reads the colour mode from html_context; "auto" follows the reader's system.
html_context = {"default_mode": "auto"}

# -- Site features: icons, previews, sitemap, 404, dates, llms.txt --------------
html_favicon = "docs/_static/favicon.svg"
# sphinxext-opengraph: og:* tags and <meta name="description"> on every page, from its
# first paragraph. One shared preview image; per-page cards would be drawn at build time.
ogp_site_url = site_url
ogp_site_name = html_title
ogp_image = "_static/social-card.png"  # relative to ogp_site_url
ogp_image_alt = html_title
ogp_social_cards = {"enable": False}
# With cards off, the extension need not import matplotlib for them (about 0.5 s of every
# build, no-change rebuilds included): without its card module it leaves them out.
sys.modules["sphinxext.opengraph._social_cards"] = None
with contextlib.redirect_stdout(io.StringIO()):  # its note "matplotlib is not installed" is wrong here
    import sphinxext.opengraph  # noqa: F401
# sphinx-sitemap: one <url> per page; the site has one version and one language.
sitemap_url_scheme = "{link}"
sitemap_excludes = ["search.html", "genindex.html", "404.html"]
# sphinx-notfound-page: 404.html uses absolute links, so it works at any missing URL.
notfound_urls_prefix = urlparse(site_url).path
notfound_context = {
    "title": "Page not found",
    "body": (
        "<h1>Page not found</h1><p>This page does not exist, or has moved. "
        f'Try the <a href="{notfound_urls_prefix}search.html">search</a> or start from the '
        f'<a href="{notfound_urls_prefix}index.html">home page</a>.</p>'
    ),
}
# sphinx-last-updated-by-git: each page's "Last updated" is its last commit. A copy of the
# sources without Git history (a tarball, the tests' temporary builds) builds without dates.
if (ROOT / ".git").exists():
    # fresh_git_dates (sphinxext/): a page committed after it was built is dated again.
    extensions += ["sphinx_last_updated_by_git", "fresh_git_dates"]
else:
    html_last_updated_fmt = None
git_last_updated_timezone = "UTC"
git_untracked_show_sourcelink = True  # a page not yet committed keeps its source (llms.txt needs it)
# sphinx-llms-txt: llms.txt (page index) and llms-full.txt (all pages as text).
llms_txt_summary = (
    "How to use speculative decoding (EAGLE-2, EAGLE-3, MTP, n-gram, standalone draft models) "
    f"with SGLang {sglang_version}, and how to train draft models with SpecForge {specforge_version}."
)

# -- Redirects: a page that moved keeps answering at its old address ------------
# Renaming or moving a page: add "old docname": "new docname" here (docnames are paths
# under docs/ without the suffix; "new#anchor" points into a page). sphinx-reredirects
# writes a small page at the old address that sends the reader on (docs/_templates/
# redirect.html), over any stale copy in the build folder, so no `make clean` is needed.
# tests/test_redirects.py checks that every page that ever existed on main still
# answers, and that every target is a page.
page_redirects: dict[str, str] = {}
# sphinx-reredirects takes the target as an address relative to the old page.
redirects = {
    old: "../" * old.count("/") + new.split("#", 1)[0] + ".html" + ("#" + new.split("#", 1)[1] if "#" in new else "")
    for old, new in page_redirects.items()
}
redirect_html_template_file = "_templates/redirect.html"  # relative to docs/

# -- make linkcheck: every external link (needs a network; not part of make test) --
linkcheck_ignore = [
    # This guide's own site and repository: its pages are checked offline by
    # tests/links.py, and the addresses exist only once the guide is published.
    re.escape(site_url),
    re.escape(repository_url),
    # Example servers in commands and snippets (http://localhost:30000/v1/...).
    r"https?://(localhost|127\.0\.0\.1|0\.0\.0\.0)(:\d+)?(/|$)",
]
# GitHub draws line and heading anchors with JavaScript; the page itself is still checked.
linkcheck_anchors_ignore_for_url = [r"https://github\.com/.*"]
linkcheck_timeout = 20
linkcheck_retries = 2
linkcheck_workers = 4
