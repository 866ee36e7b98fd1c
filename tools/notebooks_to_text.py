"""Convert ``.ipynb`` notebooks into the text form the guide stores (``.myst``, jupytext MyST).

Usage::

    .venv/bin/python tools/notebooks_to_text.py docs/explanation/new-notebook.ipynb
    .venv/bin/python tools/notebooks_to_text.py --check docs tests/fixtures

Without ``--check``: each ``.ipynb`` named (or found under a folder named) is written
next to itself as ``<name>.myst`` and then deleted, but only after reading the text
back gives the same cells - type, source, metadata (tags included) and id - and the
same notebook metadata; outputs and execution counts are dropped, as nbstripout did.
A notebook whose round trip would lose something is left as it is, and the run fails.

With ``--check`` (the pre-commit hook): fails, naming the file, when a ``.ipynb`` is
found (commit the ``.myst`` instead) or a ``.myst`` file cannot be read as a notebook.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sphinxext" / "notebooks"))
import text_notebooks  # noqa: E402  (sphinxext/notebooks/text_notebooks.py)

# Cell metadata that records a past run, not the notebook: dropped like outputs.
RUN_METADATA = {"execution", "ExecuteTime", "collapsed", "scrolled"}


def notebooks(paths: list[str], suffix: str) -> list[Path]:
    """Files ending in ``suffix`` named, or found under the folders named (checkpoints skipped)."""
    found = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found += sorted(p for p in path.rglob(f"*{suffix}") if ".ipynb_checkpoints" not in p.parts)
        elif path.name.endswith(suffix):
            found.append(path)
    return found


def _comparable(nb: nbformat.NotebookNode) -> tuple:
    """What a conversion must keep: notebook metadata (minus jupytext's own) and each cell's type, id,
    source and metadata (minus :data:`RUN_METADATA`)."""
    meta = {k: v for k, v in nb.metadata.items() if k != "jupytext"}
    cells = [(c.cell_type, c.get("id"), c.source.rstrip("\n"),
              {k: v for k, v in c.get("metadata", {}).items() if k not in RUN_METADATA}) for c in nb.cells]
    return meta, cells


def convert(path: Path) -> str | None:
    """Write ``path`` (a ``.ipynb``) as ``.myst`` and delete it; return why not, or ``None`` when done."""
    nb = nbformat.read(path, as_version=4)
    for number, cell in enumerate(nb.cells):
        if cell.get("id") != str(number):
            return (f"cell {number + 1} has id {cell.get('id')!r}; text notebooks number their cells "
                    f"0, 1, ... (renumber the ids, or the round trip would change them)")
        for key in RUN_METADATA:
            cell.metadata.pop(key, None)
    text = text_notebooks.writes(nb)
    back = text_notebooks.reads(text)
    if _comparable(back) != _comparable(nb):
        return "reading the text form back does not give the same cells and metadata"
    target = path.with_suffix(text_notebooks.SUFFIX)
    target.write_text(text, encoding="utf-8")
    path.unlink()
    return None


def check(path: Path) -> str | None:
    """Why ``path`` may not be committed, or ``None``."""
    if path.suffix == ".ipynb":
        return f"notebooks are stored as text: run `.venv/bin/python tools/notebooks_to_text.py {path}`"
    try:
        text_notebooks.reads(path.read_text(encoding="utf-8"))
    except Exception as exc:  # jupytext's own errors
        return f"not a readable jupytext MyST notebook: {exc}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="notebooks or folders")
    parser.add_argument("--check", action="store_true", help="only report .ipynb files and unreadable .myst files")
    args = parser.parse_args(argv)
    failed = 0
    if args.check:
        for path in notebooks(args.paths, ".ipynb") + notebooks(args.paths, text_notebooks.SUFFIX):
            if (why := check(path)) is not None:
                print(f"{path}: {why}")
                failed += 1
    else:
        for path in notebooks(args.paths, ".ipynb"):
            why = convert(path)
            print(f"{path}: {why or 'written as ' + path.with_suffix(text_notebooks.SUFFIX).name}")
            failed += why is not None
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
