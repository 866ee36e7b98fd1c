"""What the checker reports: one :class:`Diagnostic` per problem, in compiler style."""

from __future__ import annotations

from dataclasses import dataclass, replace

ERROR = "error"
WARNING = "warning"
# The check cannot give SGLang's verdict here: the command names a file on the reader's machine,
# a value comes from an expansion the check cannot see, or SGLang's start-up code needs what the
# check does not have (an exception it does not expect). Neither a fault nor a pass.
UNDECIDED = "undecided"
SEVERITIES = (ERROR, WARNING, UNDECIDED)

# rule id -> Sphinx label of the guide section that explains it (None: no section).
# The labels are defined on the guide's pages (docs/); tests/test_commands.py checks
# that each one exists.
SECTIONS: dict[str, str | None] = {
    "not-a-command": "check-a-command",
    "unreadable-command": "check-a-command",
    "unknown-flag": "server-arguments",
    "renamed-flag": "release-changes-renamed",
    "removed-flag": "release-changes-removed",
    "ambiguous-flag": "release-changes",
    "abbreviated-flag": "server-arguments-checks",
    "deprecated-flag": "release-changes",
    "invalid-value": "server-arguments",
    "missing-value": "server-arguments",
    "parser-error": "server-arguments",
    "not-runnable": "check-a-command",
    "deprecated-module": "check-a-command",
    "unknown-algorithm": "eagle-family",
    "draft-path": "draft-path-rule",
    "unknown-architecture": "draft-path-rule",
    "tree-knobs-all-or-none": "tune-all-or-none",
    "topk-one-draft-tokens": "tune-topk-one",
    "topk-backend": "compat-topk-backends",
    "deepseek-v4-algorithm": "mtp-deepseek-v4",
    "deepseek-v4-topk": "mtp-deepseek-v4",
    "deepep-v2-draft": "ix-parallelism-moe",
    "dp-attention": "compat-dp-attention",
    "rejection-sampling": "compat-rejection-sampling",
    "block-verification": "compat-rejection-sampling",
    "draft-window": "feature-combinations",
    "dflash": "dflash-howto",
    "dflash-overrides": "dflash-howto",
    "dspark": "feature-combinations",
    "uno": "feature-combinations",
    "adaptive-steps": "tune-draft-tree",
    "adaptive-disabled": "tune-chain-vs-tree",
    "overlap-off": "compat-overlap",
    "too-few-candidates": "tune-limits",
    "ngram-corpus": "ngram-howto",
    "startup-error": "error-messages",
    "specforge-override": "specforge-train",
    "specforge-export": "specforge-export",
    "specforge-config": "specforge-configs",
    "python-syntax": None,
    "python-undefined-name": None,
    "expect-fail-passes": "contributing-command-check",
    "inline-flag": "server-arguments",
    # Severity "undecided": cannot be decided here (reference/check-a-command.md explains each).
    "undecided-file": "check-a-command-undecided",
    "undecided-expansion": "check-a-command-undecided",
    "undecided-startup": "check-a-command-undecided",
    "check-failed": "check-a-command-undecided",
}


@dataclass(frozen=True)
class Diagnostic:
    """One problem of a command, a code block or a page.

    :ivar path: the file it was found in; ``None`` for a pasted text (:func:`speccheck.check_command`).
    :ivar line: 1-based line in the file or text (for a notebook: in the cell's source; the message then
        starts with ``cell N:``).
    :ivar severity: ``"error"`` when the pinned release refuses the command (its parser or its
        start-up code raises), ``"warning"`` when it would run but the guide forbids the spelling
        (abbreviated or deprecated flags, values SGLang silently replaces, a model it cannot place),
        ``"undecided"`` when the check cannot give SGLang's verdict here (a local file SGLang reads
        at start-up, an expansion it cannot see, an exception from SGLang's code it does not expect).
    :ivar rule: a stable id (keys of :data:`SECTIONS`), e.g. ``"unknown-flag"``.
    :ivar flag: the flag the problem is about, when there is one.
    :ivar message: what is wrong, in one sentence or two.
    :ivar section: the Sphinx label of the guide section that explains the rule.
    :ivar source: ``path::name`` in the pinned wheel that decides it (``sglang/...`` or ``specforge/...``).
    """

    path: str | None
    line: int
    severity: str
    rule: str
    flag: str | None
    message: str
    section: str | None = None
    source: str | None = None

    def __str__(self) -> str:
        return f"{self.path or '<command>'}:{self.line}: {self.severity}: {self.message}"

    def at(self, path: str | None = None, line_offset: int = 0, prefix: str = "") -> Diagnostic:
        """The same diagnostic placed in a file: ``path``, ``line + line_offset``, ``prefix`` before the message."""
        return replace(self, path=path if path is not None else self.path, line=self.line + line_offset,
                       message=prefix + self.message)


def make(line: int, severity: str, rule: str, message: str, flag: str | None = None,
         source: str | None = None, path: str | None = None) -> Diagnostic:
    """A :class:`Diagnostic` whose ``section`` comes from :data:`SECTIONS`.

    :raises KeyError: ``rule`` is not a known rule id (a new rule needs an entry there).
    """
    return Diagnostic(path, line, severity, rule, flag, message, SECTIONS[rule], source)
