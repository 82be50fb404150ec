"""A workflow history as readable lines: activities with durations, signals, updates, children."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from desk.config.basics.dates import shown_date
from desk.config.basics.durations import format_duration
from desk.scrub import scrub
from surfaces.render.words.history_conversation import (
    conversation_answer,
    conversation_signal,
    conversation_update,
)
from surfaces.render.words.history_noise import without_noise

E = EventType


@dataclass(frozen=True)
class HistoryLine:
    """One thing that happened to a workflow, in words a person reads."""

    at: datetime
    text: str

    def render(self, zone: str = "") -> str:
        """`2026-12-01 21:26:00 UTC  activity run_agent completed in 3.2s`, dated in `zone`."""
        return f"{shown_date(self.at, zone)}  {self.text}"


class HistoryReader:
    """Turns events into lines, remembering what each activity and timer was started as."""

    def __init__(self) -> None:
        self.activities: dict[int, str] = {}
        self.started: dict[int, datetime] = {}
        self.updates: dict[str, str] = {}
        """Each accepted Update's name, by its id (its completion names only the id)."""

    def read(self, event: HistoryEvent) -> HistoryLine | None:
        at = event.event_time.ToDatetime(tzinfo=UTC)
        text = self._describe(event, at)
        return HistoryLine(at=at, text=scrub(text)) if text else None

    def _describe(self, event: HistoryEvent, at: datetime) -> str:
        kind = event.event_type
        if kind == E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
            attrs = event.workflow_execution_started_event_attributes
            return f"workflow {attrs.workflow_type.name} started on {attrs.task_queue.name}"
        if kind == E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            self.activities[event.event_id] = name
            self.started[event.event_id] = at
            return f"activity {name} scheduled{_summary(event)}"
        if kind == E.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            began = event.activity_task_started_event_attributes
            name = self.activities.get(began.scheduled_event_id, "?")
            attempt = f" (attempt {began.attempt})" if began.attempt > 1 else ""
            return f"activity {name} started{attempt}"
        if kind == E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            scheduled = event.activity_task_completed_event_attributes.scheduled_event_id
            name = self.activities.get(scheduled, "?")
            return f"activity {name} completed{self._took(scheduled, at)}"
        if kind == E.EVENT_TYPE_ACTIVITY_TASK_FAILED:
            failed = event.activity_task_failed_event_attributes
            name = self.activities.get(failed.scheduled_event_id, "?")
            return f"activity {name} failed: {failed.failure.message}"
        if kind == E.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
            timed_out = event.activity_task_timed_out_event_attributes
            name = self.activities.get(timed_out.scheduled_event_id, "?")
            return f"activity {name} timed out: {timed_out.failure.message}"
        if kind == E.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED:
            return "activity cancellation requested"
        if kind == E.EVENT_TYPE_ACTIVITY_TASK_CANCELED:
            scheduled = event.activity_task_canceled_event_attributes.scheduled_event_id
            name = self.activities.get(scheduled, "?")
            return f"activity {name} cancelled{self._took(scheduled, at)}"
        return self._messages(event)

    def _messages(self, event: HistoryEvent) -> str:
        kind = event.event_type
        if kind == E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
            signalled = event.workflow_execution_signaled_event_attributes
            said = conversation_signal(signalled.signal_name, signalled.input.payloads)
            return said if said is not None else f"signal {signalled.signal_name} received"
        if kind == E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
            request = event.workflow_execution_update_accepted_event_attributes.accepted_request
            self.updates[request.meta.update_id] = request.input.name
            said = conversation_update(request.input.name, request.input.args.payloads)
            return said if said is not None else f"update {request.input.name} accepted"
        if kind == E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
            completed = event.workflow_execution_update_completed_event_attributes
            name = self.updates.get(completed.meta.update_id, "")
            said = conversation_answer(name, completed.outcome)
            return said if said is not None else "update completed"
        if kind == E.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
            attrs = event.signal_external_workflow_execution_initiated_event_attributes
            return f"signal {attrs.signal_name} sent to {attrs.workflow_execution.workflow_id}"
        if kind == E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
            child = event.start_child_workflow_execution_initiated_event_attributes
            return f"starting {child.workflow_type.name} {child.workflow_id}"
        if kind == E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED:
            refused = event.start_child_workflow_execution_failed_event_attributes
            return f"{refused.workflow_id} already runs; using it"
        if kind == E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
            fields = event.upsert_workflow_search_attributes_event_attributes.search_attributes
            shown = ", ".join(
                f"{key.removeprefix('Codedesk').lower()}={value.data.decode().strip(chr(34))}"
                for key, value in sorted(fields.indexed_fields.items())
                if key != PATCHES_ATTRIBUTE
            )
            return f"now {shown}" if shown else ""
        if kind == E.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED:
            failed = event.signal_external_workflow_execution_failed_event_attributes
            return f"{failed.workflow_execution.workflow_id} does not run: the signal was not sent"
        if kind == E.EVENT_TYPE_MARKER_RECORDED:
            return _local_activity(event)
        if kind == E.EVENT_TYPE_TIMER_STARTED:
            return f"timer started{_summary(event)}"
        if kind == E.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED:
            return "cancellation requested"
        return self._closing(event)

    @staticmethod
    def _closing(event: HistoryEvent) -> str:
        closing = {
            E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: "workflow completed",
            E.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: "workflow failed",
            E.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED: "workflow cancelled",
            E.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED: "workflow terminated",
            E.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT: "workflow timed out",
            E.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW: "workflow continued as new",
        }
        return closing.get(event.event_type, "")

    def _took(self, scheduled: int, at: datetime) -> str:
        began = self.started.get(scheduled)
        return f" in {format_duration(at - began)}" if began else ""


PATCHES_ATTRIBUTE = "TemporalChangeVersion"
"""The search attribute the SDK keeps the workflow's code patches in: nothing a person reads."""

LOCAL_ACTIVITY_MARKER = "core_local_activity"
"""The marker the SDK records for a local activity (other markers, such as patches, say nothing
a person needs)."""


def _local_activity(event: HistoryEvent) -> str:
    """A local activity's marker as one line: its name, how it ended, how long it took."""
    marker = event.marker_recorded_event_attributes
    if marker.marker_name != LOCAL_ACTIVITY_MARKER or "data" not in marker.details:
        return ""
    try:
        data = json.loads(marker.details["data"].payloads[0].data)
    except (IndexError, ValueError):
        return "local activity (unreadable marker)"
    name = str(data.get("activity_type") or "?")
    attempt = int(data.get("attempt") or 1)
    tries = f" (attempt {attempt})" if attempt > 1 else ""
    if marker.HasField("failure"):
        return f"local activity {name} failed{tries}: {marker.failure.message}"
    took = ""
    began, ended = data.get("original_schedule_time"), data.get("complete_time")
    if isinstance(began, dict) and isinstance(ended, dict):
        took = f" in {format_duration(_instant(ended) - _instant(began))}"
    return f"local activity {name} completed{tries}{took}"


def _summary(event: HistoryEvent) -> str:
    """`: claude, attempt 2`: the summary the workflow gave the step (Temporal's user metadata)."""
    if not event.user_metadata.HasField("summary"):
        return ""
    try:
        said = json.loads(event.user_metadata.summary.data)
    except ValueError:
        return ""
    return f": {said}" if isinstance(said, str) and said else ""


def _instant(stamp: dict[str, int]) -> datetime:
    seconds = stamp.get("seconds", 0) + stamp.get("nanos", 0) / 1e9
    return datetime.fromtimestamp(seconds, UTC)


def history_lines(events: list[HistoryEvent]) -> list[HistoryLine]:
    """The lines of a whole history, without its noise (`without_noise`), in time order."""
    reader = HistoryReader()
    lines = [line for event in without_noise(events) if (line := reader.read(event)) is not None]
    return sorted(lines, key=lambda line: line.at)
