"""The date each SGLang and SpecForge release read by the guide was published on PyPI.

Usage::

    python tools/release_dates.py [--out speccheck/data/release-dates.json]

Reads PyPI's JSON API (``https://pypi.org/pypi/NAME/json``) once, for the releases that
``speccheck/data/behaviour-history.json`` (SGLang) and ``speccheck/data/specforge-releases.json``
(SpecForge) list, and writes, per package, ``{release: "YYYY-MM-DD"}``: the UTC date of the
earliest file uploaded for that release. Run by hand (``make release-dates``, part of ``make bump``);
the build only reads the written file, never the network.

Errors: :class:`urllib.error.URLError` when PyPI cannot be reached; ``SystemExit`` naming a release
that PyPI does not list.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "speccheck" / "data"
OUT = DATA / "release-dates.json"


def published(package: str, releases: list[str]) -> dict[str, str]:
    """``{release: "YYYY-MM-DD"}`` for ``releases`` of ``package`` (a PyPI project name), read from PyPI.

    :raises SystemExit: a release PyPI does not list, or lists without files.
    """
    url = f"https://pypi.org/pypi/{package}/json"
    with urllib.request.urlopen(url, timeout=60) as reply:  # noqa: S310 - a fixed https URL
        files = json.load(reply)["releases"]
    out = {}
    for release in releases:
        uploads = sorted(f["upload_time_iso_8601"] for f in files.get(release) or ())
        if not uploads:
            raise SystemExit(f"{package} {release}: PyPI lists no file for this release")
        out[release] = uploads[0][:10]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    sglang = json.loads((DATA / "behaviour-history.json").read_text())["releases"]
    specforge = json.loads((DATA / "specforge-releases.json").read_text())["releases"]
    data = {"source": "https://pypi.org/pypi/{package}/json (upload_time_iso_8601 of the earliest file)",
            "sglang": published("sglang", sglang), "specforge": published("specforge", list(specforge))}
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    print(f"wrote {args.out}: {len(data['sglang'])} SGLang and {len(data['specforge'])} SpecForge releases",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
