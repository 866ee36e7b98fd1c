"""The steps of ``docs/contributing/bump-releases.md`` work, walked with a made-up newer SGLang release.

Offline: the "new release" is the installed SGLang with its version changed to
``FAKE`` and one default changed (a symlinked copy, on ``PYTHONPATH`` in place of a
new ``.venv``), and the scratch copy's drift cache already holds both releases, so
nothing is downloaded. ``make lock`` and ``make venv`` need the package index and
are not run; the Makefile is run with ``-o`` on the venv's stamp so that it never
touches the real ``.venv``.

Checked, step by step: the drift note lands in ``_build/``, not among the tracked
files; the build refuses an environment that is not the pin and names both
versions; ``make release-changes`` rewrites the one data file the page reads;
a build with the new pin passes with ``-W``, every page shows the new version and
none the old one (except the release-changes and upgrade-notes pages, which compare releases), and
the generated references show the changed default.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from speccheck.pinned import PINNED, check_installed

FAKE = "0.99.0"
OLD = PINNED["sglang"]
VENV = ROOT / ".venv"
SITE_PACKAGES = Path(next(p for p in sys.path if p.endswith("site-packages") and p.startswith(str(VENV))))
# The fake release changes this field's default (from SGLang's fields/spec.py).
FIELD, FLAG = "speculative_domino_candidate_pool_size", "--speculative-domino-candidate-pool-size"


def copy_worktree(dest: Path) -> Path:
    """The tracked and untracked (not ignored) files of the repository, copied to ``dest``."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    for name in filter(None, out.split("\0")):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def fake_release(site: Path) -> Path:
    """A site folder holding ``sglang`` at version FAKE: the installed one, symlinked, with two files changed."""
    source = SITE_PACKAGES / "sglang"
    shutil.copytree(source, site / "sglang", symlinks=False, copy_function=os.symlink,
                    ignore=shutil.ignore_patterns("__pycache__"))
    version = site / "sglang" / "_version.py"
    version.unlink(missing_ok=True)
    version.write_text(f'__version__ = "{FAKE}"\n__version_tuple__ = {tuple(FAKE.split("."))!r}\n')
    spec = site / "sglang" / "srt" / "arg_groups" / "fields" / "spec.py"
    text = spec.read_text()
    spec.unlink()
    changed, count = re.subn(rf"({FIELD}: A\[.*?\]\s*=\s*)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1),
                             text, count=1, flags=re.S)
    assert count == 1, f"{FIELD} with an integer default is no longer in fields/spec.py: pick another field"
    spec.write_text(changed)
    info = site / f"sglang-{FAKE}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sglang\nVersion: {FAKE}\n")
    (info / "top_level.txt").write_text("sglang\n")
    return site


def installed_release(site: Path) -> Path:
    """A site folder holding the installed (pinned) SGLang, for the drift cache."""
    site.mkdir(parents=True)
    (site / "sglang").symlink_to(SITE_PACKAGES / "sglang")
    return site


def make(project: Path, *args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """``make`` in the scratch copy with the real .venv, which it may never rebuild (``-o`` its stamp)."""
    cmd = ["make", "--no-print-directory", "-o", f"{VENV}/bin/.installed", f"VENV={VENV}", *args]
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0 or not check, f"{' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def bumped(tmp_path_factory):
    """The scratch copy after steps 1-4 of the SGLang section; returns (project, drift note, build log)."""
    tmp = tmp_path_factory.mktemp("bump")
    project = copy_worktree(tmp / "project")
    fake = fake_release(tmp / "fake-site")
    cache = project / "_build" / "sglang-releases"
    cache.mkdir(parents=True)
    (cache / f"sglang-{FAKE}").symlink_to(fake)
    installed_release(cache / f"sglang-{OLD}")
    env = {**os.environ, "PIP_NO_INDEX": "1"}  # nothing may be downloaded

    # Step 1: the drift between the pin and the new release, a working note in _build/.
    make(project, "sglang-drift", f"FROM={OLD}", f"TO={FAKE}", env=env)
    note = project / "_build" / f"sglang-drift-{OLD}-{FAKE}.json"

    # Step 2: the new pin; the new release "installed" (on PYTHONPATH instead of `make venv`).
    pins = project / "requirements-pinned.txt"
    pins.write_text(pins.read_text().replace(f"sglang=={OLD}", f"sglang=={FAKE}"))
    env["PYTHONPATH"] = f"{project}{os.pathsep}{fake}"  # this copy's speccheck reads this copy's pin

    # Step 3: the release-changes data, compared from SpecForge's SGLang (here: the old pin, cached).
    make(project, "release-changes", f"SPECFORGE_SGLANG={OLD}", env=env)

    # Step 4: the build (notebooks not executed: they do not read the pin's parser).
    build = make(project, "html", "SPHINXOPTS=-D nbsphinx_execute=never", env=env, check=False)
    return project, note, build


def test_step_1_writes_the_drift_note_outside_the_tracked_files(bumped):
    project, note, _ = bumped
    diff = json.loads(note.read_text())
    assert (diff["from"], diff["to"]) == (OLD, FAKE)
    assert FLAG in json.dumps(diff), f"the drift note does not list the changed default of {FLAG}"
    assert not list((project / "docs" / "_data").glob(f"*{FAKE}*")), "the working note landed in docs/_data"


def test_step_2_the_build_refuses_an_environment_that_is_not_the_pin():
    with pytest.raises(RuntimeError) as caught:
        check_installed({"sglang": FAKE})
    assert FAKE in str(caught.value) and OLD in str(caught.value) and "make venv" in str(caught.value)


def test_step_3_rewrites_the_one_data_file_the_page_reads(bumped):
    project, _, _ = bumped
    data = json.loads((project / "docs" / "_data" / "sglang-drift.json").read_text())
    assert data["to"] == FAKE
    page = (project / "docs" / "reference" / "release-changes.md").read_text()
    named = set(re.findall(r"_data/([\w.-]+\.json)", page))
    assert named == {"sglang-drift.json"}, f"release-changes.md reads {named}: a bump would have to edit it"


def test_step_4_the_site_builds_with_the_new_pin(bumped):
    _, _, build = bumped
    assert build.returncode == 0, f"the build with the new pin failed:\n{build.stdout[-2000:]}\n{build.stderr[-4000:]}"


# Pages that list releases as history (what changed, and in which release), so the old pin stays named there.
HISTORY_PAGES = ("release-changes.html", "upgrade-notes.html", "code-history.html")


def test_step_4_every_page_shows_the_new_version_and_none_the_old(bumped):
    project, _, _ = bumped
    html = project / "_build" / "html"
    assert f"SGLang {FAKE}" in (html / "index.html").read_text()
    old = re.compile(rf"(?<![\w.]){re.escape(OLD)}(?![\w]|\.\d)")
    stale = [p.relative_to(html).as_posix() for p in html.rglob("*.html")
             if "_static" not in p.parts and p.name not in HISTORY_PAGES and "interactions" not in p.parts and old.search(p.read_text())]
    assert not stale, f"pages that still name SGLang {OLD} after the bump: {stale}"


def test_step_4_the_generated_reference_shows_the_new_default(bumped):
    project, _, _ = bumped
    page = (project / "_build" / "html" / "reference" / "server-arguments.html").read_text()
    pool = int(re.search(rf"{FIELD}: A\[.*?\]\s*=\s*(\d+)", (SITE_PACKAGES / "sglang" / "srt" / "arg_groups" /
                                                           "fields" / "spec.py").read_text(), re.S).group(1))
    entry = page[page.index(FLAG.lstrip("-")):][:4000]
    assert str(pool + 1) in entry, f"server-arguments.html does not show the new default of {FLAG}"
