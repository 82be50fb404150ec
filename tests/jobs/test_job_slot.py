"""A job's desk slot comes back when its agent is done, and its end waits for nothing more."""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus

from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.jobs.desk_queue import marked, marks, settled
from tests.helpers.stand_ins.held_integrate import (
    INTEGRATING,
    LET_GO,
)

REPO = "acme/api"


async def test_the_next_job_runs_while_the_one_before_integrates(
    one_slot: DeskClient, client: Client
) -> None:
    desk, log = one_slot, one_slot.settings.home  # the agents' marks are in its jobs' logs
    first = await desk.submit_job(REPO, "first", agent_command=agent("mark"))
    second = await desk.submit_job(REPO, "second", agent_command=agent("mark"))
    assert (first.position, second.position) == (0, 1)

    await asyncio.wait_for(INTEGRATING.wait(), timeout=30)
    await marked(log, 2)  # the second agent ran: the first job's slot came back
    described = await client.get_workflow_handle(job_workflow_id(first.number)).describe()
    assert described.status == WorkflowExecutionStatus.RUNNING, "the first job was not integrating"
    assert marks(log) == [first.number, second.number]

    LET_GO.set()
    reports = [await desk.wait(number) for number in (first.number, second.number)]
    assert [r.outcome for r in reports] == [JobOutcome.NOTHING, JobOutcome.NOTHING], reports
    final = await settled(desk)
    assert final.reclaimed == 0, "a slot came back only by reclaiming"


async def test_a_job_ends_in_the_workflow_task_that_hears_its_integration(
    desk: DeskClient, client: Client, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "greet", agent_command=agent("write:a.txt=1", "commit:a"))
    assert (await desk.wait(number)).outcome == JobOutcome.INTEGRATED
    events = [
        event
        async for event in client.get_workflow_handle(
            job_workflow_id(number)
        ).fetch_history_events()
    ]
    answered = next(
        index
        for index, event in enumerate(events)
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
        and event.workflow_execution_signaled_event_attributes.signal_name == "integration_finished"
    )
    before = [EventType.Name(event.event_type) for event in events[:answered]]
    after = [EventType.Name(event.event_type) for event in events[answered + 1 :]]
    # Its session's keeper (`SessionKeep`, which removes the agent's session later) started
    # beside the integration, so the task that hears the answer is the job's last.
    assert "EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED" in before, before
    tasks = after.count("EVENT_TYPE_WORKFLOW_TASK_COMPLETED")
    assert tasks == 1, f"the job's end took {tasks} workflow tasks after the answer: {after}"
    assert after[-1] == "EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED", after
