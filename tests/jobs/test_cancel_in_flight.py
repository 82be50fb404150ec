"""A cancel that lands while one of the job's messages is in flight is still honoured.

The moment is made, not hoped for (tests/helpers/stand_ins/held_signal.py): the workflow task
that sends the message is held until the cancel is on the server, so the job hears the cancel
while its message is in flight. The SDK shields a signal in flight from the cancel of the task that
awaits it, and once the signal is sent its await returns as if nothing happened: a job that did
not look would go on to take an integration, or to run an agent, it was told to drop.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.worker import SignalExternalWorkflowInput, StartChildWorkflowInput, Worker

from activities.shelf_paths import clone_path
from desk.config.settings import DeskSettings
from desk.holds.approvals import SurfacePlace
from desk.names import (
    JOB_ATTEMPT_NEWS_SIGNAL,
    OUTBOX_ENQUEUE_SIGNAL,
    OUTBOX_WORKFLOW_TYPE,
    REQUEST_INTEGRATION_SIGNAL,
    host_task_queue,
    job_workflow_id,
    outbox_workflow_id,
)
from desk.payloads.conversation.attempt_payloads import AttemptNews, AttemptState, attempt_specs
from desk.payloads.jobs import JobOutcome, ReasonKind
from desk.payloads.surfaces import ThreadProgress
from desk.records.narration import Narration
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.job_waits import scheduled_activities, status_until
from tests.helpers.repos import git
from tests.helpers.stand_ins.held_integrate import (
    INTEGRATING,
    LET_GO,
    hold_integrations,
    holding_integrations,
    real_but_integrate,
)
from tests.helpers.stand_ins.held_signal import (
    GATE,
    PATIENCE,
    WorkflowsOnTheirOwnThread,
    signal_carrying,
)
from tests.helpers.waiting import awaited
from workers.desk_handle import configure_desk

REPO = "acme/api"


@pytest.fixture
async def held_desk(
    client: Client, settings: DeskSettings, origin: Path
) -> AsyncIterator[DeskClient]:
    """A desk whose integrations last until LET_GO, and whose armed signal is held."""
    GATE.which = None
    hold_integrations()
    host_queue = host_task_queue(settings.task_queue, settings.host)
    async with (
        WorkflowsOnTheirOwnThread(
            # Integrations run on the host's queue, in the test's loop.
            settings,
            real_but_integrate(client, settings),
        ),
        Worker(client, task_queue=host_queue, activities=holding_integrations(client, settings)),
    ):
        await configure_desk(client, settings)
        desk = DeskClient(client, settings)
        await desk.add_repo(REPO, str(origin))
        try:
            yield desk
        finally:
            LET_GO.set()


async def cancel_met_the_message_in_flight(desk: DeskClient, number: int) -> bool:
    """Whether the job's history has its cancel while a signal it sent was unacknowledged."""
    handle = desk.client.get_workflow_handle(job_workflow_id(number))
    sent = acknowledged = 0
    async for event in handle.fetch_history_events():
        match event.event_type:
            case EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
                sent += 1
            case EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED:
                acknowledged += 1
            case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED:
                return sent > acknowledged
    raise AssertionError(f"job {number}'s history has no cancel")


async def cancelled_while_held(desk: DeskClient, place: SurfacePlace, what: str) -> int:
    """Submit a job to `place`, cancel it once the gate holds its task, and let the task go; the
    job's number.

    The held task may come before the desk's task that answers the submission, and that answer
    waits for the held worker: the cancel goes by the held workflow's id.
    """
    submitted = asyncio.create_task(
        desk.submit_job(REPO, "work", agent_command=agent("write:a.txt=1", "commit:a"), place=place)
    )
    assert await asyncio.to_thread(GATE.held.wait, PATIENCE), what
    # Not `desk.cancel`: its status query would wait for the held task. The server holds the
    # cancel once this returns.
    await desk.client.get_workflow_handle(GATE.held_by).cancel()
    GATE.send.set()
    admission = await awaited(submitted, "the submission's answer")
    assert GATE.held_by == job_workflow_id(admission.number), GATE.held_by
    return admission.number


async def test_a_cancel_while_the_integration_request_is_in_flight_withdraws_it(
    held_desk: DeskClient,
) -> None:
    desk = held_desk
    first = await desk.start_job(REPO, "first", agent_command=agent("write:a.txt=1", "commit:a"))
    await awaited(INTEGRATING.wait(), "the first job's integration")  # the entity is busy now
    GATE.arm(
        lambda sent: (
            isinstance(sent, SignalExternalWorkflowInput)
            and sent.signal == REQUEST_INTEGRATION_SIGNAL
        )
    )
    second = await desk.start_job(REPO, "second", agent_command=agent("write:b.txt=2", "commit:b"))
    assert await asyncio.to_thread(GATE.held.wait, PATIENCE), "it never asked to integrate"
    # Not `desk.cancel`: its status query would wait for the held task. The server holds the
    # cancel once this returns.
    await desk.client.get_workflow_handle(job_workflow_id(second)).cancel()
    GATE.send.set()

    report = await awaited(desk.wait(second), f"job {second}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    clone = clone_path(desk.settings, REPO)
    assert not (clone / "b.txt").exists(), "the cancelled job was integrated"
    assert await cancel_met_the_message_in_flight(desk, second)
    assert report.branch_kept and report.reason_kind == ReasonKind.INTEGRATION_WITHDRAWN, report
    assert git(clone, "branch", "--list", report.branch).strip(), "its branch is gone"

    LET_GO.set()
    assert (await awaited(desk.wait(first), f"job {first}'s report")).outcome == JobOutcome.NOTHING


async def test_a_cancel_while_the_thread_hears_the_agent_starts_keeps_the_agent_from_running(
    held_desk: DeskClient,
) -> None:
    desk = held_desk
    place = SurfacePlace(queue=f"no-surface-{uuid.uuid4().hex[:8]}", channel="thread-1")

    GATE.arm(
        signal_carrying(
            OUTBOX_ENQUEUE_SIGNAL,
            lambda item: isinstance(item, ThreadProgress) and item.narration == Narration.WORKING,
        )
    )
    number = await cancelled_while_held(desk, place, "the thread never heard of work")

    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    assert report.reason_kind == ReasonKind.CANCELLED_BEFORE_AGENT, report
    assert await cancel_met_the_message_in_flight(desk, number)
    assert "run_agent" not in await scheduled_activities(desk, number)
    assert not (clone_path(desk.settings, REPO) / "a.txt").exists()


async def test_a_cancel_while_the_thread_outbox_starts_leaves_the_outbox_running(
    held_desk: DeskClient,
) -> None:
    """The outbox is an entity that outlives the job: the job's cancel is not passed on to it."""
    desk = held_desk
    place = SurfacePlace(queue=f"no-surface-{uuid.uuid4().hex[:8]}", channel="thread-1")
    GATE.arm(
        lambda sent: (
            isinstance(sent, StartChildWorkflowInput) and sent.workflow == OUTBOX_WORKFLOW_TYPE
        )
    )
    number = await cancelled_while_held(desk, place, "the thread's outbox never started")

    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    job = desk.client.get_workflow_handle(job_workflow_id(number))
    started = [
        event.child_workflow_execution_started_event_attributes.workflow_execution.run_id
        async for event in job.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED
    ]
    assert started, "the job started no outbox"
    ident = outbox_workflow_id(place.queue, place.channel)
    outbox = desk.client.get_workflow_handle(ident, run_id=started[0])
    described = await outbox.describe()
    assert described.status == WorkflowExecutionStatus.RUNNING, described.status


async def test_a_cancel_while_an_attempt_tells_its_work_is_ready_ends_the_attempt(
    held_desk: DeskClient,
) -> None:
    """Several attempts (issue 48): an attempt cancelled while its "ready for the pick" news
    is in flight ends cancelled, and its job's comparison hears it ended. (A job picking the
    first passing check cancels the attempts still working: this one's news crossed that
    cancel, and it waited for a pick that never came.)"""
    desk = held_desk

    GATE.arm(
        signal_carrying(
            JOB_ATTEMPT_NEWS_SIGNAL,
            lambda news: isinstance(news, AttemptNews) and news.state == AttemptState.READY,
        )
    )
    specs = attempt_specs([("", agent("write:a.txt=1", "commit:a"))] * 2)
    number = (await desk.submit_job(REPO, "work", attempts=specs)).number
    assert await asyncio.to_thread(GATE.held.wait, PATIENCE), "no attempt told it was ready"
    # Not `desk.cancel`: its status query would wait for the held task.
    await desk.client.get_workflow_handle(GATE.held_by).cancel()
    GATE.send.set()
    cancelled = int(GATE.held_by.removeprefix("job-"))

    report = await awaited(desk.wait(cancelled), f"attempt job {cancelled}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    assert await cancel_met_the_message_in_flight(desk, cancelled)
    compared = await status_until(
        desk,
        number,
        lambda now: any(
            row.number == cancelled and row.state == AttemptState.ENDED
            for row in (now.attempts.rows if now.attempts else [])
        ),
        f"job {number}'s comparison hearing attempt {cancelled} ended",
    )
    assert compared.attempts is not None
    [row] = [row for row in compared.attempts.rows if row.number == cancelled]
    assert row.outcome == JobOutcome.CANCELLED, row
    await desk.client.get_workflow_handle(job_workflow_id(number)).cancel()
    assert (await awaited(desk.wait(number), f"job {number}'s report")).outcome == (
        JobOutcome.CANCELLED
    )
