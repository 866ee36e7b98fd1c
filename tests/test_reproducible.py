"""One commit builds to the same bytes every time, and a rebuild of it changes nothing.

The full check clones the checked-out commit twice into temporary folders, builds
each clone from scratch exactly as ``make html`` does, and compares every file of
the two sites. It needs two clean builds (notebooks executed), so it is in the
``build`` tier (``make test``, not ``make test-fast``). Uncommitted changes are not
in the clones: commit first.

What used to differ, and why it no longer does: the Font Awesome subsets inlined in
``_static/site.css`` carried the time they were written (``sphinxext/output/site_css.py``
keeps the fonts' own dates), and the executed notebooks copied into the site carried
their execution times and kernel ids (``sphinxext/notebooks/notebook_copies.py`` removes them).
"""

from __future__ import annotations

import difflib
import hashlib
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run_sphinx


def make_dry_run(target: str) -> str:
    return subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def html_command() -> list[str]:
    """The ``sphinx -b html`` command line that ``make html`` runs, as words."""
    line = next(line for line in make_dry_run("html").splitlines() if " -b html " in line)
    return line.split()


# -- Doctrees stay out of the published folder -------------------------------------------


def test_make_html_writes_the_doctrees_outside_the_site():
    words = html_command()
    doctrees = words[words.index("-d") + 1]
    outdir = words[-1]
    assert not Path(doctrees).resolve().is_relative_to(Path(outdir).resolve()), (doctrees, outdir)


def test_the_built_site_holds_no_doctrees(html_dir):
    assert not (html_dir / ".doctrees").exists(), "a build without -d left its doctrees in the published folder"
    pickles = [p.relative_to(html_dir).as_posix() for p in html_dir.rglob("*.pickle")]
    assert not pickles, pickles


def test_the_serve_and_linkcheck_builds_keep_their_doctrees_apart():
    for target in ("serve", "linkcheck"):
        line = next(line for line in make_dry_run(target).splitlines() if " -d " in line)
        assert re.search(r" -d \S*doctrees-" + target + r"\b", line), line


# -- The fonts inlined in site.css -----------------------------------------------------


def test_inlined_fonts_do_not_carry_the_time_they_were_cut(monkeypatch, html_dir):
    from fontTools.ttLib.tables import _h_e_a_d

    import site_css

    static = html_dir / "_static"
    fonts = sorted(static.rglob("*.woff2"))
    if not fonts:
        pytest.skip("the build copied no woff2 font")
    css = f'@font-face {{ src: url("{fonts[0].relative_to(static).as_posix()}") format("woff2"); }}'
    outputs = []
    for now in (1_000_000_000, 2_000_000_000):  # two different "current times" for fontTools
        monkeypatch.setattr(_h_e_a_d, "timestampNow", lambda now=now: now)
        outputs.append(site_css._inline_fonts(css, static, {0xF007}))
    assert "data:font/woff2;base64," in outputs[0]
    assert outputs[0] == outputs[1], "the subset font records the time it was written"


# -- A rebuild with no change ----------------------------------------------------------


def test_a_rebuild_with_no_change_reports_no_configuration_change(html_dir):
    """Runs make html's own command again on the built site: nothing changed, so Sphinx must not say so."""
    words = html_command()
    proc = run_sphinx(words[words.index("sphinx") + 1:], ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "The configuration has changed" not in proc.stdout, [
        line for line in proc.stdout.splitlines() if "configuration has changed" in line]
    assert "0 added, 0 changed, 0 removed" in proc.stdout, proc.stdout[-2000:]


# -- Two clean builds of one commit ----------------------------------------------------


def clone_head(dest: Path) -> Path:
    """A clone of the checked-out commit at ``dest`` (its own history, so page dates are there)."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "--quiet", "--detach", head.strip()], check=True)
    return dest


def build_clone(project: Path) -> Path:
    """Build a clone from scratch with make html's command (this .venv's Python); return its site."""
    words = html_command()
    args = words[words.index("sphinx") + 1:]
    proc = run_sphinx(args, project)
    assert proc.returncode == 0, f"the clean build of {project} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    return project / args[-1]


def digests(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def test_two_clean_builds_of_one_commit_are_byte_identical(tmp_path):
    first = build_clone(clone_head(tmp_path / "first"))
    second = build_clone(clone_head(tmp_path / "second-copy"))  # another path: no absolute path may leak
    a, b = digests(first), digests(second)
    assert sorted(a) == sorted(b), f"the builds wrote different files: {sorted(set(a) ^ set(b))[:20]}"
    differ = [name for name in a if a[name] != b[name]]
    details = []
    for name in differ[:5]:
        try:
            lines = difflib.unified_diff((first / name).read_text().splitlines(),
                                         (second / name).read_text().splitlines(), lineterm="", n=0)
            details.append(f"{name}:\n" + "\n".join(list(lines)[2:8])[:1500])
        except UnicodeDecodeError:
            details.append(f"{name}: binary")
    assert not differ, f"{len(differ)} files differ between two builds of one commit: {differ[:20]}\n" + "\n".join(
        details)
