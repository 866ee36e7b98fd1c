"""The releases in which each piece of speculative code changed, read from every SGLang wheel.

Usage::

    python -m speccheck.code_history [--cache DIR] [--out speccheck/data/code-history.json]
    make code-history

A reader on release R with a traceback asks whether the code of its last frame is still the code of the
pin. This answers it for every *unit* the guide explains: every ``reads-spec-state`` point of the
interaction map (:mod:`speccheck.interactions`: a function, a class body, or a module's top-level code,
outside ``sglang/srt/speculative/``) and every unit of every file under ``sglang/srt/speculative/``,
split the way the map splits code (:func:`speccheck.interactions._units`). For every release unpacked in
the wheel cache of ``make flag-history`` (the releases of the behaviour history, oldest first; nothing
imported, nothing downloaded) it fingerprints each unit (:func:`fingerprint`: its syntax tree without
docstrings, comments, formatting or line numbers) at the same file and qualified name, and records:

``first``
    the first release read in which the unit exists at that path (a unit that moved counts as new there);
``changed``
    every later release whose fingerprint differs from the release before it, including a release in which
    the unit came back after being absent.

Output: ``{"releases": [...], "units": [[file, qualname, first, [changed, ...]], ...]}`` sorted by file and
qualified name, ``file`` relative to ``site-packages``. The build only reads the written file.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
from pathlib import Path

from speccheck import behaviour
from speccheck import interactions as ix

OUT = Path(__file__).resolve().parent / "data" / "code-history.json"
SPECULATIVE_DIR = "sglang/srt/speculative/"


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:]
    return body


def fingerprint(nodes: list[ast.AST]) -> str:
    """A 16-hex-digit digest of the syntax trees ``nodes`` (one unit of :func:`speccheck.interactions._units`),
    blind to docstrings, comments, formatting and line numbers: equal for two releases exactly when the code
    itself is the same."""
    parts = []
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            head = [node.name, *map(ast.dump, node.decorator_list)]
            if isinstance(node, ast.ClassDef):
                head += [*map(ast.dump, node.bases), *map(ast.dump, node.keywords)]
            else:
                head += [ast.dump(node.args), ast.dump(node.returns) if node.returns else ""]
            parts += head + [ast.dump(s) for s in _without_docstring(node.body)]
        else:
            parts.append(ast.dump(node))
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


def tree_fingerprints(tree: Path, wanted: dict[str, set[str] | None]) -> dict[tuple[str, str], str]:
    """``{(file, qualname): fingerprint}`` of one unpacked release (``tree`` holds ``sglang/``).

    :param wanted: ``{file: qualnames}``, ``None`` for every unit of the file. A file the release lacks,
        or that this interpreter cannot parse, yields nothing.
    """
    out = {}
    for rel, names in wanted.items():
        path = tree / rel
        try:
            module = ast.parse(path.read_bytes())
        except (OSError, SyntaxError, ValueError):
            continue
        for unit in ix._units(module):
            if names is None or unit.qualname in names:
                out[(rel, unit.qualname)] = fingerprint(unit.nodes)
    return out


def scope(points: list[ix.Point], newest: Path) -> dict[str, set[str] | None]:
    """The files and units to follow: ``reads-spec-state`` points by file, and every file under
    ``sglang/srt/speculative/`` of the newest release (``None``: all its units)."""
    wanted: dict[str, set[str] | None] = {}
    for p in points:
        if p.kind == "reads-spec-state":
            wanted.setdefault(p.file, set()).add(p.qualname)
    for path in sorted((newest / SPECULATIVE_DIR).rglob("*.py")):
        wanted[path.relative_to(newest).as_posix()] = None
    return wanted


def history(trees: dict[str, Path], wanted: dict[str, set[str] | None]) -> dict:
    """The output described in the module docstring, from ``{release: tree}`` oldest first; only units
    present in the newest release are kept.

    :raises ValueError: ``trees`` is empty.
    """
    if not trees:
        raise ValueError("no release to read")
    releases = list(trees)
    first: dict[tuple[str, str], str] = {}
    changed: dict[tuple[str, str], list[str]] = {}
    before: dict[tuple[str, str], str] = {}
    for release, tree in trees.items():
        now = tree_fingerprints(tree, wanted)
        for key, digest in now.items():
            if key not in first:
                first[key] = release
                changed[key] = []
            elif before.get(key) != digest:
                changed[key].append(release)
        before = now
    units = [[file, qualname, first[(file, qualname)], changed[(file, qualname)]]
             for file, qualname in sorted(before)]
    return {"releases": releases, "units": units}


def dumps(data: dict) -> str:
    """The JSON text of :func:`history`'s output, one unit per line (diffs stay readable)."""
    return ("{\n" + f' "releases": {json.dumps(data["releases"])},\n "units": [\n'
            + ",\n".join("  " + json.dumps(u) for u in data["units"]) + "\n ]\n}\n")


def load(path: Path = OUT) -> dict:
    """The written file (see the module docstring)."""
    return json.loads(path.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=behaviour.DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    trees = behaviour.history_trees(args.cache)
    if trees is None:
        return 1
    wanted = scope(ix.load(), list(trees.values())[-1])
    data = history(trees, wanted)
    args.out.write_text(dumps(data), encoding="utf-8")
    print(f"wrote {args.out}: {len(data['units'])} units over {len(trees)} releases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
