"""The hold rules as the worker's `classify_call` activity reads them (desk/hold_rules.py).

The shell rule resolves symlinks, so the job runs this in an activity, never in workflow code.
"""

from __future__ import annotations

from desk.approvals import Classification, ClassifyInput
from desk.hold_rules import classify


def classify_call(request: ClassifyInput) -> Classification:
    """The hold classes of one call that the configured rules hold, and a one-line action."""
    verdict = classify(
        request.tool, request.input, request.workspace, request.hold_classes, request.hold_tools
    )
    return Classification(classes=list(verdict.classes), action=verdict.action)
