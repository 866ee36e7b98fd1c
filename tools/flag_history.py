"""When each speculative-decoding flag and environment variable of SGLang appeared, changed or went away.

Usage::

    python tools/flag_history.py [--from 0.4.0] [--to PINNED] [--cache _build/sglang-wheels]
                                 [--out speccheck/data/flag-history.json]

For every SGLang release on PyPI from ``--from`` to ``--to`` (post releases
included), the wheel is downloaded once with ``pip download --no-deps
sglang==X -d CACHE`` and unpacked next to it; a cached wheel is never fetched
again, and nothing here runs at build time (``make flag-history`` runs it by
hand). Each release's own server parser is then built in a fresh Python
process by ``tools/sglang_drift.py --dump`` (``speccheck/sglang_args.py``: the
real ``ServerArgs.add_cli_args``, without torch). That works for both layouts
SGLang has used: options declared in ``add_cli_args`` of
``sglang/srt/server_args.py`` (before 0.5.2x) and the ``arg_groups/fields``
namespace classes. A release whose parser cannot be built is left out and
named on standard error.

What is followed:

- flags: every option string containing ``speculative``, every option of the
  ``spec`` namespace, the flags speculative users set with them
  (:data:`COMPANION_FLAGS`, :data:`COMPANION_PATTERN`: CUDA-graph batch sizes,
  ``--max-running-requests``, ``--mem-fraction-static``, the attention
  backends, ``--page-size``, DP attention, overlap scheduling), every option
  whose ``ServerArgs`` field speculative decoding's validation reads (the
  ``server-arg`` points of ``speccheck/data/interactions.json``, ``make
  interactions``: :func:`validation_fields`), and the former names of all of
  these (a flag renamed or split into a followed one, however many steps back).
  Changes are worked out for every option of every release before the followed
  ones are kept, so a rename is seen whichever name is followed;
- environment variables: every ``SGLANG_*`` name written in the speculative
  code of the release (:data:`ENV_FILES`: ``sglang/srt/speculative/``, the
  speculative arg hook and fields), read as text, with the default declared
  for it in ``sglang/srt/environ.py`` where that file declares one.

Output (``--out``), the schema other tools read::

    {"releases": ["0.4.0", ...],
     "flags": {"--cuda-graph-max-bs": {"events": [
         {"release": "0.4.0", "change": "added"},
         {"release": "0.5.14", "change": "deprecated", "into": ["--cuda-graph-max-bs-decode"]},
         {"release": "0.5.20", "change": "split", "into": ["--cuda-graph-max-bs-decode", ...],
          "evidence": "name"}]}},
     "env": {"SGLANG_ENABLE_SPEC_V2": {"events": [...]}}}

``change`` is ``added``, ``removed``, ``renamed`` or ``split`` (both with ``into``:
the flags that replace it, and ``evidence``: ``dest`` or ``name``, below),
``deprecated`` (the flag became an alias that SGLang warns about; ``into``: the
flag that now sets its field, when there is one; the alias's own choices and
default are not compared from then on), ``choices`` or ``default`` (with ``from``
and ``to``). An event's release is the first release examined in which the
change is seen; ``added`` in the first release means "present in the oldest
release examined". A removed flag whose ``ServerArgs`` field lives on under one
other flag (a new one, or the one it had become a deprecated alias of:
``--mamba-scheduler-strategy`` -> ``--mamba-radix-cache-strategy``, an alias
from 0.5.14, gone in 0.5.20) is ``renamed`` with evidence ``dest``; one replaced
by two or more new flags that extend its name (``--cuda-graph-max-bs`` ->
``--cuda-graph-max-bs-decode``) is ``split`` with evidence ``name``. (A third
rule, a removed flag whose help text a flag added beside it carries, found no
rename among the 651 option strings of the 92 releases from 0.4.0 to the pin (2026-12) that the
field rule missed, so it is not applied.)
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import sglang_drift  # noqa: E402  (the per-release parser dump)

DEFAULT_CACHE = ROOT / "_build" / "sglang-wheels"
DEFAULT_OUT = ROOT / "speccheck" / "data" / "flag-history.json"
INTERACTIONS = ROOT / "speccheck" / "data" / "interactions.json"
OLDEST = "0.4.0"

# Flags speculative users set together with the --speculative-* flags.
COMPANION_FLAGS = {
    "--max-running-requests", "--mem-fraction-static", "--attention-backend", "--prefill-attention-backend",
    "--decode-attention-backend", "--page-size", "--enable-dp-attention", "--dp-size", "--attn-dp-size",
    "--enable-dp-lm-head", "--disable-overlap-schedule", "--enable-overlap-schedule", "--enable-mixed-chunk",
}
# CUDA-graph batch sizes, in every spelling SGLang used.
COMPANION_PATTERN = re.compile(r"^--cuda-graph-(max-)?bs")
# Where the speculative code reads environment variables (relative to the package).
ENV_FILES = ("srt/speculative", "srt/arg_groups/speculative_hook.py", "srt/arg_groups/fields/spec.py")
ENV_RE = re.compile(r"\bSGLANG_[A-Z0-9_]+\b")
# Elsewhere in ``sglang/srt`` (server_args.py, environ.py, the scheduler), a variable whose
# name says it is about speculative decoding (``SGLANG_ENABLE_SPEC_V2``).
SPEC_ENV_RE = re.compile(r"\bSGLANG_[A-Z0-9_]*(?:SPEC|EAGLE|NGRAM|DRAFT|MTP|DFLASH|DSPARK|ACC_LEN)[A-Z0-9_]*\b")


def releases(first: str, last: str, package: str = "sglang") -> list[str]:
    """Releases of ``package`` on the package index from ``first`` to ``last``, oldest first (``pip index versions``)."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package], check=True,
                         capture_output=True, text=True).stdout
    listed = re.search(r"Available versions: (.*)", out)
    if not listed:
        raise RuntimeError(f"pip index versions {package} gave no version list:\n{out}")
    found = {Version(v.strip()) for v in listed.group(1).split(",")}
    return [str(v) for v in sorted(v for v in found if Version(first) <= v <= Version(last) and not v.is_prerelease)]


def unpacked(version: str, cache: Path, package: str = "sglang") -> Path:
    """A directory holding release ``version`` of ``package`` (its ``<package>/`` folder), downloaded and unpacked once.

    The wheel is preferred; a release published only as a source archive (SpecForge 0.1.0)
    is unpacked from its ``.tar.gz``.

    :raises subprocess.CalledProcessError: pip could not download the release.
    """
    target = cache / f"{package}-{version}"
    if (target / package).is_dir():
        return target
    found = list(cache.glob(f"{package}-{version}-*.whl")) + list(cache.glob(f"{package}-{version}.tar.gz"))
    if not found:
        got = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                              f"{package}=={version}", "-d", str(cache)])
        if got.returncode:
            _download_sdist(package, version, cache)
        found = list(cache.glob(f"{package}-{version}-*.whl")) + list(cache.glob(f"{package}-{version}.tar.gz"))
    if found[0].suffix == ".whl":
        with zipfile.ZipFile(found[0]) as wheel:
            wheel.extractall(target, [n for n in wheel.namelist() if n.startswith(f"{package}/")])
        return target
    prefix = f"{package}-{version}/"
    with tarfile.open(found[0]) as sdist:
        members = [m for m in sdist.getmembers() if m.name.startswith(prefix + package + "/") and m.isfile()]
        for member in members:
            member.name = member.name[len(prefix):]
        sdist.extractall(target, members, filter="data")
    return target


def _download_sdist(package: str, version: str, cache: Path) -> Path:
    """Download the source archive of a release that has no wheel, checked against the index's sha256.

    pip cannot download an archive whose metadata does not build (SpecForge 0.1.0's setup.py
    reads a file the archive lacks), so the link comes from PyPI's simple index (PEP 503).

    :raises RuntimeError: the index lists no archive for the release, or its digest differs.
    """
    index = urllib.request.urlopen(f"https://pypi.org/simple/{package}/", timeout=60).read().decode()
    name = f"{package}-{version}.tar.gz"
    link = re.search(rf'href="([^"#]*/{re.escape(name)})#sha256=([0-9a-f]+)"', index)
    if not link:
        raise RuntimeError(f"PyPI lists no {name}")
    data = urllib.request.urlopen(link.group(1), timeout=300).read()
    if hashlib.sha256(data).hexdigest() != link.group(2):
        raise RuntimeError(f"{name}: sha256 differs from the index")
    (cache / name).write_bytes(data)
    return cache / name


def specforge_releases(cache: Path, out: Path) -> list[str]:
    """Download and unpack every SpecForge release up to the pin and list them in ``out`` (JSON ``releases``).

    The release verdicts (``speccheck/releases.py``) look SpecForge signatures up in these.

    :raises subprocess.CalledProcessError: pip could not list or download a release.
    """
    pinned = re.search(r"^specforge==(\S+)", (ROOT / "requirements-pinned.txt").read_text(), re.M).group(1)
    versions = releases("0", pinned, "specforge")
    for version in versions:
        unpacked(version, cache, "specforge")
    out.write_text(json.dumps({"releases": versions}, indent=1) + "\n", encoding="utf-8")
    return versions


def validation_fields(path: Path = INTERACTIONS) -> frozenset[str]:
    """The ``ServerArgs`` fields that speculative decoding's validation reads, from the interaction map.

    :param path: ``speccheck/data/interactions.json`` (``make interactions``, read from the pinned
        wheel): its ``server-arg`` points, whose ids are ``arg:<field>`` (``arg:page_size``).
    :returns: the field names (``{"page_size", "mamba_radix_cache_strategy", ...}``); private
        fields (``_x_explicitly_set``) are kept but match no option's ``dest``.
    :raises FileNotFoundError: the map has not been written.
    """
    points = json.loads(path.read_text(encoding="utf-8"))
    return frozenset(p["id"].split(":", 1)[1] for p in points if p["kind"] == "server-arg")


def followed(option: dict, fields: frozenset[str] = frozenset()) -> bool:
    """Whether the history follows this option by itself (see the module docstring).

    :param option: an option dict of :func:`snapshot` (``name``, ``aliases``, ``namespace``, ``dest``).
    :param fields: :func:`validation_fields`; an option whose ``dest`` is one of them is followed.
    """
    names = [option["name"], *option["aliases"]]
    return (option.get("namespace") == "spec" or any("speculative" in n for n in names)
            or any(n in COMPANION_FLAGS or COMPANION_PATTERN.match(n) for n in names)
            or option.get("dest") in fields)


def env_names(site: Path) -> tuple[set[str], dict[str, str | None]]:
    """The release's speculative ``SGLANG_*`` variables, and every ``SGLANG_*`` name its code mentions.

    :returns: ``(speculative, everywhere)``: ``speculative`` holds the names written in
        the speculative code (:data:`ENV_FILES`) or whose name says they are about
        speculative decoding (:data:`SPEC_ENV_RE`, anywhere in ``sglang/srt``);
        ``everywhere`` maps every ``SGLANG_*`` name in any ``.py`` file of the package
        to its default as declared in ``sglang/srt/environ.py`` (text), or ``None``.
    """
    pkg = site / "sglang"
    speculative: set[str] = set()
    everywhere: set[str] = set()
    spec_paths = [pkg / rel for rel in ENV_FILES]
    for file in sorted(pkg.rglob("*.py")):
        text = file.read_text(encoding="utf-8", errors="replace")
        found = set(ENV_RE.findall(text))
        everywhere |= found
        if any(file == p or p in file.parents for p in spec_paths):
            speculative |= found
        elif pkg / "srt" in file.parents:
            speculative.update(SPEC_ENV_RE.findall(text))
    defaults: dict[str, str | None] = {}
    environ = pkg / "srt" / "environ.py"
    if environ.is_file():
        for node in ast.walk(ast.parse(environ.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id.startswith("SGLANG_") and isinstance(node.value, ast.Call)):
                args = node.value.args
                defaults[node.targets[0].id] = ast.unparse(args[0]) if args else None
    return speculative, {n: defaults.get(n) for n in sorted(everywhere)}


# A value the AST reading could not work out (a computed default or choice list): never compared.
UNRESOLVED = "<unresolved>"


def _literal(node: ast.AST, constants: dict[str, object]) -> object:
    """The value of a literal, a module-level constant, ``ServerArgs.field`` or ``a + b`` of those."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ServerArgs":
        return constants.get(f"ServerArgs.{node.attr}", UNRESOLVED)
    if isinstance(node, ast.Name):
        return constants.get(node.id, UNRESOLVED)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left, constants), _literal(node.right, constants)
        return left + right if isinstance(left, list) and isinstance(right, list) else UNRESOLVED
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "list" and len(node.args) == 1:
        inner = _literal(node.args[0], constants)
        return list(inner) if isinstance(inner, (list, tuple, dict)) else UNRESOLVED
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNRESOLVED
    return list(value) if isinstance(value, (tuple, set)) else value


def ast_options(server_args: Path) -> list[dict]:
    """Options declared by ``parser.add_argument`` calls in ``ServerArgs.add_cli_args``, read with :mod:`ast`.

    For releases whose ``server_args.py`` cannot be loaded without torch (before
    0.5.2x). Returns dicts shaped like ``sglang_args.OptionInfo.as_dict``;
    ``default`` is the dataclass field's default for ``default=ServerArgs.x``,
    and a value that is computed at run time is :data:`UNRESOLVED`.

    :raises RuntimeError: the file has no ``ServerArgs.add_cli_args``.
    """
    tree = ast.parse(server_args.read_text(encoding="utf-8"))
    constants: dict[str, object] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            constants[stmt.targets[0].id] = _literal(stmt.value, constants)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ServerArgs"), None)
    add = next((n for n in ast.walk(cls) if isinstance(n, ast.FunctionDef) and n.name == "add_cli_args"), None) \
        if cls else None
    if add is None:
        raise RuntimeError(f"{server_args} has no ServerArgs.add_cli_args")
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            value = _literal(stmt.value, constants) if stmt.value is not None else UNRESOLVED
            if isinstance(stmt.value, ast.Call):  # field(default=...) / field(default_factory=...)
                kw = {k.arg: k.value for k in stmt.value.keywords}
                value = _literal(kw["default"], constants) if "default" in kw else UNRESOLVED
            constants[f"ServerArgs.{stmt.target.id}"] = value
    out = []
    for node in ast.walk(add):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not names or not names[0].startswith("-"):
            continue
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        action = kw.get("action")
        action = action.value if isinstance(action, ast.Constant) else ast.unparse(action) if action else None
        longest = sorted(names, key=lambda s: (not s.startswith("--"), 0))
        dest = kw["dest"].value if isinstance(kw.get("dest"), ast.Constant) else longest[0].lstrip("-").replace("-", "_")
        if action in ("store_true", "store_false"):
            kind, default = "flag", str(action == "store_false")
        else:
            kind = ast.unparse(kw["type"]) if "type" in kw else "str"
            default = None
        if "default" in kw:
            value = _literal(kw["default"], constants)
            default = value if value == UNRESOLVED else None if value is None else str(value)
        choices = _literal(kw["choices"], constants) if "choices" in kw else None
        if choices is not None and choices != UNRESOLVED:
            choices = [str(c) for c in choices] if isinstance(choices, list) else UNRESOLVED
        out.append({"name": longest[0], "aliases": longest[1:], "dest": dest, "type": kind, "default": default,
                    "choices": choices, "help": "", "namespace": "", "deprecated": False})
    return out


def snapshot(version: str, cache: Path) -> dict | None:
    """``{"flags": {flag: option dict}, "env": {name: default}, "method": ...}`` of one release.

    The release's own parser when it can be built (``sglang_drift.dump``), else
    :func:`ast_options`; ``None`` when neither works.
    """
    site = unpacked(version, cache)
    saved = cache / f"options-{version}.json"  # the options read before: reading takes seconds per release
    if saved.exists():
        dumped = json.loads(saved.read_text(encoding="utf-8"))
    else:
        try:
            dumped = {**sglang_drift.dump(site), "method": "parser"}
        except subprocess.CalledProcessError as exc:
            reason = (exc.stderr or "").strip().splitlines()[-1:] or ["no output"]
            try:
                dumped = {"options": ast_options(site / "sglang" / "srt" / "server_args.py"), "method": "ast"}
            except (RuntimeError, SyntaxError, OSError) as ast_exc:
                print(f"  {version}: parser not built ({reason[0][:120]}), AST reading failed ({ast_exc}); left out",
                      file=sys.stderr)
                return None
        saved.write_text(json.dumps(dumped), encoding="utf-8")
    method = dumped["method"]
    flags = {}  # every option: history() decides which it follows, after connecting renames
    for option in dumped["options"]:
        for name in (option["name"], *option["aliases"]):
            flags[name] = option
    speculative, everywhere = env_names(site)
    return {"flags": flags, "env_speculative": speculative, "env": everywhere, "method": method}


def _choices(option: dict) -> list[str] | str | None:
    choices = option.get("choices")
    return sorted(choices) if isinstance(choices, list) else choices


def _differ(old, new) -> bool:
    """Whether two known values differ (an :data:`UNRESOLVED` side is never a change)."""
    return UNRESOLVED not in (old, new) and old != new


def _replacement(name: str, old: dict, now: dict, arrived_after: set[str],
                 taken: set[str]) -> tuple[str, list[str], str] | None:
    """What replaced flag ``name``, gone in a release: ``(change, into, evidence)`` or ``None`` (removed).

    :param old: the previous release's options by flag; ``now``: this release's.
    :param arrived_after: the flags of ``now`` that were not there when ``name`` first appeared.
    :param taken: flags already claimed by another gone flag in this release.
    """
    # Two or more flags that extend the name and arrived after it: split.
    extensions = sorted(n for n in now if n.startswith(name + "-") and n in arrived_after)
    if len(extensions) >= 2:
        return "split", extensions, "name"
    live = {now[n]["name"] for n in now if not now[n]["deprecated"]}
    # The option that now sets the flag's field (a new flag, or the one it was a deprecated alias of:
    # several aliases may share it, a new flag is claimed once).
    same_field = sorted(n for n in live if now[n]["dest"] == old[name]["dest"]
                        and (old[name]["deprecated"] or n not in taken))
    if len(same_field) == 1:
        return "renamed", same_field, "dest"
    return None


def history(snapshots: dict[str, dict], fields: frozenset[str] = frozenset()) -> dict:
    """The events of every followed flag and variable across ``snapshots`` (``{release: snapshot}``, oldest first).

    Events are worked out for every option, so that a rename is seen whichever side is
    followed; a flag is then kept when :func:`followed` (with ``fields``) holds for it in
    some release, or when it was renamed or split into a kept flag (its former names).

    A variable is followed when some release's speculative code names it; it is
    present in a release whose code names it anywhere, so ``removed`` means that no
    code of the release mentions it any more.
    """
    followed_env = set().union(*(snap["env_speculative"] for snap in snapshots.values()))
    snapshots = {r: {**snap, "env": {n: d for n, d in snap["env"].items() if n in followed_env}}
                 for r, snap in snapshots.items()}
    flags: dict[str, list[dict]] = {}
    env: dict[str, list[dict]] = {}
    before: dict | None = None
    seen_with: dict[str, set[str]] = {}  # flag -> the flags of the release it first appeared in
    kept: set[str] = set()
    for release, snap in snapshots.items():
        for name, option in snap["flags"].items():
            seen_with.setdefault(name, set(snap["flags"]))
            if followed(option, fields):
                kept.add(name)
        now = snap["flags"]
        if before is None:
            for name in now:
                flags.setdefault(name, []).append({"release": release, "change": "added"})
            for name in snap["env"]:
                env.setdefault(name, []).append({"release": release, "change": "added"})
            before = snap
            continue
        old = before["flags"]
        gone = [n for n in old if n not in now]
        new = [n for n in now if n not in old]
        taken: set[str] = set()
        for name in gone:
            arrived_after = {n for n in now if n not in seen_with[name]}
            found = _replacement(name, old, now, arrived_after, taken)
            if found is None:
                flags[name].append({"release": release, "change": "removed"})
            else:
                change, into, evidence = found
                flags[name].append({"release": release, "change": change, "into": into, "evidence": evidence})
                taken.update(into)
        for name in new:
            flags.setdefault(name, []).append({"release": release, "change": "added"})
        for name in now:
            if name not in old:
                continue
            if now[name]["deprecated"] and not old[name]["deprecated"]:
                # Now an alias that SGLang warns about; its choices and default are the alias's, not compared.
                instead = sorted({now[n]["name"] for n in now if now[n]["dest"] == now[name]["dest"]
                                  and not now[n]["deprecated"]})
                flags[name].append({"release": release, "change": "deprecated", **({"into": instead} if instead else {})})
                continue
            if now[name]["deprecated"]:
                continue
            if _differ(_choices(old[name]), _choices(now[name])):
                flags[name].append({"release": release, "change": "choices", "from": _choices(old[name]),
                                    "to": _choices(now[name])})
            if _differ(old[name]["default"], now[name]["default"]):
                flags[name].append({"release": release, "change": "default", "from": old[name]["default"],
                                    "to": now[name]["default"]})
        old_env, now_env = before["env"], snap["env"]
        for name in now_env:
            if name not in old_env:
                env.setdefault(name, []).append({"release": release, "change": "added"})
            elif old_env[name] is not None and now_env[name] is not None and old_env[name] != now_env[name]:
                env[name].append({"release": release, "change": "default", "from": old_env[name],
                                  "to": now_env[name]})
        for name in old_env:
            if name not in now_env:
                env[name].append({"release": release, "change": "removed"})
        before = snap
    # The former names of kept flags, however many renames back.
    while True:
        former = {n for n, events in flags.items() if n not in kept
                  and any(set(e.get("into", ())) & kept for e in events)}
        if not former:
            break
        kept |= former
    return {
        "releases": list(snapshots),
        "flags": {n: {"events": e} for n, e in sorted(flags.items()) if n in kept},
        "env": {n: {"events": e} for n, e in sorted(env.items())},
    }


def main(argv: list[str] | None = None) -> int:
    pinned = re.search(r"^sglang==(\S+)", (ROOT / "requirements-pinned.txt").read_text(), re.M).group(1)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="first", default=OLDEST, help=f"oldest release (default {OLDEST})")
    parser.add_argument("--to", dest="last", default=pinned, help=f"newest release (default: the pin, {pinned})")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where wheels are downloaded and unpacked")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the JSON file to write")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    snapshots = {}
    for version in releases(args.first, args.last):
        snap = snapshot(version, args.cache)
        if snap is not None:
            snapshots[version] = snap
            print(f"  {version}: {len(snap['flags'])} options, {len(snap['env_speculative'])} speculative variables "
                  f"({snap['method']})",
                  file=sys.stderr)
    sf = specforge_releases(args.cache, args.out.parent / "specforge-releases.json")
    print(f"  SpecForge: {', '.join(sf)}", file=sys.stderr)
    data = history(snapshots, validation_fields())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(data['releases'])} releases, {len(data['flags'])} flags, "
          f"{len(data['env'])} variables")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
