"""speccheck: check SGLang and SpecForge commands against the pinned releases' own code.

The public interface::

    import speccheck
    speccheck.check_command("sglang serve Qwen/Qwen3-8B --speculative-algorithm EAGLE2")
    speccheck.check_file("docs/how-to/eagle3.md")

Both return a list of :class:`Diagnostic` (``str(d)`` is ``path:line: severity: message``).
"""

__all__ = ["Diagnostic", "check_command", "check_file", "check_source"]


def __getattr__(name: str):
    """The public names, imported on first use: ``speccheck.pinned`` alone (``conf.py``) stays cheap."""
    if name == "Diagnostic":
        from speccheck.diagnostics import Diagnostic

        return Diagnostic
    if name in __all__:
        from speccheck import check

        return getattr(check, name)
    raise AttributeError(f"module 'speccheck' has no attribute {name!r}")
