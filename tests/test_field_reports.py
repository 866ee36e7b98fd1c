"""The field-report corpus is complete, consistent, and backs the troubleshooting pages.

The corpus is every ``*.yaml`` file in ``docs/_data/field-reports/``. Each file
is a YAML list of entries, one per public GitHub thread (issue, pull request or
discussion), with exactly these keys:

``url``
    ``https://github.com/<owner>/<repo>/(issues|pull|discussions)/<number>``,
    unique across all files.
``title``
    The problem in our own words (a non-empty string).
``date``
    The date of the earliest post of the thread seen in the search index (the
    opening post where the index showed it), ``YYYY-MM-DD``, or null.
``sglang_version``
    The SGLang version the report names, as a string, or null.
``algorithm``
    One of :data:`ALGORITHMS`, or null when the report is not about one.
``symptom``
    One of :data:`SYMPTOMS`.
``error``
    The literal error line the report quotes (one line), or null.
``fix``
    What fixed it, or the workaround, in our own words.
``status``
    ``fixed-in-<version>``, ``still-applies`` or ``not-verified``, for the
    pinned SGLang release.
``status_source``
    What settles the status: a ``sglang/...py[::name]`` path in the pinned
    wheel (checked here to resolve), a pull-request URL, "issue open", or
    "not verified". A ``fixed-in-*`` status needs more than "not verified".
``section``
    The Sphinx label (``std:label`` in the built ``objects.inv``) of the
    section of this site that answers the report.

and optionally:

``release``
    In which SGLang release the change the report turns on arrived, from the
    released wheels (``speccheck/releases.py`` documents the block: ``change``
    fixed or broken, an optional ``pr``, a ``signature`` {file, text, absent},
    and ``verdict``/``checked`` written by ``make release-verdicts``; a block
    without a signature is ``undecided`` and says why in ``reason``). With a
    ``fixed`` verdict in a release, a ``fixed-in-*`` status names that release.

Leaves of the troubleshooting symptom tree: in
``how-to/troubleshooting.html``, every ``<section>`` nested inside the section
``trouble-by-symptom`` that has no ``<section>`` of its own is a leaf. Each leaf
holds a paragraph that starts with a bold "Confirm:", one that starts with a
bold "Fix" and at least one link to a GitHub thread.

Known issues: ``reference/known-issues.html`` links no report whose status is
``fixed-in-*`` and every ``still-applies`` report whose symptom is a bug (not
``question`` or ``other-engine``); a leaf that cites a report listed there also
links that page.

The tests that read the built site need ``make html`` (or the quick build in
``docs/contributing/checks.md``) first.
"""

from __future__ import annotations

import datetime
import re
from functools import cache
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

import source_notes  # noqa: E402  (sphinxext/, on sys.path through conftest)
from conftest import ROOT
from speccheck import releases as rel
from speccheck.pinned import PINNED  # noqa: E402

CORPUS_DIR = ROOT / "docs" / "_data" / "field-reports"
FIELDS = ("url", "title", "date", "sglang_version", "algorithm", "symptom", "error",
          "fix", "status", "status_source", "section")
SYMPTOMS = frozenset({"wont-start", "slower", "accept-length-one", "accept-length-low", "after-upgrade",
                      "other-engine", "crash", "wrong-output", "oom", "training", "platform", "question"})
# The algorithm names of the pinned SGLang (FACTS.md: spec_info.py / spec_registry.py), plus MTP, the
# name reports use for NEXTN.
ALGORITHMS = frozenset({"EAGLE", "EAGLE3", "NEXTN", "MTP", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO"})
STATUS = re.compile(r"^(fixed-in-\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?|still-applies|not-verified)$")
THREAD = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\d+$")
# A GitHub thread address anywhere in a link, with an optional comment anchor or sub-page.
THREAD_IN_HREF = re.compile(r"^(https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\d+)(?:[/#?].*)?$")
WHEEL_PATH = re.compile(r"\b((?:sglang|specforge)/[\w/.-]+?\.py(?:::[\w.]+)?)")
MIN_REPORTS = 120
BUG_SYMPTOMS = SYMPTOMS - {"question", "other-engine"}


@cache
def corpus() -> tuple[tuple[Path, dict], ...]:
    """Every entry of every ``*.yaml`` file in the corpus folder, with the file it came from.

    Raises ``AssertionError`` when a file is not a YAML list.
    """
    entries = []
    for path in sorted(CORPUS_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert isinstance(data, list), f"{path.name}: the file must be a YAML list of entries"
        entries.extend((path, entry) for entry in data)
    return tuple(entries)


def corpus_urls() -> set[str]:
    return {entry["url"] for _, entry in corpus() if isinstance(entry, dict) and "url" in entry}


def entry_id(item) -> str:
    path, entry = item
    return f"{path.name}:{entry.get('url', '?') if isinstance(entry, dict) else '?'}"


def thread_links(soup: BeautifulSoup) -> set[str]:
    """The GitHub thread addresses linked in ``soup``, without comment anchors."""
    found = set()
    for anchor in soup.find_all("a", href=True):
        match = THREAD_IN_HREF.match(anchor["href"])
        if match:
            found.add(match.group(1))
    return found


@cache
def site_labels(html_dir: Path) -> frozenset[str]:
    """The ``std:label`` names of the built site, read from its ``objects.inv``."""
    from sphinx.util.inventory import InventoryFile

    inventory = InventoryFile.loads((html_dir / "objects.inv").read_bytes(), uri="")
    return frozenset(inventory.data["std:label"])


def test_the_corpus_folder_holds_a_yaml_file():
    assert list(CORPUS_DIR.glob("*.yaml")), f"no *.yaml file in {CORPUS_DIR}"


def test_the_corpus_holds_enough_reports():
    assert len(corpus()) >= MIN_REPORTS, f"{len(corpus())} reports; the issue asks for at least {MIN_REPORTS}"


def entry_problems(entry) -> list[str]:
    """What is wrong with one corpus entry (an empty list when nothing is).

    :param entry: one item of a corpus file, as ``yaml.safe_load`` returns it.
    :returns: one message per broken rule of the schema in the module docstring.
    """
    if not isinstance(entry, dict):
        return [f"an entry must be a mapping, got {type(entry).__name__}"]
    if set(entry) - {"release"} != set(FIELDS):
        return [f"fields {sorted((set(entry) - {'release'}) ^ set(FIELDS))} differ from the schema"]
    problems = []
    if not (isinstance(entry["url"], str) and THREAD.match(entry["url"])):
        problems.append(f"url {entry['url']!r} is not a GitHub issue, pull request or discussion")
    for key in ("title", "fix", "status_source", "section"):
        if not (isinstance(entry[key], str) and entry[key].strip()):
            problems.append(f"{key} must be a non-empty string")
    if not (entry["date"] is None or isinstance(entry["date"], datetime.date)):
        problems.append(f"date {entry['date']!r} is not YYYY-MM-DD or null")
    if not (entry["sglang_version"] is None or isinstance(entry["sglang_version"], str)):
        problems.append("sglang_version must be a quoted string or null")
    if not (entry["algorithm"] is None or entry["algorithm"] in ALGORITHMS):
        problems.append(f"algorithm {entry['algorithm']!r} is not one of {sorted(ALGORITHMS)}")
    if entry["symptom"] not in SYMPTOMS:
        problems.append(f"symptom {entry['symptom']!r} is not one of {sorted(SYMPTOMS)}")
    if not (entry["error"] is None or (isinstance(entry["error"], str) and "\n" not in entry["error"])):
        problems.append("error must be one literal line or null")
    if not (isinstance(entry["status"], str) and STATUS.match(entry["status"])):
        problems.append(f"status {entry['status']!r} is not fixed-in-<version>, still-applies or not-verified")
    elif (entry["status"].startswith("fixed-in-") and isinstance(entry["status_source"], str)
          and entry["status_source"].strip().lower() == "not verified"):
        problems.append("a fixed-in status needs a source: a path in the pinned wheel or a pull request")
    return problems


@pytest.mark.parametrize("item", corpus(), ids=entry_id)
def test_an_entry_follows_the_schema(item):
    _, entry = item
    assert not entry_problems(entry)


def test_a_bad_entry_is_reported_rule_by_rule():
    bad = {"url": "https://github.com/sgl-project/sglang/blob/main/README.md", "title": " ",
           "date": "last week", "sglang_version": 0.5, "algorithm": "LOOKAHEAD", "symptom": "broken",
           "error": "line one\nline two", "fix": "x", "status": "fixed-in-9.9.9",
           "status_source": "not verified", "section": "troubleshooting"}
    problems = "\n".join(entry_problems(bad))
    for fragment in ("url", "title", "date", "sglang_version", "algorithm 'LOOKAHEAD'", "symptom 'broken'",
                     "error must be one", "a fixed-in status needs a source"):
        assert fragment in problems, (fragment, problems)
    assert entry_problems({"url": "https://github.com/a/b/issues/1"}) == [
        f"fields {sorted(set(FIELDS) - {'url'})} differ from the schema"]


@pytest.mark.parametrize("item", corpus(), ids=entry_id)
def test_wheel_paths_in_a_status_source_resolve_in_the_pinned_release(item):
    _, entry = item
    for target in WHEEL_PATH.findall(entry["status_source"]):
        source_notes.resolve(target)  # raises CitationError naming what is missing


def test_urls_are_unique_across_all_files():
    seen: dict[str, str] = {}
    duplicates = []
    for path, entry in corpus():
        if entry["url"] in seen:
            duplicates.append(f"{entry['url']} in {seen[entry['url']]} and {path.name}")
        seen.setdefault(entry["url"], path.name)
    assert not duplicates, duplicates


def test_every_section_is_a_label_of_the_built_site(html_dir):
    labels = site_labels(html_dir)
    missing = sorted({entry["section"] for _, entry in corpus()} - labels)
    assert not missing, f"sections that are not labels of the site: {missing}"


def test_every_thread_linked_from_the_site_is_in_the_corpus(html_dir):
    known = corpus_urls()
    missing = {}
    for page in sorted(html_dir.rglob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        main = soup.find("main") or soup
        for url in thread_links(main) - known:
            missing.setdefault(url, str(page.relative_to(html_dir)))
    assert not missing, f"threads linked from pages but missing from the corpus: {missing}"


def troubleshooting_pages(html_dir: Path) -> list[Path]:
    """The symptom pages the hub's ``trouble-by-symptom`` section links, in its order."""
    hub = html_dir / "how-to" / "troubleshooting.html"
    soup = BeautifulSoup(hub.read_text(encoding="utf-8"), "html.parser")
    root = soup.find(id="trouble-by-symptom")
    assert root is not None, "troubleshooting.html has no element with id trouble-by-symptom"
    if root.name != "section":
        root = root.find_parent("section") if root.find_parent("section") else root.find_next("section")
    hrefs = [a["href"].split("#")[0] for a in root.find_all("a", href=True)]
    pages = list(dict.fromkeys(h for h in hrefs if re.fullmatch(r"troubleshooting-[\w-]+\.html", h)))
    assert pages, "the hub's trouble-by-symptom section links no troubleshooting-*.html page"
    return [hub.parent / page for page in pages]


def troubleshooting_leaves(html_dir: Path) -> list:
    leaves = []
    for page in troubleshooting_pages(html_dir):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        top = (soup.find("article") or soup).find("section")
        assert top is not None, f"{page.name} has no section"
        leaves += [section for section in [top, *top.find_all("section")] if not section.find("section")]
    return leaves


def test_every_page_of_the_troubleshooting_folder_is_linked_from_the_hub(html_dir):
    linked = {p.name for p in troubleshooting_pages(html_dir)}
    built = {p.name for p in (html_dir / "how-to").glob("troubleshooting-*.html")}
    assert linked == built, (sorted(built - linked), sorted(linked - built))


def _starts_with_bold(paragraph, word: str) -> bool:
    first = next((child for child in paragraph.children if str(child).strip()), None)
    return getattr(first, "name", None) == "strong" and first.get_text().startswith(word)


def test_the_symptom_tree_has_leaves(html_dir):
    assert len(troubleshooting_leaves(html_dir)) >= 10


def leaf_problems(leaf) -> list[str]:
    """What a troubleshooting leaf lacks: the confirm step, the fix, or a linked report.

    :param leaf: a ``<section>`` element (BeautifulSoup ``Tag``) of the built page.
    """
    heading = leaf.find(re.compile(r"^h[1-6]$"))
    name = heading.get_text(" ", strip=True) if heading else leaf.get("id")
    paragraphs = leaf.find_all("p")
    problems = []
    if not any(_starts_with_bold(p, "Confirm") for p in paragraphs):
        problems.append(f"{name}: no paragraph starting with **Confirm:**")
    if not any(_starts_with_bold(p, "Fix") for p in paragraphs):
        problems.append(f"{name}: no paragraph starting with **Fix**")
    if not thread_links(leaf):
        problems.append(f"{name}: links no public report")
    return problems


def test_every_troubleshooting_leaf_has_a_confirm_step_a_fix_and_a_report(html_dir):
    problems = [problem for leaf in troubleshooting_leaves(html_dir) for problem in leaf_problems(leaf)]
    assert not problems, problems


def test_a_leaf_without_confirm_fix_or_report_is_named():
    html = ("<section id='x'><h4>Slow</h4><p><strong>Fix:</strong> do this.</p>"
            "<p>See <a href='https://example.org/'>elsewhere</a>.</p></section>")
    leaf = BeautifulSoup(html, "html.parser").section
    assert leaf_problems(leaf) == ["Slow: no paragraph starting with **Confirm:**", "Slow: links no public report"]
    html = ("<section><h4>Fine</h4><p><strong>Confirm:</strong> look.</p><p><strong>Fix:</strong> x</p>"
            "<p><a href='https://github.com/sgl-project/sglang/issues/1#issuecomment-2'>#1</a></p></section>")
    assert leaf_problems(BeautifulSoup(html, "html.parser").section) == []


def test_a_leaf_with_an_open_report_links_the_known_issues_page(html_dir):
    soup = BeautifulSoup((html_dir / "reference" / "known-issues.html").read_text(encoding="utf-8"),
                         "html.parser")
    open_reports = thread_links(soup.find("main") or soup)
    problems = []
    for leaf in troubleshooting_leaves(html_dir):
        if thread_links(leaf) & open_reports and not leaf.find("a", href=re.compile(r"known-issues\.html")):
            problems.append(leaf.get("id"))
    assert not problems, f"leaves that cite a known issue but do not link the known-issues page: {problems}"


def test_known_issues_lists_no_report_that_is_fixed(html_dir):
    soup = BeautifulSoup((html_dir / "reference" / "known-issues.html").read_text(encoding="utf-8"),
                         "html.parser")
    status = {entry["url"]: entry["status"] for _, entry in corpus()}
    fixed = sorted(url for url in thread_links(soup.find("main") or soup)
                   if status.get(url, "").startswith("fixed-in-"))
    assert not fixed, f"known-issues links reports that are fixed in the pinned release: {fixed}"


def test_known_issues_lists_every_report_that_still_applies(html_dir):
    soup = BeautifulSoup((html_dir / "reference" / "known-issues.html").read_text(encoding="utf-8"),
                         "html.parser")
    listed = thread_links(soup.find("main") or soup)
    missing = sorted(entry["url"] for _, entry in corpus()
                     if entry["status"] == "still-applies" and entry["symptom"] in BUG_SYMPTOMS
                     and entry["url"] not in listed)
    assert not missing, f"reports that still apply but are not on known-issues: {missing}"


def test_each_known_issue_row_states_the_status_its_reports_have_in_the_corpus(html_dir):
    """A row's Status column says what the corpus records for at least one report it links: a row
    saying "still applies" needs a report whose status was settled in the pinned source."""
    soup = BeautifulSoup((html_dir / "reference" / "known-issues.html").read_text(encoding="utf-8"),
                         "html.parser")
    status = {entry["url"]: entry["status"] for _, entry in corpus()}
    words = {"still applies": "still-applies", "not verified": "not-verified"}
    wrong = []
    for row in (soup.find("main") or soup).find_all("tr"):
        cells = row.find_all("td")
        if not cells or cells[-1].get_text(" ", strip=True) not in words:
            continue
        said = words[cells[-1].get_text(" ", strip=True)]
        linked = {status.get(url) for url in thread_links(row)}
        if said not in linked:
            wrong.append((cells[0].get_text(" ", strip=True)[:60], said, sorted(map(str, linked))))
    assert not wrong, f"rows whose status no linked report has in the corpus: {wrong}"


# Release verdicts (the optional ``release`` block; speccheck/releases.py).
RELEASE_ITEMS = tuple(item for item in corpus() if isinstance(item[1], dict) and "release" in item[1])
# The share of corpus entries that may lack a release verdict (issue 25 asks for at most 10 %);
# undecided counts as lacking one; other-project (a report about another project's code, with
# that project named) is a verdict: no SGLang or SpecForge release carries the change. Lower
# the ceiling as entries are settled; never raise it.
MAX_WITHOUT_VERDICT = 0.10


@pytest.mark.parametrize("item", RELEASE_ITEMS, ids=entry_id)
def test_a_release_block_is_well_formed(item):
    _, entry = item
    assert not rel.block_problems(entry["release"])


def test_a_bad_release_block_is_reported_rule_by_rule():
    problems = "\n".join(rel.block_problems({"change": "improved", "signature": {"file": "x"}, "verdict": "0.9",
                                               "checked": "0.1..0.2", "pr": "12345", "reason": "x", "extra": 1}))
    for fragment in ("unknown key release.extra", "release.change must be one of", "signature.file and signature.text",
                     "verdict '0.9' is no release", "only an undecided or other-project verdict carries a reason",
                     "checked '0.1..0.2'", "pr '12345' is not owner/repo#number"):
        assert fragment in problems, (fragment, problems)
    assert rel.block_problems({"verdict": "undecided", "checked": rel.checked_range(rel.releases())}) == [
        "an undecided verdict needs a reason"]
    assert rel.block_problems({"verdict": "other-project", "reason": "EAGLE's script", "checked": "0.4.0..0.5.23"}) == [
        "a project (owner/name) goes with an other-project verdict, and only with it",
        "an other-project verdict checks no release: drop checked"]
    assert rel.block_problems({"change": "fixed", "signature": {"file": "vllm/x.py", "text": "y"}, "verdict": "0.5.1",
                               "checked": "0.4.0..0.5.23"})[0].startswith("signature.file 'vllm/x.py' must start with")


def test_a_specforge_signature_is_checked_against_specforge_releases():
    block = {"change": "added", "signature": {"file": "specforge/core/", "text": "x"}}
    assert rel.versions_for(block) == rel.releases("specforge")
    sglang_pin = rel.releases()[-1]
    assert PINNED["specforge"] == rel.releases("specforge")[-1] and sglang_pin not in rel.releases("specforge")
    block.update(verdict=sglang_pin, checked=rel.checked_range(rel.releases()))
    assert any(f"verdict '{sglang_pin}' is no release of" in p for p in rel.block_problems(block))


def test_few_entries_lack_a_release_verdict():
    lacking = [entry["url"] for _, entry in corpus()
               if entry.get("release", {}).get("verdict", rel.UNDECIDED) == rel.UNDECIDED]
    assert len(lacking) <= MAX_WITHOUT_VERDICT * len(corpus()), f"{len(lacking)} of {len(corpus())} lack a verdict"


@pytest.mark.parametrize("item", RELEASE_ITEMS, ids=entry_id)
def test_a_fixed_in_status_names_the_release_of_the_fix(item):
    """fixed-in-X means first fixed in X: a fixed verdict in a release and a fixed-in status agree,
    and a change that is in no release cannot be called fixed."""
    _, entry = item
    block, status = entry["release"], entry["status"]
    if block.get("change") != "fixed" or not status.startswith("fixed-in-"):
        return
    assert block["verdict"] != rel.NOT_RELEASED, f"{status}, but the fix is in no release up to the pin"
    if block["verdict"] != rel.UNDECIDED:
        assert status == f"fixed-in-{block['verdict']}"


@pytest.mark.parametrize("item", RELEASE_ITEMS, ids=entry_id)
def test_a_bug_that_still_applies_has_no_released_fix(item):
    _, entry = item
    block = entry["release"]
    if entry["status"] == "still-applies" and entry["symptom"] in BUG_SYMPTOMS and block.get("change") == "fixed":
        assert block["verdict"] in (rel.NOT_RELEASED, rel.UNDECIDED), "still applies, but a release has the fix"


def _cache_or_skip(package="sglang"):
    missing = [v for v in rel.releases(package) if not (rel.DEFAULT_CACHE / f"{package}-{v}" / package).is_dir()]
    if missing:
        pytest.skip(f"the wheel cache {rel.DEFAULT_CACHE} lacks {len(missing)} releases (first: {missing[0]}); "
                    "`make flag-history` fills it (network), CI has none: the shape tests above still run")


@pytest.mark.parametrize("item", [i for i in RELEASE_ITEMS if i[1]["release"].get("signature")], ids=entry_id)
def test_a_verdict_matches_the_wheels(item):
    """The signature shows the change at the verdict release and not in the release before it
    (mirrored for absent: true); a not-released change shows in no release up to the pin."""
    block = item[1]["release"]
    signature = rel.Signature.from_block(block)
    _cache_or_skip(rel.package_of(signature.file))
    versions = rel.versions_for(block)
    if block["verdict"] == rel.NOT_RELEASED:
        assert not any(rel.shows(v, signature) for v in versions if not signature.absent)
        return
    index = versions.index(block["verdict"])
    assert rel.shows(versions[index], signature), f"{signature} does not show in {versions[index]}"
    if index:
        assert not rel.shows(versions[index - 1], signature), f"{signature} already shows in {versions[index - 1]}"
    assert rel.verdict(block)["verdict"] == block["verdict"], "run `make release-verdicts`"


def test_first_release_finds_the_first_release_that_shows_a_change(tmp_path):
    for version, text in (("1.1.0", "old"), ("1.1.0.post1", "old guard"), ("1.3.0", "old guard"), ("1.10.0", "new")):
        (tmp_path / f"sglang-{version}" / "sglang" / "srt").mkdir(parents=True)
        (tmp_path / f"sglang-{version}" / "sglang" / "srt" / "a.py").write_text(text)
    versions = ["1.1.0", "1.1.0.post1", "1.3.0", "1.10.0"]
    assert rel.first_release(rel.Signature("sglang/srt/a.py", "guard"), versions, tmp_path) == "1.1.0.post1"
    assert rel.first_release(rel.Signature("sglang/srt/", "guard"), versions, tmp_path) == "1.1.0.post1"
    assert rel.first_release(rel.Signature("sglang/srt/a.py", "guard", absent=True), versions, tmp_path) == "1.10.0"
    assert rel.first_release(rel.Signature("sglang/srt/a.py", "never"), versions, tmp_path) == rel.NOT_RELEASED
    # absent: true counts only after a release that had the text
    assert rel.first_release(rel.Signature("sglang/srt/a.py", "new", absent=True), versions, tmp_path) == rel.NOT_RELEASED
    with pytest.raises(rel.MissingRelease, match="sglang 1.4.0 is not in the wheel cache"):
        rel.first_release(rel.Signature("sglang/srt/a.py", "x"), [*versions, "1.4.0"], tmp_path)
