"""What changed in SGLang's speculative-decoding flags between two releases.

Usage::

    python tools/sglang_drift.py --from 0.5.14 --to <pinned> [--json OUT.json] [--cache _build/sglang-releases]

Each release is installed without dependencies into its own directory under the
cache (``pip install --no-deps --target``; nothing is installed when the cache
already has it, and the release installed in ``.venv`` is used as it is). Each
release's own ``ServerArgs.add_cli_args`` parser is then built in a separate
Python process by ``speccheck/sglang_args.py`` (no torch needed), and the options
are compared by flag name:

- **added** / **removed**: a flag that only one release has;
- **renamed**: a removed flag whose ``ServerArgs`` field lives on under a new flag;
- **changed**: a flag in both releases whose default, choices, value type,
  spellings (aliases) or deprecation status differ.

Only speculative-decoding flags are compared: those in SGLang's ``spec``
namespace (``fields/spec.py: Spec``) in the newer release, and every flag or
field whose name contains ``speculative``.

The JSON written with ``--json`` is what ``docs/reference/release-changes.md``
renders (``sphinxext/content/sglang_drift.py``); ``make sglang-drift`` regenerates it.
Pip's usual settings apply (``PIP_FIND_LINKS=/dir/of/wheels`` to install from
local wheels).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = ROOT / "_build" / "sglang-releases"
COMPARED = ("type", "default", "choices", "aliases", "deprecated")


def install(version: str, cache: Path) -> Path | None:
    """Directory holding ``sglang`` at ``version`` (``None``: the one installed here is that version).

    :raises subprocess.CalledProcessError: pip could not install the release.
    """
    try:
        if metadata.version("sglang") == version:
            return None
    except metadata.PackageNotFoundError:
        pass
    target = cache / f"sglang-{version}"
    if not (target / "sglang" / "srt" / "server_args.py").exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                        f"sglang=={version}"], check=True)
    return target


def dump(site: Path | None) -> dict:
    """Options of the release in ``site``, built in a fresh interpreter (see ``--dump``)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--dump", str(site) if site else "-"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def _dump_here(site: str) -> None:
    from speccheck import sglang_args

    loaded = sglang_args.load_parser(None if site == "-" else site)
    json.dump({"version": loaded.version, "options": [o.as_dict() for o in sglang_args.options(loaded)]},
              sys.stdout)


def _is_spec(option: dict) -> bool:
    names = [option["name"], *option["aliases"], option["dest"]]
    return option["namespace"] == "spec" or any("speculative" in n for n in names)


def compare(old: dict, new: dict) -> dict:
    """The differences in speculative-decoding flags from release ``old`` to ``new`` (outputs of :func:`dump`).

    :returns: ``{"from", "to", "added", "removed", "renamed", "changed"}``; lists are sorted by flag name.
    """
    spec_dests = {o["dest"] for o in new["options"] if o["namespace"] == "spec"}
    keep = [o for o in old["options"] if _is_spec(o) or o["dest"] in spec_dests]
    new_keep = [o for o in new["options"] if _is_spec(o)]
    old_by_name = {n: o for o in keep for n in [o["name"], *o["aliases"]]}
    new_by_name = {n: o for o in new_keep for n in [o["name"], *o["aliases"]]}
    new_all_by_name = {n: o for o in new["options"] for n in [o["name"], *o["aliases"]]}
    new_by_dest: dict[str, list[dict]] = {}
    for o in new["options"]:
        new_by_dest.setdefault(o["dest"], []).append(o)

    removed, renamed, changed, matched_new = [], [], [], set()
    for o in keep:
        now = new_by_name.get(o["name"]) or new_all_by_name.get(o["name"])
        if now is None:
            successors = [n for n in new_by_dest.get(o["dest"], []) if not n["deprecated"]]
            if successors:
                renamed.append({"old": o, "new": successors[0]})
                matched_new.add(successors[0]["name"])
            else:
                removed.append(o)
            continue
        matched_new.add(now["name"])
        diffs = {k: _change(k, o[k], now[k]) for k in COMPARED if _norm(k, o[k]) != _norm(k, now[k])}
        if now["name"] != o["name"]:
            diffs["name"] = {"old": o["name"], "new": now["name"]}
        if diffs:
            changed.append({"name": now["name"], "option": now, "changes": diffs})
    added = [o for o in new_keep if o["name"] not in matched_new and not any(a in old_by_name for a in o["aliases"])]
    by_name = {"key": lambda d: d.get("name") or d["old"]["name"]}
    return {
        "from": old["version"], "to": new["version"], "generated_by": "tools/sglang_drift.py",
        "added": sorted(added, **by_name), "removed": sorted(removed, **by_name),
        "renamed": sorted(renamed, **by_name), "changed": sorted(changed, **by_name),
    }


def _change(key: str, old, new) -> dict:
    """``{"old", "new"}``; for lists (choices, aliases) also the values ``added`` and ``removed``."""
    out = {"old": old, "new": new}
    if key in ("choices", "aliases"):
        out["added"] = [v for v in (new or []) if v not in (old or [])]
        out["removed"] = [v for v in (old or []) if v not in (new or [])]
    return out


def _norm(key, value):
    if key in ("choices", "aliases") and value is not None:
        return sorted(value)
    return value


def report(diff: dict) -> str:
    """A plain-text summary of :func:`compare`'s result, one line per change."""
    lines = [f"Speculative-decoding flags, SGLang {diff['from']} -> {diff['to']}"]
    lines += [f"  added    {o['name']}" for o in diff["added"]]
    lines += [f"  removed  {o['name']}" for o in diff["removed"]]
    lines += [f"  renamed  {r['old']['name']} -> {r['new']['name']}" for r in diff["renamed"]]
    for c in diff["changed"]:
        for key, d in c["changes"].items():
            if "added" in d:
                lines.append(f"  changed  {c['name']}: {key} +{d['added']} -{d['removed']}")
            else:
                lines.append(f"  changed  {c['name']}: {key} {d['old']!r} -> {d['new']!r}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="old", help="the older SGLang release, e.g. 0.5.14")
    parser.add_argument("--to", dest="new", help="the newer SGLang release (the pin, requirements-pinned.txt)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where releases are installed")
    parser.add_argument("--json", type=Path, help="also write the comparison as JSON here")
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dump:
        _dump_here(args.dump)
        return 0
    if not (args.old and args.new):
        parser.error("--from and --to are required")
    diff = compare(dump(install(args.old, args.cache)), dump(install(args.new, args.cache)))
    print(report(diff))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(diff, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
