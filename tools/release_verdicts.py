"""Write the release verdicts of the field-report corpus from the wheel cache (``make release-verdicts``).

Usage::

    python tools/release_verdicts.py [--cache _build/sglang-wheels] [--check] [FILE.yaml ...]

For every entry of ``docs/_data/field-reports/*.yaml`` (or the files named) that has a
``release`` block, :func:`speccheck.releases.verdict` finds the first release whose
unpacked wheel shows the change, and ``verdict`` and ``checked`` are written into the
block; the rest of the file (comments, quoting, order) is kept as it is. Nothing is
downloaded: the cache must already hold every release (``make flag-history`` fills it);
a missing one stops the run with its name. ``--check`` writes nothing and exits 1 when a
recorded verdict differs from the computed one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from speccheck import releases as rel  # noqa: E402

CORPUS = ROOT / "docs" / "_data" / "field-reports"


def _yaml() -> YAML:
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=2, offset=0)
    # Write null as the corpus does ("key: null"), not as an empty value.
    yaml.representer.add_representer(type(None), lambda rep, _: rep.represent_scalar("tag:yaml.org,2002:null", "null"))
    return yaml


def update_file(path: Path, cache_dir: Path, write: bool = True) -> list[str]:
    """Compute the verdict of every ``release`` block of one corpus file; write them when ``write``.

    :returns: one line per block whose recorded verdict or checked range changed.
    :raises speccheck.releases.MissingRelease: a release is not in the cache.
    """
    yaml = _yaml()
    data = yaml.load(path.read_text(encoding="utf-8"))
    changed = []
    for entry in data:
        block = entry.get("release")
        if block is None:
            continue
        try:
            fields = rel.verdict(dict(block), None, cache_dir)
        except ValueError as error:
            raise ValueError(f"{path.name}: {entry.get('url')}: {error}") from error
        old = (block.get("verdict"), block.get("checked"))
        if old != (fields["verdict"], fields.get("checked")):
            changed.append(f"{path.name}: {entry['url']}: {old[0]} -> {fields['verdict']}")
        block["verdict"] = fields["verdict"]
        if "checked" in fields:
            block["checked"] = fields["checked"]
        else:
            block.pop("checked", None)
    if write and changed:
        with path.open("w", encoding="utf-8") as out:
            yaml.dump(data, out)
    return changed


def probe(file: str, text: str, versions: list[str], cache_dir: Path) -> str:
    """The releases whose ``file`` holds ``text``, as ``first..last`` runs (releases missing from the cache: ``?``)."""
    runs: list[list[str]] = []
    previous = None
    for version in versions:
        try:
            state = rel.has_text(version, file, text, cache_dir)
        except rel.MissingRelease:
            state = None
        if state is not previous:
            runs.append([version, version, state])
        runs[-1][1] = version
        previous = state
    marks = {True: "present", False: "absent", None: "not cached"}
    return "; ".join(f"{a}..{b} {marks[state]}" for a, b, state in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="corpus files (default: every *.yaml of the corpus)")
    parser.add_argument("--cache", type=Path, default=rel.DEFAULT_CACHE, help="the unpacked wheels (make flag-history)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a verdict is out of date")
    parser.add_argument("--probe", nargs=2, metavar=("FILE", "TEXT"),
                        help="print the releases whose FILE (sglang/... or specforge/...) holds TEXT, as ranges, and exit")
    args = parser.parse_args(argv)
    if args.probe:
        print(probe(args.probe[0], args.probe[1], rel.releases(rel.package_of(args.probe[0])), args.cache))
        return 0
    try:
        for package in rel.PACKAGES:
            for version in rel.releases(package):
                rel.release_tree(version, args.cache, package)
    except rel.MissingRelease as error:
        print(error, file=sys.stderr)
        return 2
    changed = []
    for path in args.files or sorted(CORPUS.glob("*.yaml")):
        changed += update_file(path, args.cache, write=not args.check)
    for line in changed:
        print(line)
    if args.check and changed:
        print(f"{len(changed)} verdicts are out of date: run `make release-verdicts`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
