"""One answer, one place: facts with a canonical section are stated there and linked elsewhere.

The guide states a few facts in exactly one section (docs/contributing and
COMMON.md name them); every other page links to that section instead of
restating it, so two pages can never disagree. These tests read the built
HTML (the ``html_dir`` fixture) of the tutorial, how-to, reference and
explanation pages, look only at running prose (paragraphs, list items, table
cells, definition lists; never code blocks, which may carry flag values, and
never ``source-note`` asides), and check:

* starting draft trees (steps, top-k, draft tokens) are recommended only on
  the decision table (label ``decision-table``), and prose elsewhere that
  discusses choosing a tree links to it;
* the accept-length ceiling is stated only in its section (label
  ``accept-length-ceiling``), and prose that mentions the ceiling links there;
* the 48-request default is explained only in its section (label
  ``request-cap``); elsewhere the number may appear only in prose that links
  to that section;
* a section whose heading is about an accept length of 1.00 links to the
  one checklist (label ``accept-length-one``);
* what an omitted ``--speculative-draft-model-path`` does is stated only in
  its section (label ``draft-path-rule``), or in a short reminder that links
  there, and prose elsewhere that mentions leaving the flag out links there.

Each detector is a small regular expression over one sentence; the
``test_detector_*`` tests pin what it catches and what it lets through, so a
detector that silently stops matching fails too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from conftest import ROOT

SECTIONS = ("tutorial", "how-to", "reference", "explanation")
PROSE_TAGS = ("p", "li", "td", "th", "dt", "dd")
# Elements whose text is never prose: code blocks, source notes, navigation.
# field-reports: paraphrases of what reporters found and did (field_reports.py), not the guide's advice.
SKIP_CLASSES = ("highlight", "source-note", "toctree-wrapper", "bd-toc", "prev-next-area", "field-reports")


def pages() -> list[str]:
    """Page sources under docs/ (``how-to/eagle3.md``) of the four kinds of page, sorted."""
    found = []
    for section in SECTIONS:
        for path in sorted((ROOT / "docs" / section).rglob("*")):
            if path.suffix in (".md", ".ipynb") and "_build" not in path.parts:
                found.append(str(path.relative_to(ROOT / "docs")))
    return found


@dataclass(frozen=True)
class Prose:
    """One block of running prose: its text and the anchors it links to."""

    page: str  # page source, "how-to/eagle3.md"
    text: str
    links: frozenset[str]  # "how-to/mtp.html#draft-path-rule", relative to the site root
    section_ids: frozenset[str]  # ids of the innermost <section> holding it and its label spans
    section_links: frozenset[str]  # everything the enclosing section links to


def _html_path(html_dir: Path, page: str) -> Path:
    return html_dir / Path(page).with_suffix(".html")


def _resolve(page_html: str, href: str) -> str:
    """``mtp.html#x`` seen from ``how-to/eagle3.html`` -> ``how-to/mtp.html#x``."""
    if href.startswith(("http:", "https:", "mailto:")):
        return href
    base = Path(page_html).parent
    target, _, anchor = href.partition("#")
    target_path = (base / target).as_posix() if target else page_html
    parts: list[str] = []
    for part in target_path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts) + ("#" + anchor if anchor else "")


def _section_ids(section: Tag | None) -> frozenset[str]:
    """The section's own id, the label spans Sphinx puts just inside it, and its heading's id.

    The Pagefind step of the build (``sphinxext/output/pagefind_search.py``) moves each
    ``<section id="x">`` onto the section's heading (``<section><h2 id="x">``), so the
    label a ``{ref}`` points at may be the heading's id rather than the section's.
    """
    if section is None:
        return frozenset()
    ids = {section.get("id", "")}
    for child in section.children:
        if isinstance(child, Tag):
            if child.name == "span" and child.get("id"):
                ids.add(child["id"])
            elif child.name and child.name.startswith("h"):
                ids.add(child.get("id", ""))
                break
    return frozenset(i for i in ids if i)


def _skipped(tag: Tag) -> bool:
    for parent in [tag, *tag.parents]:
        classes = parent.get("class") or [] if isinstance(parent, Tag) else []
        if parent.name in ("pre", "nav", "header", "footer") or any(c in SKIP_CLASSES for c in classes):
            return True
    return False


@cache
def _page_prose(html_file: str, page: str) -> tuple[Prose, ...]:
    path = Path(html_file)
    if not path.is_file():
        return ()
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    main = soup.find("main") or soup
    page_html = str(Path(page).with_suffix(".html"))
    blocks = []
    for tag in main.find_all(PROSE_TAGS):
        if _skipped(tag):
            continue
        # A list item or cell that wraps paragraphs is checked through them.
        if tag.name in ("li", "td", "dd") and tag.find(["p", "ul", "ol", "dl"]):
            continue
        links = frozenset(_resolve(page_html, a["href"]) for a in tag.find_all("a", href=True))
        for hidden in tag.select(".source-note, pre"):
            hidden.decompose()
        # A cross-reference's text is the target's title ("The 48-request cap ..."):
        # it names the canonical section, it does not restate the fact.
        for ref in tag.select("a.reference.internal"):
            if "#cmdoption" not in ref.get("href", ""):  # a flag's link keeps its text
                ref.string = "[link]"
        text = " ".join(tag.get_text(" ").split())
        if not text:
            continue
        section = tag.find_parent("section")
        section_links = frozenset(
            _resolve(page_html, a["href"]) for a in (section or main).find_all("a", href=True)
        )
        blocks.append(Prose(page, text, links, _section_ids(section), section_links))
    return tuple(blocks)


def prose(html_dir: Path, page: str) -> tuple[Prose, ...]:
    """The running prose of one built page; fails when the page was not built."""
    html = _html_path(html_dir, page)
    if not html.is_file():
        pytest.fail(f"{page} has no built page {html}")
    return _page_prose(str(html), page)


def sentences(text: str) -> list[str]:
    """Split prose into sentences (at '. ', '; ', ': ' followed by a capital or a flag)."""
    return [s for s in re.split(r"(?<=[.;:!?])\s+(?=[A-Z`(\-{\d])", text) if s.strip()]


@cache
def canonical(html_dir: Path, label: str) -> tuple[str, frozenset[str]]:
    """(page html path, ids of the section) of the section a label points at."""
    for page in pages():
        html = _html_path(html_dir, page)
        if not html.is_file():
            continue
        soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
        node = soup.find(id=label)
        if node is None:
            continue
        section = node if node.name == "section" else node.find_parent("section")
        return str(Path(page).with_suffix(".html")), _section_ids(section)
    pytest.fail(f"no built page defines the label {label!r}")


def in_section(block: Prose, place: tuple[str, frozenset[str]]) -> bool:
    page_html, ids = place
    return str(Path(block.page).with_suffix(".html")) == page_html and bool(block.section_ids & ids)


def links_to(links: frozenset[str], place: tuple[str, frozenset[str]]) -> bool:
    page_html, ids = place
    return any(link == f"{page_html}#{i}" for link in links for i in ids)


def on_page(block: Prose, place: tuple[str, frozenset[str]]) -> bool:
    return str(Path(block.page).with_suffix(".html")) == place[0]


# --- detectors: one sentence in, "does it state the fact?" out ---------------

# "(5, 1, 6)", "(3,1,4)": a (steps, top-k, draft tokens) triple.
TREE_TRIPLE = re.compile(r"\(\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\)")
# Three tree flags with values written inline: "--speculative-num-steps 3 ... --speculative-eagle-topk 1".
TREE_FLAGS = re.compile(r"--speculative-(?:num-steps|eagle-topk|num-draft-tokens)[ =]\d+")
RECOMMENDS = re.compile(
    r"\b(start(?:ing)?\s+(?:point|tree|value|with|from|here)|recommend\w*|good default|safe start\w*|"
    r"for\s+(?:latency|throughput|single[- ]user|high concurrency|large batch\w*|small batch\w*|many "
    r"(?:users|requests))|(?:at|for)\s+(?:about\s+|around\s+|~)?\d+\s+concurrent|use a (?:chain|tree)|"
    r"pick|choose|try)\b",
    re.I,
)
CHOOSING_A_TREE = re.compile(
    r"(?<!SGLang )(?<!server )(?<!it )(?<!It )\b(?:choose|choosing|chose|pick\w*)\s+(?:a |the |your |between |one )?(?:starting |good |wide |deep )?"
    r"(?:tree|chain|draft tree|number of steps|steps|values|setting)\b|"
    r"\bchain or (?:a )?tree\b|\btree or (?:a )?chain\b",
    re.I,
)


def recommends_a_tree(sentence: str) -> bool:
    """A sentence that gives tree values and says when to use them."""
    values = TREE_TRIPLE.search(sentence) or len(TREE_FLAGS.findall(sentence)) >= 2
    return bool(values and RECOMMENDS.search(sentence))


CEILING_WORDS = re.compile(
    r"\b(at most|ceiling|maximum|max(?:imal)?|upper bound|can(?:not| never) exceed|never exceed\w*|"
    r"best possible|most (?:it|a step|one step|each step|that setting) can)\b",
    re.I,
)
CEILING_FORMULA = re.compile(r"steps\s*(?:\+|plus)\s*1|steps\s*\+\s*one|min\s*\(\s*steps", re.I)


def states_accept_ceiling(sentence: str) -> bool:
    """A sentence that bounds the accept length by a formula in steps."""
    return bool(
        re.search(r"\baccept", sentence, re.I)
        and CEILING_WORDS.search(sentence)
        and CEILING_FORMULA.search(sentence)
    )


def mentions_accept_ceiling(sentence: str) -> bool:
    """A sentence about the most a step can accept, with or without the formula."""
    return bool(
        re.search(r"\baccept", sentence, re.I)
        and re.search(r"\b(ceiling|can(?:not| never) exceed|upper bound|most .{0,20}can accept)\b", sentence, re.I)
    )


def explains_request_cap(sentence: str) -> bool:
    """A sentence that gives the 48-request default."""
    return bool(
        re.search(r"(?<![\d.])48(?!\d|\.\d)", sentence)
        and re.search(r"request|max-running|max_running|\bcap\b|concurren|speculative decoding", sentence, re.I)
    )


DRAFT_PATH = re.compile(r"--speculative-draft-model-path|draft[- ]model[- ]path|draft path", re.I)
OMITTED = re.compile(
    r"\b(omit\w*|unset|leave (?:it |the flag )?out|left out|leaving (?:it |the flag )?out|without|"
    r"not set|no\b|drop\w*|need(?:s)? no)\b",
    re.I,
)
RULE = re.compile(
    r"\b(defaults? to|falls? back to|filled in|reads? the target|read from the target|"
    r"loads? the target checkpoint|set to (?:the )?(?:target|--model-path))\b",
    re.I,
)


def mentions_omitted_draft_path(sentence: str) -> bool:
    """A sentence about leaving out --speculative-draft-model-path."""
    return bool(DRAFT_PATH.search(sentence) and OMITTED.search(sentence))


def states_draft_path_rule(sentence: str) -> bool:
    """A sentence that says what the server does when the draft path is left out."""
    return bool(mentions_omitted_draft_path(sentence) and RULE.search(sentence))


# --- the detectors themselves (no build needed) ------------------------------

@pytest.mark.parametrize("sentence, expected", [
    ("For about 32 concurrent requests use a chain (5, 1, 6).", True),
    ("A good starting point is --speculative-num-steps 3 --speculative-eagle-topk 1.", True),
    ("When none is set, SGLang uses (5, 4, 8) for LlamaForCausalLM targets.", False),
    ("Pick a starting tree from the decision table.", False),
])
def test_detector_recommends_a_tree(sentence, expected):
    assert recommends_a_tree(sentence) is expected


@pytest.mark.parametrize("sentence, expected", [
    ("The accept length can never exceed steps + 1.", True),
    ("The best possible accept length per round is min(steps, draft tokens - 1) + 1.", True),
    ("With top-k 1 the draft tokens are forced to steps + 1.", False),
    ("The accept length was 3.2.", False),
])
def test_detector_states_accept_ceiling(sentence, expected):
    assert states_accept_ceiling(sentence) is expected


@pytest.mark.parametrize("sentence, expected", [
    ("SGLang limits the server to 48 running requests unless you set it.", True),
    ("Raise --max-running-requests above 48.", True),
    ("Llama-3.1-8B has 32 layers and a 48 GB footprint.", False),
    ("Raise the request cap (see the request-cap section).", False),
])
def test_detector_explains_request_cap(sentence, expected):
    assert explains_request_cap(sentence) is expected


@pytest.mark.parametrize("sentence, expected", [
    ("When --speculative-draft-model-path is unset, the draft is read from the target checkpoint.", True),
    ("For these targets the draft path defaults to the target path when you leave it out.", True),
    ("Leave out --speculative-draft-model-path for MTP targets.", False),
    ("Pass --speculative-draft-model-path with the draft's repository.", False),
])
def test_detector_states_draft_path_rule(sentence, expected):
    assert states_draft_path_rule(sentence) is expected


@pytest.mark.parametrize("sentence, expected", [
    ("Choose a chain or a tree by batch size.", True),
    ("Pick the number of steps that fits your load.", True),
    ("The three flags decide how many tokens the draft proposes.", False),
    ("Leave all three flags unset and SGLang picks a tree from the architecture.", False),
])
def test_detector_choosing_a_tree(sentence, expected):
    assert bool(CHOOSING_A_TREE.search(sentence)) is expected


@pytest.mark.parametrize("sentence, expected", [
    ("With one step its ceiling is 2.00.", False),  # no "accept": not about accept length
    ("The accept length of this chain can never exceed 4.", True),
    ("The accept length was 2.1 on MT-bench.", False),
])
def test_detector_mentions_accept_ceiling(sentence, expected):
    assert mentions_accept_ceiling(sentence) is expected


@pytest.mark.parametrize("sentence, expected", [
    ("Leave out --speculative-draft-model-path for MTP targets.", True),
    ("Pass --speculative-draft-model-path with the draft's repository.", False),
])
def test_detector_mentions_omitted_draft_path(sentence, expected):
    assert mentions_omitted_draft_path(sentence) is expected


# --- the site ----------------------------------------------------------------

# Pages owned by other helpers (troubleshooting, error messages, known issues,
# the recipes, speedup) that failed these checks when this branch last merged main, per
# check: expected failures until their owners link the canonical sections.
# Delete an entry once its page passes; strict=False, so a fixed page shows as
# XPASS rather than failing.
PENDING: dict[str, set[str]] = {}  # check -> pages still to convert (none left)


def site_pages(check: str) -> list:
    """pages(), with the pages PENDING lists for this check marked as expected failures."""
    waiting = PENDING.get(check, set())
    return [
        pytest.param(p, marks=pytest.mark.xfail(reason="converted on another branch of issue #11", strict=False))
        if p in waiting else p
        for p in pages()
    ]


def _report(found: list[tuple[str, str]]) -> str:
    return "\n".join(f"{page}: {text[:200]}" for page, text in found)


@pytest.mark.parametrize("page", site_pages("tree_only_on_decision_table"))
def test_starting_trees_are_recommended_only_on_the_decision_table(html_dir, page):
    home = canonical(html_dir, "decision-table")
    found = [
        (b.page, s) for b in prose(html_dir, page) if not on_page(b, home)
        for s in sentences(b.text) if recommends_a_tree(s)
    ]
    assert not found, "starting trees belong on reference/decision-table.md; link to {ref}`decision-table`:\n" + _report(found)


@pytest.mark.parametrize("page", site_pages("choosing_links_decision_table"))
def test_prose_about_choosing_a_tree_links_to_the_decision_table(html_dir, page):
    home = canonical(html_dir, "decision-table")
    found = [
        (b.page, s) for b in prose(html_dir, page)
        if not on_page(b, home) and not any(link.startswith(home[0]) for link in b.section_links)
        for s in sentences(b.text) if CHOOSING_A_TREE.search(s)
    ]
    assert not found, "a section that discusses choosing a tree must link to {ref}`decision-table`:\n" + _report(found)


@pytest.mark.parametrize("page", site_pages("ceiling_only_in_section"))
def test_accept_length_ceiling_is_stated_only_in_its_section(html_dir, page):
    home = canonical(html_dir, "accept-length-ceiling")
    found = [
        (b.page, s) for b in prose(html_dir, page) if not in_section(b, home)
        for s in sentences(b.text) if states_accept_ceiling(s)
    ]
    assert not found, "state the ceiling only in {ref}`accept-length-ceiling`; link to it:\n" + _report(found)


@pytest.mark.parametrize("page", site_pages("ceiling_links"))
def test_prose_about_the_accept_length_ceiling_links_to_it(html_dir, page):
    home = canonical(html_dir, "accept-length-ceiling")
    found = [
        (b.page, s) for b in prose(html_dir, page)
        if not in_section(b, home) and not links_to(b.links, home)
        for s in sentences(b.text) if mentions_accept_ceiling(s)
    ]
    assert not found, "link {ref}`accept-length-ceiling` where the ceiling is mentioned:\n" + _report(found)


@pytest.mark.parametrize("page", site_pages("cap_only_in_section"))
def test_request_cap_is_explained_only_in_its_section(html_dir, page):
    home = canonical(html_dir, "request-cap")
    found = [
        (b.page, s) for b in prose(html_dir, page) if not in_section(b, home) and not links_to(b.links, home)
        for s in sentences(b.text) if explains_request_cap(s)
    ]
    assert not found, "explain the 48-request default only in {ref}`request-cap`; link to it:\n" + _report(found)


@pytest.mark.parametrize("page", site_pages("draft_path_rule_only_in_section"))
def test_draft_path_rule_is_stated_only_in_its_section(html_dir, page):
    home = canonical(html_dir, "draft-path-rule")
    found = [
        (b.page, s) for b in prose(html_dir, page) if not in_section(b, home) and not links_to(b.links, home)
        for s in sentences(b.text) if states_draft_path_rule(s)
    ]
    assert not found, "state the draft-path rule only under {ref}`draft-path-rule`; link to it:\n" + _report(found)


@pytest.mark.parametrize("page", site_pages("omitted_draft_path_links"))
def test_prose_about_an_omitted_draft_path_links_to_the_rule(html_dir, page):
    home = canonical(html_dir, "draft-path-rule")
    found = [
        (b.page, s) for b in prose(html_dir, page)
        if not in_section(b, home) and not links_to(b.links, home)
        for s in sentences(b.text) if mentions_omitted_draft_path(s)
    ]
    assert not found, "link {ref}`draft-path-rule` where leaving out the draft path is mentioned:\n" + _report(found)


@pytest.mark.parametrize("page", site_pages("accept_one_links"))
def test_sections_about_accept_length_one_link_to_the_checklist(html_dir, page):
    """A section whose heading is about an accept length of 1.00 links to the one checklist."""
    home = canonical(html_dir, "accept-length-one")
    html = _html_path(html_dir, page)
    if not html.is_file():
        pytest.fail(f"{page} has no built page {html}")
    soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
    page_html = str(Path(page).with_suffix(".html"))
    found = []
    for heading in (soup.find("main") or soup).find_all(["h2", "h3", "h4"]):
        title = " ".join(heading.get_text(" ").split()).rstrip("#").strip()
        if not re.search(r"\b1\.00?\b", title):
            continue
        section = heading.find_parent("section")
        if page_html == home[0] and _section_ids(section) & home[1]:
            continue
        links = {_resolve(page_html, a["href"]) for a in (section or heading).find_all("a", href=True)}
        if not links_to(frozenset(links), home):
            found.append((page, title))
    assert not found, "link {ref}`accept-length-one` from every section about accept length 1.00:\n" + _report(found)


def test_the_canonical_sections_exist_and_state_their_facts(html_dir):
    cap = canonical(html_dir, "request-cap")
    cap_text = " ".join(b.text for p in pages() for b in prose(html_dir, p) if in_section(b, cap))
    assert explains_request_cap(cap_text), "the request-cap section no longer gives the 48 default"
    table = canonical(html_dir, "decision-table")
    table_text = " ".join(b.text for p in pages() for b in prose(html_dir, p) if on_page(b, table))
    assert TREE_TRIPLE.search(table_text), "the decision table states no starting tree"
