"""What a person need not read in a workflow's history: a signal to an entity that was not
running, when the entity was then started and the signal sent again.

`send_to_outbox` and the other entity calls start the entity once and signal it; a workflow
that found its entity closed records "signal sent", "does not run: the signal was not sent",
"starting Repo ...", then the same signal again. Only the start and the signal that arrived
tell something; the failed attempt is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

E = EventType


def without_noise(events: Sequence[HistoryEvent]) -> list[HistoryEvent]:
    """`events` without each failed signal (and its initiation) to a workflow that the history
    starts or signals again afterwards."""
    dropped: set[int] = set()
    for index, event in enumerate(events):
        if event.event_type != E.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED:
            continue
        failed = event.signal_external_workflow_execution_failed_event_attributes
        target = failed.workflow_execution.workflow_id
        if any(_reaches(later, target) for later in events[index + 1 :]):
            dropped |= {event.event_id, failed.initiated_event_id}
    return [event for event in events if event.event_id not in dropped]


def _reaches(event: HistoryEvent, target: str) -> bool:
    if event.event_type == E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        return event.start_child_workflow_execution_initiated_event_attributes.workflow_id == target
    if event.event_type == E.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
        attrs = event.signal_external_workflow_execution_initiated_event_attributes
        return attrs.workflow_execution.workflow_id == target
    return False
