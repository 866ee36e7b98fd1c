"""SpecForge's own command-line parser and run-config schema, without torch.

The pinned SpecForge builds its ``argparse`` parser inside ``specforge.cli.main(argv)``
(``specforge/cli.py``) and does not expose it; :func:`specforge_parser` takes it
with :func:`sglang_args.parser_built_by`, so nothing after parsing (training,
export) runs. ``specforge.cli`` and ``specforge.config`` import without torch.

:func:`validate_config` checks a YAML run config with SpecForge's own loader
(``specforge.config.load_config``, which validates it against the pydantic
``Config`` schema).
"""

from __future__ import annotations

import argparse
import functools
import tempfile
from pathlib import Path

from speccheck.sglang_args import parser_built_by


@functools.cache
def specforge_parser() -> argparse.ArgumentParser:
    """The parser ``specforge`` (``specforge/cli.py: main``) builds, taken before it parses anything.

    :raises ImportError: SpecForge is not installed.
    :raises RuntimeError: ``main`` returned without parsing (its shape changed).
    """
    from specforge import cli

    return parser_built_by(cli.main, [])


def validate_config(text: str) -> None:
    """Validate a YAML run config as ``specforge train -c FILE`` would load it.

    :param text: the YAML document.
    :raises Exception: whatever ``specforge.config.load_config`` raises (a pydantic
        ``ValidationError`` listing the bad fields, a YAML error, ...).
    """
    from specforge.config import load_config

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.yaml"
        path.write_text(text, encoding="utf-8")
        load_config(str(path))
