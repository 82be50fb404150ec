"""The Temporal UI tells the job's story (issue 30 part 5): the job's static summary and
details, its activities' and timers' summaries, and its current details, read from the real
server as the UI reads them (describe, the metadata query, the history's user metadata)."""

from __future__ import annotations

import json
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.api.sdk.v1 import WorkflowMetadata

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.names import job_workflow_id
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent, agent_script
from tests.helpers.job_waits import open_ids
from tests.helpers.waiting import eventually

TASK = "fix the login bug ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n\nand say why"


async def test_a_job_shows_its_summary_details_and_steps_in_temporal(
    desk: DeskClient, settings: DeskSettings, origin: Path, gates: Path
) -> None:
    go_on = gates / "go-on"
    await desk.add_repo("acme/api", str(origin))
    command = agent_script(gates, "say:working", f"wait:{go_on}")
    number = await desk.start_job("acme/api", TASK, agent_command=command)
    handle = desk.client.get_workflow_handle(job_workflow_id(number))

    async def current_details() -> str:
        metadata = await handle.query("__temporal_workflow_metadata", result_type=WorkflowMetadata)
        return metadata.current_details

    await eventually(current_details, lambda said: said.endswith(": working"), "the phase")
    described = await handle.describe()
    summary = await described.static_summary()
    assert summary == f"Job {number} on acme/api: fix the login bug ghp_***", summary
    details = await described.static_details()
    assert details is not None and "and say why" in details and "ghp_0123" not in details
    go_on.touch()
    await desk.wait(number)

    converter = desk.client.data_converter.payload_converter
    said: dict[str, list[str]] = {}
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            if event.user_metadata.HasField("summary"):
                text = converter.from_payload(event.user_metadata.summary, str)
                said.setdefault(name, []).append(text)
    assert said["prepare_worktree"] == [f"cutting worker/{number} of acme/api"], said
    assert said["run_agent"] == [f"{Path(command.split()[-1]).name}, attempt 1"], said


async def test_a_held_call_and_its_approval_say_what_waits(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    push = {"tool": "Bash", "input": {"command": "git push origin main"}}
    number = await desk.start_job(
        "acme/api", "push it", agent_command=agent("hold:" + json.dumps(push), "say:after")
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    described = await desk.client.get_workflow_handle(ident).describe()
    summary = await described.static_summary()
    assert summary is not None and summary.startswith("waiting for approval of "), summary
    assert "git push origin main" in summary, summary

    await approvals.answer(ident, Decision.DECLINE, Principal(id=settings.owner))
    await desk.wait(number)
    converter = desk.client.data_converter.payload_converter
    timers = []
    handle = desk.client.get_workflow_handle(job_workflow_id(number))
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_TIMER_STARTED:
            timers.append(str(converter.from_payload(event.user_metadata.summary, str)))
    assert summary in timers, timers  # the job's wait for the answer says the same
