"""Every speculative algorithm the pinned SGLang registers has a how-to with a launch command.

The names come from the members of ``SpeculativeAlgorithm`` in the installed
``sglang/srt/speculative/spec_info.py``, read with :mod:`ast` (importing it needs
torch). ``NONE`` is no algorithm, and ``FROZEN_KV_MTP`` is internal: SGLang switches
to it from ``EAGLE`` or ``NEXTN`` when the draft is a Gemma 4 assistant model, so
the MTP how-to covers it. ``NEXTN`` is an alias of ``EAGLE`` (``_RESERVED_ALIASES``),
not a member.
"""

from __future__ import annotations

import ast
import re

import pytest

from conftest import ROOT
from speccheck.errors import site_packages

HOWTOS = ROOT / "docs" / "how-to"
NOT_USER_FACING = {"NONE", "FROZEN_KV_MTP"}
# The page that teaches each algorithm, by its label.
HOWTO_OF = {"EAGLE": "eagle2", "EAGLE3": "eagle3", "STANDALONE": "standalone", "NGRAM": "ngram",
            "DFLASH": "dflash", "DSPARK": "dspark", "UNO": "uno"}


def registered_algorithms() -> list[str]:
    """The member names of ``SpeculativeAlgorithm`` in the pinned wheel, in source order."""
    tree = ast.parse((site_packages() / "sglang" / "srt" / "speculative" / "spec_info.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SpeculativeAlgorithm")
    return [t.id for s in cls.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)]


def test_the_registry_holds_the_algorithms_this_test_expects():
    assert set(registered_algorithms()) - NOT_USER_FACING == set(HOWTO_OF)


@pytest.mark.parametrize("name", sorted(HOWTO_OF))
def test_each_registered_algorithm_has_a_howto_with_a_launch_command(name):
    page = HOWTOS / f"{HOWTO_OF[name]}.md"
    assert page.is_file(), page
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r"^```(?:bash|console|shell)\n(.*?)^```", text, re.M | re.S)
    assert any(re.search(rf"--speculative-algorithm {name}\b", b) for b in blocks), f"{page.name}: no command for {name}"


@pytest.mark.parametrize("name", sorted(HOWTO_OF))
def test_each_howto_is_in_the_howto_index(name):
    index = (HOWTOS / "index.md").read_text(encoding="utf-8")
    assert re.search(rf"^{re.escape(HOWTO_OF[name])}$", index, re.M), HOWTO_OF[name]
