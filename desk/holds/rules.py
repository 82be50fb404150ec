"""Which of an agent's tool calls must wait for a person: the hold rules, for the worker.

The rule itself is `desk.shell_rule.shell_calls`, read through `desk.holds.held_calls` (the
standard library only, so the agent's hook runs the same code); this wraps it in the pydantic
models the job's `classify_call` activity takes and returns. It resolves symlinks, so the job runs
it in an activity, never in workflow code.
"""

from __future__ import annotations

from desk.holds.approvals import Classification, ClassifyInput
from desk.holds.held_calls import classify
from desk.shell_rule.shell_calls import (
    ALWAYS,
    DEFAULT_HOLD_CLASSES,
    SHELL_TOOLS,
    WRITE_TOOLS,
)

CREDENTIAL = "credential"
"""The hold class of a call that held a credential: it was scrubbed before it was classified,
so the rule saw less than will run, and a person decides (fail closed)."""

__all__ = [
    "ALWAYS",
    "CREDENTIAL",
    "DEFAULT_HOLD_CLASSES",
    "SHELL_TOOLS",
    "WRITE_TOOLS",
    "classify_call",
]


def classify_call(request: ClassifyInput) -> Classification:
    """The hold classes of one call that the configured rules hold, and a one-line action."""
    verdict = classify(
        request.tool, request.input, request.workspace, request.hold_classes, request.hold_tools
    )
    classes = list(verdict.classes)
    if request.scrubbed:
        classes = sorted({*classes, CREDENTIAL})
    return Classification(classes=classes, action=verdict.action)
