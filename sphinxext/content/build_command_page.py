"""Data for the "Build a command" page (``docs/how-to/build-a-command.md``), written at build time.

The page's script (``docs/_static/build-command.js``) composes launch commands in the browser.
It reads ``window.SGLANG_BUILD_DATA`` from ``_static/build-command-data.js``, which this
extension writes after the HTML build:

- ``models``, ``gpus``, ``scenarios``: ``docs/_data/recipes.yaml`` as it is (the recipe
  scenarios; :mod:`speccheck.builder` composes the same commands in Python);
- ``eagle3_targets``: the model classes that can feed an EAGLE-3 draft in the pinned SGLang
  (:func:`speccheck.builder.eagle3_targets`, read from the installed wheel);
- ``hybrid_swa_archs``: the architectures whose windowed layers get a KV pool of their own in the
  pinned SGLang (:func:`speccheck.builder.hybrid_swa_archs`, read from the installed wheel);
- ``links``: the URL (relative to the page) of every guide section the page's results link to,
  resolved from their labels; a missing label fails the build.

The page checks what it composes with the "Check a command" page's script
(``check-command.js``, ``window.sglangCheck``) and its data file, which
``check_command_page.py`` writes; the parser choices the page offers (tool-call and reasoning
parsers, KV cache dtypes) come from that data file's option table.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml

from speccheck import builder
from speccheck.pinned import checker_digest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "_data" / "recipes.yaml"
PAGE = "how-to/build-a-command"
OUTPUT = "build-command-data.js"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where PyYAML has it: the same objects, faster

# Name used by build-command.js -> label of the guide section.
LINKS = [
    "decision-table", "decision-algorithm", "decision-starting-tree", "decision-note-batch-one",
    "decision-note-batch-one-split", "decision-note-mtp", "decision-note-adaptive", "decision-note-32",
    "decision-note-64", "decision-note-128", "decision-note-other", "request-cap", "recipes-memory-method",
    "recipes-mem-fraction", "oom-draft-embed-head", "oom-recipe", "oom-draft-cost", "draft-path-rule",
    "mtp-howto", "eagle3-howto", "eagle2-howto", "ngram-howto", "standalone-howto", "dflash-howto",
    "train-draft-specforge", "model-pairs", "model-pairs-check", "bench-decode-log", "bench-per-request",
    "bench-baseline", "feat-structured-output", "feat-reasoning", "feat-lora", "feat-pd-disaggregation",
    "feat-hybrid-models", "feat-quantized", "trouble-platform", "context-length-override", "check-a-command",
    "engine-mapping", "tune-auto-defaults", "eagle3-fp8-target", "oom-multi-node", "ngram-sources", "ngram-corpus",
    "oom-quantized-draft", "draft-format-conversion", "ix-kv-memory-swa", "feat-multimodal",
    "ix-model-architectures-targets", "ix-parallelism-dp-attention", "ix-hardware-rocm", "compat-topk-backends",
    "standalone-which-draft", "oom-mem-fraction-rule", "compat-draft-quantization",
]


def _links(app, recipes: dict) -> dict[str, str]:
    labels = app.env.domaindata["std"]["labels"]
    anonymous = app.env.domaindata["std"]["anonlabels"]  # labels before a paragraph, not a heading
    out = {}
    for label in LINKS:
        if label not in anonymous:
            raise RuntimeError(f"build_command_page: label {label!r} does not exist")
        docname, anchor = anonymous[label]
        uri = app.builder.get_relative_uri(PAGE, docname)
        out[label] = f"{uri}#{anchor}" if anchor else uri
    out["recipes"] = {}
    for slug in {m["page"] for m in recipes["models"].values()}:
        label = f"recipe-{slug}"
        if label not in labels:
            raise RuntimeError(f"build_command_page: recipe label {label!r} does not exist")
        out["recipes"][slug] = app.builder.get_relative_uri(PAGE, labels[label][0])
    return out


def inputs_key(recipes_text: str, links: dict[str, str]) -> str:
    """A digest of everything the data file is made from, so an unchanged build keeps the file it wrote:
    the checker's inputs (:func:`speccheck.pinned.checker_digest`: the pinned releases, whose wheel
    :func:`speccheck.builder.eagle3_targets` reads, and the ``speccheck`` package), ``recipes.yaml``,
    this module and the resolved links."""
    digest = hashlib.sha256(f"{checker_digest()}|{json.dumps(links, sort_keys=True)}|{recipes_text}".encode())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def _write(app, exception) -> None:
    """Write the page's data after an HTML build that contains the page; skipped when its inputs
    (:func:`inputs_key`) and the written file are unchanged, and the file is left alone when the
    data came out the same (its modification time, which browsers and caches see, does not move).

    :func:`speccheck.builder.eagle3_targets` parses every model module of the wheel (most of a
    no-change rebuild's time otherwise).
    """
    if exception is not None or app.builder.format != "html" or PAGE not in app.env.all_docs:
        return
    from sphinx.errors import ExtensionError

    out = Path(app.outdir) / "_static" / OUTPUT
    stamp = Path(app.doctreedir) / (OUTPUT + ".key")
    try:
        recipes_text = DATA.read_text(encoding="utf-8")
        data = yaml.load(recipes_text, Loader=LOADER)
        data["links"] = _links(app, data)
        key = inputs_key(recipes_text, data["links"])
        if out.exists() and stamp.exists() and stamp.read_text() == key:
            return
        data["eagle3_targets"] = list(builder.eagle3_targets())
        data["hybrid_swa_archs"] = list(builder.hybrid_swa_archs())
    except Exception as exc:
        raise ExtensionError(f"build_command_page: cannot write the page's data: {exc}", modname=__name__) from exc
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    content = f"window.SGLANG_BUILD_DATA = {text};\n".encode()
    if not (out.exists() and out.read_bytes() == content):
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(content)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(key)


def setup(app):
    """Sphinx entry point: write the data file once the HTML is built."""
    app.connect("build-finished", _write)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
