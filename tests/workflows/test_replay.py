"""Recorded histories still replay: a workflow change that breaks in-flight jobs fails here."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from workers.worker import WORKFLOWS

FOLDER = Path(__file__).parents[1] / "histories"
HISTORIES = sorted(path for path in FOLDER.glob("*.json") if path.name != "workflow_ids.json")
WORKFLOW_IDS: dict[str, str] = json.loads((FOLDER / "workflow_ids.json").read_text())


@pytest.mark.parametrize("path", HISTORIES, ids=[path.stem for path in HISTORIES])
async def test_recorded_history_replays(path: Path) -> None:
    # The strict, default sandbox, not the worker's: here our workflow modules are imported
    # afresh and every non-deterministic call in them is refused (workers/workflow_runner.py).
    replayer = Replayer(
        workflows=list(WORKFLOWS),
        data_converter=pydantic_data_converter,
        workflow_runner=SandboxedWorkflowRunner(),
    )
    history = WorkflowHistory.from_json(WORKFLOW_IDS[path.stem], path.read_text())
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{path.name}: {result.replay_failure}"


def test_there_are_histories_to_replay() -> None:
    assert len(HISTORIES) >= 21


def recorded_type(path: Path) -> str:
    """The workflow type a recording is of, from its first event."""
    started = json.loads(path.read_text())["events"][0]
    return str(started["workflowExecutionStartedEventAttributes"]["workflowType"]["name"])


def test_every_workflow_type_has_a_recorded_history() -> None:
    """A new workflow type needs a recording (tests/histories/record.py) before it ships."""
    recorded = {recorded_type(path) for path in HISTORIES}
    registered = {workflow._Definition.must_from_class(cls).name for cls in WORKFLOWS}
    assert registered - recorded == set(), "record these with tests/histories/record.py"


@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("coding_job_host_waited", "EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT"),
        ("coding_job_sandboxed", "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED"),
        ("coding_job_cancelled_in_setup", "EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED"),
        ("repo_entity_setup_memo", "EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED"),
        ("ship_head_checked", "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED"),
        ("ship_head_checked", "EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED"),
    ],
)
def test_a_recorded_shape_shows_what_it_is_named_for(name: str, shape: str) -> None:
    """The host-wait job timed out on its host's queue once; the sandboxed one answered holds;
    the one cancelled during its set-up ended with a report, not as a cancelled workflow; the
    entity wrote its set-up into its memo; the push at HEAD answered `codedesk push`'s Update
    and opened its approval."""
    events = json.loads((FOLDER / f"{name}.json").read_text())["events"]
    assert shape in {event["eventType"] for event in events}


@pytest.mark.parametrize(
    ("name", "skipped", "ran"),
    [
        ("coding_job_setup_at_cut", "set_up_worktree", "check_worktree"),
        ("coding_job_check_skipped", "check_worktree", "set_up_worktree"),
    ],
)
def test_a_recording_of_the_set_up_read_skipped_the_step_it_had_nothing_for(
    name: str, skipped: str, ran: str
) -> None:
    events = json.loads((FOLDER / f"{name}.json").read_text())["events"]
    scheduled = [
        event["activityTaskScheduledEventAttributes"]["activityType"]["name"]
        for event in events
        if event["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"
    ]
    patches = [
        json.loads(base64.b64decode(payload["data"]))["id"]
        for event in events
        if event["eventType"] == "EVENT_TYPE_MARKER_RECORDED"
        for payload in event["markerRecordedEventAttributes"]["details"]["patch-data"]["payloads"]
    ]
    assert "setup-read-at-the-cut" in patches, patches
    assert ran in scheduled and skipped not in scheduled, scheduled


def test_the_recorded_push_of_a_moved_head_read_it_and_asked_nobody() -> None:
    events = json.loads((FOLDER / "ship_head_moved.json").read_text())["events"]
    kinds = {event["eventType"] for event in events}
    scheduled = [
        event["activityTaskScheduledEventAttributes"]["activityType"]["name"]
        for event in events
        if event["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"
    ]
    patches = [
        json.loads(base64.b64decode(payload["data"]))["id"]
        for event in events
        if event["eventType"] == "EVENT_TYPE_MARKER_RECORDED"
        for payload in event["markerRecordedEventAttributes"]["details"]["patch-data"]["payloads"]
    ]
    assert "ship-head-check" in patches, patches
    assert "clone_head" in scheduled, scheduled
    assert "EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED" not in kinds
