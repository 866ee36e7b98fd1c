"""Answer-first pages: implementation names stay in source notes, and the audit's corrections hold.

Two kinds of test read the built HTML (``html_dir``):

- a density test over every tutorial, how-to and reference page (the generated
  server-arguments and release-changes pages aside): inline ``<code>`` that names
  an SGLang/SpecForge source file or an implementation function, outside
  ``.source-note`` elements, is at most ``MAX_PER_1000_WORDS`` per 1,000 words of
  running text;
- one test per correction of the claim audit on the reference and explanation
  pages: the corrected statement is on its page and the false one is gone.

What counts as an implementation name is computed from the installed pinned
packages (see :func:`implementation_names` and :func:`user_facing_names`), not
from a hand-written list of examples, so a new private helper cited in prose is
caught as soon as the pinned release defines it.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT

DOCS = ROOT / "docs"
MAX_PER_1000_WORDS = 2
# Generated from the pinned parsers, release notes and wheels: their inline code (flags,
# file paths, function names) is the reference content itself (issue #11 exempts them).
EXEMPT = {"reference/server-arguments", "reference/release-changes", "reference/code-history"}
# Parts of tensor names inside a checkpoint's *.safetensors files (what a reader
# sees when listing its keys), which SGLang also uses as attribute names.
CHECKPOINT_TENSOR_PARTS = {"lm_head", "embed_tokens", "self_attn", "mlp", "d2t", "t2d"}

_DEF_RE = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.M)
_CAMEL_RE = re.compile(r"[A-Z][a-z0-9]+[A-Z]")
_IDENT_RE = re.compile(r"[A-Za-z_][\w.]*\w")


def site_packages() -> Path:
    """The directory that holds the installed ``sglang`` and ``specforge`` packages."""
    return Path(importlib.util.find_spec("sglang").origin).parent.parent


def _read(file: Path) -> str:
    return file.read_text(encoding="utf-8", errors="replace")


@functools.cache
def implementation_names() -> frozenset[str]:
    """Every name that a ``def`` or ``class`` statement defines in the installed sglang and specforge.

    A line-anchored regex over each ``*.py`` file (about 1.5 s for both packages,
    against 30 s for ``ast``); it can also pick up a ``def`` written at the start
    of a docstring line, which only makes the density test stricter.
    """
    names: set[str] = set()
    for package in ("sglang", "specforge"):
        for file in (site_packages() / package).rglob("*.py"):
            names.update(_DEF_RE.findall(_read(file)))
    return frozenset(names)


@functools.cache
def source_file_names() -> frozenset[str]:
    """Base names of the ``*.py`` files in the installed sglang and specforge packages.

    A ``*.py`` name in prose counts as a source reference only when one of the
    pinned packages has a file of that name: a reader's own script
    (``inspect_draft.py``) or a script of SGLang's repository that the wheel
    does not ship is something the reader runs, not a citation.
    """
    return frozenset(file.name for package in ("sglang", "specforge")
                     for file in (site_packages() / package).rglob("*.py"))


def _fields_and_literals(files: list[Path]) -> set[str]:
    """Annotated class fields and word-like string constants of ``files`` (parsed with ``ast``)."""
    out: set[str] = set()
    for file in files:
        for node in ast.walk(ast.parse(_read(file))):
            if isinstance(node, ast.ClassDef):
                out.update(b.target.id for b in node.body
                           if isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.fullmatch(r"[\w.-]+", node.value):
                out.add(node.value)
    return out


@functools.cache
def user_facing_names() -> frozenset[str]:
    """Names a user meets as flags, config keys, choices, architectures, endpoints or output keys.

    Computed from the pinned sources:

    - SGLang server-argument fields and every string constant (choices) in
      ``sglang/srt/arg_groups/fields/*.py`` and ``arg_groups/choices.py``;
    - SpecForge run-config fields and constants (``specforge/config/schema.py``);
    - Hugging Face config keys: ``self.<name> =`` assignments in ``sglang/srt/configs/``;
    - model architectures (``config.json`` ``architectures``): classes in ``sglang/srt/models/``;
    - HTTP endpoint names and JSON keys: string constants in ``sglang/srt/entrypoints/``
      and the ``sglang.bench_serving`` output;
    - checkpoint tensor-name parts (:data:`CHECKPOINT_TENSOR_PARTS`).
    """
    sp = site_packages()
    names = _fields_and_literals(sorted((sp / "sglang/srt/arg_groups/fields").glob("*.py"))
                                 + [sp / "sglang/srt/arg_groups/choices.py", sp / "specforge/config/schema.py"])
    for file in (sp / "sglang/srt/configs").rglob("*.py"):
        names.update(re.findall(r"self\.([A-Za-z_]\w*)\s*=", _read(file)))
    for file in (sp / "sglang/srt/models").rglob("*.py"):
        names.update(re.findall(r"^class\s+(\w+)", _read(file), re.M))
    outputs = [*(sp / "sglang/srt/entrypoints").rglob("*.py"), sp / "sglang/bench_serving.py"]
    for file in outputs:
        if file.exists():
            names.update(re.findall(r"""["'/]([a-z][a-z0-9_]*)["']""", _read(file)))
    return frozenset(names | CHECKPOINT_TENSOR_PARTS)


def is_implementation_name(name: str) -> bool:
    """True for a def/class name of the pinned packages that is not user-facing and looks like code.

    Single lower-case words (``config``, ``accept``, ``model``) are skipped even when
    some module defines them: in prose they are ordinary words or values. A name
    counts when it is private (``_handle_eagle_family``), snake_case with an
    inner underscore (``organize_draft_results``) or CamelCase (``ModelConfig``).
    """
    if name not in implementation_names() or name in user_facing_names() or name.isupper():
        return False
    if name.startswith("__") and name.endswith("__"):
        return False
    return name.startswith("_") or "_" in name.strip("_") or bool(_CAMEL_RE.match(name))


def _is_cli_module(dotted: str) -> bool:
    """``sglang.launch_server``-style names of modules a user runs with ``python -m``."""
    path = site_packages() / dotted.replace(".", "/")
    if (path / "__main__.py").exists():
        return True
    file = path.with_suffix(".py")
    return file.exists() and "__main__" in _read(file)


def source_reference(code: str) -> str | None:
    """What an inline code span names of the implementation, or None if it is user-facing.

    Returns ``"file"`` for a source file (``speculative_hook.py``, ``sglang/srt/...``),
    ``"module"`` for a dotted module path that is not a ``python -m`` entry point,
    or the implementation name found (``_handle_eagle_family``,
    ``LlamaForCausalLMEagle3.load_weights`` gives ``load_weights``).
    Flags (``--...``), endpoints (``/server_info``), URLs and other paths
    (model ids, directories) return None, and so do spans of three or more
    words: quoted error messages, log lines and commands are what the user
    sees, even when they name a function.
    """
    text = re.sub(r"^(?:GET|POST|python3? -m)\s+", "", code.strip())
    if re.match(r"(?:sglang|specforge)/\w", text):
        return "file"
    for path in re.findall(r"[\w./-]*\w\.py\b", text):
        if path.rsplit("/", 1)[-1] in source_file_names():
            return "file"
    if text.startswith(("-", "/")) or "/" in text or len(text.split()) >= 3:
        return None  # a flag, endpoint or path; or a quoted message, log line or command
    for token in _IDENT_RE.findall(text):
        parts = token.split(".")
        if parts[0] in ("sglang", "specforge") and len(parts) > 1:
            if _is_cli_module(token) or parts[-1].startswith("__"):
                continue
            return "module"
        for part in parts:
            if is_implementation_name(part):
                return part
    return None


def running_text(page: Path) -> tuple[list[str], int]:
    """The implementation references in a built page's prose and tables, and its word count.

    Reads the ``<article>``; code blocks (``<pre>``), ``.source-note`` elements
    (the {source} role's ``<span>`` and the directive's ``<aside>``), scripts and
    heading anchors are left out of both. Inline code counts as words.
    """
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    article = soup.select_one("article") or soup
    for element in article.select("pre, .source-note, script, style, .headerlink"):
        element.decompose()
    hits = [f"{kind}: {code.get_text()}" for code in article.find_all("code")
            if (kind := source_reference(code.get_text()))]
    return hits, len(article.get_text(" ").split())


def checked_pages() -> list[str]:
    """Doc names of every tutorial, how-to and reference page (Markdown or notebook), minus EXEMPT."""
    names = []
    for folder in ("tutorial", "how-to", "reference"):
        for source in sorted((DOCS / folder).rglob("*")):
            if source.suffix in (".md", ".myst", ".ipynb"):
                name = source.relative_to(DOCS).with_suffix("").as_posix()
                if name not in EXEMPT:
                    names.append(name)
    return names


@pytest.mark.parametrize("docname", checked_pages())
def test_inline_source_references_are_at_most_two_per_thousand_words(html_dir, docname):
    hits, words = running_text(html_dir / f"{docname}.html")
    allowed = MAX_PER_1000_WORDS * max(words, 1) / 1000
    assert len(hits) <= allowed, (
        f"{docname}: {len(hits)} inline source references in {words} words "
        f"(at most {allowed:.1f}); move them into {{source}} roles or a source-note: {hits}")


# -- the classifier itself: what it must and must not count ------------------------------

@pytest.mark.parametrize("code, kind", [
    ("speculative_hook.py", "file"),
    ("metrics_reporter.py", "file"),
    ("sglang/srt/arg_groups/speculative_hook.py", "file"),
    ("arg_groups/speculative_hook.py: _handle_eagle_family", "file"),
    ("_handle_eagle_family", "_handle_eagle_family"),
    ("LlamaForCausalLMEagle3.load_weights", "load_weights"),
    ("sglang.srt.speculative.spec_info", "module"),
])
def test_source_files_and_implementation_functions_are_counted(code, kind):
    assert source_reference(code) == kind


@pytest.mark.parametrize("code", [
    "--speculative-algorithm EAGLE3", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "speculative_num_steps",
    "num_hidden_layers", "LlamaForCausalLMEagle3", "python -m sglang.launch_server", "sglang.bench_serving",
    "/server_info", "meta-llama/Llama-3.1-8B-Instruct", "flashinfer", "config.json", "lm_head.weight",
    "draft_vocab_size", "accept", "model", "python inspect_draft.py",
    "Model <class> implements neither set_dspark_layers_to_capture nor set_dflash_layers_to_capture",
])
def test_flags_env_vars_config_keys_cli_modules_and_model_ids_are_not_counted(code):
    assert source_reference(code) is None, code


# -- the audit's corrections (issue #11) ----------------------------------------------------

def page_text(html_dir: Path, docname: str) -> str:
    """The visible text of a built page's article, whitespace collapsed, apostrophes straight (source notes included)."""
    soup = BeautifulSoup((html_dir / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")
    for element in soup.select("script, style, .headerlink"):
        element.decompose()
    text = " ".join((soup.select_one("article") or soup).get_text(" ").split())
    return text.replace("\u2019", "'")  # Sphinx's smart quotes


def section_text(html_dir: Path, docname: str, section_id: str) -> str:
    """The visible text of the ``<section id=...>`` of a built page, whitespace collapsed."""
    soup = BeautifulSoup((html_dir / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")
    section = soup.find("section", id=section_id)
    assert section is not None, f"{docname} has no section {section_id!r}"
    return " ".join(section.get_text(" ").split())


def sentences(text: str) -> list[str]:
    """Split collapsed text at sentence ends (a full stop, ! or ? followed by a space)."""
    return re.split(r"(?<=[.!?])\s+", text)


def test_nextn_is_called_an_alias_of_eagle_not_of_eagle3(html_dir):
    for docname in ("explanation/draft-trees", "explanation/eagle-family", "explanation/mtp",
                    "reference/compatibility", "reference/glossary", "reference/draft-checkpoint-format"):
        text = page_text(html_dir, docname)
        wrong = [s for s in sentences(text)
                 if re.search(r"EAGLE3\W+\(?and its alias\W+NEXTN|NEXTN\W+(?:is )?(?:an )?alias of\W+EAGLE3", s)]
        assert not wrong, (docname, wrong)
    text = page_text(html_dir, "explanation/draft-trees")
    assert re.search(r"NEXTN\W+(?:is )?an alias of\W+EAGLE\b(?!3)", text)


def test_rejection_sampling_needs_the_full_target_vocabulary(html_dir):
    section = section_text(html_dir, "reference/compatibility", "compat-rejection-sampling")
    assert "--speculative-use-rejection-sampling requires the draft and target to share one vocab" in section
    assert re.search(r"reduced[- ]vocabulary EAGLE-3 draft", section)
    assert "--speculative-token-map" in section


def test_deepseek_v3_on_blackwell_defaults_to_trtllm_mla(html_dir):
    text = page_text(html_dir, "reference/compatibility")
    assert re.search(r"DeepseekV3ForCausalLM[^.]*SM100[^.]*trtllm_mla|DeepseekV3ForCausalLM[^.]*Blackwell[^.]*trtllm_mla",
                     text)
    wrong = [s for s in sentences(text) if re.search(r"MLA models: .*flashinfer. on Blackwell", s)]
    assert not wrong, wrong


def test_dflash_dp_attention_conditions_apply_off_npu_only(html_dir):
    soup = BeautifulSoup((html_dir / "reference/compatibility.html").read_text(encoding="utf-8"), "html.parser")
    rows = [" ".join(tr.get_text(" ").split()) for tr in soup.find("section", id="compat-dp-attention").find_all("tr")]
    row = next(r for r in rows if r.startswith("DFLASH"))
    assert re.search(r"only when the device is not NPU|On NPU none of these conditions", row), row
    assert "conditions: CUDA or NPU;" not in row  # the audit: stated as if it held on NPU too


def test_multi_layer_eagle_is_automatic_only_for_literal_eagle(html_dir):
    text = page_text(html_dir, "reference/draft-checkpoint-format")
    assert re.search(r"--speculative-algorithm EAGLE\b[^.]*not[^.]*NEXTN", text)
    compat = page_text(html_dir, "reference/compatibility")
    assert "NEXTN resolves to EAGLE before any of these checks run" not in compat
    assert re.search(r"exception.{0,120}multi-layer EAGLE.{0,160}not\W+NEXTN", compat)


def test_accept_length_ceiling_is_stated_once_with_the_tree_bound(html_dir):
    text = page_text(html_dir, "explanation/speedup")
    section = text[text.index("How high can the accept length go?"):]
    assert "min( --speculative-num-steps , --speculative-num-draft-tokens − 1) + 1" in section \
        or "min(--speculative-num-steps, --speculative-num-draft-tokens − 1) + 1" in section
    # Pages that mention the ceiling link to it ({ref} gives the label's id; a
    # notebook's Markdown link gives the heading's own id).
    targets = ("speedup.html#accept-length-ceiling", "speedup.html#how-high-can-the-accept-length-go")
    for docname in ("explanation/draft-trees", "explanation/how-it-works", "reference/glossary",
                    "explanation/batch-size-roofline"):
        soup = BeautifulSoup((html_dir / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")
        hrefs = [a.get("href", "") for a in soup.select("article a")]
        assert any(h.endswith(targets) for h in hrefs), docname


def test_the_simulator_notebook_says_sglang_adjusts_what_it_refuses(html_dir):
    text = page_text(html_dir, "explanation/draft-trees-sim")
    refusal = text.index("simulator only: budget 8, 5 steps, topk 1 -> ValueError: 5 candidate nodes")
    note = text[refusal:refusal + 1500]
    assert "The ValueError above is the simulator's, not SGLang's" in note
    assert "speculative_num_draft_tokens is adjusted to speculative_num_steps + 1" in note


def test_the_roofline_notebook_states_no_starting_tree(html_dir):
    soup = BeautifulSoup((html_dir / "explanation/batch-size-roofline.html").read_text(encoding="utf-8"),
                         "html.parser")
    hrefs = [a.get("href", "") for a in soup.select("article a")]
    assert any("decision-table.html" in h for h in hrefs)
    text = page_text(html_dir, "explanation/batch-size-roofline")
    assert "caps it at 48" not in text


OWN_PAGES = ["explanation/draft-trees", "explanation/how-it-works", "explanation/eagle-family", "explanation/mtp",
             "explanation/draft-trees-sim", "explanation/batch-size-roofline", "explanation/expected-speedup",
             "reference/compatibility", "reference/glossary", "reference/draft-checkpoint-format",
             "reference/model-pairs", "reference/server-arguments"]


@pytest.mark.parametrize("docname", OWN_PAGES)
def test_no_other_page_restates_the_accept_length_ceiling(html_dir, docname):
    restated = [s for s in sentences(page_text(html_dir, docname))
                if re.search(r"(?:accept length|accept len)\b[^.]*\bat most\b[^.]*num.steps\W*\+\s*1", s, re.I)]
    assert not restated, (docname, restated)
