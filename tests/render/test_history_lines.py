"""`codedesk show` reads a local activity and a refused signal, and hides the SDK's patches."""

from __future__ import annotations

import json

from google.protobuf.timestamp_pb2 import Timestamp
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from surfaces.render.words.history_lines import history_lines


def event(kind: EventType.ValueType, **attributes: object) -> HistoryEvent:
    made = HistoryEvent(event_type=kind, event_time=Timestamp(seconds=1_800_000_000))
    for name, value in attributes.items():
        getattr(made, name).CopyFrom(value)
    return made


def test_a_local_activity_marker_reads_as_a_line_with_its_duration() -> None:
    data = {
        "activity_type": "prepare_worktree",
        "attempt": 2,
        "original_schedule_time": {"seconds": 100, "nanos": 0},
        "complete_time": {"seconds": 100, "nanos": 250_000_000},
    }
    marker = HistoryEvent().marker_recorded_event_attributes
    marker.marker_name = "core_local_activity"
    marker.details["data"].CopyFrom(Payloads(payloads=[Payload(data=json.dumps(data).encode())]))
    patch = HistoryEvent().marker_recorded_event_attributes
    patch.marker_name = "core_patch"
    lines = history_lines(
        [
            event(EventType.EVENT_TYPE_MARKER_RECORDED, marker_recorded_event_attributes=marker),
            event(EventType.EVENT_TYPE_MARKER_RECORDED, marker_recorded_event_attributes=patch),
        ]
    )
    assert [line.text for line in lines] == [
        "local activity prepare_worktree completed (attempt 2) in 250ms"
    ]


def test_patches_are_not_shown_and_a_refused_signal_is() -> None:
    upsert = HistoryEvent().upsert_workflow_search_attributes_event_attributes
    upsert.search_attributes.indexed_fields["TemporalChangeVersion"].data = b'["x"]'
    failed = HistoryEvent().signal_external_workflow_execution_failed_event_attributes
    failed.workflow_execution.workflow_id = "repo-acme/api"
    lines = history_lines(
        [
            event(
                EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
                upsert_workflow_search_attributes_event_attributes=upsert,
            ),
            event(
                EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED,
                signal_external_workflow_execution_failed_event_attributes=failed,
            ),
        ]
    )
    assert [line.text for line in lines] == ["repo-acme/api does not run: the signal was not sent"]


def test_a_signal_resent_after_its_entity_was_started_is_read_once_in_time_order() -> None:
    from pathlib import Path

    from temporalio.client import WorkflowHistory

    path = Path(__file__).parents[1] / "histories" / "coding_job_host_policy.json"
    history = WorkflowHistory.from_json("job", path.read_text())
    failed = EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED
    assert any(e.event_type == failed for e in history.events)  # the history has the noise
    lines = history_lines(list(history.events))
    texts = [line.text for line in lines]
    assert not any("the signal was not sent" in text for text in texts), texts
    assert [line.at for line in lines] == sorted(line.at for line in lines)
    for index, text in enumerate(texts):
        if text.startswith("starting "):
            target = text.split()[-1]
            before = [t for t in texts[:index] if t.endswith(f"sent to {target}")]
            assert before == [], (target, texts)


def test_a_step_s_summary_is_in_its_line() -> None:
    scheduled = HistoryEvent().activity_task_scheduled_event_attributes
    scheduled.activity_type.name = "run_agent"
    made = event(
        EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
        activity_task_scheduled_event_attributes=scheduled,
    )
    made.user_metadata.summary.CopyFrom(Payload(data=b'"claude, attempt 2"'))
    [line] = history_lines([made])
    assert line.text == "activity run_agent scheduled: claude, attempt 2"
