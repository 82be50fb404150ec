"""The `classify_call` activity: hold rules read the file system (symlinks), so not a workflow."""

from __future__ import annotations

from temporalio import activity

from desk.holds.approvals import Classification, ClassifyInput
from desk.holds.rules import classify_call


@activity.defn(name="classify_call")
async def classify_call_activity(request: ClassifyInput) -> Classification:
    """Which hold classes of the configured rules this call falls under."""
    return classify_call(request)
