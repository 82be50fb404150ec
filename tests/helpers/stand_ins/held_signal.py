"""A workflow task held while it sends one chosen message, so a test can land a cancel then.

The moment is made, not hoped for: the interceptor blocks the workflow task that sends the armed
message (a signal, a child's start) until the test has put the cancel on the server. The
desk's workflows run in `WorkflowsOnTheirOwnThread`, so the held task blocks only that
worker's thread: the test's loop and any activity worker go on.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import (
    Interceptor,
    SignalExternalWorkflowInput,
    StartChildWorkflowInput,
    Worker,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)
from temporalio.workflow import ChildWorkflowHandle

from desk.config.settings import DeskSettings
from workers.temporal.client import DATA_CONVERTER
from workers.worker import WORKFLOWS
from workers.workflow_runner import WORKFLOW_RUNNER

PATIENCE = 60.0
"""Seconds a blocked side waits for the other before it gives up (a failing test, not a hang)."""

Message = SignalExternalWorkflowInput | StartChildWorkflowInput
"""What a held workflow task may be sending: a signal, or a child's start."""
Held = Callable[[Message], bool]


class _Gate:
    """Which message the next held workflow task sends, and the two moments of its hold."""

    def __init__(self) -> None:
        self.which: Held | None = None
        self.held = threading.Event()
        """The held workflow task has reached the message."""
        self.held_by = ""
        """The id of the workflow whose task is held."""
        self.send = threading.Event()
        """The cancel is on the server: the held message may go."""

    def arm(self, which: Held) -> None:
        self.held.clear()
        self.send.clear()
        self.which = which

    def holds(self, input: Message) -> bool:
        """Whether this message is the one armed for (then the gate is disarmed)."""
        if self.which is None or not self.which(input):
            return False
        self.which = None
        return True


GATE = _Gate()


def signal_carrying(signal: str, holds: Callable[[Any], bool]) -> Held:
    """The message to hold: signal `signal` whose first argument `holds`."""

    def which(sent: Message) -> bool:
        if not isinstance(sent, SignalExternalWorkflowInput) or sent.signal != signal:
            return False
        return holds(sent.args[0] if sent.args else None)

    return which


def _hold_if_armed(input: Message) -> None:
    if GATE.holds(input):
        GATE.held_by = workflow.info().workflow_id
        GATE.held.set()
        GATE.send.wait(PATIENCE)  # blocks the workflow task, on its worker's own thread


class _HoldsTheMessage(WorkflowOutboundInterceptor):
    async def signal_external_workflow(self, input: SignalExternalWorkflowInput) -> None:
        _hold_if_armed(input)
        await super().signal_external_workflow(input)

    async def start_child_workflow(
        self, input: StartChildWorkflowInput
    ) -> ChildWorkflowHandle[Any, Any]:
        _hold_if_armed(input)
        return await super().start_child_workflow(input)


class _Inbound(WorkflowInboundInterceptor):
    def init(self, outbound: WorkflowOutboundInterceptor) -> None:
        super().init(_HoldsTheMessage(outbound))


class HoldArmedMessage(Interceptor):
    """Holds the workflow task that sends the message the gate is armed for."""

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        return _Inbound


class WorkflowsOnTheirOwnThread:
    """The desk's workflow worker, run with `debug_mode` on a thread and loop of its own.

    In debug mode the SDK runs each activation on the worker's loop and has no deadlock
    detector, so the held task blocks only this thread: the test's loop, which sends the cancel,
    and the host worker's activities go on.
    """

    def __init__(
        self, settings: DeskSettings, activities: Sequence[Callable[..., Any]] = ()
    ) -> None:
        self.settings = settings
        self.activities = activities
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
            activities=self.activities,
            interceptors=[HoldArmedMessage()],
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
