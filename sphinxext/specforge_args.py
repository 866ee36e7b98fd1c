"""SpecForge's own command-line parser and run-config schema, without torch.

SpecForge 0.2.0 builds its ``argparse`` parser inside ``specforge.cli.main(argv)``
and does not expose it. :func:`specforge_parser` runs ``main`` with
``ArgumentParser.parse_args`` replaced by a function that hands back the parser
it was called on and stops there, so nothing after parsing (training, export)
runs. ``specforge.cli`` and ``specforge.config`` import without torch.

:func:`validate_config` checks a YAML run config with SpecForge's own loader
(``specforge.config.load_config``, which validates it against the pydantic
``Config`` schema).
"""

from __future__ import annotations

import argparse
import functools
import tempfile
from pathlib import Path
from unittest import mock


class _Captured(Exception):
    def __init__(self, parser: argparse.ArgumentParser):
        super().__init__("parser captured")
        self.parser = parser


def _capture(self, args=None, namespace=None):
    raise _Captured(self)


@functools.cache
def specforge_parser() -> argparse.ArgumentParser:
    """The parser ``specforge`` (``specforge.cli.main``) builds, captured before it parses anything.

    :raises RuntimeError: ``main`` returned without parsing (its shape changed), or
        SpecForge is not installed (then the :class:`ImportError` is chained).
    """
    from specforge import cli

    with mock.patch.object(argparse.ArgumentParser, "parse_args", _capture):
        try:
            cli.main([])
        except _Captured as got:
            return got.parser
    raise RuntimeError("specforge.cli.main finished without calling parse_args: update specforge_args.py")


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
