"""The first SGLang release whose wheel shows a change: release verdicts for the field-report corpus.

A corpus entry (``docs/_data/field-reports/*.yaml``) may carry a ``release`` block::

    release:
      change: fixed                 # fixed | broken | added: what the signature marks arriving
      pr: sgl-project/sglang#12345  # optional
      signature:                    # a literal text in one file (or, ending in /, any .py below a folder)
        file: sglang/srt/speculative/eagle_worker_v2.py
        text: "if self.topk > 1 and self.page_size > 1"
        absent: false               # optional; true when the change REMOVES the text
      verdict: "0.5.9"              # written by `make release-verdicts`
      checked: "0.4.0..0.5.23"      # written by `make release-verdicts`
      reason: "..."                 # hand-written, only for verdict undecided

:func:`verdict` looks the signature up in every release of the wheel cache (the unpacked
trees ``CACHE/sglang-<version>/sglang/...`` that ``tools/flag_history.py`` leaves; ``make
flag-history`` fills it, nothing here downloads) and returns the first release, in
:class:`packaging.version.Version` order, in which the change shows: the text is in the
file (or, with ``absent: true``, no longer is, while an earlier release had it). A change
that shows in no release is ``not-released``. A block without a signature is
``undecided`` and must say why in ``reason``, or, when it names a ``project``
(``owner/name`` of another repository: the EAGLE scripts, vLLM), ``other-project``:
no SGLang or SpecForge release carries the change, and ``reason`` says what does.

``change`` says what arrives at the verdict release: ``fixed`` (a fix), ``broken`` (a
breakage) or ``added`` (the flag, check, code path or feature the report's answer
relies on; before that release the answer does not apply).

A signature's file names its package: ``sglang/...`` is looked up in SGLang's releases,
``specforge/...`` in SpecForge's (``speccheck/data/specforge-releases.json``, every
SpecForge release on PyPI up to the pin, unpacked in the same cache as
``specforge-<version>/specforge``; ``make flag-history`` fills both).

The releases examined are those of ``speccheck/data/flag-history.json`` (``releases``):
every SGLang release on PyPI from 0.4.0 to the pin, post releases included, no
pre-releases. A release missing from the cache is an error naming it (:class:`MissingRelease`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = ROOT / "_build" / "sglang-wheels"
FLAG_HISTORY = Path(__file__).resolve().parent / "data" / "flag-history.json"
SPECFORGE_RELEASES = Path(__file__).resolve().parent / "data" / "specforge-releases.json"
PACKAGES = ("sglang", "specforge")
CHANGES = ("fixed", "broken", "added")
NOT_RELEASED = "not-released"
UNDECIDED = "undecided"
OTHER_PROJECT = "other-project"


class MissingRelease(RuntimeError):
    """A release the verdict needs is not unpacked in the wheel cache."""


@dataclass(frozen=True)
class Signature:
    """A literal ``text`` in ``file`` (a path inside the wheel, ``sglang/...``); ``absent``: the change removes it."""

    file: str
    text: str
    absent: bool = False

    @classmethod
    def from_block(cls, block: dict) -> Signature:
        """The signature of a ``release`` block (the mapping under ``release:``).

        :raises ValueError: the block has no signature, or one without ``file`` and ``text`` strings.
        """
        sig = block.get("signature")
        if not isinstance(sig, dict) or not isinstance(sig.get("file"), str) or not isinstance(sig.get("text"), str):
            raise ValueError(f"a release block needs signature.file and signature.text strings, got {sig!r}")
        return cls(sig["file"], sig["text"], bool(sig.get("absent", False)))


def package_of(file: str) -> str:
    """The package a signature's ``file`` is in: its first path component, ``sglang`` or ``specforge``.

    :raises ValueError: the path starts with neither.
    """
    package = file.split("/", 1)[0]
    if package not in PACKAGES:
        raise ValueError(f"signature.file {file!r} must start with one of {', '.join(p + '/' for p in PACKAGES)}")
    return package


def releases(package: str = "sglang") -> list[str]:
    """The releases a verdict is looked for in, oldest first.

    SGLang: ``releases`` of the flag history (0.4.0 to the pin); SpecForge: ``releases`` of
    ``speccheck/data/specforge-releases.json`` (every release on PyPI up to the pin).

    :returns: PyPI version strings (``"0.4.0"``, ``"0.4.0.post1"``, ...), sorted by :class:`Version`.
    :raises ValueError: an unknown package.
    """
    if package not in PACKAGES:
        raise ValueError(f"package must be one of {PACKAGES}, got {package!r}")
    source = FLAG_HISTORY if package == "sglang" else SPECFORGE_RELEASES
    return sorted(json.loads(source.read_text(encoding="utf-8"))["releases"], key=Version)


def checked_range(versions: list[str]) -> str:
    """``"first..last"`` of a non-empty list of releases in order."""
    return f"{versions[0]}..{versions[-1]}"


def release_tree(version: str, cache_dir: Path = DEFAULT_CACHE, package: str = "sglang") -> Path:
    """The unpacked wheel of ``package`` ``version`` in the cache: the folder that holds ``<package>/``.

    :raises MissingRelease: the cache has no unpacked ``<package>-<version>/<package>``.
    """
    tree = Path(cache_dir) / f"{package}-{version}"
    if not (tree / package).is_dir():
        raise MissingRelease(
            f"{package} {version} is not in the wheel cache {cache_dir} (no {tree / package}): run `make flag-history`"
            " once with a network (it downloads every release up to the pin), or link an existing cache"
            " there (ln -s /path/to/cache _build/sglang-wheels)")
    return tree


@cache
def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):
        return None


@cache
def _python_files(folder: Path) -> tuple[Path, ...]:
    return tuple(sorted(folder.rglob("*.py"))) if folder.is_dir() else ()


def has_text(version: str, file: str, text: str, cache_dir: Path = DEFAULT_CACHE) -> bool:
    """Whether ``text`` occurs literally in ``file`` of release ``version``; False without the file.

    :param file: a path inside the wheel (``sglang/srt/server_args.py``), or a folder ending in
        ``/`` (``sglang/srt/speculative/``): then any ``*.py`` file below it counts, so a
        signature survives code moving between files.
    :raises MissingRelease: the release is not in the cache.
    """
    tree = release_tree(version, cache_dir, package_of(file))
    if file.endswith("/"):
        return any(text in (_read(path) or "") for path in _python_files(tree / file))
    content = _read(tree / file)
    return content is not None and text in content


def shows(version: str, signature: Signature, cache_dir: Path = DEFAULT_CACHE) -> bool:
    """Whether release ``version`` shows the change the signature marks (its text present, or gone when absent)."""
    present = has_text(version, signature.file, signature.text, cache_dir)
    return not present if signature.absent else present


def first_release(signature: Signature, versions: list[str], cache_dir: Path = DEFAULT_CACHE) -> str:
    """The first release of ``versions`` (oldest first) that shows the change, or ``not-released``.

    For ``absent: true`` the change shows only after a release that had the text: a
    release before the file ever held it does not count.

    :raises MissingRelease: a release of ``versions`` is not in the cache (all are checked first).
    """
    for version in versions:
        release_tree(version, cache_dir, package_of(signature.file))
    seen = False
    for version in versions:
        present = has_text(version, signature.file, signature.text, cache_dir)
        if signature.absent:
            if present:
                seen = True
            elif seen:
                return version
        elif present:
            return version
    return NOT_RELEASED


def versions_for(block: dict) -> list[str]:
    """The releases a block is checked against: those of its signature's package, else SGLang's."""
    sig = block.get("signature")
    file = sig.get("file") if isinstance(sig, dict) else None
    return releases(package_of(file) if isinstance(file, str) else "sglang")


def verdict(block: dict, versions: list[str] | None = None, cache_dir: Path = DEFAULT_CACHE) -> dict:
    """The fields ``make release-verdicts`` writes into a ``release`` block.

    :param block: the ``release`` mapping of a corpus entry.
    :param versions: the releases to look in, oldest first; default :func:`versions_for` the block.
    :returns: ``{"verdict": ..., "checked": "first..last"}``, plus the block's ``reason`` for
        ``undecided`` and ``other-project`` (which has no ``checked``).
    :raises ValueError: a block without a signature gives no ``reason``, names an unknown
        ``change``, or a signature file outside ``sglang/`` and ``specforge/``.
    :raises MissingRelease: a release is not in the cache.
    """
    if block.get("signature") is None:
        if not (isinstance(block.get("reason"), str) and block["reason"].strip()):
            raise ValueError("a release block without a signature needs a reason (why the source cannot settle it)")
        if block.get("project"):
            return {"verdict": OTHER_PROJECT, "reason": block["reason"]}
        versions = versions if versions is not None else releases()
        return {"verdict": UNDECIDED, "checked": checked_range(versions), "reason": block["reason"]}
    if block.get("change") not in CHANGES:
        raise ValueError(f"release.change must be one of {CHANGES}, got {block.get('change')!r}")
    versions = versions if versions is not None else versions_for(block)
    return {"verdict": first_release(Signature.from_block(block), versions, cache_dir),
            "checked": checked_range(versions)}


def block_problems(block) -> list[str]:
    """What is wrong with a ``release`` block, without the cache (an empty list when nothing is).

    Checks the shape; that the verdict is a release of its package (:func:`versions_for`),
    ``not-released``, ``undecided`` with a reason, or ``other-project`` with a ``project``
    and a reason; and that ``checked`` spans the package's releases.
    """
    if not isinstance(block, dict):
        return [f"release must be a mapping, got {type(block).__name__}"]
    known = {"change", "pr", "signature", "verdict", "checked", "reason", "project"}
    problems = [f"unknown key release.{key}" for key in sorted(set(block) - known)]
    try:
        versions = versions_for(block)
    except ValueError as error:
        problems.append(str(error))
        versions = releases()
    if block.get("verdict") in (UNDECIDED, OTHER_PROJECT):
        if not (isinstance(block.get("reason"), str) and block["reason"].strip()):
            problems.append(f"an {block['verdict']} verdict needs a reason")
        if "signature" in block:
            problems.append(f"an {block['verdict']} verdict has no signature")
        if (block["verdict"] == OTHER_PROJECT) != bool(block.get("project")):
            problems.append("a project (owner/name) goes with an other-project verdict, and only with it")
    else:
        if block.get("change") not in CHANGES:
            problems.append(f"release.change must be one of {CHANGES}")
        try:
            Signature.from_block(block)
        except ValueError as error:
            problems.append(str(error))
        if block.get("verdict") not in [*versions, NOT_RELEASED]:
            problems.append(f"verdict {block.get('verdict')!r} is no release of {checked_range(versions)},"
                            " not-released, undecided or other-project: run `make release-verdicts`")
        if "reason" in block:
            problems.append("only an undecided or other-project verdict carries a reason")
    if block.get("verdict") == OTHER_PROJECT:
        if "checked" in block:
            problems.append("an other-project verdict checks no release: drop checked")
    elif block.get("checked") != checked_range(versions):
        problems.append(f"checked {block.get('checked')!r} is not {checked_range(versions)!r}: run `make release-verdicts`")
    pr = block.get("pr")
    if pr is not None and not (isinstance(pr, str) and "#" in pr and pr.split("#")[1].isdigit()):
        problems.append(f"pr {pr!r} is not owner/repo#number")
    project = block.get("project")
    if project is not None and not (isinstance(project, str) and project.count("/") == 1):
        problems.append(f"project {project!r} is not owner/name")
    return problems
