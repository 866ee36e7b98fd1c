"""Pages whose "last updated" date changed in Git are rebuilt, so a commit never leaves a stale date.

sphinx-last-updated-by-git dates a page by its last commit (and its dependencies'),
but only when Sphinx re-reads the page, that is when the file changed on disk. In
the order the contributing pages give (edit, ``make html``, commit, ``make test``)
the page is built before its commit, shows the previous commit's date, and is not
rebuilt after the commit, because committing does not touch the file.

This extension records, after each build, the commit checked out (``HEAD``) and the
files under the source folder that differed from it (modified, staged or untracked).
On the next build it marks as changed every page whose source, or a file it depends
on (``env.dependencies``: included files, images, notebooks' data), was among those
files or changed between the two commits, so its date is read again. When the old
commit is no longer known to Git (a rebase), every page is re-read. Without Git, or
outside a repository, it does nothing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment


def _git(cwd: Path, *args: str) -> str | None:
    """Output of ``git args`` run in ``cwd``, or ``None`` when git fails or is missing."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def git_state(srcdir: Path) -> tuple[str, frozenset[str]] | None:
    """``(HEAD commit, absolute paths under srcdir that differ from it)``, or ``None`` outside Git.

    Differing paths: modified, staged, deleted or untracked (not ignored) files,
    from ``git status --porcelain``.
    """
    top = _git(srcdir, "rev-parse", "--show-toplevel")
    head = _git(srcdir, "rev-parse", "HEAD")
    status = _git(srcdir, "status", "--porcelain", "-z", "--untracked-files=all", "--", ".")
    if top is None or head is None or status is None:
        return None
    root = Path(top.strip())
    dirty = set()
    entries = iter(status.split("\0"))
    for entry in entries:
        if not entry:
            continue
        dirty.add(str((root / entry[3:]).resolve()))
        if entry[0] in "RC":  # a rename or copy is followed by its source path
            source = next(entries, "")
            if source:
                dirty.add(str((root / source).resolve()))
    return head.strip(), frozenset(dirty)


def changed_between(srcdir: Path, old: str, new: str) -> frozenset[str] | None:
    """Absolute paths of the files that differ between two commits, or ``None`` if ``old`` is unknown."""
    top = _git(srcdir, "rev-parse", "--show-toplevel")
    out = _git(srcdir, "diff", "--name-only", "-z", old, new, "--")
    if top is None or out is None:
        return None
    root = Path(top.strip())
    return frozenset(str((root / name).resolve()) for name in out.split("\0") if name)


def _outdated(app: Sphinx, env: BuildEnvironment, added, changed, removed) -> list[str]:
    recorded = getattr(env, "fresh_git_dates_state", None)
    current = git_state(Path(app.srcdir))
    if recorded is None or current is None or recorded == current:
        return []
    (old_head, old_dirty), (new_head, new_dirty) = recorded, current
    # A file dirty at both builds still shows its last commit's date, which only a new
    # commit can change (caught below); one that became clean or dirty may show another.
    touched = set(old_dirty ^ new_dirty)
    if old_head != new_head:
        between = changed_between(Path(app.srcdir), old_head, new_head)
        if between is None:
            return sorted(env.found_docs)
        touched |= between
    if not touched:
        return []
    stale = []
    for docname in env.found_docs:
        files = {str(Path(env.doc2path(docname)).resolve())}
        files |= {str((Path(env.srcdir) / dep).resolve()) for dep in env.dependencies.get(docname, ())}
        if files & touched:
            stale.append(docname)
    return stale


def _record(app: Sphinx, env: BuildEnvironment) -> None:
    env.fresh_git_dates_state = git_state(Path(app.srcdir))


def setup(app: Sphinx) -> dict:
    app.connect("env-get-outdated", _outdated)
    app.connect("env-updated", _record, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
