"""The environment is exactly the locks: every installed package pinned, with hashes.

``requirements.txt`` (the documentation stack), ``requirements-pinned.txt`` (the
SGLang and SpecForge releases, installed without dependencies) and
``requirements-lab.txt`` (JupyterLab for ``make lab``) are written by hand; ``make lock``
resolves them with uv into ``requirements.lock``, ``requirements-pinned.lock`` and
``requirements-lab.lock``, every package with its hashes; ``make venv`` installs only
from the locks, with ``--require-hashes``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT

LOCKS = {
    "requirements.txt": ROOT / "requirements.lock",
    "requirements-pinned.txt": ROOT / "requirements-pinned.lock",
    "requirements-lab.txt": ROOT / "requirements-lab.lock",
}
# The locks that .venv is installed from (requirements-lab.lock is .venv-lab's).
VENV_LOCKS = [LOCKS["requirements.txt"], LOCKS["requirements-pinned.txt"]]


def requirement_lines(path: Path) -> list[str]:
    """The requirements of a requirements file, each with its continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", path.read_text())
    lines = [line.split(" #", 1)[0].strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def locked(path: Path) -> dict[str, tuple[Requirement, list[str]]]:
    """``{canonical name: (requirement, hashes)}`` of a lock; entries whose marker is false here are left out.

    :raises AssertionError: a line that is not an exact ``name==version`` pin.
    """
    entries = {}
    for line in requirement_lines(path):
        hashes = re.findall(r"--hash=(sha256:[0-9a-f]{64})", line)
        req = Requirement(re.sub(r"\s--hash=\S+", "", line).strip())
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{path.name}: not an exact pin: {line[:80]}"
        if req.marker is None or req.marker.evaluate():
            entries[canonicalize_name(req.name)] = (req, hashes)
    return entries


def version_of(req: Requirement) -> str:
    return next(iter(req.specifier)).version


def local_project() -> str | None:
    """The canonical name of the repository's own package (``pyproject.toml`` [project]), if it has one."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text()).get("project")
    return canonicalize_name(project["name"]) if project else None


def installed() -> dict[str, str]:
    """``{canonical name: version}`` of every distribution in the running environment (.venv)."""
    return {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}


@pytest.mark.parametrize("lock", list(LOCKS.values()), ids=lambda p: p.name)
def test_every_locked_package_has_hashes(lock):
    assert lock.exists(), f"{lock.name} is missing: run `make lock`"
    entries = locked(lock)
    assert entries, f"{lock.name} names no package"
    unhashed = sorted(name for name, (_, hashes) in entries.items() if not hashes)
    assert not unhashed, f"{lock.name}: no hash for {unhashed}"


@pytest.mark.parametrize("source, lock", list(LOCKS.items()), ids=list(LOCKS))
def test_each_hand_written_pin_is_in_its_lock_at_that_version(source, lock):
    entries = locked(lock)
    stale = []
    for line in requirement_lines(ROOT / source):
        req = Requirement(line)
        got = entries.get(canonicalize_name(req.name))
        if got is None or not req.specifier.contains(version_of(got[0]), prereleases=True):
            stale.append(f"{line} (lock: {got and version_of(got[0])})")
    assert not stale, f"{lock.name} is older than {source}: run `make lock` and commit both. {stale}"


def test_the_pinned_releases_are_locked_without_their_dependencies():
    pins = {canonicalize_name(Requirement(line).name) for line in requirement_lines(ROOT / "requirements-pinned.txt")}
    assert set(locked(LOCKS["requirements-pinned.txt"])) == pins


def test_the_environment_holds_nothing_the_locks_do_not_name():
    assert Path(sys.prefix).resolve() == (ROOT / ".venv").resolve(), "run the tests with .venv/bin/python"
    allowed = {}
    for lock in VENV_LOCKS:
        allowed.update({name: version_of(req) for name, (req, _) in locked(lock).items()})
    own = local_project()
    extra = sorted(f"{name}=={version}" for name, version in installed().items() if name not in allowed and name != own)
    assert not extra, f".venv holds packages that no lock names (install only with `make venv`): {extra}"


def test_the_environment_has_every_locked_package_at_its_version():
    have = installed()
    wrong = []
    for lock in VENV_LOCKS:
        for name, (req, _) in locked(lock).items():
            if have.get(name) != version_of(req):
                wrong.append(f"{name}: locked {version_of(req)}, installed {have.get(name)}")
    assert not wrong, f".venv differs from the locks (run `make venv`): {wrong}"


def make_dry_run(*targets: str) -> str:
    """The commands ``make`` would run for ``targets`` (``-B``: as if every file were out of date)."""
    return subprocess.run(["make", "-n", "-B", *targets], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_make_venv_installs_only_from_the_locks_with_hashes():
    installs = [line for line in make_dry_run(".venv/bin/.installed").splitlines() if "pip install" in line]
    assert installs, "make venv runs no pip install"
    # The one exception: the repository's own package (speccheck/), installed from its source.
    installs = [line for line in installs if not re.search(r"--no-deps -e \.(\s|$)", line)]
    for line in installs:
        assert "--require-hashes" in line and re.search(r"-r requirements[\w-]*\.lock\b", line), line


def test_make_lock_writes_every_lock_with_hashes():
    commands = [line for line in make_dry_run("lock").splitlines() if "pip compile" in line]
    written = {re.search(r"-o (\S+)", line).group(1) for line in commands}
    assert written == {p.name for p in LOCKS.values()}
    assert all("--generate-hashes" in line for line in commands)
