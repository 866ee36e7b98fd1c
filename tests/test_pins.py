"""The pinned versions are written in one place: ``requirements-pinned.txt``.

Pages, notebooks, their front matter, the README, the tooling and the tests take
the versions from the pin (``{{ sglang_version }}`` / ``{{ specforge_version }}``
on pages, ``sphinxext/content/pin_substitutions.py``; :data:`pinned.PINNED` in code), so
moving the pin is a one-line change. Only the pin file and data generated from a
release may spell a pinned version out.
"""

from __future__ import annotations

import re
import subprocess

import pin_substitutions
from conftest import ROOT
from speccheck.pinned import PINNED

# Files that may spell the pinned versions out: the pin itself, and data generated from
# (or recorded for) one release, which a bump regenerates.
GENERATED = [
    r"requirements-pinned\.txt",
    r"requirements[\w-]*\.lock",  # make lock
    r"docs/_data/.*\.json",  # make release-changes
    r"docs/_inventories/.*",  # tools/make_specforge_inventory.py
    r"tools/specforge_pages\.txt",  # the page list of one SpecForge release's documentation
    # Field reports are history: "fixed in <release>" stays true after the pin moves on.
    r"docs/_data/field-reports/.*\.yaml",
    # The command corpus records the verdicts of the pinned release, reason by reason;
    # a bump re-records it (tests/test_commands.py compares it with the check).
    r"tests/fixtures/commands/.*\.yaml",
    r"speccheck/data/flag-history\.json",  # make flag-history: one entry per release, the pin included
    r"speccheck/data/behaviour-history\.json",  # make behaviour-history: the same releases
    r"speccheck/data/message-history\.json",  # make message-history: the same releases
    r"speccheck/data/code-history\.json",  # make code-history: the same releases
    r"speccheck/data/release-dates\.json",  # make release-dates: the same releases, with SpecForge's
    r"speccheck/data/specforge-releases\.json",  # make flag-history: SpecForge's releases, the pin included
]


def literal(version: str) -> re.Pattern:
    """A version written out as a whole (``1.2.3`` but not ``11.2.3``, ``1.2.34`` or ``1.2.3.4``)."""
    return re.compile(rf"(?<![\w.]){re.escape(version)}(?![\w]|\.\d)")


def tracked_text_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return sorted(name for name in out.split("\0") if name and (ROOT / name).is_file())


def occurrences() -> list[str]:
    """``path:line: text`` for every pinned version written out outside :data:`GENERATED`."""
    allowed = re.compile("|".join(f"(?:{p})$" for p in GENERATED))
    patterns = {name: literal(version) for name, version in PINNED.items()}
    found = []
    for name in tracked_text_files():
        if allowed.match(name):
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for lineno, line in enumerate(text.splitlines(), start=1):
            if "release-fact" in line:  # a fact read in one release's wheel, true after a bump too
                continue
            for package, pattern in patterns.items():
                if pattern.search(line):
                    found.append(f"{name}:{lineno}: {package} {PINNED[package]}: {line.strip()[:120]}")
    return found


def test_no_pinned_version_is_written_out_outside_the_pin_and_generated_data():
    found = occurrences()
    assert not found, ("write {{ sglang_version }} / {{ specforge_version }} on pages (also in front matter and "
                       "code blocks) and read pinned.PINNED in code; these spell a pinned version out:\n"
                       + "\n".join(found))


def test_the_version_pattern_finds_whole_versions_only():
    pattern = literal("1.2.3")
    assert pattern.search('pip install "sglang==1.2.3"') and pattern.search("SGLang 1.2.3.")
    assert not pattern.search("11.2.3") and not pattern.search("1.2.34") and not pattern.search("1.2.3.4")


def test_substitutions_reach_front_matter_code_blocks_and_notebook_cells():
    page = ('---\nmyst:\n  html_meta:\n    description: "Flags of SGLang {{ sglang_version }}"\n---\n'
            '```bash\npip install "sglang=={{sglang_version}}" "specforge=={{ specforge_version }}"\n```\n'
            'Type `{{ sglang_version }}` in prose.\n')
    out = pin_substitutions.substitute(page)
    assert f'description: "Flags of SGLang {PINNED["sglang"]}"' in out
    assert f'pip install "sglang=={PINNED["sglang"]}" "specforge=={PINNED["specforge"]}"' in out
    assert "Type `{{ sglang_version }}` in prose." in out, "a code span showing the syntax must stay as written"
    cell = '{"cell_type": "markdown", "source": ["Checked on SGLang {{ sglang_version }}.\\n"]}'
    assert f"Checked on SGLang {PINNED['sglang']}." in pin_substitutions.substitute(cell)


def test_the_build_substitutes_before_the_command_check_reads_the_page():
    """pin_substitutions' source-read handler runs before command_check's (Sphinx's default priority, 500)."""
    connected = []

    class App:
        def connect(self, event, handler, priority=500):
            connected.append((event, priority))

    pin_substitutions.setup(App())
    ours = [priority for event, priority in connected if event == "source-read"]
    check = (ROOT / "sphinxext" / "content" / "command_check.py").read_text()
    theirs = [int(p) if p else 500 for p in re.findall(r'connect\("source-read", _check_page(?:, priority=(\d+))?\)', check)]
    assert ours and theirs and max(ours) < min(theirs), (ours, theirs)


def test_the_command_check_without_a_build_reads_the_substituted_text(tmp_path):
    """tools/check_commands.py (the pre-commit hook) must check what the build checks: the versions filled in."""
    from speccheck import check

    page = tmp_path / "page.md"
    page.write_text("```bash\npython -m sglang.launch_server --model-path m "
                    "--speculative-num-steps {{ sglang_version }}\n```\n")
    messages = [d.message for d in check.check_file(page)]
    assert any(PINNED["sglang"] in m for m in messages), messages


def test_no_built_page_shows_an_unreplaced_substitution(html_dir):
    """Outside contributing/, whose pages show the page templates as written (literalinclude)."""
    leftover = re.compile(r"\{\{\s*(sglang|specforge)_version\s*\}\}")
    bad = [p.relative_to(html_dir).as_posix() for p in html_dir.rglob("*.html")
           if not {"_static", "contributing"} & set(p.relative_to(html_dir).parts) and leftover.search(p.read_text(encoding="utf-8"))]
    assert not bad, f"pages that show {{{{ ... }}}} instead of the version: {bad}"


def test_the_page_sources_in_the_site_and_llms_full_carry_the_versions(html_dir):
    """``_sources/`` (show source) and ``llms-full.txt`` are read by people and tools as the page text."""
    leftover = re.compile(r"(?<!`)\{\{\s*(sglang|specforge)_version\s*\}\}(?!`)")
    files = [*(f for f in (html_dir / "_sources").rglob("*") if f.is_file()), html_dir / "llms-full.txt"]
    bad = [f.relative_to(html_dir).as_posix() for f in files if leftover.search(f.read_text(encoding="utf-8"))]
    assert not bad, f"files that show {{{{ ... }}}} instead of the version: {bad}"
    assert PINNED["sglang"] in (html_dir / "llms-full.txt").read_text(encoding="utf-8")
