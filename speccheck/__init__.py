"""speccheck: check SGLang and SpecForge commands against the pinned releases' own code.

The public interface::

    import speccheck
    speccheck.check_command("sglang serve Qwen/Qwen3-8B --speculative-algorithm EAGLE2")
    speccheck.check_file("docs/how-to/eagle3.md")

Both return a list of :class:`Diagnostic` (``str(d)`` is ``path:line: severity: message``).
"""

from speccheck.check import check_command, check_file, check_source
from speccheck.diagnostics import Diagnostic

__all__ = ["Diagnostic", "check_command", "check_file", "check_source"]
