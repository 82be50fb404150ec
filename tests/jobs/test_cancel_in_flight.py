"""A cancel that lands while one of the job's messages is in flight is still honoured.

The moment is made, not hoped for: the test's workflow interceptor holds the workflow task that
sends the message until the cancel is on the server, so the job hears the cancel while its
message is in flight. The SDK shields a signal in flight from the cancel of the task that
awaits it, and once the signal is sent its await returns as if nothing happened: a job that did
not look would go on to take an integration, or to run an agent, it was told to drop.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import (
    Interceptor,
    SignalExternalWorkflowInput,
    Worker,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)

from activities.paths import clone_path
from desk.config.settings import DeskSettings
from desk.holds.approvals import SurfacePlace
from desk.names import (
    OUTBOX_ENQUEUE_SIGNAL,
    REQUEST_INTEGRATION_SIGNAL,
    host_task_queue,
    job_workflow_id,
)
from desk.payloads.jobs import (
    JobOutcome,
    ReasonKind,
)
from desk.payloads.narration import Narration
from desk.payloads.surfaces import ThreadProgress
from surfaces.clients.desk import DeskClient
from tests.helpers.agents import agent
from tests.helpers.held_integrate import (
    INTEGRATING,
    LET_GO,
    hold_integrations,
    holding_integrations,
    real_but_integrate,
)
from tests.helpers.job_waits import scheduled_activities
from tests.helpers.repos import git
from tests.helpers.waiting import awaited
from workers.desk_entity import configure_desk
from workers.temporal.client import DATA_CONVERTER
from workers.worker import WORKFLOWS
from workers.workflow_runner import WORKFLOW_RUNNER

REPO = "acme/api"
PATIENCE = 60.0
"""Seconds a blocked side waits for the other before it gives up (a failing test, not a hang)."""

Held = Callable[[SignalExternalWorkflowInput], bool]


class _Gate:
    """Which signal the next held workflow task sends, and the two moments of its hold."""

    def __init__(self) -> None:
        self.which: Held | None = None
        self.held = threading.Event()
        """The held workflow task has reached the signal."""
        self.send = threading.Event()
        """The cancel is on the server: the held signal may go."""

    def arm(self, which: Held) -> None:
        self.held.clear()
        self.send.clear()
        self.which = which

    def holds(self, input: SignalExternalWorkflowInput) -> bool:
        """Whether this signal is the one armed for (then the gate is disarmed)."""
        if self.which is None or not self.which(input):
            return False
        self.which = None
        return True


GATE = _Gate()


class _HoldsTheSignal(WorkflowOutboundInterceptor):
    async def signal_external_workflow(self, input: SignalExternalWorkflowInput) -> None:
        if GATE.holds(input):
            GATE.held.set()
            GATE.send.wait(PATIENCE)  # blocks the workflow task, on its worker's own thread
        await super().signal_external_workflow(input)


class _Inbound(WorkflowInboundInterceptor):
    def init(self, outbound: WorkflowOutboundInterceptor) -> None:
        super().init(_HoldsTheSignal(outbound))


class HoldArmedSignal(Interceptor):
    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        return _Inbound


class _WorkflowsOnTheirOwnThread:
    """The desk's workflow worker, run with `debug_mode` on a thread and loop of its own.

    In debug mode the SDK runs each activation on the worker's loop and has no deadlock
    detector, so the held task blocks only this thread: the test's loop, which sends the cancel,
    and the host worker's activities go on.
    """

    def __init__(self, settings: DeskSettings) -> None:
        self.settings = settings
        self.ready = threading.Event()
        self.failure: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop: asyncio.Event | None = None
        self.thread = threading.Thread(target=self._run, name="held-workflows", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as error:  # reported by `__aenter__`, or by the test's end
            self.failure = error
            self.ready.set()

    async def _serve(self) -> None:
        self.loop, self.stop = asyncio.get_running_loop(), asyncio.Event()
        client = await Client.connect(
            self.settings.temporal_address,
            namespace=self.settings.namespace,
            data_converter=DATA_CONVERTER,
        )
        async with Worker(
            client,
            task_queue=self.settings.task_queue,
            workflows=list(WORKFLOWS),
            workflow_runner=WORKFLOW_RUNNER,
            # Integrations run on the host's queue, in the test's loop.
            activities=real_but_integrate(client, self.settings),
            interceptors=[HoldArmedSignal()],
            debug_mode=True,
        ):
            self.ready.set()
            await self.stop.wait()

    async def __aenter__(self) -> None:
        self.thread.start()
        assert await asyncio.to_thread(self.ready.wait, PATIENCE), "the worker never started"
        if self.failure is not None:
            raise self.failure

    async def __aexit__(self, *exc: object) -> None:
        GATE.send.set()
        if self.loop is not None and self.stop is not None:
            self.loop.call_soon_threadsafe(self.stop.set)
        await asyncio.to_thread(self.thread.join, PATIENCE)


@pytest.fixture
async def held_desk(
    client: Client, settings: DeskSettings, origin: Path
) -> AsyncIterator[DeskClient]:
    """A desk whose integrations last until LET_GO, and whose armed signal is held."""
    GATE.which = None
    hold_integrations()
    host_queue = host_task_queue(settings.task_queue, settings.host)
    async with (
        _WorkflowsOnTheirOwnThread(settings),
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


async def test_a_cancel_while_the_integration_request_is_in_flight_withdraws_it(
    held_desk: DeskClient,
) -> None:
    desk = held_desk
    first = await desk.start_job(REPO, "first", agent_command=agent("write:a.txt=1", "commit:a"))
    await awaited(INTEGRATING.wait(), "the first job's integration")  # the entity is busy now
    GATE.arm(lambda sent: sent.signal == REQUEST_INTEGRATION_SIGNAL)
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

    def working(sent: SignalExternalWorkflowInput) -> bool:
        item = sent.args[0] if sent.args else None
        return sent.signal == OUTBOX_ENQUEUE_SIGNAL and (
            isinstance(item, ThreadProgress) and item.narration == Narration.WORKING
        )

    GATE.arm(working)
    admission = await desk.submit_job(
        REPO, "work", agent_command=agent("write:a.txt=1", "commit:a"), place=place
    )
    assert await asyncio.to_thread(GATE.held.wait, PATIENCE), "the thread never heard of work"
    await desk.client.get_workflow_handle(job_workflow_id(admission.number)).cancel()
    GATE.send.set()

    report = await awaited(desk.wait(admission.number), f"job {admission.number}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    assert report.reason_kind == ReasonKind.CANCELLED_BEFORE_AGENT, report
    assert await cancel_met_the_message_in_flight(desk, admission.number)
    assert "run_agent" not in await scheduled_activities(desk, admission.number)
    assert not (clone_path(desk.settings, REPO) / "a.txt").exists()
